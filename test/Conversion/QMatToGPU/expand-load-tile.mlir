// RUN: qmat-opt %s -split-input-file --qmat-expand-load-tile | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-expand-load-tile=target=gfx942 | FileCheck %s --check-prefix=GFX --enable-var-scope
// RUN: not qmat-opt %s -split-input-file --qmat-expand-load-tile=target=sm_91 2>&1 | FileCheck %s --check-prefix=BAD

// Streamed codes on NVIDIA: the base (aligned pointer plus the
// descriptor's offset) once, before the function's first memory access;
// each load at base + row x row stride + column. An index that is the
// constant 0 adds nothing (the prepared layout's byte offsets).
// CHECK-LABEL: func.func @streaming(
// CHECK-SAME: %[[W:[a-z0-9]+]]: memref<?x128xi8, strided<[128, 1], offset: ?>>, %[[G:[a-z0-9]+]]: memref<f32>, %[[ROW:[a-z0-9]+]]: index, %[[COL:[a-z0-9]+]]: index
// CHECK: %[[BYTE:.+]] = arith.muli %[[ROW]], %[[COL]] : index
// CHECK-NEXT: %{{.+}}, %[[OFFSET:[a-z_0-9]+]], %{{.+}}:2, %[[STRIDES:[a-z_0-9]+]]:2 = memref.extract_strided_metadata %[[W]]
// CHECK-NEXT: %[[POINTER:.+]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK-NEXT: %[[BASE:.+]] = arith.addi %[[POINTER]], %[[OFFSET]] : index
// CHECK-NEXT: %[[SCALE:.+]] = memref.load %[[G]][] : memref<f32>
// CHECK-NEXT: %[[ROWBYTE:.+]] = arith.muli %[[ROW]], %[[STRIDES]]#0 : index
// CHECK-NEXT: %[[INBUFFER:.+]] = arith.addi %[[ROWBYTE]], %[[COL]] : index
// CHECK-NEXT: %[[ADDRESS:.+]] = arith.addi %[[BASE]], %[[INBUFFER]] : index
// CHECK-NEXT: %[[I64:.+]] = arith.index_castui %[[ADDRESS]] : index to i64
// CHECK-NEXT: %[[A:.+]] = qmat.load_streaming %[[I64]] : vector<16xi8>
// CHECK-NEXT: %[[ADDRESS2:.+]] = arith.addi %[[BASE]], %[[BYTE]] : index
// CHECK-NEXT: %[[I64_2:.+]] = arith.index_castui %[[ADDRESS2]] : index to i64
// CHECK-NEXT: %[[B:.+]] = qmat.load_streaming %[[I64_2]] : vector<16xi8>
// CHECK-NOT: qmat.load_tile
// CHECK: return %[[A]], %[[B]], %[[SCALE]]
// A target without the streaming load reads them as cached loads.
// GFX-LABEL: func.func @streaming(
// GFX-NOT: extract_aligned_pointer
// GFX: vector.load %arg0[%arg2, %arg3] {alignment = 16 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>>, vector<16xi8>
// GFX: vector.load %arg0[%c0, %{{.+}}] {alignment = 16 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>>, vector<16xi8>
// BAD: error: unknown target 'sm_91' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942, gfx950, host or host-amdgcn)
func.func @streaming(%w: memref<?x128xi8, strided<[128, 1], offset: ?>>, %g: memref<f32>, %row: index, %col: index) -> (vector<16xi8>, vector<16xi8>, f32) {
  %c0 = arith.constant 0 : index
  %byte = arith.muli %row, %col : index
  %s = memref.load %g[] : memref<f32>
  %a = qmat.load_tile streaming %w[%row, %col] {alignment = 16 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>> -> vector<16xi8>
  %b = qmat.load_tile streaming %w[%c0, %byte] {alignment = 16 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>> -> vector<16xi8>
  return %a, %b, %s : vector<16xi8>, vector<16xi8>, f32
}

// -----

// Inside a loop the base is built before the loop (the first memory
// access), once for both loads.
// CHECK-LABEL: func.func @in_loop(
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[BASE:.+]] = arith.addi
// CHECK-NEXT: scf.for
// CHECK-NOT: extract_aligned_pointer
// CHECK: arith.addi %[[BASE]],
// CHECK: qmat.load_streaming
// CHECK: arith.addi %[[BASE]],
// CHECK: qmat.load_streaming
func.func @in_loop(%w: memref<64x128xi8>, %n: index) -> vector<16xi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0> : vector<16xi8>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> vector<16xi8> {
    %a = qmat.load_tile streaming %w[%i, %c0] {alignment = 16 : i64} : memref<64x128xi8> -> vector<16xi8>
    %b = qmat.load_tile streaming %w[%i, %i] {alignment = 16 : i64} : memref<64x128xi8> -> vector<16xi8>
    %s = arith.addi %a, %b : vector<16xi8>
    scf.yield %s : vector<16xi8>
  }
  return %r : vector<16xi8>
}

// -----

// Streaming loads that are not 16 bytes aligned to 16 stay plain loads.
// CHECK-LABEL: func.func @not_streamed(
// CHECK-NOT: qmat.load_streaming
// CHECK: vector.load %arg0[%arg1, %arg2] {alignment = 16 : i64} : memref<?x256xi8>, vector<32xi8>
// CHECK: vector.load %arg0[%arg1, %arg2] {alignment = 8 : i64} : memref<?x256xi8>, vector<16xi8>
// CHECK: vector.load %arg0[%arg1, %arg2] : memref<?x256xi8>, vector<16xi8>
func.func @not_streamed(%w: memref<?x256xi8>, %row: index, %col: index) -> (vector<32xi8>, vector<16xi8>, vector<16xi8>) {
  %a = qmat.load_tile streaming %w[%row, %col] {alignment = 16 : i64} : memref<?x256xi8> -> vector<32xi8>
  %b = qmat.load_tile streaming %w[%row, %col] {alignment = 8 : i64} : memref<?x256xi8> -> vector<16xi8>
  %c = qmat.load_tile streaming %w[%row, %col] : memref<?x256xi8> -> vector<16xi8>
  return %a, %b, %c : vector<32xi8>, vector<16xi8>, vector<16xi8>
}

// -----

// Wider elements: the position in elements times their bytes; the 16
// bytes bitcast to the op's type.
// CHECK-LABEL: func.func @words(
// CHECK: %[[ROWPOS:.+]] = arith.muli %arg1, %{{.+}}#0 : index
// CHECK-NEXT: %[[POS:.+]] = arith.addi %[[ROWPOS]], %arg2 : index
// CHECK: %[[BYTES:.+]] = arith.muli %[[POS]], %c4 : index
// CHECK-NEXT: %[[ADDRESS:.+]] = arith.addi %{{.+}}, %[[BYTES]] : index
// CHECK: %[[RAW:.+]] = qmat.load_streaming %{{.+}} : vector<16xi8>
// CHECK-NEXT: vector.bitcast %[[RAW]] : vector<16xi8> to vector<4xi32>
func.func @words(%w: memref<?x64xi32>, %row: index, %col: index) -> vector<4xi32> {
  %a = qmat.load_tile streaming %w[%row, %col] {alignment = 16 : i64} : memref<?x64xi32> -> vector<4xi32>
  return %a : vector<4xi32>
}

// -----

// Cached loads: vector.load with the op's alignment, memref.load for one
// element.
// CHECK-LABEL: func.func @cached(
// CHECK-NOT: extract_aligned_pointer
// CHECK: %[[V:.+]] = vector.load %arg0[%arg2, %arg3] {alignment = 2 : i64} : memref<?x16xf8E4M3FN>, vector<2xf8E4M3FN>
// CHECK-NEXT: %[[S:.+]] = memref.load %arg0[%arg2, %arg3] : memref<?x16xf8E4M3FN>
// CHECK-NEXT: %[[Z:.+]] = memref.load %arg1[%arg2, %arg3] : memref<?x4xi8>
// CHECK-NEXT: return %[[V]], %[[S]], %[[Z]]
func.func @cached(%s: memref<?x16xf8E4M3FN>, %z: memref<?x4xi8>, %row: index, %col: index) -> (vector<2xf8E4M3FN>, f8E4M3FN, i8) {
  %v = qmat.load_tile cached %s[%row, %col] {alignment = 2 : i64} : memref<?x16xf8E4M3FN> -> vector<2xf8E4M3FN>
  %e = qmat.load_tile cached %s[%row, %col] : memref<?x16xf8E4M3FN> -> f8E4M3FN
  %p = qmat.load_tile cached %z[%row, %col] : memref<?x4xi8> -> i8
  return %v, %e, %p : vector<2xf8E4M3FN>, f8E4M3FN, i8
}

// -----

// A base the kernel computed once: the loads add to it, with the strides
// of the metadata it was read from; nothing else is computed.
// CHECK-LABEL: func.func @given_base(
// CHECK: %{{.+}}, %[[OFFSET:[a-z_0-9]+]], %{{.+}}:2, %[[STRIDES:[a-z_0-9]+]]:2 = memref.extract_strided_metadata %arg0
// CHECK-NEXT: %[[POINTER:.+]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK-NEXT: %[[BASE:.+]] = arith.addi %[[POINTER]], %[[OFFSET]] : index
// CHECK-NEXT: %[[ROWBYTE:.+]] = arith.muli %arg1, %[[STRIDES]]#0 : index
// CHECK-NEXT: %[[INBUFFER:.+]] = arith.addi %[[ROWBYTE]], %arg2 : index
// CHECK-NEXT: %[[ADDRESS:.+]] = arith.addi %[[BASE]], %[[INBUFFER]] : index
// CHECK-NEXT: arith.index_castui %[[ADDRESS]] : index to i64
// CHECK-NEXT: qmat.load_streaming
// CHECK-NOT: extract_strided_metadata
// CHECK-NOT: extract_aligned_pointer
// CHECK: return
func.func @given_base(%w: memref<?x128xi8, strided<[128, 1], offset: ?>>, %row: index, %col: index) -> vector<16xi8> {
  %base_buffer, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %w : memref<?x128xi8, strided<[128, 1], offset: ?>> -> memref<i8>, index, index, index, index, index
  %pointer = memref.extract_aligned_pointer_as_index %w : memref<?x128xi8, strided<[128, 1], offset: ?>> -> index
  %base = arith.addi %pointer, %offset : index
  %a = qmat.load_tile streaming %w[%row, %col] base %base {alignment = 16 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>> -> vector<16xi8>
  return %a : vector<16xi8>
}

// -----

// A base from elsewhere: the strides are read after it.
// CHECK-LABEL: func.func @argument_base(
// CHECK-NEXT: %{{.+}}, %{{.+}}, %{{.+}}:2, %[[STRIDES:[a-z_0-9]+]]:2 = memref.extract_strided_metadata %arg0
// CHECK-NEXT: %[[ROWBYTE:.+]] = arith.muli %arg2, %[[STRIDES]]#0 : index
// CHECK-NEXT: %[[INBUFFER:.+]] = arith.addi %[[ROWBYTE]], %arg3 : index
// CHECK-NEXT: arith.addi %arg1, %[[INBUFFER]] : index
// CHECK-NOT: extract_aligned_pointer
// A target without the streaming load ignores the base.
// GFX-LABEL: func.func @argument_base(
// GFX-NEXT: vector.load %arg0[%arg2, %arg3] {alignment = 16 : i64}
func.func @argument_base(%w: memref<?x128xi8, strided<[128, 1], offset: ?>>, %base: index, %row: index, %col: index) -> vector<16xi8> {
  %a = qmat.load_tile streaming %w[%row, %col] base %base {alignment = 16 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>> -> vector<16xi8>
  return %a : vector<16xi8>
}
