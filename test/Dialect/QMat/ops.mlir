// RUN: qmat-opt %s -split-input-file | FileCheck %s --enable-var-scope
// Round trip through the generic form too: the custom printer and parser
// must agree with the op's structure.
// RUN: qmat-opt %s -split-input-file -mlir-print-op-generic | qmat-opt -split-input-file | FileCheck %s --enable-var-scope

// CHECK-LABEL: func.func @matmul_nvfp4
// CHECK: qmat.matmul <nvfp4, block = 16> ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<?x64xf16>, memref<32x32xi8>, memref<32x4xf8E4M3FN>) global_scale(%{{.*}} : memref<f32>) outs(%{{.*}} : memref<?x32xf16>)
func.func @matmul_nvfp4(%a: memref<?x64xf16>, %w: memref<32x32xi8>,
                        %s: memref<32x4xf8E4M3FN>, %g: memref<f32>,
                        %y: memref<?x32xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x32xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @matmul_nvfp4_bias_bf16
// CHECK: qmat.matmul <nvfp4, block = 16> {{.*}} global_scale(%{{.*}} : memref<f32>) bias(%{{.*}} : memref<17408xbf16>) outs(%{{.*}} : memref<?x17408xbf16>)
func.func @matmul_nvfp4_bias_bf16(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>,
                                  %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>,
                                  %b: memref<17408xbf16>, %y: memref<?x17408xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) bias(%b : memref<17408xbf16>)
      outs(%y : memref<?x17408xbf16>)
  return
}

// -----

// CHECK-LABEL: func.func @matmul_mxfp4
// CHECK: qmat.matmul <mxfp4, block = 32> ins({{.*}} : memref<?x96xbf16>, memref<8x48xi8>, memref<8x3xf8E8M0FNU>) outs(%{{.*}} : memref<?x8xbf16>)
func.func @matmul_mxfp4(%a: memref<?x96xbf16>, %w: memref<8x48xi8>,
                        %s: memref<8x3xf8E8M0FNU>, %y: memref<?x8xbf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x96xbf16>, memref<8x48xi8>, memref<8x3xf8E8M0FNU>)
      outs(%y : memref<?x8xbf16>)
  return
}

// -----

// A partial trailing block: K = 200 with block 128 has two scale columns.
// CHECK-LABEL: func.func @matmul_fp8_partial_block
// CHECK: qmat.matmul <fp8, block = 128> ins({{.*}} : memref<?x200xf16>, memref<16x200xf8E4M3FN>, memref<16x2xf32>) outs(%{{.*}} : memref<?x16xf16>)
func.func @matmul_fp8_partial_block(%a: memref<?x200xf16>, %w: memref<16x200xf8E4M3FN>,
                                    %s: memref<16x2xf32>, %y: memref<?x16xf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x200xf16>, memref<16x200xf8E4M3FN>, memref<16x2xf32>)
      outs(%y : memref<?x16xf16>)
  return
}

// -----

// fp8 is the one scheme that allows an odd K: codes are whole bytes.
// CHECK-LABEL: func.func @matmul_fp8_odd_k
// CHECK: qmat.matmul <fp8, block = 128> ins({{.*}} : memref<?x77xbf16>, memref<4x77xf8E4M3FN>, memref<4x1xf32>)
func.func @matmul_fp8_odd_k(%a: memref<?x77xbf16>, %w: memref<4x77xf8E4M3FN>,
                            %s: memref<4x1xf32>, %y: memref<?x4xbf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x77xbf16>, memref<4x77xf8E4M3FN>, memref<4x1xf32>)
      outs(%y : memref<?x4xbf16>)
  return
}

// -----

// CHECK-LABEL: func.func @matmul_int4_zero_points
// CHECK: qmat.matmul <int4, block = 32> ins({{.*}} : memref<?x96xf16>, memref<8x48xi8>, memref<8x3xf16>) zero_points(%{{.*}} : memref<8x2xi8>) bias(%{{.*}} : memref<8xf16>) outs
func.func @matmul_int4_zero_points(%a: memref<?x96xf16>, %w: memref<8x48xi8>,
                                   %s: memref<8x3xf16>, %zp: memref<8x2xi8>,
                                   %b: memref<8xf16>, %y: memref<?x8xf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x96xf16>, memref<8x48xi8>, memref<8x3xf16>)
      zero_points(%zp : memref<8x2xi8>) bias(%b : memref<8xf16>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @matmul_int4_no_zero_points
// CHECK: qmat.matmul <int4, block = 32> ins({{.*}} : memref<?x64xbf16>, memref<8x32xi8>, memref<8x2xbf16>) outs
func.func @matmul_int4_no_zero_points(%a: memref<?x64xbf16>, %w: memref<8x32xi8>,
                                      %s: memref<8x2xbf16>, %y: memref<?x8xbf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x64xbf16>, memref<8x32xi8>, memref<8x2xbf16>)
      outs(%y : memref<?x8xbf16>)
  return
}

// -----

// CHECK-LABEL: func.func @matmul_with_plan
// CHECK: qmat.matmul <nvfp4, block = 16> {{.*}} {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 32>}
func.func @matmul_with_plan(%a: memref<?x64xf16>, %w: memref<32x32xi8>,
                            %s: memref<32x4xf8E4M3FN>, %g: memref<f32>,
                            %y: memref<?x32xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x32xf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 32>}
  return
}

// -----

// CHECK-LABEL: func.func @dequantize_tile
// CHECK: qmat.dequantize <nvfp4, block = 16> ins(%{{.*}}, %{{.*}} : memref<?x32xi8>, memref<?x4xf8E4M3FN>) global_scale(%{{.*}} : memref<f32>) outs(%{{.*}} : memref<?x64xbf16>) kernel = vec8 decode = lookup
// CHECK: qmat.dequantize <int4, block = 7> ins({{.*}}) zero_points(%{{.*}} : memref<4x5xi8>) outs(%{{.*}} : memref<4x64xf16>) kernel = scalar{{$}}
// CHECK: qmat.dequantize <fp8, block = 128> ins({{.*}}) outs(%{{.*}} : memref<16x200xf16>){{$}}
func.func @dequantize_tile(%w: memref<?x32xi8>, %s: memref<?x4xf8E4M3FN>, %g: memref<f32>,
                           %scratch: memref<?x64xbf16>,
                           %wi: memref<4x32xi8>, %si: memref<4x10xf16>, %zp: memref<4x5xi8>,
                           %si_out: memref<4x64xf16>,
                           %w8: memref<16x200xf8E4M3FN>, %s8: memref<16x2xf32>,
                           %out8: memref<16x200xf16>) {
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<?x32xi8>, memref<?x4xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%scratch : memref<?x64xbf16>) kernel = vec8 decode = lookup
  qmat.dequantize <int4, block = 7>
      ins(%wi, %si : memref<4x32xi8>, memref<4x10xf16>) zero_points(%zp : memref<4x5xi8>)
      outs(%si_out : memref<4x64xf16>) kernel = scalar
  qmat.dequantize <fp8, block = 128>
      ins(%w8, %s8 : memref<16x200xf8E4M3FN>, memref<16x2xf32>)
      outs(%out8 : memref<16x200xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @gemm
// CHECK: qmat.gemm ins(%{{.*}}, %{{.*}} : memref<?x64xf16>, memref<32x64xf16>) bias(%{{.*}} : memref<32xf16>) outs(%{{.*}} : memref<?x32xf16>)
// CHECK: qmat.gemm ins(%{{.*}}, %{{.*}} : memref<?x64xf16>, memref<32x64xf16>) outs(%{{.*}} : memref<?x32xf16>)
func.func @gemm(%a: memref<?x64xf16>, %b: memref<32x64xf16>, %bias: memref<32xf16>,
                %y: memref<?x32xf16>) {
  qmat.gemm ins(%a, %b : memref<?x64xf16>, memref<32x64xf16>) bias(%bias : memref<32xf16>)
      outs(%y : memref<?x32xf16>)
  qmat.gemm ins(%a, %b : memref<?x64xf16>, memref<32x64xf16>) outs(%y : memref<?x32xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @gemv
// CHECK: qmat.gemv <fp8, block = 128> ins({{.*}} : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>) outs(%{{.*}} : memref<?x64xbf16>) max_m = 8 split_k = 2 col_tiles = 1 tensor_core{{$}}
// CHECK: qmat.gemv <mxfp4, block = 32> {{.*}} max_m = 64 split_k = 2 col_tiles = 4 tensor_core decode = magic_bias{{$}}
// CHECK: qmat.gemv <int4, block = 7> {{.*}} max_m = 4 split_k = 1 col_tiles = 1{{$}}
func.func @gemv(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                %y: memref<?x64xbf16>, %w4: memref<64x128xi8>, %s4: memref<64x8xf8E8M0FNU>,
                %si: memref<64x37xbf16>) {
  qmat.gemv <fp8, block = 128>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 2 col_tiles = 1 tensor_core
  qmat.gemv <mxfp4, block = 32>
      ins(%a, %w4, %s4 : memref<?x256xbf16>, memref<64x128xi8>, memref<64x8xf8E8M0FNU>)
      outs(%y : memref<?x64xbf16>) max_m = 64 split_k = 2 col_tiles = 4 tensor_core decode = magic_bias
  // The scalar GEMV takes odd blocks.
  qmat.gemv <int4, block = 7>
      ins(%a, %w4, %si : memref<?x256xbf16>, memref<64x128xi8>, memref<64x37xbf16>)
      outs(%y : memref<?x64xbf16>) max_m = 4 split_k = 1 col_tiles = 1
  return
}

// -----

// CHECK-LABEL: func.func @decode
// CHECK: qmat.decode e2m1 %{{.*}} : vector<4xi8> -> vector<8xf16>
// CHECK: qmat.decode e2m1 %{{.*}} exponent_bias = 14 method = magic_bias : vector<4xi8> -> vector<8xf16>
// CHECK: qmat.decode e2m1 %{{.*}} exponent_bias = 126 : vector<4xi8> -> vector<8xbf16>
// CHECK: qmat.decode e4m3 %{{.*}} : vector<8xi8> -> vector<8xf32>
// CHECK: qmat.decode u4 %{{.*}} method = magic_bias : vector<4xi8> -> vector<8xbf16>
// CHECK: qmat.decode e2m1 %{{.*}} method = native : vector<1xi8> -> vector<2xf16>
func.func @decode(%p: vector<4xi8>, %q: vector<8xi8>, %r: vector<1xi8>) {
  %0 = qmat.decode e2m1 %p : vector<4xi8> -> vector<8xf16>
  %1 = qmat.decode e2m1 %p exponent_bias = 14 method = magic_bias : vector<4xi8> -> vector<8xf16>
  %2 = qmat.decode e2m1 %p exponent_bias = 126 : vector<4xi8> -> vector<8xbf16>
  %3 = qmat.decode e4m3 %q : vector<8xi8> -> vector<8xf32>
  %4 = qmat.decode u4 %p method = magic_bias : vector<4xi8> -> vector<8xbf16>
  %5 = qmat.decode e2m1 %r method = native : vector<1xi8> -> vector<2xf16>
  return
}

// -----

// CHECK-LABEL: func.func @target_attrs
// CHECK-SAME: qmat.targets = [#qmat.target<sm_80>, #qmat.target<sm_89>, #qmat.target<sm_90>, #qmat.target<sm_100>, #qmat.target<sm_120>, #qmat.target<gfx942>, #qmat.target<gfx950>]
func.func @target_attrs() attributes {qmat.targets = [#qmat.target<sm_80>, #qmat.target<sm_89>, #qmat.target<sm_90>, #qmat.target<sm_100>, #qmat.target<sm_120>, #qmat.target<gfx942>, #qmat.target<gfx950>]} {
  return
}

// -----

// CHECK-LABEL: func.func @fused_gemm
// CHECK: qmat.fused_gemm <nvfp4, block = 16> ins({{.*}} : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>) global_scale(%{{.*}} : memref<f32>) outs(%{{.*}} : memref<?x64xbf16>) m_tile = 32 warps_n = 2 split_k = 1 col_tiles = 2{{$}}
// CHECK: qmat.fused_gemm <int4, block = 32> {{.*}} zero_points({{.*}}) bias({{.*}}) outs({{.*}}) m_tile = 64 warps_n = 4 split_k = 2 col_tiles = 1 decode = magic_bias prepared_weights{{$}}
// CHECK: qmat.fused_gemm <nvfp4, block = 16> {{.*}} m_tile = 16 warps_n = 1 split_k = 2 col_tiles = 2 stages = 3{{$}}
// CHECK: qmat.fused_gemm <nvfp4, block = 16> {{.*}} m_tile = 32 warps_n = 2 split_k = 1 col_tiles = 2 stages = 2 k_slices = 2{{$}}
// CHECK: qmat.fused_gemm <nvfp4, block = 16> {{.*}} m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized multicast = 2{{$}}
// CHECK: qmat.fused_gemm <nvfp4, block = 16> {{.*}} m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized weights_in_registers{{$}}
func.func @fused_gemm(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                      %g: memref<f32>, %y: memref<?x64xbf16>, %si: memref<64x8xbf16>,
                      %zp: memref<64x4xi8>, %b: memref<64xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 32 warps_n = 2 split_k = 1 col_tiles = 2
  qmat.fused_gemm <int4, block = 32>
      ins(%a, %w, %si : memref<?x256xbf16>, memref<64x128xi8>, memref<64x8xbf16>)
      zero_points(%zp : memref<64x4xi8>) bias(%b : memref<64xbf16>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 2 col_tiles = 1 decode = magic_bias prepared_weights
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 1 split_k = 2 col_tiles = 2 stages = 3
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 32 warps_n = 2 split_k = 1 col_tiles = 2 stages = 2 k_slices = 2
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized multicast = 2
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized weights_in_registers
  return
}

// -----

// CHECK-LABEL: func.func @matrix_ops
// CHECK: %[[D:.+]]:4 = qmat.warp_mma [%arg0, %arg1, %arg2, %arg3] * [%arg4, %arg5] + [%arg6, %arg6, %arg6, %arg6] : vector<2xbf16>, vector<2xbf16>, f32
// CHECK: %[[W:.+]] = qmat.wave_mma %arg7 * %arg7 + %arg8 : vector<4xf16>, vector<4xf32>
// CHECK: %[[F:.+]]:3 = qmat.warpgroup_fence %arg0, %arg6, %arg10 : vector<2xbf16>, f32, i32
// CHECK: %[[G:.+]]:4 = qmat.warpgroup_mma [%[[F]]#0, %arg1, %arg2, %arg3] * %arg9 + [%[[D]]#0, %[[D]]#1, %[[D]]#2, %[[D]]#3] : vector<2xbf16>, f32
// CHECK: qmat.warpgroup_commit
// CHECK: %[[R:.+]]:4 = qmat.warpgroup_wait 1, %[[G]]#0, %[[G]]#1, %[[G]]#2, %[[G]]#3 : f32
// CHECK: qmat.warpgroup_wait 0{{$}}
// CHECK: qmat.async_proxy_fence
// CHECK: qmat.pinned_copy %arg10 arm 1 : i32
func.func @matrix_ops(%a0: vector<2xbf16>, %a1: vector<2xbf16>, %a2: vector<2xbf16>,
                      %a3: vector<2xbf16>, %b0: vector<2xbf16>, %b1: vector<2xbf16>,
                      %c: f32, %h: vector<4xf16>, %acc: vector<4xf32>, %desc: i64,
                      %word: i32) -> (f32, vector<4xf32>, f32, i32) {
  %d:4 = qmat.warp_mma [%a0, %a1, %a2, %a3] * [%b0, %b1] + [%c, %c, %c, %c]
      : vector<2xbf16>, vector<2xbf16>, f32
  %w = qmat.wave_mma %h * %h + %acc : vector<4xf16>, vector<4xf32>
  %f:3 = qmat.warpgroup_fence %a0, %c, %word : vector<2xbf16>, f32, i32
  %g:4 = qmat.warpgroup_mma [%f#0, %a1, %a2, %a3] * %desc + [%d#0, %d#1, %d#2, %d#3]
      : vector<2xbf16>, f32
  qmat.warpgroup_commit
  %r:4 = qmat.warpgroup_wait 1, %g#0, %g#1, %g#2, %g#3 : f32
  qmat.warpgroup_wait 0
  qmat.async_proxy_fence
  %p = qmat.pinned_copy %word arm 1 : i32
  return %r#0, %w, %f#1, %p : f32, vector<4xf32>, f32, i32
}

// -----

// CHECK-LABEL: func.func @async_copies
// CHECK: qmat.async_copy %arg0[%arg2, %arg3], %arg1[%arg3], 8 : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
// CHECK: qmat.async_copy %arg0[%arg2, %arg3], %arg1[%arg3], 8, %arg4 : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
// CHECK: qmat.async_commit
// CHECK: qmat.async_wait 1
func.func @async_copies(%a: memref<?x256xbf16>, %staged: memref<2048xbf16, #gpu.address_space<workgroup>>,
                        %m: index, %k: index, %read: index) {
  qmat.async_copy %a[%m, %k], %staged[%k], 8
      : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  qmat.async_copy %a[%m, %k], %staged[%k], 8, %read
      : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  qmat.async_commit
  qmat.async_wait 1
  return
}

// -----

// CHECK-LABEL: func.func @decode_tiles
// CHECK: qmat.decode_tile <nvfp4, block = 16> %arg0, %arg1 scales %arg2, %arg2, %arg3, %arg3, %arg3, %arg3, %arg2, %arg2 : vector<16xi8>, f8E4M3FN -> vector<2x16x2xbf16>
// CHECK: qmat.decode_tile <int4, block = 32> %arg0 scales %arg4, %arg4, %arg4, %arg4 zero_points %arg6, %arg6, %arg6, %arg6 blocks %arg7, %arg7, %arg7, %arg7 word 2 : vector<16xi8>, f16 -> vector<1x4x2xf16>
// CHECK: qmat.decode_tile <mxfp4, block = 32> %arg1 scales %arg5, %arg5, %arg5, %arg5 one_multiply : vector<16xi8>, f8E8M0FNU -> vector<1x16x2xf16>
func.func @decode_tiles(%c0: vector<16xi8>, %c1: vector<16xi8>, %s0: f8E4M3FN, %s1: f8E4M3FN,
                        %h: f16, %e: f8E8M0FNU, %zp: i8, %block: index)
    -> (vector<2x16x2xbf16>, vector<1x4x2xf16>, vector<1x16x2xf16>) {
  %a = qmat.decode_tile <nvfp4, block = 16> %c0, %c1 scales %s0, %s0, %s1, %s1, %s1, %s1, %s0, %s0
      : vector<16xi8>, f8E4M3FN -> vector<2x16x2xbf16>
  %b = qmat.decode_tile <int4, block = 32> %c0 scales %h, %h, %h, %h
      zero_points %zp, %zp, %zp, %zp blocks %block, %block, %block, %block word 2
      : vector<16xi8>, f16 -> vector<1x4x2xf16>
  %c = qmat.decode_tile <mxfp4, block = 32> %c1 scales %e, %e, %e, %e one_multiply
      : vector<16xi8>, f8E8M0FNU -> vector<1x16x2xf16>
  return %a, %b, %c : vector<2x16x2xbf16>, vector<1x4x2xf16>, vector<1x16x2xf16>
}

// -----

// CHECK-LABEL: func.func @store_tiles
// CHECK: qmat.store_tile %arg0, %arg1 to %arg2[%arg4, %arg5] offsets m [0, 1] n [0, 8] bounds %arg6, %arg7 factor %arg8 bias %arg3 mask %arg9 : f32, f32 to memref<?x?xbf16>, memref<?xbf16>
// CHECK: qmat.store_tile %arg0 to %arg2[%arg4, %arg5] offsets m [3] n [0] bounds %arg6, %arg7 : f32 to memref<?x?xbf16>
func.func @store_tiles(%s0: f32, %s1: f32, %y: memref<?x?xbf16>, %bias: memref<?xbf16>,
                       %m: index, %n: index, %num_m: index, %num_n: index, %f: f32, %owner: i1) {
  qmat.store_tile %s0, %s1 to %y[%m, %n] offsets m [0, 1] n [0, 8] bounds %num_m, %num_n
      factor %f bias %bias mask %owner : f32, f32 to memref<?x?xbf16>, memref<?xbf16>
  qmat.store_tile %s0 to %y[%m, %n] offsets m [3] n [0] bounds %num_m, %num_n
      : f32 to memref<?x?xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @reduce_split_k
// CHECK: qmat.reduce_split_k %arg0, %arg1 through %arg2 warp %arg3 slices 4 columns 1 lane %arg4 of 32 fenced : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
// CHECK-NEXT: ^bb0(%[[T0:.+]]: vector<4xf32>, %[[T1:.+]]: vector<4xf32>):
// CHECK-NEXT: vector.store %[[T1]], %arg6[%arg4] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: }
// CHECK: qmat.reduce_split_k %arg0 through %arg2 warp %arg3 slices 2 columns 2 lane %arg4 of 64 live %arg5 : vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
// CHECK-NEXT: ^bb0(%{{.+}}: vector<4xf32>):
// CHECK-NEXT: }
func.func @reduce_split_k(%s0: vector<4xf32>, %s1: vector<4xf32>,
                          %p: memref<1024xf32, #gpu.address_space<workgroup>>,
                          %warp: index, %lane: index, %live: i1,
                          %out: memref<?xf32>) {
  qmat.reduce_split_k %s0, %s1 through %p warp %warp slices 4 columns 1 lane %lane of 32 fenced
      : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t0: vector<4xf32>, %t1: vector<4xf32>):
    vector.store %t1, %out[%lane] : memref<?xf32>, vector<4xf32>
  }
  qmat.reduce_split_k %s0 through %p warp %warp slices 2 columns 2 lane %lane of 64 live %live
      : vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t0: vector<4xf32>):
  }
  return
}

// -----

// CHECK-LABEL: func.func @reduce_k_slices
// CHECK: %[[T:.+]]:2 = qmat.reduce_k_slices %arg0, %arg1 through %arg2 rank %arg3 slices 4 thread %arg4 of 128 : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>, vector<4xf32>
// CHECK-NEXT: qmat.cluster_barrier
// CHECK-NEXT: %{{.+}} = qmat.load_cluster_peer %arg2[%arg4] rank %arg3 : memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
func.func @reduce_k_slices(%s0: vector<4xf32>, %s1: vector<4xf32>,
                           %p: memref<1024xf32, #gpu.address_space<workgroup>>,
                           %rank: index, %thread: index) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>) {
  %t:2 = qmat.reduce_k_slices %s0, %s1 through %p rank %rank slices 4 thread %thread of 128
      : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>>
      -> vector<4xf32>, vector<4xf32>
  qmat.cluster_barrier
  %v = qmat.load_cluster_peer %p[%thread] rank %rank
      : memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
  return %t#0, %t#1, %v : vector<4xf32>, vector<4xf32>, vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @specialized_ops
// CHECK: %[[S:.+]]:4 = qmat.warpgroup_mma_shared %arg0 * %arg1 + [%arg2, %arg2, %arg2, %arg2] : bf16, f32
// CHECK: qmat.warpgroup_mma_shared %arg0 * %arg1 + [%[[S]]#0, %[[S]]#1, %[[S]]#2, %[[S]]#3] : f16, f32
func.func @specialized_ops(%descA: i64, %descB: i64, %c: f32) -> f32 {
  %s:4 = qmat.warpgroup_mma_shared %descA * %descB + [%c, %c, %c, %c] : bf16, f32
  %t:4 = qmat.warpgroup_mma_shared %descA * %descB + [%s#0, %s#1, %s#2, %s#3] : f16, f32
  return %t#0 : f32
}

// -----

// CHECK-LABEL: func.func @stage_barriers_and_tensor_loads
// CHECK: qmat.mbarrier_init %arg0[%arg1], 129 : memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.mbarrier_arrive %arg0[%arg1] : memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.mbarrier_arrive %arg0[%arg1] expect 16384 : memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.mbarrier_wait %arg0[%arg1], %arg2 : memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.tensor_load %arg3[%arg1, %arg1] box [64, 128], %arg4[%arg1], %arg0[%arg1] : !llvm.ptr, memref<32768xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.tensor_load %arg3[%arg1, %arg1] box [64, 64] multicast 3, %arg4[%arg1], %arg0[%arg1] : !llvm.ptr, memref<32768xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.mbarrier_init_fence
// CHECK: qmat.mbarrier_arrive_cluster %arg0[%arg1] rank %arg1 : memref<8xi64, #gpu.address_space<workgroup>>
func.func @stage_barriers_and_tensor_loads(
    %bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index, %parity: i32,
    %map: !llvm.ptr, %dst: memref<32768xbf16, #gpu.address_space<workgroup>>) {
  qmat.mbarrier_init %bars[%i], 129 : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.mbarrier_arrive %bars[%i] : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.mbarrier_arrive %bars[%i] expect 16384 : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.mbarrier_wait %bars[%i], %parity : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.tensor_load %map[%i, %i] box [64, 128], %dst[%i], %bars[%i]
      : !llvm.ptr, memref<32768xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
  qmat.tensor_load %map[%i, %i] box [64, 64] multicast 3, %dst[%i], %bars[%i]
      : !llvm.ptr, memref<32768xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
  qmat.mbarrier_init_fence
  qmat.mbarrier_arrive_cluster %bars[%i] rank %i : memref<8xi64, #gpu.address_space<workgroup>>
  return
}

// -----

// CHECK-LABEL: func.func @tensor_map
// CHECK: %[[MAP:.+]] = qmat.tensor_map %arg0 box [64, 256] : memref<?x512xbf16>
// CHECK: return %[[MAP]] : !llvm.ptr
func.func @tensor_map(%a: memref<?x512xbf16>) -> !llvm.ptr {
  %map = qmat.tensor_map %a box [64, 256] : memref<?x512xbf16>
  return %map : !llvm.ptr
}

// -----

// CHECK-LABEL: func.func @fused_specialized
// CHECK: m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized
func.func @fused_specialized(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                             %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized
  return
}

// -----

// CHECK-LABEL: func.func @fused_weights_as_b
// CHECK: m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b
func.func @fused_weights_as_b(%a: memref<?x256xbf16>, %w: memref<144x128xi8>, %s: memref<144x16xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x144xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<144x128xi8>, memref<144x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x144xbf16>)
      m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b
  return
}

// -----

// CHECK-LABEL: func.func @load_tiles
// CHECK: qmat.load_tile streaming %arg0[%arg2, %arg3] {alignment = 16 : i64} : memref<?x128xi8> -> vector<16xi8>
// CHECK: qmat.load_tile cached %arg1[%arg2, %arg3] {alignment = 2 : i64} : memref<?x16xf8E4M3FN> -> vector<2xf8E4M3FN>
// CHECK: qmat.load_tile cached %arg1[%arg2, %arg3] : memref<?x16xf8E4M3FN> -> f8E4M3FN
// CHECK: qmat.load_tile streaming %arg0[%arg2, %arg3] base %arg3 {alignment = 16 : i64} : memref<?x128xi8> -> vector<16xi8>
func.func @load_tiles(%w: memref<?x128xi8>, %s: memref<?x16xf8E4M3FN>, %row: index, %col: index)
    -> (vector<16xi8>, vector<2xf8E4M3FN>, f8E4M3FN, vector<16xi8>) {
  %c = qmat.load_tile streaming %w[%row, %col] {alignment = 16 : i64} : memref<?x128xi8> -> vector<16xi8>
  %v = qmat.load_tile cached %s[%row, %col] {alignment = 2 : i64} : memref<?x16xf8E4M3FN> -> vector<2xf8E4M3FN>
  %e = qmat.load_tile cached %s[%row, %col] : memref<?x16xf8E4M3FN> -> f8E4M3FN
  %b = qmat.load_tile streaming %w[%row, %col] base %col {alignment = 16 : i64} : memref<?x128xi8> -> vector<16xi8>
  return %c, %v, %e, %b : vector<16xi8>, vector<2xf8E4M3FN>, f8E4M3FN, vector<16xi8>
}

// -----

// CHECK-LABEL: func.func @decode_words
// CHECK: qmat.decode_words <nvfp4, block = 16> %arg0 scales %arg2, %arg2, %arg3, %arg3 global_scale %arg4 method = lookup : vector<16xi8>, f8E4M3FN -> vector<4x8xbf16>
// CHECK: qmat.decode_words <int4, block = 32> %arg0 scales %arg5, %arg5, %arg5, %arg5 zero_points %arg6, %arg6, %arg6, %arg6 blocks %arg7, %arg7, %arg7, %arg7 method = magic_bias : vector<16xi8>, f16 -> vector<4x8xf16>
// CHECK: qmat.decode_words <fp8, block = 128> %arg1 scales %arg8, %arg8, %arg8, %arg8 method = arith : vector<32xi8>, f32 -> vector<4x8xbf16>
func.func @decode_words(%c: vector<16xi8>, %c8: vector<32xi8>, %s0: f8E4M3FN, %s1: f8E4M3FN, %g: f32,
                        %h: f16, %z: i8, %b: index, %f: f32)
    -> (vector<4x8xbf16>, vector<4x8xf16>, vector<4x8xbf16>) {
  %a = qmat.decode_words <nvfp4, block = 16> %c scales %s0, %s0, %s1, %s1 global_scale %g method = lookup
      : vector<16xi8>, f8E4M3FN -> vector<4x8xbf16>
  %i = qmat.decode_words <int4, block = 32> %c scales %h, %h, %h, %h zero_points %z, %z, %z, %z blocks %b, %b, %b, %b method = magic_bias
      : vector<16xi8>, f16 -> vector<4x8xf16>
  %e = qmat.decode_words <fp8, block = 128> %c8 scales %f, %f, %f, %f method = arith
      : vector<32xi8>, f32 -> vector<4x8xbf16>
  return %a, %i, %e : vector<4x8xbf16>, vector<4x8xf16>, vector<4x8xbf16>
}
