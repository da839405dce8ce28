// qmat-expand-gemv's fused tilings on AMD (64-lane wavefronts, no
// asynchronous copies to LDS): the default set is the six default tilings
// with one stage each; a listed tiling of more stages, or of more than 512
// threads, is refused with its rule.
// RUN: qmat-opt %s --qmat-expand-gemv | FileCheck %s
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-variants=16,2,2,2,2" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-warpgroup-variants=64,4,1,1" 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-variants=16,8,2,1,1" 2>&1 | FileCheck %s --check-prefix=THREADS

// STAGES: error: 'qmat.matmul' op fused variant (m_tile = 16, warps_n = 2, split_k = 2, col_tiles = 2) has stages = 2, which needs asynchronous copies to workgroup memory; gfx942 has none (stages = 1)
// GROUP: error: 'qmat.matmul' op fused warpgroup variant (m_tile = 64, warps_n = 4, split_k = 1, col_tiles = 1) has stages = 4, which needs asynchronous copies to workgroup memory; gfx942 has none (stages = 1)
// THREADS: error: 'qmat.matmul' op fused variant (m_tile = 16, warps_n = 8, split_k = 2, col_tiles = 1) needs 1024 threads per block on gfx942 (64-lane warps), more than the 512 a fused block may take

// CHECK-LABEL: func.func @layer(
// CHECK: } else {
// CHECK: scf.index_switch
// CHECK-NEXT: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 1 split_k = 4 col_tiles = 2{{$}}
// CHECK: case 1 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 2 split_k = 2 col_tiles = 2{{$}}
// CHECK: case 2 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2{{$}}
// CHECK: case 3 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK: case 4 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 1 split_k = 4 col_tiles = 1{{$}}
// CHECK: case 5 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 1{{$}}
// CHECK-NOT: case 6
// CHECK-NOT: stages =

func.func @layer(%a: memref<?x512xbf16>, %w: memref<256x256xi8>, %s: memref<256x32xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x256xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xbf16>, memref<256x256xi8>, memref<256x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x256xbf16>)
      {plan = #qmat.plan<target = <gfx942>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 256, fused_max_m = 128>}
  return
}
