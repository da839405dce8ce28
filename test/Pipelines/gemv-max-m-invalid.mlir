// Every M up to gemv-max-m is routed to a compiled GEMV variant: options
// that leave no variant of that row capacity (split-K 16 with four column
// tiles fits 8 rows only) are refused at compile time.
// RUN: qmat-opt %s -verify-diagnostics --qmat-to-gpu-binary="target=sm_90 gemv-max-m=64 gemv-split-k=16 gemv-col-tiles=4"
// RUN: not qmat-opt %s --qmat-to-gpu-binary="target=sm_90 gemv-max-m=16 gemv-split-k=1 gemv-col-tiles=4" 2>&1 | FileCheck %s --check-prefix=ROWS16

// ROWS16: gemv-max-m = 16 needs a GEMV variant of 16 rows, but gemv-split-k 1 and gemv-col-tiles 4 compile none beyond 8 rows

func.func @layer(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                 %y: memref<?x64xbf16>) {
  // expected-error @+1 {{gemv-max-m = 64 needs a GEMV variant of 64 rows, but gemv-split-k 16 and gemv-col-tiles 4 compile none beyond 8 rows (a variant takes at most 48 KiB of shared memory, 512 threads, and col_tiles * rows / 8 <= 4 when col_tiles > 1)}}
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>)
  return
}
