// qmat-expand-gemv's specialized tilings when none are listed: a plan whose
// fused GEMM runs beyond M = 128 on a target with the warpgroup instruction
// takes 128 x 1, 192 x 1 and 256 x 1 after the warp tilings (and 256 x 2
// where it runs to M = 512 or more), then 144-row blocks with the weights as B at
// m_tile 64 and 128 (9 column tiles of 16 rows), unless its codes are
// prepared or its decode is fp8's; up to M = 128 the warp tilings serve
// every M.
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv="fused-variants=16,4,1,2,1" | FileCheck %s

// CHECK-LABEL: func.func @nvfp4(
// CHECK: scf.index_switch
// CHECK-NEXT: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK: case 1 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized{{$}}
// CHECK: case 2 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 192 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized{{$}}
// CHECK: case 3 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized{{$}}
// CHECK: case 4 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b{{$}}
// CHECK: case 5 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b{{$}}
// CHECK-NOT: case 6
func.func @nvfp4(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 256>}
  return
}

// -----

// CHECK-LABEL: func.func @nvfp4_to_511(
// CHECK: case 3 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized{{$}}
// CHECK: case 4 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} weights_as_b{{$}}
// CHECK: case 5 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} weights_as_b{{$}}
// CHECK-NOT: case 6
func.func @nvfp4_to_511(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 511>}
  return
}

// -----

// CHECK-LABEL: func.func @nvfp4_to_512(
// CHECK: case 3 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized{{$}}
// CHECK: case 4 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized{{$}}
// CHECK: case 5 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b{{$}}
// CHECK: case 6 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b{{$}}
// CHECK-NOT: case 7
func.func @nvfp4_to_512(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 512>}
  return
}

// -----

// CHECK-LABEL: func.func @nvfp4_to_128(
// CHECK: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK-NOT: specialized
func.func @nvfp4_to_128(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 128>}
  return
}

// -----

// CHECK-LABEL: func.func @nvfp4_prepared(
// CHECK: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2 prepared_weights{{$}}
// CHECK-NOT: specialized
func.func @nvfp4_prepared(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                          %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, prepared_weights = true, fused_max_m = 256>}
  return
}

// -----

// CHECK-LABEL: func.func @fp8(
// CHECK: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK-NOT: specialized
func.func @fp8(%a: memref<?x256xbf16>, %w: memref<128x256xf8E4M3FN>, %s: memref<128x2xf32>,
               %y: memref<?x128xbf16>) {
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x256xf8E4M3FN>, memref<128x2xf32>)
      outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = native, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 256>}
  return
}

// -----

// A target without the warpgroup instruction takes none.
// CHECK-LABEL: func.func @nvfp4_sm90(
// CHECK: case 0 {
// CHECK-NEXT: qmat.fused_gemm {{.*}} m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 2{{$}}
// CHECK-NOT: specialized
func.func @nvfp4_sm90(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                      %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 256>}
  return
}
