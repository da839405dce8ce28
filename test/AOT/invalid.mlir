// What qmat-aot refuses, each with its message and a non-zero exit.
// RUN: not qmat-aot %s -o %t --target=sm_75 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not qmat-aot %s -o %t --prefix=9lives 2>&1 | FileCheck %s --check-prefix=PREFIX
// RUN: not qmat-aot %s -o %t --emit=sass 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not qmat-aot %S/Inputs/does-not-exist.mlir -o %t 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not qmat-aot %S/Inputs/two-layers-one-func.mlir -o %t 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not qmat-aot %S/Inputs/no-layers.mlir -o %t 2>&1 | FileCheck %s --check-prefix=NONE

// TARGET: error: unknown target 'sm_75' (expected sm_80, sm_89, sm_90, sm_100, sm_120, gfx942 or gfx950)
// PREFIX: qmat-aot: --prefix must be a C identifier, got '9lives'
// EMIT: qmat-aot: --emit takes 'ptx', got 'sass'
// MISSING: qmat-aot: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// TWO: two-layers-one-func.mlir:3:1: error: qmat-aot needs one qmat.matmul per function (one launcher entry per layer), found 2
// NONE: no-layers.mlir:0:0: error: qmat-aot: the module holds no qmat.matmul layer

func.func @layer(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                 %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}
