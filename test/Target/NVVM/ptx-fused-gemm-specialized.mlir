// The fused dequant-GEMM's specialized warpgroup form on sm_90a (m_tile 64,
// one column tile, 4 stages: 256 threads). A's tensor map is the kernel's
// last parameter, 128 bytes aligned to 64, read in place (its generic
// address through cvta.param). The first thread sets up the 8 barrier
// objects and fences them for the tensor loads before the block's barrier.
// The multiplying warpgroup waits for its stage's `full` (a try-wait loop
// on the round's parity), issues four wgmma.mma_async m64n64k16 with both
// operands through descriptors (the A and B transpose flags 0: both
// K-major), commits them, waits for all but that batch and arrives at the
// stage before's `empty`. The first decoder announces and starts the
// tensor loads of two stages of activations ahead (cp.async.bulk.tensor.2d
// on this block's memory, 8 KB apart, completing on the stage's barrier);
// every decoder loads the codes and scales of two iterations, and per
// iteration: decodes (the packed fp4 decode: e4m3 scale pairs converted at
// once), stores 4 x 16 bytes of weights after the activations' 32 KB,
// loads the codes two iterations ahead into the registers it decoded (the
// loop's two halves each reload their own set, so no loaded register is
// moved), fences the async proxy and arrives at the stage's `full`; then
// waits for the `empty` of the stage it refills, and the first decoder
// loads its activations. No thread copies activations itself (no
// cp.async.cg), and no local memory (ptxas's report).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90a format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4_wg_ws(
// CHECK: .param .align 64 .b8 [[MAP:fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4_wg_ws_param_31]][128]
// CHECK-NEXT: )
// CHECK-COUNT-8: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 	0;
// CHECK: retry:
// CHECK-NEXT: mbarrier.try_wait.parity.shared::cta.b64 done, [%r{{[0-9]+}}], %r{{[0-9]+}};
// CHECK-NEXT: @!done bra retry;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared::cta.b64 _, [%r{{[0-9]+}}];
// CHECK: mov.b64 	[[MAP_PARAM:%rd[0-9]+]], [[MAP]];
// CHECK: cvta.param.u64 	[[MAP_ADDRESS:%rd[0-9]+]], [[MAP_PARAM]];
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[BAR0:%r[0-9]+]]], [[BYTES:%r[0-9]+]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [[[MAP_ADDRESS]], {%r{{[0-9]+}}, [[FIRST_M:%r[0-9]+]]}], [[[BAR0]]];
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[BAR1:%r[0-9]+]]], [[BYTES]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [[[MAP_ADDRESS]], {%r{{[0-9]+}}, [[FIRST_M]]}], [[[BAR1]]];
// CHECK: ld.global.v4.b32 	{[[EVEN:(%r[0-9]+, ){3}%r[0-9]+]]}, [%rd{{[0-9]+}}];
// CHECK: ld.global.v4.b32 	{[[ODD:(%r[0-9]+, ){3}%r[0-9]+]]}, [%rd{{[0-9]+}}+32];
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK-COUNT-4: st.shared.v4.b32 	[%rd{{[0-9]+}}+32768], {{{(%r[0-9]+, ){3}%r[0-9]+}}};
// CHECK: ld.global.v4.b32 	{[[EVEN]]}, [%rd{{[0-9]+}}];
// CHECK: fence.proxy.async.shared::cta;
// CHECK: mbarrier.arrive.shared::cta.b64 _, [%r{{[0-9]+}}];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 done, [%r{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [[[MAP_ADDRESS]], {%r{{[0-9]+}}, [[FIRST_M]]}]
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK-COUNT-4: st.shared.v4.b32 	[%rd{{[0-9]+}}+40960], {{{(%r[0-9]+, ){3}%r[0-9]+}}};
// CHECK: ld.global.v4.b32 	{[[ODD]]}, [%rd{{[0-9]+}}];
// CHECK: fence.proxy.async.shared::cta;
// CHECK: mbarrier.arrive.shared::cta.b64 _, [%r{{[0-9]+}}];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 done, [%r{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: cp.async.bulk.tensor.2d
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: cp.async.cg

// m_tile 256 (the widest instruction, 128 accumulators per multiplying
// lane): tiles of 256 activation rows, four m64n256k16 per stage, no local
// memory either.
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt256_w4_s1_c1_p4_wg_ws(
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{{(%r[0-9]+, ){127}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// NOSPILL: Compiling entry function 'fused_nvfp4_bs16_k5120_bf16_magic_bias_mt256_w4_s1_c1_p4_wg_ws'
// NOSPILL-NEXT: Function properties for fused_nvfp4_bs16_k5120_bf16_magic_bias_mt256_w4_s1_c1_p4_wg_ws
// NOSPILL-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// NOSPILL: Compiling entry function 'fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4_wg_ws'
// NOSPILL-NEXT: Function properties for fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4_wg_ws
// NOSPILL-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @specialized(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized
      config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = magic_bias>
  return
}

func.func @specialized_wide(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                            %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized
      config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = magic_bias>
  return
}
