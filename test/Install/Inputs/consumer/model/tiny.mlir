// One small mxfp4 layer; its name is not a C identifier, so the entry
// points are tiny_blocks_0_up_run and so on.
func.func @"blocks.0.up"(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                         %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}
