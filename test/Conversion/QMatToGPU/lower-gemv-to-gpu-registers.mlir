// RUN: qmat-opt %s --qmat-configure-kernels=target=sm_90a --qmat-lower-gemv-to-gpu=target=sm_90a -canonicalize -cse | FileCheck %s --enable-var-scope

// The specialized form with the decoded weights in registers (m_tile 64,
// one column tile, 3 stages; N = 192: 3 blocks of 64 rows; K = 768: 6
// steps of 128). One warpgroup of 128 threads and the stages' 3 x 16384
// bytes with their barrier objects (49200 bytes). The first thread sets up
// `full` for its own announcement (1) and `empty` for the 128 multiplying
// threads, then brings in the first three steps, each announced as 16384
// bytes and loaded as two tiles of 64 columns by 64 rows, 4096 elements
// apart. Each lane loads the codes of rows 16w + g and 16w + g + 8 (16
// bytes at K 32t) and their step's 8 scales in one load, twice ahead; the
// loop takes two steps per trip, each exchanging and decoding both rows
// into one tile of 2 x 16 pairs, waiting for its stage, fencing the A
// fragments and the sums, starting 8 instructions with the A operand in
// registers, and leaving one group in flight; from the second step on it
// releases the previous step's stage, which the first thread refills with
// step + 2 (at most step 5) once every multiplying thread has released it.
// CHECK-LABEL: func.func @registers(
// CHECK: gpu.launch_func  @qmat_kernels::@fused_nvfp4_bs16_k768_bf16_magic_bias_mt64_w4_s1_c1_p3_wg_wsr blocks in (%{{.+}}, %c3, %c1) threads in (%c128, %c1, %c1)  dynamic_shared_memory_size %c49200_i32
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[THREAD:.+]], %c0 : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: qmat.mbarrier_init %[[BARS:.+]][%c0], 1
// CHECK-NEXT: qmat.mbarrier_init %[[BARS]][%c3], 128
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: qmat.mbarrier_arrive %[[BARS]][%c0] expect 16384
// CHECK-NEXT: qmat.tensor_load %[[MAP:.+]][%c0, %[[ROWS:.+]]] box [64, 64], %[[STAGES:.+]][%c0], %[[BARS]][%c0]
// CHECK-NEXT: qmat.tensor_load %[[MAP]][%c64, %[[ROWS]]] box [64, 64], %[[STAGES]][%c4096], %[[BARS]][%c0]
// CHECK-NEXT: qmat.mbarrier_arrive %[[BARS]][%c1] expect 16384
// CHECK-COUNT-2: qmat.tensor_load
// CHECK-NEXT: qmat.mbarrier_arrive %[[BARS]][%c2] expect 16384
// CHECK-COUNT-2: qmat.tensor_load
// CHECK-NEXT: }
// CHECK: qmat.load_tile  cached %{{.+}}[%[[TOP:.+]], %[[K:.+]]] {alignment = 16 : i64} {{.*}} -> vector<16xi8>
// CHECK-NEXT: qmat.load_tile  cached %{{.+}}[%[[TOP]], %c0] {alignment = 8 : i64} {{.*}} -> vector<8xf8E4M3FN>
// CHECK-NEXT: qmat.load_tile  cached %{{.+}}[%[[BOTTOM:.+]], %[[K]]] {alignment = 16 : i64} {{.*}} -> vector<16xi8>
// CHECK-NEXT: qmat.load_tile  cached %{{.+}}[%[[BOTTOM]], %c0] {alignment = 8 : i64} {{.*}} -> vector<8xf8E4M3FN>
// CHECK: scf.for %[[STEP:.+]] = %c0 to %c6 step %c2
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK: qmat.decode_tile <nvfp4, block = 16> {{.*}} -> vector<2x16x2xbf16>
// CHECK: qmat.mbarrier_wait %[[BARS]]
// CHECK-NEXT: qmat.warpgroup_fence {{.*}} : {{(vector<2xbf16>, ){32}(f32, ){31}f32$}}
// CHECK-COUNT-8: qmat.warpgroup_mma [{{.*}}] * %{{.+}} + [{{.*}}] : vector<2xbf16>, f32
// CHECK-NEXT: qmat.warpgroup_commit
// CHECK-NEXT: qmat.warpgroup_wait 1,
// CHECK-NEXT: %[[LATER:.+]] = arith.cmpi uge, %[[STEP]], %c1 : index
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK-NEXT: %[[RELEASED:.+]] = arith.subi %[[STEP]], %c1 : index
// CHECK-NEXT: %[[STAGE:.+]] = arith.remui %[[RELEASED]], %c3 : index
// CHECK-NEXT: %[[EMPTY:.+]] = arith.addi %[[STAGE]], %c3 : index
// CHECK-NEXT: qmat.mbarrier_arrive %[[BARS]][%[[EMPTY]]]
// CHECK-NEXT: %[[INSIDE:.+]] = arith.cmpi ule, %[[FILL:.+]], %c5 : index
// CHECK-NEXT: %[[LOADS:.+]] = arith.andi %[[FIRST]], %[[INSIDE]] : i1
// CHECK-NEXT: scf.if %[[LOADS]] {
// CHECK: qmat.mbarrier_wait %[[BARS]][%[[EMPTY]]]
// CHECK: qmat.mbarrier_arrive %[[BARS]][%{{.+}}] expect 16384
// CHECK-COUNT-2: qmat.tensor_load
// CHECK: qmat.warpgroup_wait 0,
// CHECK: qmat.store_tile
// CHECK-NEXT: gpu.return
func.func @registers(%a: memref<?x768xbf16>, %w: memref<192x384xi8>, %s: memref<192x48xf8E4M3FN>,
                     %g: memref<f32>, %y: memref<?x192xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x768xbf16>, memref<192x384xi8>, memref<192x48xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x192xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup specialized weights_in_registers
  return
}
