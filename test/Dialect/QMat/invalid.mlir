// RUN: qmat-opt %s -split-input-file -verify-diagnostics

// Rule: packed 4-bit schemes need an even K.
func.func @odd_k_packed(%a: memref<?x63xf16>, %w: memref<8x31xi8>, %s: memref<8x4xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{K must be even for nvfp4 (two 4-bit codes per byte), got K = 63}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x63xf16>, memref<8x31xi8>, memref<8x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: scales are [N, ceil(K/bs)].
func.func @scale_shape(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x3xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{scales must have shape [N, ceil(K/bs)] = [8, 4], got [8, 3]}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x3xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: the partial trailing block still needs its own scale column.
func.func @scale_shape_partial(%a: memref<?x200xf16>, %w: memref<4x200xf8E4M3FN>,
                               %s: memref<4x1xf32>, %y: memref<?x4xf16>) {
  // expected-error @+1 {{scales must have shape [N, ceil(K/bs)] = [4, 2], got [4, 1]}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x200xf16>, memref<4x200xf8E4M3FN>, memref<4x1xf32>)
      outs(%y : memref<?x4xf16>)
  return
}

// -----

// Rule: the block size is positive.
// expected-error @+1 {{block size must be positive, got 0}}
func.func @zero_block() attributes {s = #qmat.scheme<int4, block = 0>} {
  return
}

// -----

// Rule: mxfp4 blocks are 32 elements (OCP MX).
// expected-error @+1 {{mxfp4 block size must be 32 (OCP MX), got 16}}
func.func @mxfp4_block() attributes {s = #qmat.scheme<mxfp4, block = 16>} {
  return
}

// -----

// Rule: nvfp4 scales are e4m3.
func.func @nvfp4_scale_type(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x4xf8E8M0FNU>,
                            %g: memref<f32>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{nvfp4 scales must have element type f8E4M3FN, got 'f8E8M0FNU'}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x4xf8E8M0FNU>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: mxfp4 scales are e8m0.
func.func @mxfp4_scale_type(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x2xi8>,
                            %y: memref<?x8xf16>) {
  // expected-error @+1 {{mxfp4 scales must have element type f8E8M0FNU, got 'i8'}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x2xi8>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: fp8 scales are fp32.
func.func @fp8_scale_type(%a: memref<?x128xbf16>, %w: memref<8x128xf8E4M3FN>, %s: memref<8x1xbf16>,
                          %y: memref<?x8xbf16>) {
  // expected-error @+1 {{fp8 scales must have element type f32, got 'bf16'}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x128xbf16>, memref<8x128xf8E4M3FN>, memref<8x1xbf16>)
      outs(%y : memref<?x8xbf16>)
  return
}

// -----

// Rule: int4 scales have the activation type.
func.func @int4_scale_type(%a: memref<?x64xbf16>, %w: memref<8x32xi8>, %s: memref<8x2xf16>,
                           %y: memref<?x8xbf16>) {
  // expected-error @+1 {{int4 scales must have the activation type 'bf16', got 'f16'}}
  qmat.matmul <int4, block = 32> ins(%a, %w, %s : memref<?x64xbf16>, memref<8x32xi8>, memref<8x2xf16>)
      outs(%y : memref<?x8xbf16>)
  return
}

// -----

// Rule: zero points only exist for int4.
func.func @zero_points_on_fp8(%a: memref<?x128xf16>, %w: memref<8x128xf8E4M3FN>, %s: memref<8x1xf32>,
                              %zp: memref<8x1xi8>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{zero_points are only allowed for int4, not fp8}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x128xf16>, memref<8x128xf8E4M3FN>, memref<8x1xf32>)
      zero_points(%zp : memref<8x1xi8>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: int4 zero points are packed u4 [N, ceil(ceil(K/bs)/2)].
func.func @zero_points_shape(%a: memref<?x96xf16>, %w: memref<8x48xi8>, %s: memref<8x3xf16>,
                             %zp: memref<8x3xi8>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{zero_points must be packed u4 i8 [N, ceil(ceil(K/bs)/2)] = [8, 2], got 'memref<8x3xi8>'}}
  qmat.matmul <int4, block = 32> ins(%a, %w, %s : memref<?x96xf16>, memref<8x48xi8>, memref<8x3xf16>)
      zero_points(%zp : memref<8x3xi8>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: nvfp4 needs its global scale.
func.func @missing_global(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x4xf8E4M3FN>,
                          %y: memref<?x8xf16>) {
  // expected-error @+1 {{nvfp4 requires a global_scale operand (weight_scale_2)}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x4xf8E4M3FN>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: only nvfp4 has a global scale.
func.func @global_on_mxfp4(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf8E8M0FNU>,
                           %g: memref<f32>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{global_scale is only allowed for nvfp4, not mxfp4}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x2xf8E8M0FNU>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: the global scale is one fp32 value.
func.func @global_type(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x4xf8E4M3FN>,
                       %g: memref<2xf32>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{global_scale must be memref<f32>, got 'memref<2xf32>'}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x4xf8E4M3FN>)
      global_scale(%g : memref<2xf32>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: A and Y share one activation type.
func.func @act_mismatch(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf8E8M0FNU>,
                        %y: memref<?x8xbf16>) {
  // expected-error @+1 {{A and Y must have the same element type, got 'f16' and 'bf16'}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x2xf8E8M0FNU>)
      outs(%y : memref<?x8xbf16>)
  return
}

// -----

// Rule: activations are f16 or bf16.
func.func @act_f32(%a: memref<?x64xf32>, %w: memref<8x32xi8>, %s: memref<8x2xf8E8M0FNU>,
                   %y: memref<?x8xf32>) {
  // expected-error @+1 {{activation element type must be f16 or bf16, got 'f32'}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf32>, memref<8x32xi8>, memref<8x2xf8E8M0FNU>)
      outs(%y : memref<?x8xf32>)
  return
}

// -----

// Rule: N agrees between the weights and Y.
func.func @n_mismatch(%a: memref<?x64xf16>, %w: memref<9x32xi8>, %s: memref<9x2xf8E8M0FNU>,
                      %y: memref<?x8xf16>) {
  // expected-error @+1 {{N disagrees between operands: weights have 9 rows, the output has 8 columns}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<9x32xi8>, memref<9x2xf8E8M0FNU>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: K agrees between A and the packed weights.
func.func @k_mismatch(%a: memref<?x64xf16>, %w: memref<8x64xi8>, %s: memref<8x2xf8E8M0FNU>,
                      %y: memref<?x8xf16>) {
  // expected-error @+1 {{packed weights must be [N, K/2] with K/2 = 32, got [8, 64]}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<8x64xi8>, memref<8x2xf8E8M0FNU>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: K agrees between A and fp8 weights.
func.func @k_mismatch_fp8(%a: memref<?x128xf16>, %w: memref<8x64xf8E4M3FN>, %s: memref<8x1xf32>,
                          %y: memref<?x8xf16>) {
  // expected-error @+1 {{fp8 weights must be [N, K] with K = 128, got [8, 64]}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x128xf16>, memref<8x64xf8E4M3FN>, memref<8x1xf32>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: packed weights are bytes.
func.func @packed_type(%a: memref<?x64xf16>, %w: memref<8x32xf8E4M3FN>, %s: memref<8x2xf8E8M0FNU>,
                       %y: memref<?x8xf16>) {
  // expected-error @+1 {{packed mxfp4 weights must be a rank-2 memref of i8 [N, K/2], got 'memref<8x32xf8E4M3FN>'}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xf8E4M3FN>, memref<8x2xf8E8M0FNU>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: fp8 weights are e4m3.
func.func @fp8_weight_type(%a: memref<?x128xf16>, %w: memref<8x128xi8>, %s: memref<8x1xf32>,
                           %y: memref<?x8xf16>) {
  // expected-error @+1 {{fp8 weights must be a rank-2 memref of f8E4M3FN [N, K], got 'memref<8x128xi8>'}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x128xf16>, memref<8x128xi8>, memref<8x1xf32>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: the bias has N elements of the activation type.
func.func @bias_length(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf8E8M0FNU>,
                       %b: memref<7xf16>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{bias must be [N] = [8] of the activation type 'f16', got 'memref<7xf16>'}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x2xf8E8M0FNU>)
      bias(%b : memref<7xf16>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: the bias has the activation type.
func.func @bias_type(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf8E8M0FNU>,
                     %b: memref<8xbf16>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{bias must be [N] = [8] of the activation type 'f16', got 'memref<8xbf16>'}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x2xf8E8M0FNU>)
      bias(%b : memref<8xbf16>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: M is a run-time argument, so it must be dynamic.
func.func @static_m(%a: memref<4x64xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf8E8M0FNU>,
                    %y: memref<4x8xf16>) {
  // expected-error @+1 {{M (dim 0 of A and Y) must be dynamic: kernels are specialised on N and K, M is a run-time argument}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<4x64xf16>, memref<8x32xi8>, memref<8x2xf8E8M0FNU>)
      outs(%y : memref<4x8xf16>)
  return
}

// -----

// Rule: kernels are specialised on K.
func.func @dynamic_k(%a: memref<?x?xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf8E8M0FNU>,
                     %y: memref<?x8xf16>) {
  // expected-error @+1 {{K (dim 1 of A) must be static}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x?xf16>, memref<8x32xi8>, memref<8x2xf8E8M0FNU>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: A is rank 2.
func.func @rank_a(%a: memref<?xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf8E8M0FNU>,
                  %y: memref<?x8xf16>) {
  // expected-error @+1 {{A must be a rank-2 memref [M, K], got 'memref<?xf16>'}}
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?xf16>, memref<8x32xi8>, memref<8x2xf8E8M0FNU>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: vec8 is illegal for an odd block (a byte can straddle two blocks).
func.func @vec8_odd_block(%w: memref<4x32xi8>, %s: memref<4x10xf16>, %out: memref<4x64xf16>) {
  // expected-error @+1 {{vec8 needs K % 8 == 0 and an even block size, got K = 64, block = 7}}
  qmat.dequantize <int4, block = 7> ins(%w, %s : memref<4x32xi8>, memref<4x10xf16>)
      outs(%out : memref<4x64xf16>) kernel = vec8
  return
}

// -----

// Rule: vec8 needs K % 8 == 0.
func.func @vec8_k(%w: memref<4x12xf8E4M3FN>, %s: memref<4x1xf32>, %out: memref<4x12xf16>) {
  // expected-error @+1 {{vec8 needs K % 8 == 0 and an even block size, got K = 12, block = 128}}
  qmat.dequantize <fp8, block = 128> ins(%w, %s : memref<4x12xf8E4M3FN>, memref<4x1xf32>)
      outs(%out : memref<4x12xf16>) kernel = vec8
  return
}

// -----

// Rule: the scratch is [N, K] in an activation type.
func.func @scratch_type(%w: memref<4x128xf8E4M3FN>, %s: memref<4x1xf32>, %out: memref<4x128xf32>) {
  // expected-error @+1 {{scratch must be a rank-2 memref [N, K] of f16 or bf16, got 'memref<4x128xf32>'}}
  qmat.dequantize <fp8, block = 128> ins(%w, %s : memref<4x128xf8E4M3FN>, memref<4x1xf32>)
      outs(%out : memref<4x128xf32>)
  return
}

// -----

// Rule: the GEMM's B is [N, K] of the activation type.
func.func @gemm_b(%a: memref<?x64xf16>, %b: memref<32x48xf16>, %y: memref<?x32xf16>) {
  // expected-error @+1 {{B must be [N, K] = [32, 64] of the activation type 'f16', got 'memref<32x48xf16>'}}
  qmat.gemm ins(%a, %b : memref<?x64xf16>, memref<32x48xf16>) outs(%y : memref<?x32xf16>)
  return
}

// -----

// Rule: split-K comes from the compiled variant set.
func.func @gemv_split_k(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                        %y: memref<?x64xbf16>) {
  // expected-error @+1 {{split_k must be one of 1, 2, 3, 4, 8, 16, got 5}}
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 5 col_tiles = 1 tensor_core
  return
}

// -----

// Rule: column tiles come from the compiled variant set.
func.func @gemv_col_tiles(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                          %y: memref<?x64xbf16>) {
  // expected-error @+1 {{col_tiles must be one of 1, 2, 4, got 8}}
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 8 tensor_core
  return
}

// -----

// Rule: the decode GEMV serves at most 64 rows.
func.func @gemv_max_m(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                      %y: memref<?x64xbf16>) {
  // expected-error @+1 {{max_m must be in [1, 64], got 65}}
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 65 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// Rule: the tensor-core GEMV walks K in steps of 128.
func.func @gemv_tensor_core_k(%a: memref<?x192xbf16>, %w: memref<64x96xi8>, %s: memref<64x12xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{tensor_core needs K % 128 == 0 and a block size that is a multiple of 8, got K = 192, block = 16}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x192xbf16>, memref<64x96xi8>, memref<64x12xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// Rule: the tensor-core GEMV keeps a scale block within each group of 8 K.
func.func @gemv_tensor_core_block(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x43xbf16>,
                                  %y: memref<?x64xbf16>) {
  // expected-error @+1 {{tensor_core needs K % 128 == 0 and a block size that is a multiple of 8, got K = 256, block = 6}}
  qmat.gemv <int4, block = 6> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x43xbf16>)
      outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// Rule: the scalar GEMV is one warp per row.
func.func @gemv_scalar_split(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                             %y: memref<?x64xbf16>) {
  // expected-error @+1 {{the scalar GEMV (no tensor_core) takes one warp per row: split_k and col_tiles must be 1}}
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 2 col_tiles = 1
  return
}

// -----

// Rule: packed codes decode to two values per byte.
func.func @decode_count(%p: vector<4xi8>) {
  // expected-error @+1 {{e2m1 codes are packed two per byte: 4 bytes need 8 values, got 4}}
  %0 = qmat.decode e2m1 %p : vector<4xi8> -> vector<4xf16>
  return
}

// -----

// Rule: e4m3 decodes one value per byte.
func.func @decode_count_e4m3(%p: vector<4xi8>) {
  // expected-error @+1 {{e4m3 decodes one value per code byte: 4 bytes need 4 values, got 8}}
  %0 = qmat.decode e4m3 %p : vector<4xi8> -> vector<8xf16>
  return
}

// -----

// Rule: only the exponent biases that keep every value exact.
func.func @decode_bias(%p: vector<4xi8>) {
  // expected-error @+1 {{exponent_bias 15 is not exact for e2m1 to 'f16' (allowed: 0, 14)}}
  %0 = qmat.decode e2m1 %p exponent_bias = 15 : vector<4xi8> -> vector<8xf16>
  return
}

// -----

// Rule: native conversion exists only for FP4.
func.func @decode_native_u4(%p: vector<4xi8>) {
  // expected-error @+1 {{native decoding exists only for e2m1 and e4m3, not u4}}
  %0 = qmat.decode u4 %p method = native : vector<4xi8> -> vector<8xf16>
  return
}

// -----

// Rule: a plan's scratch cap is in [1, 1048576] MiB.
// expected-error @+1 {{scratch_cap_mib must be in [1, 1048576], got 0}}
func.func @plan_cap() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 0, tile_rows = 1>} {
  return
}

// -----

// Rule: an unknown target is rejected by name.
// expected-error @+2 {{expected ::mlir::qmat::Chip to be one of: sm_80, sm_89, sm_90, sm_100, sm_120, gfx942, gfx950}}
// expected-error @+1 {{failed to parse QMat_TargetAttr parameter 'chip'}}
func.func @bad_target() attributes {t = #qmat.target<sm_75>} {
  return
}

// -----

// Rule: the prepared layout permutes 16-byte pieces of packed 4-bit codes.
func.func @gemv_prepared_fp8(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                             %y: memref<?x64xbf16>) {
  // expected-error @+1 {{prepared_weights needs packed 4-bit codes, K % 128 == 0 and N % 16 == 0, got fp8, K = 256, N = 64}}
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core prepared_weights
  return
}

// -----

// Rule: the prepared layout comes in tiles of 16 rows.
func.func @gemv_prepared_rows(%a: memref<?x256xbf16>, %w: memref<40x128xi8>, %s: memref<40x16xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x40xbf16>) {
  // expected-error @+1 {{prepared_weights needs packed 4-bit codes, K % 128 == 0 and N % 16 == 0, got nvfp4, K = 256, N = 40}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<40x128xi8>, memref<40x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core prepared_weights
  return
}

// -----

// Rule: only the tensor-core GEMV reads the prepared layout.
func.func @gemv_prepared_scalar(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{prepared_weights is read by the tensor-core GEMV only}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 prepared_weights
  return
}

// -----

// Rule: the dequantization reads prepared codes of whole 128-element steps.
func.func @dequant_prepared_k(%w: memref<?x32xi8>, %s: memref<?x4xf8E4M3FN>, %g: memref<f32>,
                              %scratch: memref<?x64xbf16>) {
  // expected-error @+1 {{prepared_weights needs packed 4-bit codes, K % 128 == 0 and N % 16 == 0, got nvfp4, K = 64, N = ?}}
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<?x32xi8>, memref<?x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%scratch : memref<?x64xbf16>) kernel = vec8 decode = lookup prepared_weights
  return
}

// -----

// Rule: K is positive.
func.func @zero_k(%a: memref<?x0xf16>, %w: memref<8x0xi8>, %s: memref<8x0xf8E4M3FN>,
                  %g: memref<f32>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{K must be positive, got 0}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x0xf16>, memref<8x0xi8>, memref<8x0xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: N is positive.
func.func @zero_n(%a: memref<?x64xf16>, %w: memref<0x32xi8>, %s: memref<0x4xf8E4M3FN>,
                  %g: memref<f32>, %y: memref<?x0xf16>) {
  // expected-error @+1 {{N must be positive, got 0}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xf16>, memref<0x32xi8>, memref<0x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x0xf16>)
  return
}

// -----

// Rule: a dynamic N of a dequantization tile is checked where the weights
// make it static.
func.func @zero_n_dequant(%w: memref<0x32xi8>, %s: memref<0x4xf8E4M3FN>, %g: memref<f32>,
                          %scratch: memref<?x64xbf16>) {
  // expected-error @+1 {{N must be positive, got 0}}
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<0x32xi8>, memref<0x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%scratch : memref<?x64xbf16>)
  return
}

// -----

// Rule: the GEMM's N and K are positive.
func.func @zero_k_gemm(%a: memref<?x0xf16>, %b: memref<32x0xf16>, %y: memref<?x32xf16>) {
  // expected-error @+1 {{K must be positive, got 0}}
  qmat.gemm ins(%a, %b : memref<?x0xf16>, memref<32x0xf16>) outs(%y : memref<?x32xf16>)
  return
}

// -----

// Rule: K fits the kernels' 32-bit offsets.
func.func @huge_k(%a: memref<?x2147483648xf16>, %w: memref<4x2147483648xf8E4M3FN>,
                  %s: memref<4x16777216xf32>, %y: memref<?x4xf16>) {
  // expected-error @+1 {{K must be at most 2^31 - 1 = 2147483647, got 2147483648}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x2147483648xf16>, memref<4x2147483648xf8E4M3FN>, memref<4x16777216xf32>)
      outs(%y : memref<?x4xf16>)
  return
}

// -----

// Rule: N fits the grid's x dimension (2^31 - 1 blocks).
func.func @huge_n(%a: memref<?x128xf16>, %w: memref<2147483648x128xf8E4M3FN>,
                  %s: memref<2147483648x1xf32>, %y: memref<?x2147483648xf16>) {
  // expected-error @+1 {{N must be at most 2^31 - 1 = 2147483647, got 2147483648}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x128xf16>, memref<2147483648x128xf8E4M3FN>, memref<2147483648x1xf32>)
      outs(%y : memref<?x2147483648xf16>)
  return
}

// -----

// Rule: the weights take at most 2^40 bytes.
func.func @huge_weights(%a: memref<?x2097152xf16>, %w: memref<1048576x2097152xf8E4M3FN>,
                        %s: memref<1048576x16384xf32>, %y: memref<?x1048576xf16>) {
  // expected-error @+1 {{the weights must be at most 2^40 bytes (N * K), got 2199023255552}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x2097152xf16>, memref<1048576x2097152xf8E4M3FN>, memref<1048576x16384xf32>)
      outs(%y : memref<?x1048576xf16>)
  return
}

// -----

// Rule: the packed weights take at most 2^40 bytes (half a byte per code).
func.func @huge_packed_weights(%a: memref<?x2097152xf16>, %w: memref<2097152x1048576xi8>,
                               %s: memref<2097152x65536xf16>, %y: memref<?x2097152xf16>) {
  // expected-error @+1 {{the weights must be at most 2^40 bytes (N * K/2), got 2199023255552}}
  qmat.matmul <int4, block = 32> ins(%a, %w, %s : memref<?x2097152xf16>, memref<2097152x1048576xi8>, memref<2097152x65536xf16>)
      outs(%y : memref<?x2097152xf16>)
  return
}

// -----

// Rule: ceil(K/bs) is 1 for any block of at least K elements, also the
// largest one (no overflow in K + bs - 1).
func.func @max_block(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf16>,
                     %y: memref<?x8xf16>) {
  // expected-error @+1 {{scales must have shape [N, ceil(K/bs)] = [8, 1], got [8, 2]}}
  qmat.matmul <int4, block = 9223372036854775807> ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x2xf16>)
      outs(%y : memref<?x8xf16>)
  return
}

// -----

// Rule: the launcher writes Y densely: a strided Y is refused.
func.func @strided_y(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x4xf8E4M3FN>,
                     %g: memref<f32>, %y: memref<?x32xf16, strided<[64, 1]>>) {
  // expected-error @+1 {{operand 'y' must be a dense row-major memref (identity layout), got 'memref<?x32xf16, strided<[64, 1]>>'}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x32xf16, strided<[64, 1]>>)
  return
}

// -----

// Rule: the launcher reads the global scale at its base pointer: an offset
// is refused.
func.func @offset_global_scale(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x4xf8E4M3FN>,
                               %g: memref<f32, strided<[], offset: 4>>, %y: memref<?x32xf16>) {
  // expected-error @+1 {{operand 'global_scale' must be a dense row-major memref (identity layout), got 'memref<f32, strided<[], offset: 4>>'}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x4xf8E4M3FN>)
      global_scale(%g : memref<f32, strided<[], offset: 4>>) outs(%y : memref<?x32xf16>)
  return
}

// -----

// Rule: the weights are dense, even when the strides are the row-major ones
// written out.
func.func @strided_weights(%a: memref<?x64xf16>, %w: memref<32x32xi8, strided<[32, 1], offset: ?>>,
                           %s: memref<32x4xf8E4M3FN>, %g: memref<f32>, %y: memref<?x32xf16>) {
  // expected-error @+1 {{operand 'weights' must be a dense row-major memref (identity layout), got 'memref<32x32xi8, strided<[32, 1], offset: ?>>'}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8, strided<[32, 1], offset: ?>>, memref<32x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x32xf16>)
  return
}

// -----

// Rule: the split-K sums of a tensor-core GEMV fit 48 KiB of shared memory.
func.func @gemv_shared_memory(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                              %y: memref<?x64xbf16>) {
  // expected-error @+1 {{split_k = 16, col_tiles = 4 and max_m = 64 need 262144 bytes of shared memory for the split-K sums, more than the 49152 (48 KiB) a block may take}}
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 64 split_k = 16 col_tiles = 4 tensor_core
  return
}

// -----

// Rule: a config's instruction agrees with tensor_core.
func.func @config_scalar_tensor_core(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config matrix = scalar but tensor_core is set}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = scalar, decode = magic_bias>
  return
}

// -----

// Rule: a config's instruction agrees with tensor_core.
func.func @config_mma_scalar(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config matrix = mma_16x8x16 but tensor_core is not set}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>
  return
}

// -----

// Rule: the warpgroup instruction is the fused GEMM's.
func.func @config_gemv_wgmma(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config matrix = wgmma_64xnx16 is the fused GEMM's warpgroup instruction, not a GEMV's}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = magic_bias>
  return
}

// -----

// Rule: whole lines hold at most 4 activation rows.
func.func @config_whole_lines_rows(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config whole_lines needs nvfp4 or mxfp4 codes decoded by magic_bias, K % 256 == 0, max_m <= 4 and col_tiles <= 2}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>
  return
}

// -----

// Rule: whole lines walk K in 256-element steps.
func.func @config_whole_lines_k(%a: memref<?x384xbf16>, %w: memref<64x192xi8>, %s: memref<64x24xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config whole_lines needs nvfp4 or mxfp4 codes decoded by magic_bias, K % 256 == 0, max_m <= 4 and col_tiles <= 2}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x384xbf16>, memref<64x192xi8>, memref<64x24xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 4 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>
  return
}

// -----

// Rule: half steps split four column tiles of fp4 codes with bf16 activations.
func.func @config_half_steps_tiles(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config half_steps needs nvfp4 or mxfp4 codes decoded by magic_bias, bf16 activations and col_tiles = 4}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 2 col_tiles = 2 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, half_steps = true>
  return
}

// -----

// Rule: half steps split four column tiles of fp4 codes with bf16 activations.
func.func @config_half_steps_int4(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x2xbf16>, %z: memref<64x1xi8>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config half_steps needs nvfp4 or mxfp4 codes decoded by magic_bias, bf16 activations and col_tiles = 4}}
  qmat.gemv <int4, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x2xbf16>)
      zero_points(%z : memref<64x1xi8>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, half_steps = true>
  return
}

// -----

// Rule: whole blocks need N to be a multiple of a block's rows (no partial-block branch).
func.func @config_whole_blocks(%a: memref<?x256xbf16>, %w: memref<80x128xi8>, %s: memref<80x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x80xbf16>) {
  // expected-error @+1 {{config whole_blocks needs N to be a multiple of the 64 rows a block produces, got N = 80}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<80x128xi8>, memref<80x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x80xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_blocks = true>
  return
}

// -----

// Rule: an op's own decode is its config's.
func.func @config_decode(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{decode = lookup but its config decodes with magic_bias}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core decode = lookup config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>
  return
}

// -----

// Rule: Y is a rank-2 memref [M, N].
func.func @y_rank(%a: memref<?x64xbf16>, %w: memref<8x32xi8>, %s: memref<8x4xf8E4M3FN>,
                  %g: memref<f32>, %y: memref<?xbf16>) {
  // expected-error @+1 {{Y must be a rank-2 memref [M, N], got 'memref<?xbf16>'}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xbf16>, memref<8x32xi8>, memref<8x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?xbf16>)
  return
}

// -----

// Rule: N, the row count of the weights, is static in Y.
func.func @y_dynamic_n(%a: memref<?x64xbf16>, %w: memref<8x32xi8>, %s: memref<8x4xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x?xbf16>) {
  // expected-error @+1 {{N (dim 1 of Y) must be static}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x64xbf16>, memref<8x32xi8>, memref<8x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x?xbf16>)
  return
}

// -----

// Rule: K, the scratch's row length, is static.
func.func @scratch_dynamic_k(%w: memref<4x64xf8E4M3FN>, %s: memref<4x1xf32>, %o: memref<4x?xbf16>) {
  // expected-error @+1 {{K (dim 1 of scratch) must be static}}
  qmat.dequantize <fp8, block = 128> ins(%w, %s : memref<4x64xf8E4M3FN>, memref<4x1xf32>)
      outs(%o : memref<4x?xbf16>)
  return
}

// -----

// Rule: the magic-bias decode of e2m1 places the codes with the exponent
// bias of the result type; without one it would decode wrong values.
func.func @decode_magic_bias_without_bias(%p: vector<4xi8>) {
  // expected-error @+1 {{magic_bias decoding of e2m1 needs exponent_bias 126 for 'bf16'}}
  %0 = qmat.decode e2m1 %p method = magic_bias : vector<4xi8> -> vector<8xbf16>
  return
}

// -----

// Rule: e4m3 takes no exponent bias (only 0 keeps every value exact).
func.func @decode_bias_e4m3(%p: vector<8xi8>) {
  // expected-error @+1 {{exponent_bias 8 is not exact for e4m3 to 'f16' (allowed: 0)}}
  %0 = qmat.decode e4m3 %p exponent_bias = 8 : vector<8xi8> -> vector<8xf16>
  return
}

// -----

// Rule: m16n8k16 takes four A pairs, two B pairs and four sums per lane.
func.func @warp_mma_counts(%a: vector<2xf16>, %c: f32) {
  // expected-error @+1 {{'qmat.warp_mma' op m16n8k16 takes 4 A pairs, 2 B pairs and 4 sums per lane, got 3, 2 and 4}}
  %d:4 = qmat.warp_mma [%a, %a, %a] * [%a, %a] + [%c, %c, %c, %c] : vector<2xf16>, vector<2xf16>, f32
  return
}

// -----

// Rule: A and B of one matrix instruction have one element type.
func.func @warp_mma_types(%a: vector<2xf16>, %b: vector<2xbf16>, %c: f32) {
  // expected-error @+1 {{'qmat.warp_mma' op A and B pairs must have one type, got 'vector<2xf16>' and 'vector<2xbf16>'}}
  %d:4 = qmat.warp_mma [%a, %a, %a, %a] * [%b, %b] + [%c, %c, %c, %c] : vector<2xf16>, vector<2xbf16>, f32
  return
}

// -----

// Rule: the warpgroup instruction's N (PTX's m64nNk16; each lane holds N / 2
// sums) is a multiple of 8 from 8 to 256.
func.func @warpgroup_mma_n(%a: vector<2xbf16>, %desc: i64, %c: f32) {
  // expected-error @+1 {{'qmat.warpgroup_mma' op N = 2 x sums per lane must be a multiple of 8 from 8 to 256, got 6}}
  %d:3 = qmat.warpgroup_mma [%a, %a, %a, %a] * %desc + [%c, %c, %c] : vector<2xbf16>, f32
  return
}

// -----

// Rule: the warpgroup instruction takes four A pairs per lane.
func.func @warpgroup_mma_a(%a: vector<2xbf16>, %desc: i64, %c: f32) {
  // expected-error @+1 {{'qmat.warpgroup_mma' op takes 4 A pairs per lane, got 2}}
  %d:4 = qmat.warpgroup_mma [%a, %a] * %desc + [%c, %c, %c, %c] : vector<2xbf16>, f32
  return
}


// -----

// Rule: the four A pairs share one type (generic form: the custom one names
// one).
func.func @warpgroup_mma_a_types(%a: vector<2xbf16>, %h: vector<2xf16>, %desc: i64, %c: f32) {
  // expected-error @+1 {{'qmat.warpgroup_mma' op A pairs must have one type}}
  %d:4 = "qmat.warpgroup_mma"(%a, %a, %a, %h, %desc, %c, %c, %c, %c) <{operandSegmentSizes = array<i32: 4, 1, 4>}> : (vector<2xbf16>, vector<2xbf16>, vector<2xbf16>, vector<2xf16>, i64, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  return
}
// -----

// Rule: a wait names how many batches may stay in flight: not negative.
func.func @warpgroup_wait_negative(%c: f32) {
  // expected-error @+1 {{'qmat.warpgroup_wait' op attribute 'pending' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %r = qmat.warpgroup_wait -1, %c : f32
  return
}

// -----

// Rule: an asynchronous copy names one index per dimension of each memref.
func.func @async_copy_indices(%a: memref<?x256xbf16>, %s: memref<2048xbf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.async_copy' op needs one index per dimension: 2 for the source and 1 for the destination, got 1 and 1}}
  qmat.async_copy %a[%i], %s[%i], 8 : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: an asynchronous copy keeps the element type.
func.func @async_copy_types(%a: memref<256xf16>, %s: memref<2048xbf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.async_copy' op copies between memrefs of one element type, got 'f16' and 'bf16'}}
  qmat.async_copy %a[%i], %s[%i], 8 : memref<256xf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: an asynchronous copy moves 16 bytes.
func.func @async_copy_bytes(%a: memref<256xbf16>, %s: memref<2048xbf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.async_copy' op copies 16 bytes: 16 x 16-bit elements is not}}
  qmat.async_copy %a[%i], %s[%i], 16 : memref<256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: an element count past 16 bytes is refused before it is multiplied
// (no wrap-around).
func.func @async_copy_huge(%a: memref<256xi4>, %s: memref<2048xi4, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.async_copy' op copies 16 bytes: 4611686018427387936 x 4-bit elements is not}}
  qmat.async_copy %a[%i], %s[%i], 4611686018427387936 : memref<256xi4> to memref<2048xi4, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: an asynchronous copy copies integers or floats.
func.func @async_copy_index(%a: memref<256xindex>, %s: memref<2048xindex, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.async_copy' op copies integer or float elements, got 'index'}}
  qmat.async_copy %a[%i], %s[%i], 2 : memref<256xindex> to memref<2048xindex, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: an asynchronous copy lands in workgroup memory.
func.func @async_copy_global(%a: memref<256xbf16>, %s: memref<2048xbf16>, %i: index) {
  // expected-error @+1 {{'qmat.async_copy' op copies into workgroup memory, got 'memref<2048xbf16>'}}
  qmat.async_copy %a[%i], %s[%i], 8 : memref<256xbf16> to memref<2048xbf16>
  return
}

// -----

// Rule: a tile decode decodes packed 4-bit codes.
func.func @decode_tile_fp8(%c: vector<16xi8>, %s: bf16) {
  // expected-error @+1 {{'qmat.decode_tile' op decodes packed 4-bit codes (nvfp4, mxfp4, int4), got fp8}}
  %t = qmat.decode_tile <fp8, block = 128> %c scales %s, %s, %s, %s : vector<16xi8>, bf16 -> vector<1x16x2xbf16>
  return
}


// -----

// Rule: a tile decode takes the codes of at least one row (generic form:
// the custom one always has a row).
func.func @decode_tile_no_rows(%s: f8E4M3FN) {
  // expected-error @+1 {{'qmat.decode_tile' op expects the codes of at least one row}}
  %t = "qmat.decode_tile"(%s, %s, %s, %s) <{operandSegmentSizes = array<i32: 0, 4, 0, 0>, scheme = #qmat.scheme<nvfp4, block = 16>}> : (f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN) -> vector<1x16x2xbf16>
  return
}
// -----

// Rule: a tile decode takes one scale per 8-element word.
func.func @decode_tile_block(%c: vector<16xi8>, %s: bf16) {
  // expected-error @+1 {{'qmat.decode_tile' op needs one scale per 8-element word: the block size must be a multiple of 8, got 4}}
  %t = qmat.decode_tile <int4, block = 4> %c scales %s, %s, %s, %s : vector<16xi8>, bf16 -> vector<1x16x2xbf16>
  return
}

// -----

// Rule: four scales per row (one per word) or sixteen (one per pair).
func.func @decode_tile_scales(%c: vector<16xi8>, %s: f8E4M3FN) {
  // expected-error @+1 {{'qmat.decode_tile' op expects 4 scales per row (one per 8-element word) or 16 (one per pair), got 3 for 2 rows}}
  %t = qmat.decode_tile <nvfp4, block = 16> %c, %c scales %s, %s, %s : vector<16xi8>, f8E4M3FN -> vector<2x16x2xbf16>
  return
}

// -----

// Rule: the scales have the scheme's element type (int4: the activations').
func.func @decode_tile_scale_type(%c: vector<16xi8>, %s: f16) {
  // expected-error @+1 {{'qmat.decode_tile' op int4 scales must be 'bf16', got 'f16'}}
  %t = qmat.decode_tile <int4, block = 32> %c scales %s, %s, %s, %s : vector<16xi8>, f16 -> vector<1x16x2xbf16>
  return
}

// -----

// Rule: every scale of a tile decode has one type.
func.func @decode_tile_mixed_scales(%c: vector<16xi8>, %s: f16, %t: bf16) {
  // expected-error @+1 {{'qmat.decode_tile' op expects every scale of one type}}
  %r = "qmat.decode_tile"(%c, %s, %s, %t, %t) <{scheme = #qmat.scheme<int4, block = 32>, operandSegmentSizes = array<i32: 1, 4, 0, 0>}> : (vector<16xi8>, f16, f16, bf16, bf16) -> vector<1x16x2xf16>
  return
}

// -----

// Rule: zero points only for int4.
func.func @decode_tile_zero_points(%c: vector<16xi8>, %s: f8E8M0FNU, %z: i8, %b: index) {
  // expected-error @+1 {{'qmat.decode_tile' op zero points are for int4 only}}
  %t = qmat.decode_tile <mxfp4, block = 32> %c scales %s, %s, %s, %s zero_points %z, %z, %z, %z blocks %b, %b, %b, %b : vector<16xi8>, f8E8M0FNU -> vector<1x16x2xbf16>
  return
}

// -----

// Rule: one zero-point byte per scale.
func.func @decode_tile_zero_point_count(%c: vector<16xi8>, %s: bf16, %z: i8, %b: index) {
  // expected-error @+1 {{'qmat.decode_tile' op expects one zero-point byte per scale (4), got 2}}
  %t = qmat.decode_tile <int4, block = 32> %c scales %s, %s, %s, %s zero_points %z, %z blocks %b, %b, %b, %b : vector<16xi8>, bf16 -> vector<1x16x2xbf16>
  return
}

// -----

// Rule: zero points come with one scale block per scale of a row.
func.func @decode_tile_blocks(%c: vector<16xi8>, %s: bf16, %z: i8, %b: index) {
  // expected-error @+1 {{'qmat.decode_tile' op expects 4 scale blocks (one per scale of a row) with zero points and none without, got 1}}
  %t = qmat.decode_tile <int4, block = 32> %c scales %s, %s, %s, %s zero_points %z, %z, %z, %z blocks %b : vector<16xi8>, bf16 -> vector<1x16x2xbf16>
  return
}

// -----

// Rule: one_multiply is mxfp4's.
func.func @decode_tile_one_multiply(%c: vector<16xi8>, %s: f8E4M3FN) {
  // expected-error @+1 {{'qmat.decode_tile' op one_multiply is for mxfp4 only}}
  %t = qmat.decode_tile <nvfp4, block = 16> %c scales %s, %s, %s, %s one_multiply : vector<16xi8>, f8E4M3FN -> vector<1x16x2xbf16>
  return
}

// -----

// Rule: the result holds every row's pairs (4 for one word, else 16).
func.func @decode_tile_shape(%c: vector<16xi8>, %s: f8E4M3FN) {
  // expected-error @+1 {{'qmat.decode_tile' op expects a result of shape 1x4x2 (rows x pairs x 2), got 'vector<1x16x2xbf16>'}}
  %t = qmat.decode_tile <nvfp4, block = 16> %c scales %s, %s, %s, %s word 1 : vector<16xi8>, f8E4M3FN -> vector<1x16x2xbf16>
  return
}

// -----

// Rule: a row has words 0 to 3.
func.func @decode_tile_word(%c: vector<16xi8>, %s: f8E4M3FN) {
  // expected-error @+1 {{'qmat.decode_tile' op attribute 'word' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 3}}
  %t = qmat.decode_tile <nvfp4, block = 16> %c scales %s, %s, %s, %s word 4 : vector<16xi8>, f8E4M3FN -> vector<1x4x2xbf16>
  return
}

// -----

// Rule: blocks without zero points.
func.func @decode_tile_blocks_alone(%c: vector<16xi8>, %s: bf16, %b: index) {
  // expected-error @+1 {{'qmat.decode_tile' op expects 4 scale blocks (one per scale of a row) with zero points and none without, got 4}}
  %t = "qmat.decode_tile"(%c, %s, %s, %s, %s, %b, %b, %b, %b) <{scheme = #qmat.scheme<int4, block = 32>, operandSegmentSizes = array<i32: 1, 4, 0, 4>}> : (vector<16xi8>, bf16, bf16, bf16, bf16, index, index, index, index) -> vector<1x16x2xbf16>
  return
}

// -----

// Rule: one m and one n offset per sum.
func.func @store_tile_offsets(%s: f32, %y: memref<?x?xbf16>, %i: index) {
  // expected-error @+1 {{'qmat.store_tile' op expects one m and one n offset per sum (2), got 2 and 1}}
  qmat.store_tile %s, %s to %y[%i, %i] offsets m [0, 1] n [0] bounds %i, %i : f32, f32 to memref<?x?xbf16>
  return
}

// -----

// Rule: offsets are not negative.
func.func @store_tile_negative(%s: f32, %y: memref<?x?xbf16>, %i: index) {
  // expected-error @+1 {{'qmat.store_tile' op expects offsets of at least 0}}
  qmat.store_tile %s to %y[%i, %i] offsets m [0] n [-8] bounds %i, %i : f32 to memref<?x?xbf16>
  return
}

// -----

// Rule: at least one sum.
func.func @store_tile_empty(%y: memref<?x?xbf16>, %i: index) {
  // expected-error @+1 {{'qmat.store_tile' op expects at least one sum}}
  "qmat.store_tile"(%y, %i, %i, %i, %i) <{m_offsets = array<i64>, n_offsets = array<i64>, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 0, 0, 0>}> : (memref<?x?xbf16>, index, index, index, index) -> ()
  return
}

// -----

// Rule: the bias has y's element type.
func.func @store_tile_bias(%s: f32, %y: memref<?x?xbf16>, %bias: memref<?xf16>, %i: index) {
  // expected-error @+1 {{'qmat.store_tile' op expects the bias of y's element type ('bf16'), got 'f16'}}
  qmat.store_tile %s to %y[%i, %i] offsets m [0] n [0] bounds %i, %i bias %bias : f32 to memref<?x?xbf16>, memref<?xf16>
  return
}

// -----

// Rule: y holds the activation type.
func.func @store_tile_f32(%s: f32, %y: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{'qmat.store_tile' op operand #1 must be 2D memref of 16-bit float or bfloat16 type values, but got 'memref<?x?xf32>'}}
  qmat.store_tile %s to %y[%i, %i] offsets m [0] n [0] bounds %i, %i : f32 to memref<?x?xf32>
  return
}

// -----

// Rule: the warpgroup instruction's N is a multiple of 8 from 8 to 256, with
// A in workgroup memory too.
func.func @warpgroup_mma_shared_n(%desc: i64, %c: f32) {
  // expected-error @+1 {{'qmat.warpgroup_mma_shared' op N = 2 x sums per lane must be a multiple of 8 from 8 to 256, got 264}}
  %d:132 = qmat.warpgroup_mma_shared %desc * %desc + [%c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c] : bf16, f32
  return
}

// -----

// Rule: the tiles' element type is f16 or bf16.
func.func @warpgroup_mma_shared_type(%desc: i64, %c: f32) {
  // expected-error @+1 {{'qmat.warpgroup_mma_shared' op attribute 'element_type' failed to satisfy constraint: type attribute of 16-bit float or bfloat16 type}}
  %d:4 = qmat.warpgroup_mma_shared %desc * %desc + [%c, %c, %c, %c] : f32, f32
  return
}

// -----

// Rule: a barrier object's arrival count is a 20-bit field.
func.func @mbarrier_init_count(%bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.mbarrier_init' op count must be from 1 to 1048575 arrivals, got 0}}
  qmat.mbarrier_init %bars[%i], 0 : memref<8xi64, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: so is the count of bytes an arrival announces.
func.func @mbarrier_arrive_expect(%bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.mbarrier_arrive' op expect must be from 1 to 1048575 bytes, got 1048576}}
  qmat.mbarrier_arrive %bars[%i] expect 1048576 : memref<8xi64, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: barrier objects live in workgroup memory.
func.func @mbarrier_wait_global(%bars: memref<8xi64>, %i: index, %parity: i32) {
  // expected-error @+1 {{'qmat.mbarrier_wait' op barrier objects live in workgroup memory, got 'memref<8xi64>'}}
  qmat.mbarrier_wait %bars[%i], %parity : memref<8xi64>
  return
}


// -----

func.func @mbarrier_init_global(%bars: memref<8xi64>, %i: index) {
  // expected-error @+1 {{'qmat.mbarrier_init' op barrier objects live in workgroup memory, got 'memref<8xi64>'}}
  qmat.mbarrier_init %bars[%i], 1 : memref<8xi64>
  return
}

// -----

func.func @mbarrier_arrive_global(%bars: memref<8xi64>, %i: index) {
  // expected-error @+1 {{'qmat.mbarrier_arrive' op barrier objects live in workgroup memory, got 'memref<8xi64>'}}
  qmat.mbarrier_arrive %bars[%i] : memref<8xi64>
  return
}

// -----

func.func @mbarrier_arrive_cluster_global(%bars: memref<8xi64>, %i: index) {
  // expected-error @+1 {{'qmat.mbarrier_arrive_cluster' op barrier objects live in workgroup memory, got 'memref<8xi64>'}}
  qmat.mbarrier_arrive_cluster %bars[%i] rank %i : memref<8xi64>
  return
}
// -----

// Rule: barrier objects are i64 elements of a 1-D memref.
func.func @mbarrier_wait_i32(%bars: memref<8xi32, #gpu.address_space<workgroup>>, %i: index, %parity: i32) {
  // expected-error @+1 {{'qmat.mbarrier_wait' op operand #0 must be 1D memref of 64-bit signless integer values, but got 'memref<8xi32, #gpu.address_space<workgroup>>'}}
  qmat.mbarrier_wait %bars[%i], %parity : memref<8xi32, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: a tensor load's box is two extents of at most 256.
func.func @tensor_load_box(%map: !llvm.ptr, %dst: memref<65536xbf16, #gpu.address_space<workgroup>>,
                           %bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.tensor_load' op box must be two extents from 1 to 256 (inner first), got [64, 512]}}
  qmat.tensor_load %map[%i, %i] box [64, 512], %dst[%i], %bars[%i]
      : !llvm.ptr, memref<65536xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: it loads into workgroup memory.
func.func @tensor_load_global(%map: !llvm.ptr, %dst: memref<65536xbf16>,
                              %bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.tensor_load' op loads into workgroup memory, got 'memref<65536xbf16>'}}
  qmat.tensor_load %map[%i, %i] box [64, 128], %dst[%i], %bars[%i]
      : !llvm.ptr, memref<65536xbf16>, memref<8xi64, #gpu.address_space<workgroup>>
  return
}


// -----

// Rule: it loads integer or float elements.
func.func @tensor_load_index(%map: !llvm.ptr, %dst: memref<65536xindex, #gpu.address_space<workgroup>>,
                             %bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.tensor_load' op loads integer or float elements, got 'index'}}
  qmat.tensor_load %map[%i, %i] box [64, 128], %dst[%i], %bars[%i]
      : !llvm.ptr, memref<65536xindex, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
  return
}
// -----

// Rule: a multicast mask names 1 to 16 ranks of the cluster.
func.func @tensor_load_multicast(%map: !llvm.ptr, %dst: memref<65536xbf16, #gpu.address_space<workgroup>>,
                                 %bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.tensor_load' op multicast must be a mask of 1 to 16 cluster ranks (1 to 65535), got 0}}
  qmat.tensor_load %map[%i, %i] box [64, 64] multicast 0, %dst[%i], %bars[%i]
      : !llvm.ptr, memref<65536xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
  return
}

// -----

// Rule: the box fits the destination.
func.func @tensor_load_fits(%map: !llvm.ptr, %dst: memref<4096xbf16, #gpu.address_space<workgroup>>,
                            %bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.tensor_load' op the box of 8192 elements does not fit dst 'memref<4096xbf16, #gpu.address_space<workgroup>>'}}
  qmat.tensor_load %map[%i, %i] box [64, 128], %dst[%i], %bars[%i]
      : !llvm.ptr, memref<4096xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
  return
}


// -----

// Rule: its barrier objects live in workgroup memory.
func.func @tensor_load_global_barriers(%map: !llvm.ptr, %dst: memref<65536xbf16, #gpu.address_space<workgroup>>,
                                       %bars: memref<8xi64>, %i: index) {
  // expected-error @+1 {{'qmat.tensor_load' op barrier objects live in workgroup memory, got 'memref<8xi64>'}}
  qmat.tensor_load %map[%i, %i] box [64, 128], %dst[%i], %bars[%i]
      : !llvm.ptr, memref<65536xbf16, #gpu.address_space<workgroup>>, memref<8xi64>
  return
}
// -----

// Rule: a tensor map's tile rows are 128 bytes (the swizzle's row).
func.func @tensor_map_box(%a: memref<?x512xf16>) {
  // expected-error @+1 {{'qmat.tensor_map' op box must be [128 bytes of columns, 1 to 256 rows] (a 128-byte swizzled row per tile row), got [32, 128] of 'f16'}}
  %map = qmat.tensor_map %a box [32, 128] : memref<?x512xf16>
  return
}

// -----

// Rule: its rows are a multiple of 16 bytes apart.
func.func @tensor_map_stride(%a: memref<?x100xbf16>) {
  // expected-error @+1 {{'qmat.tensor_map' op rows must be a multiple of 16 bytes apart, got 100 x 2 bytes}}
  %map = qmat.tensor_map %a box [64, 128] : memref<?x100xbf16>
  return
}

// -----

// Rule: a cluster of at least two blocks.
func.func @reduce_k_slices_one_slice(%s: vector<4xf32>, %p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_k_slices' op attribute 'slices' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 2}}
  %t = qmat.reduce_k_slices %s through %p rank %i slices 1 thread %i of 32 : vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
  return
}


// -----

// Rule: a K-slice reduction takes at least one sum (generic form).
func.func @reduce_k_slices_no_sums(%p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_k_slices' op expects at least one sum}}
  "qmat.reduce_k_slices"(%p, %i, %i) <{slices = 2 : i64, threads = 32 : i64}> : (memref<1024xf32, #gpu.address_space<workgroup>>, index, index) -> ()
  return
}
// -----

// Rule: at most 16 slices (a cluster's blocks) and 1024 threads.
func.func @reduce_k_slices_many(%s: vector<4xf32>, %p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_k_slices' op expects at most 16 slices and 1024 threads, got 32 and 32}}
  %t = qmat.reduce_k_slices %s through %p rank %i slices 32 thread %i of 32 : vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
  return
}

// -----

// Rule: one total per sum.
func.func @reduce_k_slices_totals(%s: vector<4xf32>, %p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_k_slices' op expects one total per sum (2), got 1}}
  %t = qmat.reduce_k_slices %s, %s through %p rank %i slices 2 thread %i of 32 : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
  return
}

// -----

// Rule: the sums are parked in workgroup memory, which other blocks read.
func.func @reduce_k_slices_global(%s: vector<4xf32>, %p: memref<1024xf32>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_k_slices' op parks the sums in workgroup memory, got 'memref<1024xf32>'}}
  %t = qmat.reduce_k_slices %s through %p rank %i slices 2 thread %i of 32 : vector<4xf32> through memref<1024xf32> -> vector<4xf32>
  return
}

// -----

// Rule: the buffer holds every thread's sums.
func.func @reduce_k_slices_small(%s: vector<4xf32>, %p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_k_slices' op needs 2048 elements of partials (2 sums x 256 threads x 4), got 1024}}
  %t:2 = qmat.reduce_k_slices %s, %s through %p rank %i slices 4 thread %i of 256 : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>, vector<4xf32>
  return
}

// -----

// Rule: a peer block's memory is workgroup memory.
func.func @load_cluster_peer_global(%p: memref<1024xf32>, %i: index) {
  // expected-error @+1 {{'qmat.load_cluster_peer' op reads another block's workgroup memory, got 'memref<1024xf32>'}}
  %v = qmat.load_cluster_peer %p[%i] rank %i : memref<1024xf32> -> vector<4xf32>
  return
}

// -----

// Rule: at least two K slices.
func.func @reduce_split_k_one_slice(%s: vector<4xf32>, %p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_split_k' op attribute 'slices' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 2}}
  qmat.reduce_split_k %s through %p warp %i slices 1 columns 1 lane %i of 32 : vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t: vector<4xf32>):
  }
  return
}

// -----

// Rule: the sums are parked in workgroup memory.
func.func @reduce_split_k_global(%s: vector<4xf32>, %p: memref<1024xf32>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_split_k' op parks the sums in workgroup memory, got 'memref<1024xf32>'}}
  qmat.reduce_split_k %s through %p warp %i slices 2 columns 1 lane %i of 32 : vector<4xf32> through memref<1024xf32> {
  ^bb0(%t: vector<4xf32>):
  }
  return
}

// -----

// Rule: the buffer holds every slice's, column's and lane's sums.
func.func @reduce_split_k_small(%s: vector<4xf32>, %p: memref<512xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_split_k' op needs 1024 elements of partials (4 slices x 2 columns x 1 sums x 32 lane slots x 4), got 512}}
  qmat.reduce_split_k %s through %p warp %i slices 4 columns 2 lane %i of 32 : vector<4xf32> through memref<512xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t: vector<4xf32>):
  }
  return
}

// -----

// Rule: the epilogue takes the totals.
func.func @reduce_split_k_arguments(%s: vector<4xf32>, %p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_split_k' op expects the epilogue to take one argument per sum, of its type (2), got 1}}
  qmat.reduce_split_k %s, %s through %p warp %i slices 2 columns 1 lane %i of 32 : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t: vector<4xf32>):
  }
  return
}

// -----

// Rule: at least one sum.
func.func @reduce_split_k_empty(%p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_split_k' op expects at least one sum}}
  "qmat.reduce_split_k"(%p, %i, %i) <{columns = 1 : i64, lane_slots = 32 : i64, slices = 2 : i64, operandSegmentSizes = array<i32: 0, 1, 1, 1, 0>}> ({
  ^bb0:
    qmat.yield
  }) : (memref<1024xf32, #gpu.address_space<workgroup>>, index, index) -> ()
  return
}

// -----

// Rule: the buffer's size is checked without overflowing.
func.func @reduce_split_k_huge(%s: vector<4xf32>, %p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_split_k' op needs more than 2^63 elements of partials (2 slices x 1 columns x 1 sums x 4611686018427387904 lane slots x 4), got 1024}}
  qmat.reduce_split_k %s through %p warp %i slices 2 columns 1 lane %i of 4611686018427387904 : vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t: vector<4xf32>):
  }
  return
}

// -----

// Rule: at most 1024 warps in the block.
func.func @reduce_split_k_warps(%s: vector<4xf32>, %p: memref<?xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'qmat.reduce_split_k' op expects at most 1024 warps (slices x columns), got 512 x 4}}
  qmat.reduce_split_k %s through %p warp %i slices 512 columns 4 lane %i of 32 : vector<4xf32> through memref<?xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t: vector<4xf32>):
  }
  return
}

// -----

// Rule: one index per dimension of the source.
func.func @load_tile_indices(%w: memref<?x128xi8>, %i: index) {
  // expected-error @+1 {{'qmat.load_tile' op expects one index per dimension of the source (2), got 1}}
  %c = qmat.load_tile streaming %w[%i] : memref<?x128xi8> -> vector<16xi8>
  return
}

// -----

// Rule: the result holds the source's elements.
func.func @load_tile_element(%s: memref<?x16xf8E4M3FN>, %i: index) {
  // expected-error @+1 {{'qmat.load_tile' op expects the source's element type ('f8E4M3FN'), got 'i8'}}
  %c = qmat.load_tile cached %s[%i, %i] : memref<?x16xf8E4M3FN> -> vector<2xi8>
  return
}

// -----

// Rule: a scalar or a 1-D vector.
func.func @load_tile_rank(%w: memref<?x128xi8>, %i: index) {
  // expected-error @+1 {{'qmat.load_tile' op expects a scalar or a fixed 1-D vector result, got 'vector<2x8xi8>'}}
  %c = qmat.load_tile cached %w[%i, %i] : memref<?x128xi8> -> vector<2x8xi8>
  return
}

// -----

// Rule: the alignment is a power of 2.
func.func @load_tile_alignment(%w: memref<?x128xi8>, %i: index) {
  // expected-error @+1 {{'qmat.load_tile' op attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive and whose value is a power of two > 0}}
  %c = qmat.load_tile cached %w[%i, %i] {alignment = 12 : i64} : memref<?x128xi8> -> vector<16xi8>
  return
}

// -----

// Rule: a base address is for streaming loads.
func.func @load_tile_base(%w: memref<?x128xi8>, %i: index) {
  // expected-error @+1 {{'qmat.load_tile' op takes a base address only for a streaming load}}
  %c = qmat.load_tile cached %w[%i, %i] base %i : memref<?x128xi8> -> vector<16xi8>
  return
}

// -----

// Rule: 16 code bytes for 32 packed elements, 32 for fp8.
func.func @decode_words_codes(%c: vector<16xi8>, %s: f32) {
  // expected-error @+1 {{'qmat.decode_words' op expects 32 code bytes for 32 fp8 elements, got 16}}
  %w = qmat.decode_words <fp8, block = 128> %c scales %s, %s, %s, %s method = arith : vector<16xi8>, f32 -> vector<4x8xbf16>
  return
}

// -----

// Rule: one scale per word.
func.func @decode_words_scales(%c: vector<16xi8>, %s: f8E4M3FN) {
  // expected-error @+1 {{'qmat.decode_words' op expects one scale per word (4), got 2}}
  %w = qmat.decode_words <nvfp4, block = 16> %c scales %s, %s method = lookup : vector<16xi8>, f8E4M3FN -> vector<4x8xbf16>
  return
}

// -----

// Rule: four words of eight.
func.func @decode_words_shape(%c: vector<16xi8>, %s: f8E4M3FN) {
  // expected-error @+1 {{'qmat.decode_words' op expects a result of shape 4x8 (words x elements), got 'vector<8x4xbf16>'}}
  %w = qmat.decode_words <nvfp4, block = 16> %c scales %s, %s, %s, %s method = lookup : vector<16xi8>, f8E4M3FN -> vector<8x4xbf16>
  return
}

// -----

// Rule: the scheme's scale type.
func.func @decode_words_scale_type(%c: vector<16xi8>, %s: f8E4M3FN) {
  // expected-error @+1 {{'qmat.decode_words' op mxfp4 scales must be 'f8E8M0FNU', got 'f8E4M3FN'}}
  %w = qmat.decode_words <mxfp4, block = 32> %c scales %s, %s, %s, %s method = lookup : vector<16xi8>, f8E4M3FN -> vector<4x8xbf16>
  return
}

// -----

// Rule: zero points and their blocks, one per word, for int4.
func.func @decode_words_zero_points(%c: vector<16xi8>, %s: bf16, %z: i8, %b: index) {
  // expected-error @+1 {{'qmat.decode_words' op expects one zero-point byte and one scale block per word (4) or neither, got 4 and 2}}
  %w = qmat.decode_words <int4, block = 32> %c scales %s, %s, %s, %s zero_points %z, %z, %z, %z blocks %b, %b method = magic_bias : vector<16xi8>, bf16 -> vector<4x8xbf16>
  return
}

// -----

// Rule: zero points are int4's.
func.func @decode_words_zero_points_nvfp4(%c: vector<16xi8>, %s: f8E4M3FN, %z: i8, %b: index) {
  // expected-error @+1 {{'qmat.decode_words' op zero points are for int4 only}}
  %w = qmat.decode_words <nvfp4, block = 16> %c scales %s, %s, %s, %s zero_points %z, %z, %z, %z blocks %b, %b, %b, %b method = lookup : vector<16xi8>, f8E4M3FN -> vector<4x8xbf16>
  return
}

// -----

// Rule: a global scale is nvfp4's.
func.func @decode_words_global(%c: vector<16xi8>, %s: f8E8M0FNU, %g: f32) {
  // expected-error @+1 {{'qmat.decode_words' op a global scale is for nvfp4 only}}
  %w = qmat.decode_words <mxfp4, block = 32> %c scales %s, %s, %s, %s global_scale %g method = lookup : vector<16xi8>, f8E8M0FNU -> vector<4x8xbf16>
  return
}

// -----

// Rule: no native decode of u4.
func.func @decode_words_native_u4(%c: vector<16xi8>, %s: bf16) {
  // expected-error @+1 {{'qmat.decode_words' op native decoding exists only for e2m1 and e4m3, not u4}}
  %w = qmat.decode_words <int4, block = 32> %c scales %s, %s, %s, %s method = native : vector<16xi8>, bf16 -> vector<4x8xbf16>
  return
}
