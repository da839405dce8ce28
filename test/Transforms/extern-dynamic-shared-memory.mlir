// RUN: qmat-opt %s --pass-pipeline='builtin.module(gpu.module(qmat-extern-dynamic-shared-memory))' | FileCheck %s

// The zero-sized workgroup array that gpu.dynamic_shared_memory lowers to
// becomes external (the backends' dynamic memory); a static workgroup
// array, a zero-sized array in another address space and an initialized
// global keep their linkage.

// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK: llvm.mlir.global internal @global_zero() {addr_space = 1 : i32} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal constant @table(dense<0> : tensor<0xi8>) {addr_space = 3 : i32} : !llvm.array<0 x i8>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  llvm.mlir.global internal @global_zero() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global internal constant @table(dense<0> : tensor<0xi8>) {addr_space = 3 : i32} : !llvm.array<0 x i8>
}
