// A qmat.matmul outside a function is refused before anything is lowered
// (the expansions run per function and would leave it in place).
// RUN: qmat-opt %s -verify-diagnostics --qmat-to-gpu-binary=target=sm_90
// RUN: not qmat-opt %s --qmat-to-gpu-binary=target=sm_90 2>&1 | FileCheck %s

// CHECK: error: 'qmat.matmul' op must be inside a func.func: the lowering expands the matmuls of each function

%a = memref.alloc() : memref<4x64xf16>
%ad = memref.cast %a : memref<4x64xf16> to memref<?x64xf16>
%w = memref.alloc() : memref<32x32xi8>
%s = memref.alloc() : memref<32x2xf8E8M0FNU>
%y = memref.alloc() : memref<4x32xf16>
%yd = memref.cast %y : memref<4x32xf16> to memref<?x32xf16>
// expected-error @+1 {{'qmat.matmul' op must be inside a func.func: the lowering expands the matmuls of each function}}
qmat.matmul <mxfp4, block = 32> ins(%ad, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
    outs(%yd : memref<?x32xf16>)
