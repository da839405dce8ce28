func.func @layer(%a: memref<?x16384xbf16>, %w: memref<128x8192xi8>, %s: memref<128x1024xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x16384xbf16>, memref<128x8192xi8>, memref<128x1024xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
  return
}
