// RUN: qmat-opt %s --pass-pipeline='builtin.module(gpu.module(qmat-extern-dynamic-shared-memory))' | FileCheck %s

// The zero-sized workgroup array that gpu.dynamic_shared_memory lowers to
// becomes external (the backends' dynamic memory); a static workgroup
// array, a zero-sized array in another address space and an initialized
// global keep their linkage. On NVIDIA the dynamic memory is aligned to
// 1024 bytes (the swizzled tiles of the warpgroup instruction start at such
// boundaries); elsewhere it keeps its alignment.

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

// CHECK-LABEL: gpu.module @nvidia_kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
gpu.module @nvidia_kernels [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}
