// The specialized fused GEMM with the weights as the warpgroup
// instruction's B operand on sm_90a (m_tile 128, 9 column tiles: 144 weight
// rows per block): each multiplying warpgroup issues four
// wgmma.mma_async m64n144k16 per stage, the activations' descriptor first
// (A, 64 tokens) and the decoded weights' second (B, N = 144), both K-major
// (transpose flags 0); 72 accumulators per lane. The decoders load each
// row's scales of a trip at once (16 bytes: ld.global.v4.b32) and no
// scale alone (no 16-bit loads). 512 threads, no local memory.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90a format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt128_w1_s1_c9_p4_wg_wsb(
// CHECK: .maxntid 512, 1, 1
// CHECK-COUNT-8: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16 {{{(%r[0-9]+, ){71}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: ld.global.v4.b32
// CHECK-NOT: ld.global.b16
// CHECK-NOT: ld.global.u16
// CHECK-NOT: .local

// NOSPILL: Compiling entry function 'fused_nvfp4_bs16_k5120_bf16_magic_bias_mt128_w1_s1_c9_p4_wg_wsb'
// NOSPILL-NEXT: Function properties for fused_nvfp4_bs16_k5120_bf16_magic_bias_mt128_w1_s1_c9_p4_wg_wsb
// NOSPILL-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @weights_as_b(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b
      config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = magic_bias>
  return
}
