func.func @layer(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                 %y: memref<?x64xbf16>) {
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>)
  return
}
