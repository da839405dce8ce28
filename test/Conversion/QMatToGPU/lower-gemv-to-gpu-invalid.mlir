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
