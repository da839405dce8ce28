// RUN: qmat-opt %s --qmat-configure-kernels=target=sm_90a --qmat-lower-gemv-to-gpu=target=sm_90a -canonicalize -cse | FileCheck %s --enable-var-scope

// The specialized form in clusters of 2 blocks along N that share the
// activations (m_tile 64, one column tile; N = 192: 3 blocks of 64 rows).
// The launch rounds its y dimension up to whole clusters (4 blocks) and
// takes A's tensor map with tiles of 32 rows (each block its half); the
// kernel runs in clusters of 1 x 2 x 1. The first thread sets up `full`
// for the 128 decoders and the announcement and `empty` for one arrival
// per multiplying warpgroup of the cluster (2), fences them for the tensor
// loads and for the cluster, and the whole cluster passes a barrier; the
// block's rank in its cluster is its y coordinate modulo 2. The first x
// threads of the multiplying warpgroup (x = 2) release each stage at the
// `empty` of block x of the cluster. The first decoder announces the whole
// tile (64 rows x 128 bytes) and loads rank x 32 rows further, 32 x 64
// elements further into the stage, for both blocks (mask 3). A last
// cluster barrier follows both roles.
// CHECK-LABEL: func.func @multicast(
// CHECK: %[[MAP:.+]] = qmat.tensor_map %[[A:.+]] box [64, 32] : memref<?x512xbf16, strided<[512, 1], offset: ?>>
// CHECK: gpu.launch_func  @qmat_kernels::@fused_nvfp4_bs16_k512_bf16_magic_bias_mt64_w4_s1_c1_p4_wg_ws_x2 blocks in (%{{.+}}, %c4, %c1)
// CHECK: gpu.func @fused_nvfp4_bs16_k512_bf16_magic_bias_mt64_w4_s1_c1_p4_wg_ws_x2({{.+}}) kernel attributes {{{.*}}nvvm.cluster_dim = array<i32: 1, 2, 1>
// CHECK: qmat.mbarrier_init %[[BARS:.+]][%c0], 129
// CHECK-NEXT: qmat.mbarrier_init %[[BARS]][%c4], 2
// CHECK-COUNT-6: qmat.mbarrier_init
// CHECK-NEXT: qmat.async_proxy_fence
// CHECK-NEXT: qmat.mbarrier_init_fence
// CHECK-NEXT: }
// CHECK-NEXT: %[[Y:.+]] = gpu.block_id  y
// CHECK-NEXT: %[[RANK:.+]] = arith.remui %[[Y]], %c2 : index
// CHECK-NEXT: qmat.cluster_barrier
// CHECK: %[[RELEASES:.+]] = arith.cmpi ult, %[[GROUP_THREAD:.+]], %c2 : index
// CHECK-NEXT: scf.if %[[RELEASES]] {
// CHECK-NEXT: qmat.mbarrier_arrive_cluster %[[BARS]][%{{.+}}] rank %[[GROUP_THREAD]]
// CHECK: qmat.mbarrier_arrive %[[BARS]][%{{.+}}] expect 8192
// CHECK: %[[SHARE:.+]] = arith.muli %[[RANK]], %c32 : index
// CHECK-NEXT: %[[ROWS:.+]] = arith.addi %[[FIRST_M:.+]], %[[SHARE]] : index
// CHECK-NEXT: %[[AT:.+]] = arith.muli %[[RANK]], %c2048 : index
// CHECK: qmat.tensor_load %{{.+}}[%{{.+}}, %[[ROWS]]] box [64, 32] multicast 3, %{{.+}}[%{{.+}}], %[[BARS]][%{{.+}}]
// CHECK: qmat.cluster_barrier
// CHECK-NEXT: gpu.return
func.func @multicast(%a: memref<?x512xbf16>, %w: memref<192x256xi8>, %s: memref<192x32xf8E4M3FN>,
                     %g: memref<f32>, %y: memref<?x192xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xbf16>, memref<192x256xi8>, memref<192x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x192xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized multicast = 2
  return
}
