// The fused dispatch of qmat-expand-gemv: M above gemv_max_m up to
// fused_max_m switches over the compiled qmat.fused_gemm variants.
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv="split-k=4 col-tiles=1 fused-variants=16,4,1,2,1,32,2,2,1,3" | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv | FileCheck %s --check-prefix=DEFAULT
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-variants=16,4,1,2" 2>&1 | FileCheck %s --check-prefix=FOUR
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-variants=16,8,4,1,1" 2>&1 | FileCheck %s --check-prefix=ILLEGAL

// FOUR: error: 'qmat.matmul' op fused-variants takes (m_tile, warps_n, split_k, col_tiles, stages) quintuples, got 4 numbers
// ILLEGAL: error: 'qmat.matmul' op fused variant (m_tile = 16, warps_n = 8, split_k = 4, col_tiles = 1, stages = 1) is not a legal qmat.fused_gemm tiling
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv="fused-variants=16,4,1,2,1 fused-warpgroup-variants=64,8,1,2,16,4,1,1" | FileCheck %s --check-prefix=GROUP
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-warpgroup-variants=64,8,1" 2>&1 | FileCheck %s --check-prefix=GROUP-THREE
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-variants=32,4,1,2,4 fused-warpgroup-variants=32,4,1,2" 2>&1 | FileCheck %s --check-prefix=GROUP-TWICE
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-warpgroup-variants=64,2,1,1" 2>&1 | FileCheck %s --check-prefix=GROUP-ILLEGAL
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-warpgroup-variants=128,8,2,1" 2>&1 | FileCheck %s --check-prefix=GROUP-SHARED
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-warpgroup-variants=32,4,4,2" 2>&1 | FileCheck %s --check-prefix=GROUP-CODES
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-warpgroup-variants=128,8,1,1" 2>&1 | FileCheck %s --check-prefix=GROUP-STAGES
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-warpgroup-variants=16,4,1,4" 2>&1 | FileCheck %s --check-prefix=GROUP-TILES

// GROUP-THREE: error: 'qmat.matmul' op fused-warpgroup-variants takes (m_tile, warps_n, split_k, col_tiles) quadruples, got 3 numbers
// GROUP-TWICE: error: 'qmat.matmul' op fused variant (m_tile = 32, warps_n = 4, split_k = 1, col_tiles = 2, stages = 4) is listed both as a warp and as a warpgroup tiling
// GROUP-ILLEGAL: error: 'qmat.matmul' op fused warpgroup variant (m_tile = 64, warps_n = 2, split_k = 1, col_tiles = 1, stages = 4) is not a legal qmat.fused_gemm tiling
// GROUP-TILES: error: 'qmat.matmul' op fused warpgroup variant (m_tile = 16, warps_n = 4, split_k = 1, col_tiles = 4, stages = 4) is not a legal qmat.fused_gemm tiling
// Three stages (the fewest a warpgroup tiling takes) of 128 x 8 x 2 x 1 hold
// 3 x (64 KB of activations + 16 KB of codes); of 32 x 4 x 4 x 2,
// 3 x (32 KB + 32 KB), though the activations alone (96 KB) and the split-K
// sums (64 KB) would fit; of 128 x 8 x 1 x 1, 3 x (32 KB + 8 KB), though two
// stages would fit.
// GROUP-SHARED: error: 'qmat.matmul' op fused warpgroup variant (m_tile = 128, warps_n = 8, split_k = 2, col_tiles = 1) needs 245760 bytes of workgroup memory for three stages, more than the 114688 a warpgroup block may have
// GROUP-CODES: error: 'qmat.matmul' op fused warpgroup variant (m_tile = 32, warps_n = 4, split_k = 4, col_tiles = 2) needs 196608 bytes of workgroup memory for three stages, more than the 114688 a warpgroup block may have
// GROUP-STAGES: error: 'qmat.matmul' op fused warpgroup variant (m_tile = 128, warps_n = 8, split_k = 1, col_tiles = 1) needs 122880 bytes of workgroup memory for three stages, more than the 114688 a warpgroup block may have

// The warpgroup tilings follow the warp ones, each with the most stages
// (3 or 4) whose activations and codes fit in 112 KB: 64 x 8 x 1 x 2 takes
// 16 KB of activations and 16 KB of codes a stage (3 stages), 16 x 4 x 1 x 1
// 4 KB and 4 KB (4).
// GROUP-LABEL: func.func @gemv_then_fused(
// GROUP: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// GROUP: case 1 {
// GROUP-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 8 split_k = 1 col_tiles = 2 stages = 3 warpgroup{{$}}
// GROUP: case 2 {
// GROUP-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup{{$}}
// GROUP-NOT: case 3

// The GEMV's else side holds the second dispatch, on its own index
// argument; the prefill matmul is left for M above fused_max_m.
// CHECK-LABEL: func.func @gemv_then_fused(
// CHECK-SAME: %[[Y:[a-z0-9_]+]]: memref<?x48xbf16>, %[[V:[a-z0-9_]+]]: index {qmat.gemv_variant}, %[[F:[a-z0-9_]+]]: index {qmat.fused_variant})
// CHECK: %[[M:.+]] = memref.dim %[[Y]], %{{.+}} : memref<?x48xbf16>
// CHECK: %[[GEMV_MAX:.+]] = arith.constant 8 : index
// CHECK: %[[SMALL:.+]] = arith.cmpi ule, %[[M]], %[[GEMV_MAX]] : index
// CHECK: scf.if %[[SMALL]] {
// CHECK-NEXT: scf.index_switch %[[V]]
// CHECK: } else {
// CHECK-NEXT: %[[FUSED_MAX:.+]] = arith.constant 1024 : index
// CHECK-NEXT: %[[MID:.+]] = arith.cmpi ule, %[[M]], %[[FUSED_MAX]] : index
// CHECK-NEXT: scf.if %[[MID]] {
// CHECK-NEXT: scf.index_switch %[[F]]
// CHECK-NEXT: case 0 {
// CHECK-NEXT: qmat.fused_gemm <nvfp4, block = 16> {{.*}} global_scale({{.*}}) outs(%[[Y]] : memref<?x48xbf16>) m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK: case 1 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 1 stages = 3{{$}}
// CHECK: default {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 1 stages = 3{{$}}
// CHECK: } else {
// CHECK-NEXT: qmat.matmul <nvfp4, block = 16> {{.*}} {plan = #qmat.plan<{{.*}}>}{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// The built-in set for K = 256 (two steps): its six tilings but the two of
// split-K 4, which needs a multiple of four steps.
// DEFAULT-LABEL: func.func @gemv_then_fused(
// DEFAULT: arith.constant 1024 : index
// DEFAULT: case 0 {
// DEFAULT-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2{{$}}
// DEFAULT: case 1 {
// DEFAULT-NEXT: qmat.fused_gemm {{.*}} m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2{{$}}
// DEFAULT: case 2 {
// DEFAULT-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 2 stages = 2{{$}}
// DEFAULT: case 3 {
// DEFAULT-NEXT: qmat.fused_gemm {{.*}} m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 1 stages = 2{{$}}
// DEFAULT-NOT: case 4
func.func @gemv_then_fused(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x16xf8E4M3FN>,
                           %g: memref<f32>, %y: memref<?x48xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48, fused_max_m = 1024>}
  return
}

// -----

// No GEMV (gemv_max_m = 0): the fused dispatch is the outer one; splits
// that do not divide K's steps (K = 384: three) are left out.
// CHECK-LABEL: func.func @fused_only(
// CHECK-SAME: %[[Y:[a-z0-9_]+]]: memref<?x48xbf16>, %[[F:[a-z0-9_]+]]: index {qmat.fused_variant})
// CHECK: arith.constant 512 : index
// CHECK: scf.index_switch %[[F]]
// CHECK-NEXT: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK-NOT: case 1
// CHECK: default {
func.func @fused_only(%a: memref<?x384xbf16>, %w: memref<48x192xi8>, %s: memref<48x24xf8E4M3FN>,
                      %g: memref<f32>, %y: memref<?x48xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x384xbf16>, memref<48x192xi8>, memref<48x24xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 0, small_m = prefill, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48, fused_max_m = 512>}
  return
}
