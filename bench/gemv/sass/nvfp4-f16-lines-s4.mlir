// The nvfp4 whole-line GEMV (split-K 4, one tile) alone, for bench/gemv/sass.sh.
func.func @decode(%a: memref<?x5120xf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                  %g: memref<f32>, %y: memref<?x17408xf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core
  return
}
