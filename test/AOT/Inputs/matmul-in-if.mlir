func.func @layer(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                 %y: memref<?x32xf16>, %c: i1) {
  scf.if %c {
    qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
        outs(%y : memref<?x32xf16>)
  }
  return
}
