func.func @layer(%a: memref<?x256xbf16>, %w: memref<192x128xi8>, %s: memref<192x16xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x192xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<192x128xi8>, memref<192x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x192xbf16>)
  return
}
