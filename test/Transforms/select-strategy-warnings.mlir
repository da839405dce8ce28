// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-select-strategy=target=sm_90

// A scratch row of K = 2^28 bf16 elements is 512 MiB, past the default
// 256 MiB cap: the plan still takes tiles of one row, and says that the
// workspace exceeds the cap.
func.func @row_beyond_cap(%a: memref<?x268435456xbf16>, %w: memref<4x134217728xi8>,
                          %s: memref<4x16777216xf8E4M3FN>, %g: memref<f32>,
                          %y: memref<?x4xbf16>) {
  // expected-warning @+1 {{one scratch row of K = 268435456 elements takes 536870912 bytes, more than scratch-cap-mib = 256 MiB: the prefill's tiles of one row each need that much workspace}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x268435456xbf16>, memref<4x134217728xi8>, memref<4x16777216xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x4xbf16>)
  return
}

// -----

// A row of exactly the cap (K = 2^27: 256 MiB) takes no warning.
func.func @row_at_cap(%a: memref<?x134217728xbf16>, %w: memref<4x67108864xi8>,
                      %s: memref<4x8388608xf8E4M3FN>, %g: memref<f32>,
                      %y: memref<?x4xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x134217728xbf16>, memref<4x67108864xi8>, memref<4x8388608xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x4xbf16>)
  return
}
