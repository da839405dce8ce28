// RUN: qmat-opt %s --qmat-configure-kernels=target=sm_90 --qmat-lower-gemv-to-gpu=target=sm_90 | FileCheck %s --enable-var-scope
// RUN: not qmat-opt %s --qmat-configure-kernels=target=gfx942 --qmat-lower-gemv-to-gpu=target=gfx942 2>&1 | FileCheck %s --check-prefix=GFX

// A tile's K range split across the 2 blocks of a cluster: the launch's z
// dimension holds them and the kernel asks for clusters of 1 x 1 x 2; each
// block's first K step is its z coordinate times 4 (8 steps of 128, 4 per
// block, 2 iterations of split_k 2); after the loop the lanes' sums (16
// per thread, 4 vectors) go through qmat.reduce_k_slices over the f32 view
// of the workgroup memory, then, in block 0 only, the split-K reduction
// and the epilogue's store.
// CHECK-LABEL: func.func @sliced(
// CHECK: gpu.launch_func  @qmat_kernels::@fused_nvfp4_bs16_k1024_bf16_magic_bias_mt16_w1_s2_c2_p2_k2 blocks in (%{{.+}}, %{{.+}}, %c2) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @fused_nvfp4_bs16_k1024_bf16_magic_bias_mt16_w1_s2_c2_p2_k2({{.*}}) workgroup(%{{.+}} : memref<16384xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 64, 1, 1>, nvvm.cluster_dim = array<i32: 1, 1, 2>}
// CHECK: %[[PARTIALS:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<16384xi8, #gpu.address_space<workgroup>> to memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: %[[SLICE:.+]] = gpu.block_id  z
// CHECK-NEXT: %[[STEPS:.+]] = arith.constant 4 : index
// CHECK-NEXT: %{{.+}} = arith.muli %[[SLICE]], %[[STEPS]] : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %c2{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}}
// CHECK: %{{.+}}:4 = qmat.reduce_k_slices %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} through %[[PARTIALS]] rank %[[SLICE]] slices 2 thread %{{.+}} of 64 : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32> through memref<4096xf32, #gpu.address_space<workgroup>> -> vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[SLICE]], %{{.+}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: qmat.reduce_split_k {{.*}} through %[[PARTIALS]] warp %{{.+}} slices 2 columns 1 lane %{{.+}} of 32 fenced
// CHECK: qmat.store_tile
// GFX: error: 'qmat.fused_gemm' op k_slices = 2 needs thread-block clusters, which gfx942 lacks
func.func @sliced(%a: memref<?x1024xbf16>, %w: memref<128x512xi8>, %s: memref<128x64xf8E4M3FN>,
                  %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x512xi8>, memref<128x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      m_tile = 16 warps_n = 1 split_k = 2 col_tiles = 2 stages = 2 k_slices = 2
  return
}
