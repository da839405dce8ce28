// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-configure-kernels=target=gfx942 --qmat-lower-gemv-to-gpu=target=gfx942

// Rule: a GEMV block has at most 512 threads; split-K 16 of 64-lane
// wavefronts would take 1024.
func.func @split_k_wavefronts(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                              %y: memref<?x64xbf16>) {
  // expected-error @+1 {{split_k = 16 needs 1024 threads per block on gfx942 (64-lane warps), more than the 512 a GEMV block may take}}
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 16 col_tiles = 1 tensor_core
  return
}

// -----

// Rule: the fused GEMM's block holds warps_n x split_k wavefronts of 64
// lanes, at most 512 threads.
func.func @fused_wavefronts(%a: memref<?x256xbf16>, %w: memref<256x128xi8>, %s: memref<256x16xf8E4M3FN>,
                            %g: memref<f32>, %y: memref<?x256xbf16>) {
  // expected-error @+1 {{warps_n = 8 and split_k = 2 need 1024 threads per block on gfx942 (64-lane warps), more than the 512 a block may take}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<256x128xi8>, memref<256x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x256xbf16>) m_tile = 16 warps_n = 8 split_k = 2 col_tiles = 1 stages = 1
  return
}

// -----

// Rule: gfx942 has no asynchronous copies to workgroup memory, so the fused
// GEMM stages its activations in one stage.
func.func @fused_stages(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{stages = 2 needs asynchronous copies to workgroup memory, which gfx942 lacks}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) m_tile = 16 warps_n = 2 split_k = 2 col_tiles = 1 stages = 2
  return
}

// -----

// Rule: the config's matrix instruction is the target's (16x16x16 on AMD).
func.func @fused_warp_mma(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                          %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config matrix = mma_16x8x16 is not the matrix instruction of gfx942 (qmat-configure-kernels chooses it for the target)}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) m_tile = 16 warps_n = 2 split_k = 2 col_tiles = 1 stages = 1
      config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>
  return
}
