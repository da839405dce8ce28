// RUN: qmat-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(qmat-tensor-map-params))' | FileCheck %s

// A kernel's last `qmat.tensor_map_args` arguments become 128-byte,
// 64-byte-aligned by-value parameters read in place (grid constants); the
// attribute goes, the other arguments and kernels are left as they are.

// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.func @specialized(%arg0: !llvm.ptr, %arg1: i64, %arg2: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {nvvm.kernel} {
// CHECK: llvm.func @two(%arg0: i64, %arg1: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg2: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {nvvm.kernel} {
// CHECK: llvm.func @plain(%arg0: !llvm.ptr) attributes {nvvm.kernel} {
gpu.module @kernels {
  llvm.func @specialized(%a: !llvm.ptr, %m: i64, %map: !llvm.ptr) attributes {nvvm.kernel, qmat.tensor_map_args = 1 : i64} {
    llvm.return
  }
  llvm.func @two(%m: i64, %map0: !llvm.ptr, %map1: !llvm.ptr) attributes {nvvm.kernel, qmat.tensor_map_args = 2 : i64} {
    llvm.return
  }
  llvm.func @plain(%a: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// Rule: the marked arguments are pointers.
gpu.module @kernels {
  // expected-error @+1 {{'llvm.func' op qmat.tensor_map_args = 2 needs the kernel's last 2 arguments to be pointers}}
  llvm.func @not_pointers(%m: i64, %map: !llvm.ptr) attributes {nvvm.kernel, qmat.tensor_map_args = 2 : i64} {
    llvm.return
  }
}
