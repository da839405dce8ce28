// RUN: qmat-opt %s --qmat-configure-kernels=target=sm_90a --qmat-lower-gemv-to-gpu=target=sm_90a | FileCheck %s --enable-var-scope

// The fused GEMM's warpgroup form (sm_90a): each K step, the four lanes of
// a quad exchange every weight row's codes (three shuffles per row) into
// the warpgroup instruction's K order, then one tile decode takes them with
// one scale per pair (16 per row: the scales of the row's 16 words, each
// block's repeated), and its pairs feed the fence before the instructions.
// CHECK-LABEL: gpu.func @fused_nvfp4_bs16_k256_bf16_magic_bias_mt64_w4_s1_c1_p3_wg(
// CHECK: scf.for
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK: %[[ROW0:.+]] = vector.bitcast %{{.+}} : vector<4xi32> to vector<16xi8>
// CHECK-NOT: qmat.decode_tile
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK: %[[ROW1:.+]] = vector.bitcast %{{.+}} : vector<4xi32> to vector<16xi8>
// CHECK-NEXT: %[[TILE:.+]] = qmat.decode_tile <nvfp4, block = 16> %[[ROW0]], %[[ROW1]] scales %[[S0:[0-9a-z_#]+]], %[[S0]], %[[S1:[0-9a-z_#]+]], %[[S1]], %[[S2:[0-9a-z_#]+]], %[[S2]], %{{.+}} : vector<16xi8>, f8E4M3FN -> vector<2x16x2xbf16>
// CHECK-NEXT: %[[TOP0:.+]] = vector.extract %[[TILE]][0, 0] : vector<2xbf16> from vector<2x16x2xbf16>
// CHECK-NEXT: %[[TOP1:.+]] = vector.extract %[[TILE]][0, 1] : vector<2xbf16> from vector<2x16x2xbf16>
// CHECK: %[[BOTTOM0:.+]] = vector.extract %[[TILE]][1, 0] : vector<2xbf16> from vector<2x16x2xbf16>
// CHECK-NEXT: %[[BOTTOM1:.+]] = vector.extract %[[TILE]][1, 1] : vector<2xbf16> from vector<2x16x2xbf16>
// CHECK: qmat.warpgroup_fence %[[TOP0]], %[[BOTTOM0]], %[[TOP1]], %[[BOTTOM1]],
func.func @warpgroup(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                     %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup
  return
}
