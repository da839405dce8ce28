// qmat-lower-gemv-to-gpu builds what the op's #qmat.kernel_config says and
// refuses a config its target cannot build (configs pinned here; the
// pipelines run qmat-configure-kernels first).
// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-lower-gemv-to-gpu

// -----

// Rule: the lowering decides nothing: an op without a config is refused.
func.func @unconfigured(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{has no #qmat.kernel_config to lower by (qmat-configure-kernels attaches one)}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// Rule: the config's instruction is the target's.
func.func @mfma_on_sm90(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config matrix = mfma_16x16x16 is not the matrix instruction of sm_90 (qmat-configure-kernels chooses it for the target)}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias>
  return
}

// -----

// Rule: sm_90 has no warpgroup instruction (sm_90a has).
func.func @wgmma_on_sm90(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x17408xbf16>) {
  // expected-error @+1 {{config matrix = wgmma_64xnx16 needs the warpgroup matrix instruction, which sm_90 lacks}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = magic_bias>
  return
}

// -----

// Rule: the config's decode is one the target has.
func.func @native_fp4_on_sm90(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{decode 'native' is not available for nvfp4 on sm_90}}
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = native>
  return
}
