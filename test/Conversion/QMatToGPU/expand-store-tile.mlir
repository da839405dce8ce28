// RUN: qmat-opt %s -split-input-file --qmat-expand-store-tile | FileCheck %s --enable-var-scope

// Each sum in order: its position (an offset of 0 adds nothing), the
// bounds and the mask, and under them the factor, the bias in fp32, one
// rounding and the store.
// CHECK-LABEL: func.func @epilogue(
// CHECK-SAME: %[[S0:[a-z0-9]+]]: f32, %[[S1:[a-z0-9]+]]: f32, %[[Y:[a-z0-9]+]]: memref<?x?xbf16>, %[[BIAS:[a-z0-9]+]]: memref<?xbf16>, %[[M:[a-z0-9]+]]: index, %[[N:[a-z0-9]+]]: index, %[[NUMM:[a-z0-9]+]]: index, %[[NUMN:[a-z0-9]+]]: index, %[[F:[a-z0-9]+]]: f32, %[[OWNER:[a-z0-9]+]]: i1
// CHECK: %[[IN_M:.+]] = arith.cmpi ult, %[[M]], %[[NUMM]] : index
// CHECK-NEXT: %[[IN_N:.+]] = arith.cmpi ult, %[[N]], %[[NUMN]] : index
// CHECK-NEXT: %[[INSIDE:.+]] = arith.andi %[[IN_M]], %[[IN_N]] : i1
// CHECK-NEXT: %[[OWNED:.+]] = arith.andi %[[INSIDE]], %[[OWNER]] : i1
// CHECK-NEXT: scf.if %[[OWNED]] {
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[S0]], %[[F]] : f32
// CHECK-NEXT: %[[B:.+]] = memref.load %[[BIAS]][%[[N]]] : memref<?xbf16>
// CHECK-NEXT: %[[WIDE:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[SCALED]], %[[WIDE]] : f32
// CHECK-NEXT: %[[OUT:.+]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK-NEXT: memref.store %[[OUT]], %[[Y]][%[[M]], %[[N]]] : memref<?x?xbf16>
// CHECK-NEXT: }
// The second sum: row n + 8, column m + 1.
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT: %[[N8:.+]] = arith.addi %[[N]], %[[C8]] : index
// CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[M1:.+]] = arith.addi %[[M]], %[[C1]] : index
// CHECK-NEXT: arith.cmpi ult, %[[M1]], %[[NUMM]] : index
// CHECK-NEXT: arith.cmpi ult, %[[N8]], %[[NUMN]] : index
// CHECK: arith.mulf %[[S1]], %[[F]] : f32
// CHECK-NEXT: memref.load %[[BIAS]][%[[N8]]] : memref<?xbf16>
// CHECK: memref.store %{{.+}}, %[[Y]][%[[M1]], %[[N8]]] : memref<?x?xbf16>
// CHECK-NOT: qmat.store_tile
func.func @epilogue(%s0: f32, %s1: f32, %y: memref<?x?xbf16>, %bias: memref<?xbf16>,
                    %m: index, %n: index, %num_m: index, %num_n: index, %f: f32, %owner: i1) {
  qmat.store_tile %s0, %s1 to %y[%m, %n] offsets m [0, 1] n [0, 8] bounds %num_m, %num_n
      factor %f bias %bias mask %owner : f32, f32 to memref<?x?xbf16>, memref<?xbf16>
  return
}

// -----

// Without factor, bias or mask: the sum rounded and stored; a constant
// base folds with its offset.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME: %[[S:[a-z0-9]+]]: f32, %[[Y:[a-z0-9]+]]: memref<?x?xf16>, %[[N:[a-z0-9]+]]: index, %[[NUMM:[a-z0-9]+]]: index, %[[NUMN:[a-z0-9]+]]: index
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[IN_M:.+]] = arith.cmpi ult, %[[C3]], %[[NUMM]] : index
// CHECK-NEXT: %[[IN_N:.+]] = arith.cmpi ult, %[[N]], %[[NUMN]] : index
// CHECK-NEXT: %[[INSIDE:.+]] = arith.andi %[[IN_M]], %[[IN_N]] : i1
// CHECK-NEXT: scf.if %[[INSIDE]] {
// CHECK-NEXT: %[[OUT:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: memref.store %[[OUT]], %[[Y]][%[[C3]], %[[N]]] : memref<?x?xf16>
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @plain(%s: f32, %y: memref<?x?xf16>, %n: index, %num_m: index, %num_n: index) {
  %c0 = arith.constant 0 : index
  qmat.store_tile %s to %y[%c0, %n] offsets m [3] n [0] bounds %num_m, %num_n : f32 to memref<?x?xf16>
  return
}
