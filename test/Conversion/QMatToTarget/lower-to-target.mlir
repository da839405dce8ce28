// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=sm_100 | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=host | FileCheck %s --enable-var-scope --check-prefix=HOST
// RUN: not qmat-opt %s --qmat-lower-to-target=target=sm_91 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: unknown target 'sm_91' (expected sm_80, sm_89, sm_90, sm_100, sm_120, gfx942, gfx950 or host)

// NVIDIA: qmat.byte_perm is prmt.b32 in its default mode, operand for
// operand (nvvm.prmt prints the selector first).
// CHECK-LABEL: func.func @byte_perm(
// CHECK-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32, %[[SEL:[a-z0-9_]+]]: i32)
// CHECK-NEXT: %[[R:.+]] = nvvm.prmt <default> %[[SEL]], %[[LO]], %[[HI]] : i32
// CHECK-NEXT: return %[[R]] : i32
// Host: the same selection in plain integer arithmetic.
// HOST-LABEL: func.func @byte_perm(
// HOST-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32, %[[SEL:[a-z0-9_]+]]: i32)
// HOST-NOT: qmat.byte_perm
// HOST-NOT: nvvm.
// HOST-DAG: %[[C32:.+]] = arith.constant 32 : i64
// HOST-DAG: %[[C255_64:.+]] = arith.constant 255 : i64
// HOST-DAG: %[[C255:.+]] = arith.constant 255 : i32
// HOST-DAG: %[[C15:.+]] = arith.constant 15 : i32
// HOST-DAG: %[[C7:.+]] = arith.constant 7 : i32
// HOST-DAG: %[[C8:.+]] = arith.constant 8 : i32
// HOST-DAG: %[[C0:.+]] = arith.constant 0 : i32
// The 8-byte pool {hi, lo}.
// HOST: %[[LO64:.+]] = arith.extui %[[LO]] : i32 to i64
// HOST-NEXT: %[[HI64:.+]] = arith.extui %[[HI]] : i32 to i64
// HOST-NEXT: %[[HISHIFT:.+]] = arith.shli %[[HI64]], %[[C32]] : i64
// HOST-NEXT: %[[POOL:.+]] = arith.ori %[[HISHIFT]], %[[LO64]] : i64
// Byte 0: selector nibble 0, its low three bits index the pool, bit 3 asks
// for the selected byte's sign replicated.
// HOST-NEXT: %[[N0:.+]] = arith.andi %[[SEL]], %[[C15]] : i32
// HOST-NEXT: %[[I0:.+]] = arith.andi %[[N0]], %[[C7]] : i32
// HOST-NEXT: %[[BITS0:.+]] = arith.muli %[[I0]], %[[C8]] : i32
// HOST-NEXT: %[[SH0:.+]] = arith.extui %[[BITS0]] : i32 to i64
// HOST-NEXT: %[[P0:.+]] = arith.shrui %[[POOL]], %[[SH0]] : i64
// HOST-NEXT: %[[M0:.+]] = arith.andi %[[P0]], %[[C255_64]] : i64
// HOST-NEXT: %[[B0:.+]] = arith.trunci %[[M0]] : i64 to i32
// HOST-NEXT: %[[S0:.+]] = arith.shrui %[[B0]], %[[C7]] : i32
// HOST-NEXT: %[[REP0:.+]] = arith.muli %[[S0]], %[[C255]] : i32
// HOST-NEXT: %[[MODE0:.+]] = arith.andi %[[N0]], %[[C8]] : i32
// HOST-NEXT: %[[USE0:.+]] = arith.cmpi ne, %[[MODE0]], %[[C0]] : i32
// HOST-NEXT: %[[R0:.+]] = arith.select %[[USE0]], %[[REP0]], %[[B0]] : i32
// Bytes 1..3 likewise, shifted into place and OR-ed together.
// HOST-COUNT-3: arith.select
// HOST: %[[R:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// HOST-NEXT: return %[[R]] : i32
func.func @byte_perm(%lo: i32, %hi: i32, %sel: i32) -> i32 {
  %0 = qmat.byte_perm %lo, %hi, %sel : i32
  return %0 : i32
}

// -----

// Only byte_perm is lowered: a decode left in place stays as it is, and
// byte_perm ops inside a gpu.module are found too.
// CHECK-LABEL: gpu.func @in_kernel(
// CHECK: qmat.decode e2m1 %{{.+}} : vector<1xi8> -> vector<2xf16>
// CHECK-NEXT: nvvm.prmt <default>
// CHECK-NOT: qmat.byte_perm
// HOST-LABEL: gpu.func @in_kernel(
// HOST: qmat.decode e2m1 %{{.+}} : vector<1xi8> -> vector<2xf16>
// HOST-NOT: qmat.byte_perm
// HOST-COUNT-4: arith.select
// HOST-NOT: arith.select
// HOST: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @in_kernel(%codes: vector<1xi8>, %lo: i32, %hi: i32, %sel: i32)
        -> (vector<2xf16>, i32) {
      %0 = qmat.decode e2m1 %codes : vector<1xi8> -> vector<2xf16>
      %1 = qmat.byte_perm %lo, %hi, %sel : i32
      gpu.return %0, %1 : vector<2xf16>, i32
    }
  }
}
