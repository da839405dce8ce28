// qmat-serialize-kernels-to-ptx: each kernel compiled as a module of its own
// (with the symbols it uses), the PTX joined: one header, each declaration
// once, the kernels in the gpu.module's order, the back end's comments
// outside functions gone.
// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-serialize-kernels-to-ptx --qmat-print-gpu-assembly | FileCheck %s

// CHECK-LABEL: // qmat-gpu-assembly @kernels #nvvm.target<chip = "sm_90">
// CHECK-NEXT: .version {{[0-9.]+}}
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK-EMPTY:
// CHECK-NEXT: .visible .global .align 4 .b8 table[8] = {0, 0, 128, 63, 0, 0, 0, 64};
// CHECK-EMPTY:
// CHECK-NEXT: .visible .entry second(
// CHECK: ld.global.b32 {{.*}}[table+4];
// CHECK: }
// CHECK-EMPTY:
// CHECK-NEXT: .visible .entry first(
// CHECK: ld.global.b32 {{.*}}[table];
// CHECK: }
// CHECK-EMPTY:
// CHECK-NEXT: .visible .entry alone(
// CHECK-NOT: .version
// CHECK-NOT: table[8]
// CHECK-NOT: // .globl
// CHECK: gpu.binary @kernels

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    llvm.mlir.global external @table(dense<[1.0, 2.0]> : tensor<2xf32>) {addr_space = 1 : i32} : !llvm.array<2 x f32>
    llvm.func @second(%out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %base = llvm.mlir.addressof @table : !llvm.ptr<1>
      %at = llvm.getelementptr %base[0, 1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, !llvm.array<2 x f32>
      %v = llvm.load %at : !llvm.ptr<1> -> f32
      llvm.store %v, %out : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @first(%out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %base = llvm.mlir.addressof @table : !llvm.ptr<1>
      %v = llvm.load %base : !llvm.ptr<1> -> f32
      llvm.store %v, %out : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @alone(%out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.mlir.constant(3.0 : f32) : f32
      llvm.store %v, %out : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// A single kernel takes the target's own serialization.
// CHECK-LABEL: // qmat-gpu-assembly @one #nvvm.target<chip = "sm_90a">
// CHECK: .target sm_90a
// CHECK: .visible .entry only(

module attributes {gpu.container_module} {
  gpu.module @one [#nvvm.target<chip = "sm_90a">] {
    llvm.func @only() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @below {{qmat-serialize-kernels-to-ptx needs one #nvvm.target on the gpu.module}}
  gpu.module @amd [#rocdl.target<chip = "gfx942">] {
  }
}
