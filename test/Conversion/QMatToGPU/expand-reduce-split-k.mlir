// RUN: qmat-opt %s -split-input-file --qmat-expand-reduce-split-k | FileCheck %s --enable-var-scope

// Fenced, one column (the warp is the slice): whether the lane is in slice
// 0, a barrier, each sum parked at 4 * ((warp * 2 + g) * 32 + lane), a
// barrier, then in slice 0
// the sums of slices 1 and 2 added in order, group by group, and the
// epilogue on the totals.
// CHECK-LABEL: func.func @fenced(
// CHECK-SAME: %[[S0:[a-z0-9]+]]: vector<4xf32>, %[[S1:[a-z0-9]+]]: vector<4xf32>, %[[P:[a-z0-9]+]]: memref<768xf32, #gpu.address_space<workgroup>>, %[[WARP:[a-z0-9]+]]: index, %[[LANE:[a-z0-9]+]]: index, %[[OUT:[a-z0-9]+]]: memref<?xf32>
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.+]] = arith.cmpi eq, %[[WARP]], %[[Z]] : index
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[C128:.+]] = arith.constant 128 : index
// CHECK-NEXT: %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[G:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[W:.+]] = arith.muli %[[WARP]], %[[G]] : index
// CHECK-NEXT: %[[WG:.+]] = arith.addi %[[W]], %[[C0]] : index
// CHECK-NEXT: %[[BASE:.+]] = arith.muli %[[WG]], %[[C128]] : index
// CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT: %[[L4:.+]] = arith.muli %[[LANE]], %[[C4]] : index
// CHECK-NEXT: %[[AT:.+]] = arith.addi %[[BASE]], %[[L4]] : index
// CHECK-NEXT: vector.store %[[S0]], %[[P]][%[[AT]]] : memref<768xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: %[[W1:.+]] = arith.muli %[[WARP]], %{{.+}} : index
// CHECK-NEXT: %[[WG1:.+]] = arith.addi %[[W1]], %c1 : index
// CHECK: vector.store %[[S1]], %[[P]][%{{.+}}] : memref<768xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[FIRST]] {
// Slice 1's sum 0: element 4 * ((1 * 2 + 0) * 32 + lane).
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : index
// CHECK: %[[OW:.+]] = arith.muli %[[ONE]], %{{.+}} : index
// CHECK: %[[P1:.+]] = vector.load %[[P]][%{{.+}}] : memref<768xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: %[[T1:.+]] = arith.addf %[[S0]], %[[P1]] : vector<4xf32>
// CHECK-NEXT: %[[TWO:.+]] = arith.constant 2 : index
// CHECK: %[[P2:.+]] = vector.load %[[P]][%{{.+}}] : memref<768xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: %[[T0:.+]] = arith.addf %[[T1]], %[[P2]] : vector<4xf32>
// CHECK: vector.load
// CHECK-NEXT: %[[U1:.+]] = arith.addf %[[S1]], %{{.+}} : vector<4xf32>
// CHECK: vector.load
// CHECK-NEXT: %[[U0:.+]] = arith.addf %[[U1]], %{{.+}} : vector<4xf32>
// The epilogue, on the totals.
// CHECK-NEXT: vector.store %[[T0]], %[[OUT]][%[[LANE]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %[[U0]], %[[OUT]][%[[LANE]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @fenced(%s0: vector<4xf32>, %s1: vector<4xf32>,
                  %p: memref<768xf32, #gpu.address_space<workgroup>>,
                  %warp: index, %lane: index, %out: memref<?xf32>) {
  qmat.reduce_split_k %s0, %s1 through %p warp %warp slices 3 columns 1 lane %lane of 32 fenced
      : vector<4xf32>, vector<4xf32> through memref<768xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t0: vector<4xf32>, %t1: vector<4xf32>):
    vector.store %t0, %out[%lane] : memref<?xf32>, vector<4xf32>
    vector.store %t1, %out[%lane] : memref<?xf32>, vector<4xf32>
  }
  return
}

// -----

// Two columns and a live mask: slice warp / 2 and column warp % 2; no
// barrier first; only live lanes park, at the warp's slot; slice 1 of the
// lane's column is warp 2 + warp % 2; the epilogue runs in live lanes of
// slice 0.
// CHECK-LABEL: func.func @columns(
// CHECK-SAME: %[[S:[a-z0-9]+]]: vector<4xf32>, %[[P:[a-z0-9]+]]: memref<512xf32, #gpu.address_space<workgroup>>, %[[WARP:[a-z0-9]+]]: index, %[[LANE:[a-z0-9]+]]: index, %[[LIVE:[a-z0-9]+]]: i1, %[[OUT:[a-z0-9]+]]: memref<?xf32>
// CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[SLICE:.+]] = arith.divui %[[WARP]], %[[C2]] : index
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[SLICE0:.+]] = arith.cmpi eq, %[[SLICE]], %[[Z]] : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK-NEXT: %[[C64:.+]] = arith.constant 64 : index
// CHECK-NEXT: %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[G:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[OWNG:.+]] = arith.muli %[[WARP]], %[[G]] : index
// CHECK-NEXT: %[[SLOT:.+]] = arith.addi %[[OWNG]], %[[C0]] : index
// CHECK-NEXT: arith.muli %[[SLOT]], %[[C64]] : index
// CHECK: vector.store %[[S]], %[[P]][%{{.+}}] : memref<512xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[FIRST:.+]] = arith.andi %[[SLICE0]], %[[LIVE]] : i1
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: %[[COLUMN:.+]] = arith.remui %[[WARP]], %{{.+}} : index
// CHECK-NEXT: %[[C2B:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[OTHER:.+]] = arith.addi %[[C2B]], %[[COLUMN]] : index
// CHECK: arith.muli %[[OTHER]], %{{.+}} : index
// CHECK: %[[PARKED:.+]] = vector.load %[[P]][%{{.+}}] : memref<512xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: %[[TOTAL:.+]] = arith.addf %[[S]], %[[PARKED]] : vector<4xf32>
// CHECK-NEXT: vector.store %[[TOTAL]], %[[OUT]][%[[LANE]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NOT: qmat.reduce_split_k
func.func @columns(%s: vector<4xf32>, %p: memref<512xf32, #gpu.address_space<workgroup>>,
                   %warp: index, %lane: index, %live: i1, %out: memref<?xf32>) {
  qmat.reduce_split_k %s through %p warp %warp slices 2 columns 2 lane %lane of 16 live %live
      : vector<4xf32> through memref<512xf32, #gpu.address_space<workgroup>> {
  ^bb0(%t: vector<4xf32>):
    vector.store %t, %out[%lane] : memref<?xf32>, vector<4xf32>
  }
  return
}

// -----

// K slices across a cluster: sum g's slot, 4 * (g * 128 + thread), the
// same in every block; a block barrier; blocks other than the first park
// their sums; a cluster barrier; the first block adds blocks 1 and 2's
// sums in rank order, sum by sum, the others keep their own; a second
// cluster barrier; the totals replace the op's results.
// CHECK-LABEL: func.func @k_slices(
// CHECK-SAME: %[[S0:[a-z0-9]+]]: vector<4xf32>, %[[S1:[a-z0-9]+]]: vector<4xf32>, %[[P:[a-z0-9]+]]: memref<1024xf32, #gpu.address_space<workgroup>>, %[[RANK:[a-z0-9]+]]: index, %[[TID:[a-z0-9]+]]: index, %[[OUT:[a-z0-9]+]]: memref<?xf32>
// CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT: %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[G0:.+]] = arith.addi %[[C0]], %[[TID]] : index
// CHECK-NEXT: %[[SLOT0:.+]] = arith.muli %[[G0]], %[[C4]] : index
// CHECK-NEXT: %[[C4B:.+]] = arith.constant 4 : index
// CHECK-NEXT: %[[C128:.+]] = arith.constant 128 : index
// CHECK-NEXT: %[[G1:.+]] = arith.addi %[[C128]], %[[TID]] : index
// CHECK-NEXT: %[[SLOT1:.+]] = arith.muli %[[G1]], %[[C4B]] : index
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.+]] = arith.cmpi eq, %[[RANK]], %[[Z]] : index
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[TRUE:.+]] = arith.constant true
// CHECK-NEXT: %[[OTHER:.+]] = arith.xori %[[FIRST]], %[[TRUE]] : i1
// CHECK-NEXT: scf.if %[[OTHER]] {
// CHECK-NEXT: vector.store %[[S0]], %[[P]][%[[SLOT0]]] : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: vector.store %[[S1]], %[[P]][%[[SLOT1]]] : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: qmat.cluster_barrier
// CHECK-NEXT: %[[T:.+]]:2 = scf.if %[[FIRST]] -> (vector<4xf32>, vector<4xf32>) {
// CHECK-NEXT: %[[R1:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[A1:.+]] = qmat.load_cluster_peer %[[P]][%[[SLOT0]]] rank %[[R1]] : memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
// CHECK-NEXT: %[[SUM1:.+]] = arith.addf %[[S0]], %[[A1]] : vector<4xf32>
// CHECK-NEXT: %[[R2:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[A2:.+]] = qmat.load_cluster_peer %[[P]][%[[SLOT0]]] rank %[[R2]] : memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
// CHECK-NEXT: %[[TOTAL0:.+]] = arith.addf %[[SUM1]], %[[A2]] : vector<4xf32>
// CHECK-NEXT: %[[R1B:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[B1:.+]] = qmat.load_cluster_peer %[[P]][%[[SLOT1]]] rank %[[R1B]] : memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
// CHECK-NEXT: %[[SUMB:.+]] = arith.addf %[[S1]], %[[B1]] : vector<4xf32>
// CHECK-NEXT: %[[R2B:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[B2:.+]] = qmat.load_cluster_peer %[[P]][%[[SLOT1]]] rank %[[R2B]] : memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
// CHECK-NEXT: %[[TOTAL1:.+]] = arith.addf %[[SUMB]], %[[B2]] : vector<4xf32>
// CHECK-NEXT: scf.yield %[[TOTAL0]], %[[TOTAL1]] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[S0]], %[[S1]] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: qmat.cluster_barrier
// CHECK-NEXT: vector.store %[[T]]#0, %[[OUT]][%[[TID]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %[[T]]#1, %[[OUT]][%[[TID]]] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: return
func.func @k_slices(%s0: vector<4xf32>, %s1: vector<4xf32>,
                    %p: memref<1024xf32, #gpu.address_space<workgroup>>,
                    %rank: index, %thread: index, %out: memref<?xf32>) {
  %t:2 = qmat.reduce_k_slices %s0, %s1 through %p rank %rank slices 3 thread %thread of 128
      : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>>
      -> vector<4xf32>, vector<4xf32>
  vector.store %t#0, %out[%thread] : memref<?xf32>, vector<4xf32>
  vector.store %t#1, %out[%thread] : memref<?xf32>, vector<4xf32>
  return
}
