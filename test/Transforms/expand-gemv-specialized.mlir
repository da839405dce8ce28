// qmat-expand-gemv's specialized warpgroup tilings: (m_tile, col_tiles)
// pairs after the warp and warpgroup ones, each with warps_n = 4, split_k = 1
// and the most stages (3 or 4) that fit in 227 KB; an fp8 layer (the
// decode through fp32) takes none. Each rule that refuses a list is checked
// with its message.
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv="fused-variants=16,4,1,2,1 fused-specialized-variants=128,2,64,1,256,1,256,2" | FileCheck %s
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-specialized-variants=128" 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-specialized-variants=128,4" 2>&1 | FileCheck %s --check-prefix=ILLEGAL
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-variants=32,4,1,1,4 fused-specialized-variants=32,1" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv="fused-variants=16,4,1,2,1 fused-specialized-b-variants=128,16,64,3" | FileCheck %s --check-prefix=WSB
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-specialized-b-variants=256,9" 2>&1 | FileCheck %s --check-prefix=WSB-ILLEGAL
// RUN: not qmat-opt %s --qmat-expand-gemv="fused-specialized-b-variants=64,9,128" 2>&1 | FileCheck %s --check-prefix=WSB-ODD
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv="fused-variants=16,4,1,2,1 fused-specialized-b-variants=64,9 fused-decoder-variants=64,9,1,3,128,1,0,2" | FileCheck %s --check-prefix=DEC

// ODD: error: 'qmat.matmul' op fused-specialized-variants takes (m_tile, col_tiles) pairs, got 1 numbers
// ILLEGAL: error: 'qmat.matmul' op fused specialized variant (m_tile = 128, col_tiles = 4) is not a legal qmat.fused_gemm tiling (m_tile one of 16, 32, 64, 128, 192, 256, col_tiles 1 or 2)
// TWICE: error: 'qmat.matmul' op fused specialized variant (m_tile = 32, col_tiles = 1) has the tiling of a listed warp or warpgroup variant (warps_n = 4, split_k = 1, stages = 4)
// WSB-ILLEGAL: error: 'qmat.matmul' op fused specialized variant (m_tile = 256, col_tiles = 9) is not a legal qmat.fused_gemm tiling (with the weights as B: m_tile 64 or 128, col_tiles 1 to 16)
// WSB-ODD: error: 'qmat.matmul' op fused-specialized-b-variants takes (m_tile, col_tiles) pairs, got 3 numbers

// A list of tilings with the weights as B (warps_n = 1) replaces the
// defaults of both forms: 128 x 16 takes 4 stages of 48 KB (128 activation
// rows, 256 weight rows), 64 x 3 4 stages of 14 KB.
// WSB-LABEL: func.func @nvfp4(
// WSB: case 1 {
// WSB-NEXT: qmat.fused_gemm {{.*}} m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 16 stages = 4 warpgroup specialized weights_as_b{{$}}
// WSB: case 2 {
// WSB-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 3 stages = 4 warpgroup specialized weights_as_b{{$}}
// WSB-NOT: case 3
// WSB-LABEL: func.func @fp8(
// WSB-NOT: weights_as_b

// A tiling with its own decoder count follows the listed ones: three
// decoding warpgroups take 5 stages (stages - 2 a multiple of them), two
// for 128 x 1 4, as the default's one.
// DEC-LABEL: func.func @nvfp4(
// DEC: case 1 {
// DEC-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b{{$}}
// DEC: case 2 {
// DEC-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 5 warpgroup specialized weights_as_b decoders = 3{{$}}
// DEC: case 3 {
// DEC-NEXT: qmat.fused_gemm {{.*}} m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized decoders = 2{{$}}
// DEC-NOT: case 4
// DEC-LABEL: func.func @fp8(
// DEC-NOT: decoders

// 128 x 2 takes 4 stages of 32 KB (16 KB of decoded weights, 16 KB of
// activations), 64 x 1 4 stages of 16 KB, 256 x 1 4 stages of 40 KB,
// 256 x 2 4 stages of 48 KB.
// CHECK-LABEL: func.func @nvfp4(
// CHECK: scf.index_switch
// CHECK-NEXT: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK: case 1 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized{{$}}
// CHECK: case 2 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized{{$}}
// CHECK: case 3 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized{{$}}
// CHECK: case 4 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized{{$}}
// CHECK-NOT: case 5
func.func @nvfp4(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 1024>}
  return
}

// -----

// CHECK-LABEL: func.func @fp8(
// CHECK: scf.index_switch
// CHECK-NEXT: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK-NOT: specialized
func.func @fp8(%a: memref<?x256xbf16>, %w: memref<128x256xf8E4M3FN>, %s: memref<128x2xf32>,
               %y: memref<?x128xbf16>) {
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x256xf8E4M3FN>, memref<128x2xf32>)
      outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = native, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 1024>}
  return
}
