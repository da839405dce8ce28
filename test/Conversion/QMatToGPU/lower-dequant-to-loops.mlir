// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(qmat-lower-dequant-to-loops),qmat-expand-load-tile{target=host})' | FileCheck %s --enable-var-scope

// One loop over the rows, one over a row's work items; the body is what one
// GPU thread does for one item. The global scale is read once, up front.
// CHECK-LABEL: func.func @vec8_nvfp4(
// CHECK-SAME: %[[W:[a-z0-9_]+]]: memref<?x32xi8>, %[[S:[a-z0-9_]+]]: memref<?x4xf8E4M3FN>, %[[G:[a-z0-9_]+]]: memref<f32>, %[[O:[a-z0-9_]+]]: memref<?x64xbf16>)
// CHECK-NEXT: %[[GLOBAL:.+]] = memref.load %[[G]][] : memref<f32>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[ROWS:.+]] = memref.dim %[[W]], %{{.+}} : memref<?x32xi8>
// CHECK-DAG: %[[ITEMS:.+]] = arith.constant 8 : index
// CHECK: scf.for %[[ROW:.+]] = %[[C0]] to %[[ROWS]] step %[[C1]] {
// CHECK-NEXT: scf.for %[[ITEM:.+]] = %[[C0]] to %[[ITEMS]] step %[[C1]] {
// CHECK-NOT: memref.load %[[G]]
// CHECK: %[[CODES:.+]] = vector.load %[[W]][%[[ROW]], %{{.+}}] {alignment = 4 : i64} : memref<?x32xi8>, vector<4xi8>
// CHECK: memref.load %[[S]][%[[ROW]], %{{.+}}] : memref<?x4xf8E4M3FN>
// CHECK: %[[VALUES:.+]] = qmat.decode e2m1 %[[CODES]] method = lookup : vector<4xi8> -> vector<8xf32>
// CHECK: %[[GVEC:.+]] = vector.broadcast %[[GLOBAL]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[PRODUCT:.+]] = arith.mulf %{{.+}}, %[[GVEC]] : vector<8xf32>
// CHECK-NEXT: %[[ROUNDED:.+]] = arith.truncf %[[PRODUCT]] : vector<8xf32> to vector<8xbf16>
// The CPU's conversion keeps NaN payloads, so the canonical NaN is selected.
// CHECK-NEXT: %[[NAN:.+]] = arith.constant dense<0x7FFF> : vector<8xbf16>
// CHECK-NEXT: %[[ISNAN:.+]] = arith.cmpf uno, %[[PRODUCT]], %[[PRODUCT]] : vector<8xf32>
// CHECK-NEXT: %[[OUT:.+]] = arith.select %[[ISNAN]], %[[NAN]], %[[ROUNDED]] : vector<8xi1>, vector<8xbf16>
// CHECK-NEXT: %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT: %[[K0:.+]] = arith.muli %[[ITEM]], %[[C8]] : index
// CHECK-NEXT: vector.store %[[OUT]], %[[O]][%[[ROW]], %[[K0]]] {alignment = 16 : i64} : memref<?x64xbf16>, vector<8xbf16>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @vec8_nvfp4(%w: memref<?x32xi8>, %s: memref<?x4xf8E4M3FN>, %g: memref<f32>,
                      %o: memref<?x64xbf16>) {
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<?x32xi8>, memref<?x4xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%o : memref<?x64xbf16>) kernel = vec8 decode = lookup
  return
}

// -----

// Scalar int4, odd block, no zero points: a byte per item (32 a row), two
// scales a byte, the default zero point 8, and the host's default int4
// decode (plain arithmetic).
// CHECK-LABEL: func.func @scalar_int4(
// CHECK-SAME: %[[W:[a-z0-9_]+]]: memref<4x32xi8>, %[[S:[a-z0-9_]+]]: memref<4x10xf16>, %[[O:[a-z0-9_]+]]: memref<4x64xf16>)
// CHECK-NOT: memref.load
// CHECK-DAG: %[[ROWS:.+]] = memref.dim %[[W]], %{{.+}} : memref<4x32xi8>
// CHECK-DAG: %[[ITEMS:.+]] = arith.constant 32 : index
// CHECK: scf.for %[[ROW:.+]] = %{{.+}} to %[[ROWS]] step %{{.+}} {
// CHECK-NEXT: scf.for %[[ITEM:.+]] = %{{.+}} to %[[ITEMS]] step %{{.+}} {
// CHECK: %[[CODES:.+]] = vector.load %[[W]][%[[ROW]], %{{.+}}] {alignment = 1 : i64} : memref<4x32xi8>, vector<1xi8>
// CHECK-COUNT-2: memref.load %[[S]][%[[ROW]], %{{.+}}] : memref<4x10xf16>
// CHECK: %[[Q:.+]] = qmat.decode u4 %[[CODES]] method = arith : vector<1xi8> -> vector<2xf32>
// CHECK-DAG: %[[EIGHT:.+]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[ZP:.+]] = vector.from_elements %[[EIGHT]], %{{.+}} : vector<2xf32>
// CHECK-NEXT: %[[CENTERED:.+]] = arith.subf %[[Q]], %[[ZP]] : vector<2xf32>
// CHECK-NEXT: arith.mulf %[[CENTERED]], %{{.+}} : vector<2xf32>
// CHECK: vector.store %{{.+}}, %[[O]][%[[ROW]], %{{.+}}] {alignment = 4 : i64} : memref<4x64xf16>, vector<2xf16>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @scalar_int4(%w: memref<4x32xi8>, %s: memref<4x10xf16>, %o: memref<4x64xf16>) {
  qmat.dequantize <int4, block = 7>
      ins(%w, %s : memref<4x32xi8>, memref<4x10xf16>) outs(%o : memref<4x64xf16>) kernel = scalar
  return
}

// -----

// Two layers become two loop nests; no GPU constructs on the host.
// CHECK-LABEL: func.func @two(
// CHECK-NOT: qmat.dequantize
// CHECK-NOT: gpu.
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: qmat.decode e4m3 %{{.+}} method = arith : vector<8xi8> -> vector<8xf32>
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: qmat.decode e4m3 %{{.+}} method = arith : vector<1xi8> -> vector<1xf32>
// CHECK-NOT: qmat.dequantize
func.func @two(%w: memref<16x256xf8E4M3FN>, %s: memref<16x2xf32>, %o: memref<16x256xf16>,
               %w2: memref<4x77xf8E4M3FN>, %s2: memref<4x1xf32>, %o2: memref<4x77xbf16>) {
  qmat.dequantize <fp8, block = 128>
      ins(%w, %s : memref<16x256xf8E4M3FN>, memref<16x2xf32>) outs(%o : memref<16x256xf16>)
      kernel = vec8
  qmat.dequantize <fp8, block = 128>
      ins(%w2, %s2 : memref<4x77xf8E4M3FN>, memref<4x1xf32>) outs(%o2 : memref<4x77xbf16>)
      kernel = scalar
  return
}
