// The specialized form whose clusters of 2 blocks along N share each
// stage's activations (m_tile 128, one column tile, 4 stages), in PTX: the
// cluster's shape as kernel directives; the first thread sets up each
// stage's `full` for the 128 decoders and the load's announcement and its
// `empty` for one arrival per multiplying warpgroup of the cluster (2),
// fences the set-ups for the tensor copies and for the cluster, and the
// whole cluster passes a barrier before any block arrives at another's
// barrier objects or copies into its memory. The multiplying warpgroup
// releases a stage at the `empty` of each block of the cluster (mapa, then
// an arrival with cluster-scope release); the first decoder announces the
// whole tile's 16384 bytes on its own `full` and copies its block's half
// (the tensor map's box is 64 rows) to both blocks (mask 3). The cluster
// passes a second barrier before its blocks exit. No local memory and no
// spills (ptxas's report).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90a format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt128_w4_s1_c1_p4_wg_ws_x2(
// CHECK: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 1, 2, 1
// CHECK-DAG: mov.b32 [[FULL:%r[0-9]+]], 129;
// CHECK-DAG: mov.b32 [[EMPTY:%r[0-9]+]], 2;
// CHECK: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], [[FULL]];
// CHECK: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], [[EMPTY]];
// CHECK: fence.proxy.async.shared::cta;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.y;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mapa.shared::cluster.u32 peer, %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-NEXT: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [peer];
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 16384;
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r{{[0-9]+}}], [[BYTES]];
// CHECK: mov.b16 [[MASK:%rs[0-9]+]], 3;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}], [[MASK]];
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: ret;
// CHECK-NOT: .local
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
func.func @fused(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
      m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized multicast = 2
  return
}
