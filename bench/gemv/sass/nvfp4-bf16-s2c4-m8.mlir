// The nvfp4 16-row GEMV of the lm_head at M = 8 (split-K 2, four tiles) alone, for bench/gemv/sass.sh.
func.func @decode(%a: memref<?x5120xbf16>, %w: memref<248320x2560xi8>, %s: memref<248320x320xf8E4M3FN>,
                  %g: memref<f32>, %y: memref<?x248320xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<248320x2560xi8>, memref<248320x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x248320xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core
  return
}
