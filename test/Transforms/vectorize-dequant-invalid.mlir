// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-vectorize-dequant=force=vec8
// An unknown kernel name is an option error, reported on the module.
// RUN: not qmat-opt %s --qmat-vectorize-dequant=force=vec16 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: error: unknown dequant kernel 'vec16' (expected auto, vec8 or scalar)
// OPTION-NOT: error: 'qmat.dequantize' op

// An odd block: a byte's two nibbles can fall in two scale blocks.
func.func @odd_block(%wi: memref<4x32xi8>, %si: memref<4x10xf16>, %oi: memref<4x64xf16>) {
  // expected-error @+1 {{'qmat.dequantize' op vec8 needs K % 8 == 0 and an even block size, got K = 64, block = 7}}
  qmat.dequantize <int4, block = 7>
      ins(%wi, %si : memref<4x32xi8>, memref<4x10xf16>) outs(%oi : memref<4x64xf16>)
  return
}

// -----

// K % 8 != 0, even when the plan picked scalar: forcing overrides the plan
// and must be diagnosed, not silently produce an out-of-row store.
func.func @k_77(%w8: memref<4x77xf8E4M3FN>, %s8: memref<4x1xf32>, %o8: memref<4x77xbf16>) {
  // expected-error @+1 {{'qmat.dequantize' op vec8 needs K % 8 == 0 and an even block size, got K = 77, block = 128}}
  qmat.dequantize <fp8, block = 128>
      ins(%w8, %s8 : memref<4x77xf8E4M3FN>, memref<4x1xf32>) outs(%o8 : memref<4x77xbf16>)
      kernel = scalar
  return
}
