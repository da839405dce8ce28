// The specialized form's 192-row M tile on sm_90a: each K16 step one
// wgmma.mma_async m64n192k16 per stage's four (96 accumulators a lane),
// the tensor map's tile announced as 192 rows x 128 bytes (24576 bytes),
// and no local memory nor spills (ptxas's report).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90a format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt192_w4_s1_c1_p4_wg_ws(
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {{{(%r[0-9]+, ){95}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 24576;
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r{{[0-9]+}}], [[BYTES]];
// CHECK-NOT: .local
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
func.func @fused(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
      m_tile = 192 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized
  return
}
