// What qmat-aot refuses, each with its message and a non-zero exit.
// RUN: not qmat-aot %s -o %t --target=sm_75 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not qmat-aot %s -o %t --prefix=9lives 2>&1 | FileCheck %s --check-prefix=PREFIX
// RUN: not qmat-aot %s -o %t --emit=sass 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not qmat-aot %S/Inputs/does-not-exist.mlir -o %t 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not qmat-aot %S/Inputs/two-layers-one-func.mlir -o %t 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not qmat-aot %S/Inputs/no-layers.mlir -o %t 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not qmat-aot %s -o %t --prefix=my-bundle 2>&1 | FileCheck %s --check-prefix=PREFIX-DASH
// RUN: not qmat-aot %s -o %t --target=sm_90,sm_90 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not qmat-aot %s -o %t --target=sm_90 --target=sm_100,sm_90 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not qmat-aot %S/Inputs/colliding-names.mlir -o %t 2>&1 | FileCheck %s --check-prefix=COLLIDE
// RUN: not qmat-aot %S/Inputs/matmul-in-if.mlir -o %t 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not qmat-aot %S/Inputs/tensor-core-layer.mlir -o %t --gemv-max-m=64 --gemv-split-k=16 --gemv-col-tiles=4 2>&1 | FileCheck %s --check-prefix=MAXM

// TARGET: qmat-aot: for the --target option: unknown target 'sm_75' (expected sm_80, sm_86, sm_87, sm_88, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_110, sm_110a, sm_120, sm_120a, sm_121, sm_121a, gfx942, gfx950)
// PREFIX: qmat-aot: for the --prefix option: must be a C identifier, got '9lives'
// EMIT: qmat-aot: for the --emit option: Cannot find option named 'sass'!
// MISSING: qmat-aot: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// TWO: two-layers-one-func.mlir:3:1: error: qmat-aot needs one qmat.matmul per function (one launcher entry per layer), found 2
// NONE: no-layers.mlir:0:0: error: qmat-aot: the module holds no qmat.matmul layer
// PREFIX-DASH: qmat-aot: for the --prefix option: must be a C identifier, got 'my-bundle'
// TWICE: qmat-aot: for the --target option: 'sm_90' is listed twice
// COLLIDE: colliding-names.mlir:7:1: error: layers 'layers.0' and 'layers_0' both become the C name 'layers_0'
// NESTED: matmul-in-if.mlir:4:5: error: 'qmat.matmul' op qmat-aot needs each qmat.matmul directly in the body of its function, not inside 'scf.if'
// MAXM: tensor-core-layer.mlir:3:3: error: 'qmat.matmul' op gemv-max-m = 64 needs a GEMV variant of 64 rows, but gemv-split-k 16 and gemv-col-tiles 4 compile none beyond 8 rows (a variant takes at most 48 KiB of shared memory, 512 threads, and col_tiles * rows / 8 <= 4 when col_tiles > 1)

func.func @layer(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                 %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}
