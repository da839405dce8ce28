// The fused dequant-GEMM's specialized warpgroup form on sm_90a (m_tile 64,
// one column tile, 4 stages: 256 threads). The multiplying warpgroup waits
// at a numbered barrier for its stage (bar.sync with the block's 256
// threads), issues four wgmma.mma_async m64n64k16 with both operands through
// descriptors (the A and B transpose flags 0: both K-major), commits them,
// waits for all but that batch and marks the stage before empty
// (bar.arrive). The decoding warpgroup copies two stages of activations
// ahead (one group each, 8 KB apart), loads the codes and scales of two
// iterations, and per iteration: decodes (the packed fp4 decode: e4m3
// scale pairs converted at once), stores 4 x 16 bytes of weights after the
// activations' 32 KB, loads the codes two iterations ahead into the
// registers it decoded (the loop's two halves each reload their own set, so
// no loaded register is moved), waits for its stage's copies (all but the
// newest group), fences the async proxy and marks the stage full
// (bar.arrive); then waits for the stage it refills (bar.sync) and copies
// its activations (the copies of the loop's last half lead its block). No
// local memory (ptxas's report).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90a format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4_wg_ws(
// CHECK: bar.sync 	%r{{[0-9]+}}, 256;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: bar.arrive %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}+8192], [%rd{{[0-9]+}}+128], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK: ld.global.v4.b32 	{[[EVEN:(%r[0-9]+, ){3}%r[0-9]+]]}, [%rd{{[0-9]+}}];
// CHECK: ld.global.v4.b32 	{[[ODD:(%r[0-9]+, ){3}%r[0-9]+]]}, [%rd{{[0-9]+}}+32];
// CHECK-COUNT-4: cp.async.cg.shared.global
// CHECK: cp.async.commit_group;
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK-COUNT-4: st.shared.v4.b32 	[%rd{{[0-9]+}}+{{[0-9]+}}], {{{(%r[0-9]+, ){3}%r[0-9]+}}};
// CHECK: ld.global.v4.b32 	{[[EVEN]]}, [%rd{{[0-9]+}}];
// CHECK: cp.async.wait_group 	1;
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.arrive %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: bar.sync 	%r{{[0-9]+}}, 256;
// CHECK-COUNT-4: cp.async.cg.shared.global
// CHECK: cp.async.commit_group;
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK-COUNT-4: st.shared.v4.b32 	[%rd{{[0-9]+}}+{{[0-9]+}}], {{{(%r[0-9]+, ){3}%r[0-9]+}}};
// CHECK: ld.global.v4.b32 	{[[ODD]]}, [%rd{{[0-9]+}}];
// CHECK: cp.async.wait_group 	1;
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.arrive %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: bar.sync 	%r{{[0-9]+}}, 256;
// CHECK: wgmma.wait_group.sync.aligned 0;

// NOSPILL: fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4_wg_ws
// NOSPILL: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @specialized(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized
      config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = magic_bias>
  return
}
