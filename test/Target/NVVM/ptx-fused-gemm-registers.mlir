// The specialized form with the decoded weights in registers on sm_90a
// (128 x 1, 3 stages of 128 K elements): the block's first thread
// announces each stage's 32768 bytes (128 rows x 2 x 128 bytes) and starts
// its two tensor loads of 64 columns; each lane loads 16 bytes of codes
// and 8 bytes of scales of each of its two rows a step, the quad exchanges
// each row's codes (three butterfly shuffles), and after the stage's wait
// one fence orders the A fragments before the step's 8 instructions
// m64n128k16 with the A operand in registers and the activations'
// descriptor; the previous step's instructions are waited for (one group
// left in flight) before its stage is released. No local memory nor
// spills, in the registers of two blocks per multiprocessor (ptxas's
// report: at most 255 a thread, 201 now).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90a format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt128_w4_s1_c1_p3_wg_wsr(
// CHECK: .maxntid 128, 1, 1
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 32768;
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL:%r[0-9]+]]], [[BYTES]];
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL]]];
// CHECK: ld.global.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, [%rd{{[0-9]+}}];
// CHECK: ld.global.v2.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
// CHECK: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, -1;
// CHECK-NEXT: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2, 31, -1;
// CHECK-NEXT: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 3, 31, -1;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{(%r[0-9]+, ){63}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared::cta.b64 _, [%r{{[0-9]+}}];
// CHECK-NOT: .local
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
func.func @fused(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
      m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup specialized weights_in_registers
  return
}
