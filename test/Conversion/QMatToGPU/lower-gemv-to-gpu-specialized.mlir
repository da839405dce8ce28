// RUN: qmat-opt %s --qmat-configure-kernels=target=sm_90a --qmat-lower-gemv-to-gpu=target=sm_90a -canonicalize -cse | FileCheck %s --enable-var-scope

// The fused GEMM's specialized warpgroup form (sm_90a), m_tile 32, two
// column tiles, four stages of 64 K elements (K = 512: 8 iterations). The
// launch takes one multiplying and two decoding warpgroups (384 threads)
// and 4 x (32 activation rows + 128 weight rows) x 64 x 2 bytes of dynamic
// workgroup memory: the activations' stages first, the decoded weights'
// after them.
// CHECK-LABEL: func.func @specialized(
// CHECK: gpu.launch_func  @qmat_kernels::@fused_nvfp4_bs16_k512_bf16_magic_bias_mt32_w4_s1_c2_p4_wg_ws blocks in ({{.+}}) threads in (%c384, %c1, %c1)  dynamic_shared_memory_size %c81920_i32
// CHECK: gpu.func @fused_nvfp4_bs16_k512_bf16_magic_bias_mt32_w4_s1_c2_p4_wg_ws(
// CHECK: %[[ACT:.+]] = memref.view %{{.+}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<40960xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[WEIGHTS:.+]] = memref.view %{{.+}}[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32768xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[MULTIPLIES:.+]] = arith.cmpi ult, %{{.+}}, %c128 : index
// CHECK: scf.if %[[MULTIPLIES]] {

// The multiplying warpgroup: iteration i waits at barrier 1 + i % 4 (its
// stage full), then per K16 step one instruction per column tile, A and B
// both through descriptors of K-major tiles with the 128-byte swizzle
// (bit 62; the 8-row atoms 1024 bytes apart, bits 32-45 = 64; the unused
// leading offset 1), one commit,
// a wait for all but this iteration's batch, and from iteration 1 to
// 8 - 4 the stage of the iteration before is marked empty (barrier
// 5 + (i - 1) % 4). The epilogue stores the 16x8 pieces of both tiles
// (rows 64 apart).
// CHECK: scf.for %[[I:.+]] = %c0 to %c8 step %c1 iter_args(
// CHECK: %[[STAGE:.+]] = arith.remui %[[I]], %c4 : index
// CHECK: %[[FULL:.+]] = arith.addi %[[STAGE]], %c1 : index
// CHECK: %[[FULL32:.+]] = arith.index_castui %[[FULL]] : index to i32
// CHECK: qmat.barrier_sync %[[FULL32]], 384
// CHECK: qmat.warpgroup_fence
// CHECK: arith.addi %{{.+}}, %c4611686293305360384_i64 : i64
// CHECK-COUNT-8: qmat.warpgroup_mma_shared %{{.+}} * %{{.+}} + [{{.+}}] : bf16, f32
// CHECK-NEXT: qmat.warpgroup_commit
// CHECK-NEXT: %[[READY:.+]]:32 = qmat.warpgroup_wait 1,
// CHECK: %[[LAST:.+]] = arith.cmpi ule, %[[I]], %c4 : index
// CHECK: %[[FIRST:.+]] = arith.cmpi uge, %[[I]], %c1 : index
// CHECK: %[[RELEASE:.+]] = arith.andi %[[FIRST]], %[[LAST]] : i1
// CHECK: scf.if %[[RELEASE]] {
// CHECK: %[[BEFORE:.+]] = arith.addi %[[I]], %c3 : index
// CHECK: %[[BEFORE_STAGE:.+]] = arith.remui %[[BEFORE]], %c4 : index
// CHECK: %[[EMPTY:.+]] = arith.addi %[[BEFORE_STAGE]], %c5 : index
// CHECK: %[[EMPTY32:.+]] = arith.index_castui %[[EMPTY]] : index to i32
// CHECK: qmat.barrier_arrive %[[EMPTY32]], 384
// CHECK: qmat.warpgroup_wait 0,
// CHECK: qmat.store_tile {{.+}} offsets m [0, 1, 0, 1, 8, 9, 8, 9, 16, 17, 16, 17, 24, 25, 24, 25, 0, 1, 0, 1, 8, 9, 8, 9, 16, 17, 16, 17, 24, 25, 24, 25] n [0, 0, 8, 8, 0, 0, 8, 8, 0, 0, 8, 8, 0, 0, 8, 8, 64, 64, 72, 72, 64, 64, 72, 72, 64, 64, 72, 72, 64, 64, 72, 72] bounds

// The decoding warpgroups: the copies of the first two stages (one group
// each), the codes and scales of the first two iterations, then two
// iterations per trip, each on its own loads. An iteration decodes its 32
// codes into K order (interleaves, then one shuffle per word), stores the
// 8 weights of word w as 16-byte chunk 4 half + w of its row, swizzled
// (chunk ^ (row % 8): the offsets are set up before the loop), loads the
// codes of iteration + 2, waits for its stage's copies (all but the newest
// group) and marks the stage full; then it waits for the stage that
// iteration + 2 fills to be empty (from iteration + 2 = 4 on) and copies
// its activations.
// CHECK: } else {
// CHECK: %[[ATOM_ROW:.+]] = arith.andi %{{.+}}, %c7 : index
// CHECK-COUNT-4: arith.xori %{{.+}}, %[[ATOM_ROW]] : index
// CHECK-COUNT-2: qmat.async_commit
// CHECK: %[[CODES0:.+]] = vector.load %arg1[{{.+}}] {alignment = 16 : i64} : memref<?x256xi8, strided<[256, 1], offset: ?>>, vector<16xi8>
// CHECK: %[[CODES1:.+]] = vector.load %arg1[{{.+}}] {alignment = 16 : i64} : memref<?x256xi8, strided<[256, 1], offset: ?>>, vector<16xi8>
// CHECK: scf.for %[[J:.+]] = %c0 to %c8 step %c2 iter_args(%[[OWN:.+]] = %[[CODES0]], %[[OWN_SCALES:.+]] = %{{.+}}, %[[ODD:.+]] = %[[CODES1]], %{{.+}} = %{{.+}}) -> (vector<16xi8>, vector<2xf8E4M3FN>, vector<16xi8>, vector<2xf8E4M3FN>) {
// CHECK: %[[J_STAGE:.+]] = arith.remui %[[J]], %c4 : index
// CHECK: %[[S0:.+]] = vector.extract %[[OWN_SCALES]][0] : f8E4M3FN from vector<2xf8E4M3FN>
// CHECK: %[[S1:.+]] = vector.extract %[[OWN_SCALES]][1] : f8E4M3FN from vector<2xf8E4M3FN>
// CHECK: %[[TILE:.+]] = qmat.decode_tile <nvfp4, block = 16> %[[OWN]] scales %[[S0]], %[[S0]], %[[S1]], %[[S1]] : vector<16xi8>, f8E4M3FN -> vector<1x16x2xbf16>
// CHECK: %[[P1:.+]] = vector.extract %[[TILE]][0, 1]
// CHECK: %[[P0:.+]] = vector.extract %[[TILE]][0, 0]
// CHECK: %[[LOW:.+]] = vector.interleave %[[P0]], %[[P1]] : vector<2xbf16> -> vector<4xbf16>
// CHECK: %[[P3:.+]] = vector.extract %[[TILE]][0, 3]
// CHECK: %[[P2:.+]] = vector.extract %[[TILE]][0, 2]
// CHECK: %[[HIGH:.+]] = vector.interleave %[[P2]], %[[P3]] : vector<2xbf16> -> vector<4xbf16>
// CHECK: %[[WORD:.+]] = vector.shuffle %[[LOW]], %[[HIGH]] [0, 1, 4, 5, 2, 3, 6, 7] : vector<4xbf16>, vector<4xbf16>
// CHECK: vector.store %[[WORD]], %[[WEIGHTS]][%{{.+}}] {alignment = 16 : i64}
// CHECK-COUNT-3: vector.store %{{.+}}, %[[WEIGHTS]][%{{.+}}] {alignment = 16 : i64}
// CHECK: %[[FILL:.+]] = arith.addi %[[J]], %c2 : index
// CHECK: %[[NEXT:.+]] = arith.minui %[[FILL]], %c7 : index
// CHECK: vector.load %arg1[{{.+}}] {alignment = 16 : i64}
// CHECK: qmat.async_wait 1
// CHECK-NEXT: qmat.async_proxy_fence
// CHECK-NEXT: %[[J_FULL:.+]] = arith.addi %[[J_STAGE]], %c1 : index
// CHECK-NEXT: %[[J_FULL32:.+]] = arith.index_castui %[[J_FULL]] : index to i32
// CHECK-NEXT: qmat.barrier_arrive %[[J_FULL32]], 384
// CHECK-NEXT: %[[IN_K:.+]] = arith.cmpi ule, %[[FILL]], %c7 : index
// CHECK-NEXT: scf.if %[[IN_K]] {
// CHECK-NEXT: %[[REFILL:.+]] = arith.cmpi uge, %[[FILL]], %c4 : index
// CHECK-NEXT: scf.if %[[REFILL]] {
// CHECK: qmat.barrier_sync %{{.+}}, 384
// CHECK: qmat.async_copy %arg0[{{.+}}], %[[ACT]][{{.+}}], 8
// CHECK: qmat.async_commit
// CHECK: qmat.decode_tile <nvfp4, block = 16> %[[ODD]]
// CHECK: qmat.barrier_arrive %{{.+}}, 384
// CHECK: qmat.async_commit
// CHECK: scf.yield
func.func @specialized(%a: memref<?x512xbf16>, %w: memref<128x256xi8>, %s: memref<128x32xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xbf16>, memref<128x256xi8>, memref<128x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>) m_tile = 32 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized
  return
}
