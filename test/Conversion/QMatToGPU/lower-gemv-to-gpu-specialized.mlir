// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=sm_90a --qmat-lower-gemv-to-gpu=target=sm_90a --qmat-expand-load-tile=target=sm_90a -canonicalize -cse | FileCheck %s --enable-var-scope

// The fused GEMM's specialized warpgroup form (sm_90a), m_tile 32, two
// column tiles, four stages of 64 K elements (K = 512: 8 iterations). The
// launch takes A's tensor map (tiles of 64 columns by 32 rows) after Y, two
// multiplying warpgroups (one per column tile) and one decoding warpgroup
// (384 threads) and 4 x (32
// activation rows + 128 weight rows) x 64 x 2 bytes of dynamic workgroup
// memory plus 8 barrier objects: the activations' stages first, the decoded
// weights' after them, then `full` of each stage and `empty` of each stage.
// The first thread sets them up (full: the 128 decoders and the tile's
// announcement; empty: the 256 multiplying threads) and fences them for the
// tensor loads before the block's barrier. Block x's rows start at
// min(32 x, M - 32), so that the last tile's tensor loads stay inside A
// (M - 32 wraps where M is under one tile, whose only block starts at 0).
// CHECK-LABEL: func.func @specialized(
// CHECK: %[[MAP:.+]] = qmat.tensor_map %[[A:.+]] box [64, 32] : memref<?x512xbf16, strided<[512, 1], offset: ?>>
// CHECK: gpu.launch_func  @qmat_kernels::@fused_nvfp4_bs16_k512_bf16_magic_bias_mt32_w4_s1_c2_p4_wg_ws blocks in ({{.+}}) threads in (%c384, %c1, %c1)  dynamic_shared_memory_size %c81984_i32 args(%[[A]] : {{.+}}, %[[MAP]] : !llvm.ptr)
// CHECK: gpu.func @fused_nvfp4_bs16_k512_bf16_magic_bias_mt32_w4_s1_c2_p4_wg_ws({{.+}}, %[[KMAP:.+]]: !llvm.ptr) kernel attributes {{{.*}}qmat.tensor_map_args = 1 : i64}
// CHECK: %[[ACT:.+]] = memref.view %{{.+}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<40992xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[WEIGHTS:.+]] = memref.view %{{.+}}[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32768xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[BARS:.+]] = memref.view %{{.+}}[%c81920][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.mbarrier_init %[[BARS]][%c0], 129
// CHECK-NEXT: qmat.mbarrier_init %[[BARS]][%c4], 256
// CHECK-COUNT-6: qmat.mbarrier_init
// CHECK-NEXT: qmat.async_proxy_fence
// CHECK: gpu.barrier
// CHECK-NEXT: %[[LAST_TILE:.+]] = arith.subi %{{.+}}, %c32 : index
// CHECK-NEXT: %[[TILE_M:.+]] = arith.muli %block_id_x, %c32 : index
// CHECK-NEXT: %[[FIRST_M:.+]] = arith.minui %[[TILE_M]], %[[LAST_TILE]] : index
// CHECK: %[[MULTIPLIES:.+]] = arith.cmpi ult, %[[THREAD:.+]], %c256 : index
// CHECK-NEXT: scf.if %[[MULTIPLIES]] {
// CHECK-NEXT: %[[CONSUMER:.+]] = arith.divui %[[THREAD]], %c128 : index
// CHECK-NEXT: %[[TILE_BYTES:.+]] = arith.muli %[[CONSUMER]], %c8192 : index

// Multiplying warpgroup c: iteration i waits for its stage's `full`
// (object i % 4) to complete the phase of round i / 4 (parity (i / 4) & 1),
// then per K16 step one instruction on its column tile's weights (8192
// bytes after the other's), A and B both through descriptors of K-major
// tiles with the 128-byte swizzle (bit 62; the 8-row atoms 1024 bytes
// apart, bits 32-45 = 64; the unused leading offset 1), one commit, a wait
// for all but this iteration's batch, and from iteration 1 to 8 - 4 every
// multiplying thread arrives at the `empty` of the iteration before's
// stage (object 4 + (i - 1) % 4). The epilogue stores the 16x8 pieces of
// its tile (rows from 64 c).
// CHECK: scf.for %[[I:.+]] = %c0 to %c8 step %c1 iter_args(
// CHECK: %[[STAGE:.+]] = arith.remui %[[I]], %c4 : index
// CHECK: %[[ROUND:.+]] = arith.divui %[[I]], %c4 : index
// CHECK: %[[ODD_ROUND:.+]] = arith.andi %[[ROUND]], %c1 : index
// CHECK: %[[PARITY:.+]] = arith.index_castui %[[ODD_ROUND]] : index to i32
// CHECK: qmat.mbarrier_wait %[[BARS]][%[[STAGE]]], %[[PARITY]]
// CHECK: qmat.warpgroup_fence
// CHECK: %[[STAGE_WEIGHTS:.+]] = arith.addi %{{.+}}, %c16384 : index
// CHECK-NEXT: %[[TILE_WEIGHTS:.+]] = arith.addi %[[STAGE_WEIGHTS]], %[[TILE_BYTES]] : index
// CHECK: arith.addi %{{.+}}, %c4611686293305360384_i64 : i64
// CHECK-COUNT-4: qmat.warpgroup_mma_shared %{{.+}} * %{{.+}} + [{{.+}}] : bf16, f32
// CHECK-NEXT: qmat.warpgroup_commit
// CHECK-NEXT: %[[READY:.+]]:16 = qmat.warpgroup_wait 1,
// CHECK: %[[LAST:.+]] = arith.cmpi ule, %[[I]], %c4 : index
// CHECK: %[[FIRST:.+]] = arith.cmpi uge, %[[I]], %c1 : index
// CHECK: %[[RELEASE:.+]] = arith.andi %[[FIRST]], %[[LAST]] : i1
// CHECK: scf.if %[[RELEASE]] {
// CHECK: %[[BEFORE:.+]] = arith.addi %[[I]], %c3 : index
// CHECK: %[[BEFORE_STAGE:.+]] = arith.remui %[[BEFORE]], %c4 : index
// CHECK: %[[EMPTY:.+]] = arith.addi %[[BEFORE_STAGE]], %c4 : index
// CHECK: qmat.mbarrier_arrive %[[BARS]][%[[EMPTY]]] : memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.warpgroup_wait 0,
// CHECK: %[[WARP_IN_GROUP:.+]] = arith.remui %{{.+}}, %c4 : index
// CHECK: %[[TILE_ROWS:.+]] = arith.muli %[[CONSUMER]], %c64 : index
// CHECK-NEXT: %[[WARP_ROWS:.+]] = arith.muli %[[WARP_IN_GROUP]], %c16 : index
// CHECK: %[[TILE_FIRST:.+]] = arith.addi %{{.+}}, %[[TILE_ROWS]] : index
// CHECK-NEXT: %[[N:.+]] = arith.addi %[[TILE_FIRST]], %{{.+}} : index
// CHECK: qmat.store_tile {{.+}} to %{{.+}}[%{{.+}}, %[[N]]] offsets m [0, 1, 0, 1, 8, 9, 8, 9, 16, 17, 16, 17, 24, 25, 24, 25] n [0, 0, 8, 8, 0, 0, 8, 8, 0, 0, 8, 8, 0, 0, 8, 8] bounds

// The decoding warpgroup (threads 256 .. 383), a row of each column tile
// per thread (64 rows apart): the first decoder announces the 4096 bytes of
// the first two stages' activation tiles and starts their tensor loads (K
// columns 0 and 64, the block's first row), then every decoder loads the
// codes and scales of the first two iterations, and the loop takes two
// iterations per trip, each on its own loads. An iteration decodes its 32
// codes into K order (interleaves, then one shuffle per word), stores the
// 8 weights of word w as 16-byte chunk 4 half + w of its row, swizzled
// (chunk ^ (row % 8): the offsets are set up before the loop), loads the
// codes of iteration + 2, fences its stores for the instructions and
// arrives at its stage's `full`; then, for iteration + 2 = fill (from 4
// on), it waits for the `empty` of fill's stage in the round before, and
// the first decoder announces and loads fill's activations.
// CHECK: } else {
// CHECK: %[[HALF:.+]] = arith.divui %{{.+}}, %c16 : index
// CHECK-NEXT: %[[FIRST_ROW:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// CHECK-NEXT: %[[ROW0:.+]] = arith.minui %[[FIRST_ROW]], %[[LAST_N:.+]] : index
// CHECK-NEXT: %[[SECOND_ROW:.+]] = arith.addi %[[FIRST_ROW]], %c64 : index
// CHECK-NEXT: %[[ROW1:.+]] = arith.minui %[[SECOND_ROW]], %[[LAST_N]] : index
// CHECK: %[[ATOM_ROW:.+]] = arith.andi %{{.+}}, %c7 : index
// CHECK-COUNT-4: arith.xori %{{.+}}, %[[ATOM_ROW]] : index
// CHECK: %[[DECODER:.+]] = arith.subi %[[THREAD]], %c256 : index
// CHECK-NEXT: %[[FIRST_DECODER:.+]] = arith.cmpi eq, %[[DECODER]], %c0 : index
// CHECK-NEXT: scf.if %[[FIRST_DECODER]] {
// CHECK-NEXT: qmat.mbarrier_arrive %[[BARS]][%c0] expect 4096
// CHECK-NEXT: qmat.tensor_load %[[KMAP]][%c0, %[[FIRST_M]]] box [64, 32], %[[ACT]][%c0], %[[BARS]][%c0] : !llvm.ptr, memref<40992xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: qmat.mbarrier_arrive %[[BARS]][%c1] expect 4096
// CHECK-NEXT: qmat.tensor_load %[[KMAP]][%c64, %[[FIRST_M]]] box [64, 32], %[[ACT]][%c2048], %[[BARS]][%c1]
// The codes of the first four iterations, one set each (both rows'), and
// both rows' scales of the first trip of four iterations (16 bytes each): a
// decoder loads each set of codes again four iterations later (8
// iterations: four divide them), and at each trip's start the next trip's
// scales (the last trip its own). A chunk's two scales are bytes 0 and 1
// of its iteration's 32-bit word, or 2 and 3 in the upper K half: the word
// shifted by 16 bits there.
// CHECK: %[[CODES0:.+]] = vector.load %arg1[%[[ROW0]], {{.+}}] {alignment = 16 : i64} : memref<?x256xi8, strided<[256, 1], offset: ?>>, vector<16xi8>
// CHECK: %[[CODES0_1:.+]] = vector.load %arg1[%[[ROW1]], {{.+}}] {alignment = 16 : i64} : memref<?x256xi8, strided<[256, 1], offset: ?>>, vector<16xi8>
// CHECK: %[[CODES1:.+]] = vector.load %arg1[%[[ROW0]], {{.+}}] {alignment = 16 : i64} : memref<?x256xi8, strided<[256, 1], offset: ?>>, vector<16xi8>
// CHECK: %[[CODES2:.+]] = vector.load %arg1[%[[ROW0]], {{.+}}] {alignment = 16 : i64} : memref<?x256xi8, strided<[256, 1], offset: ?>>, vector<16xi8>
// CHECK: %[[CODES3:.+]] = vector.load %arg1[%[[ROW0]], {{.+}}] {alignment = 16 : i64} : memref<?x256xi8, strided<[256, 1], offset: ?>>, vector<16xi8>
// CHECK: %[[SCALES0:.+]] = vector.load %arg2[%[[ROW0]], %c0] {alignment = 16 : i64} : memref<?x32xf8E4M3FN, strided<[32, 1], offset: ?>>, vector<16xf8E4M3FN>
// CHECK-NEXT: %[[SCALES1:.+]] = vector.load %arg2[%[[ROW1]], %c0] {alignment = 16 : i64} : memref<?x32xf8E4M3FN, strided<[32, 1], offset: ?>>, vector<16xf8E4M3FN>
// CHECK-NEXT: scf.for %[[J:.+]] = %c0 to %c8 step %c4 iter_args(%[[OWN:.+]] = %[[CODES0]], %[[OWN_1:.+]] = %[[CODES0_1]], %[[SECOND:.+]] = %[[CODES1]], %{{.+}} = %{{.+}}, %[[THIRD:.+]] = %[[CODES2]], %{{.+}} = %{{.+}}, %[[FOURTH:.+]] = %[[CODES3]], %{{.+}} = %{{.+}}, %[[OWN_SCALES:.+]] = %[[SCALES0]], %[[OWN_SCALES_1:.+]] = %[[SCALES1]]) -> (vector<16xi8>, vector<16xi8>, vector<16xi8>, vector<16xi8>, vector<16xi8>, vector<16xi8>, vector<16xi8>, vector<16xi8>, vector<16xf8E4M3FN>, vector<16xf8E4M3FN>) {
// CHECK-NEXT: %[[NEXT_TRIP:.+]] = arith.addi %[[J]], %c4 : index
// CHECK-NEXT: %[[NEXT_TRIP_START:.+]] = arith.minui %[[NEXT_TRIP]], %c4 : index
// CHECK: vector.load %arg2[%[[ROW0]], %{{.+}}] {alignment = 16 : i64} : memref<?x32xf8E4M3FN, strided<[32, 1], offset: ?>>, vector<16xf8E4M3FN>
// CHECK-NEXT: vector.load %arg2[%[[ROW1]], %{{.+}}] {alignment = 16 : i64} : memref<?x32xf8E4M3FN, strided<[32, 1], offset: ?>>, vector<16xf8E4M3FN>
// CHECK-NEXT: %[[J_STAGE:.+]] = arith.remui %[[J]], %c4 : index
// CHECK-NEXT: %[[UPPER:.+]] = arith.cmpi ne, %[[HALF]], %c0 : index
// CHECK-NEXT: %[[OWN_WORDS:.+]] = vector.bitcast %[[OWN_SCALES]] : vector<16xf8E4M3FN> to vector<4xi32>
// CHECK-NEXT: %[[OWN_WORD:.+]] = vector.extract %[[OWN_WORDS]][0] : i32 from vector<4xi32>
// CHECK-NEXT: %[[HALF_SHIFT:.+]] = arith.select %[[UPPER]], %c16_i32, %c0_i32 : i32
// CHECK-NEXT: %[[PAIR:.+]] = arith.shrui %[[OWN_WORD]], %[[HALF_SHIFT]] : i32
// CHECK-NEXT: %[[S0_BYTE:.+]] = arith.trunci %[[PAIR]] : i32 to i8
// CHECK-NEXT: %[[S0:.+]] = arith.bitcast %[[S0_BYTE]] : i8 to f8E4M3FN
// CHECK-NEXT: %[[SECOND_BYTE:.+]] = arith.shrui %[[PAIR]], %c8_i32 : i32
// CHECK-NEXT: %[[S1_BYTE:.+]] = arith.trunci %[[SECOND_BYTE]] : i32 to i8
// CHECK-NEXT: %[[S1:.+]] = arith.bitcast %[[S1_BYTE]] : i8 to f8E4M3FN
// CHECK-NEXT: %[[OWN_WORDS_1:.+]] = vector.bitcast %[[OWN_SCALES_1]] : vector<16xf8E4M3FN> to vector<4xi32>
// CHECK-NEXT: %[[OWN_WORD_1:.+]] = vector.extract %[[OWN_WORDS_1]][0] : i32 from vector<4xi32>
// CHECK-NEXT: %[[PAIR_1:.+]] = arith.shrui %[[OWN_WORD_1]], %[[HALF_SHIFT]] : i32
// CHECK-NEXT: %[[S0_1_BYTE:.+]] = arith.trunci %[[PAIR_1]] : i32 to i8
// CHECK-NEXT: %[[S0_1:.+]] = arith.bitcast %[[S0_1_BYTE]] : i8 to f8E4M3FN
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
// The second row's words go 64 rows further (4096 elements).
// CHECK: qmat.decode_tile <nvfp4, block = 16> %[[OWN_1]] scales %[[S0_1]], %[[S0_1]],
// CHECK-NEXT: %[[TILE1_AT:.+]] = arith.addi %{{.+}}, %c4096 : index
// CHECK-COUNT-4: vector.store %{{.+}}, %[[WEIGHTS]][%{{.+}}] {alignment = 16 : i64}
// CHECK: %[[NEXT:.+]] = arith.minui %[[NEXT_TRIP]], %c7 : index
// CHECK: vector.load %arg1[{{.+}}] {alignment = 16 : i64}
// CHECK: qmat.async_proxy_fence
// CHECK-NEXT: qmat.mbarrier_arrive %[[BARS]][%[[J_STAGE]]] : memref<8xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[FILL:.+]] = arith.addi %[[J]], %c2 : index
// CHECK-NEXT: %[[IN_K:.+]] = arith.cmpi ule, %[[FILL]], %c7 : index
// CHECK-NEXT: scf.if %[[IN_K]] {
// CHECK-NEXT: %[[REFILL:.+]] = arith.cmpi uge, %[[FILL]], %c4 : index
// CHECK-NEXT: scf.if %[[REFILL]] {
// CHECK-NEXT: %[[FILL_ROUND:.+]] = arith.divui %[[FILL]], %c4 : index
// CHECK-NEXT: %[[ROUND_BEFORE:.+]] = arith.subi %[[FILL_ROUND]], %c1 : index
// CHECK-NEXT: %[[ODD_BEFORE:.+]] = arith.andi %[[ROUND_BEFORE]], %c1 : index
// CHECK-NEXT: %[[EMPTY_PARITY:.+]] = arith.index_castui %[[ODD_BEFORE]] : index to i32
// CHECK-NEXT: %[[FILL_STAGE:.+]] = arith.remui %[[FILL]], %c4 : index
// CHECK-NEXT: %[[FILL_EMPTY:.+]] = arith.addi %[[FILL_STAGE]], %c4 : index
// CHECK-NEXT: qmat.mbarrier_wait %[[BARS]][%[[FILL_EMPTY]]], %[[EMPTY_PARITY]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %[[FIRST_DECODER]] {
// CHECK-NEXT: %[[FILL_FULL:.+]] = arith.remui %[[FILL]], %c4 : index
// CHECK-NEXT: qmat.mbarrier_arrive %[[BARS]][%[[FILL_FULL]]] expect 4096
// CHECK-NEXT: %[[FILL_AT:.+]] = arith.muli %[[FILL_FULL]], %c2048 : index
// CHECK-NEXT: %[[FILL_K:.+]] = arith.muli %[[FILL]], %c64 : index
// CHECK-NEXT: qmat.tensor_load %[[KMAP]][%[[FILL_K]], %[[FIRST_M]]] box [64, 32], %[[ACT]][%[[FILL_AT]]], %[[BARS]][%[[FILL_FULL]]]
// CHECK: qmat.decode_tile <nvfp4, block = 16> %[[SECOND]]
// CHECK: arith.addi %[[J]], %c5 : index
// CHECK: qmat.mbarrier_arrive
// CHECK: qmat.tensor_load
// CHECK: qmat.decode_tile <nvfp4, block = 16> %[[THIRD]]
// CHECK: arith.addi %[[J]], %c6 : index
// CHECK: qmat.tensor_load
// CHECK: qmat.decode_tile <nvfp4, block = 16> %[[FOURTH]]
// CHECK: arith.addi %[[J]], %c7 : index
// CHECK: qmat.tensor_load
// CHECK: scf.yield
// CHECK-NOT: qmat.async_copy
func.func @specialized(%a: memref<?x512xbf16>, %w: memref<128x256xi8>, %s: memref<128x32xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xbf16>, memref<128x256xi8>, memref<128x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>) m_tile = 32 warps_n = 4 split_k = 1 col_tiles = 2 stages = 4 warpgroup specialized
  return
}

// -----

// K = 640: 10 iterations, which four do not divide: a decoder loads each
// set of codes again two iterations later, the loop's trip two iterations,
// and its row's scales once per trip (8 of them, 8-byte aligned: a row's
// 40 bytes of scales start at multiples of 8).
// CHECK-LABEL: func.func @specialized_two_sets(
// CHECK: gpu.func @fused_nvfp4_bs16_k640_bf16_magic_bias_mt32_w4_s1_c1_p4_wg_ws(
// CHECK: } else {
// CHECK: vector.load %arg2[%{{.+}}, %c0] {alignment = 8 : i64} : memref<?x40xf8E4M3FN, strided<[40, 1], offset: ?>>, vector<8xf8E4M3FN>
// CHECK: scf.for %[[J:.+]] = %c0 to %c10 step %c2 iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (vector<16xi8>, vector<16xi8>, vector<8xf8E4M3FN>) {
// CHECK: %[[AHEAD:.+]] = arith.addi %[[J]], %c2 : index
// CHECK-NEXT: arith.minui %[[AHEAD]], %c8 : index
// CHECK: arith.minui %[[AHEAD]], %c9 : index
func.func @specialized_two_sets(%a: memref<?x640xbf16>, %w: memref<64x320xi8>, %s: memref<64x40xf8E4M3FN>,
                                %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x640xbf16>, memref<64x320xi8>, memref<64x40xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) m_tile = 32 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized
  return
}

// -----

// The weights as B (m_tile 128, 9 column tiles of 16 rows: 144 weight rows
// per block, 121 blocks over 17408 rows; K = 512). Two multiplying
// warpgroups, one per 64 tokens, and two decoding warpgroups that take
// alternate iterations (512 threads); 4 x (128 + 144) x 128 bytes of
// stages and 8 barrier objects. Warpgroup c's instructions take its 64
// tokens' activations (8192 bytes after the stage's first) as A and all
// 144 decoded rows (the stage's weights, 18432 bytes each, after the
// activations' 65536) as B, so each holds 72 sums: token rows 64 c + 16 w
// + g (+ 8) and weight columns 8 j + 2 t (+ 1). A decoder takes three
// passes of 64 rows, the last one only in its first warp (rows 128 ..
// 143), loads its codes two of its iterations (four of the block's)
// ahead, and its rows' scales once per trip of four iterations: 16 bytes,
// each chunk's two scales chosen by its group and K half.
// CHECK-LABEL: func.func @weights_as_b(
// CHECK: gpu.launch_func  @qmat_kernels::@fused_nvfp4_bs16_k512_bf16_magic_bias_mt128_w1_s1_c9_p4_wg_wsb blocks in (%{{.+}}, %c121, %c1) threads in (%c512, %c1, %c1)  dynamic_shared_memory_size %c139328_i32
// CHECK: gpu.func @fused_nvfp4_bs16_k512_bf16_magic_bias_mt128_w1_s1_c9_p4_wg_wsb(
// CHECK: %[[ACT:.+]] = memref.view %{{.+}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<69664xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view %{{.+}}[%c65536][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<36864xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[BARS:.+]] = memref.view %{{.+}}[%c139264][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.mbarrier_init %[[BARS]][%c0], 129
// CHECK-NEXT: qmat.mbarrier_init %[[BARS]][%c4], 256
// CHECK: %[[MULTIPLIES:.+]] = arith.cmpi ult, %[[THREAD:.+]], %c256 : index
// CHECK-NEXT: scf.if %[[MULTIPLIES]] {
// CHECK-NEXT: %[[CONSUMER:.+]] = arith.divui %[[THREAD]], %c128 : index
// CHECK-NEXT: %[[OWN:.+]] = arith.muli %[[CONSUMER]], %c8192 : index
// CHECK: scf.for %{{.+}} = %c0 to %c8 step %c1 iter_args(
// CHECK: %[[STAGE:.+]] = arith.remui %{{.+}}, %c4 : index
// CHECK: %[[STAGE_ACT:.+]] = arith.muli %[[STAGE]], %c16384 : index
// CHECK-NEXT: %[[STAGE_W:.+]] = arith.muli %[[STAGE]], %c18432 : index
// CHECK-NEXT: %[[WEIGHTS:.+]] = arith.addi %[[STAGE_W]], %c65536 : index
// CHECK-NEXT: %[[OWN_ACT:.+]] = arith.addi %[[STAGE_ACT]], %[[OWN]] : index
// CHECK-NEXT: %[[ACT_I64:.+]] = arith.index_castui %[[OWN_ACT]] : index to i64
// CHECK-NEXT: %[[ACT_ADDR:.+]] = arith.addi %{{.+}}, %[[ACT_I64]] : i64
// CHECK-NEXT: %[[ACT_ROW:.+]] = arith.shrui %[[ACT_ADDR]], %c4_i64 : i64
// CHECK-NEXT: %[[ACT_DESC:.+]] = arith.addi %[[ACT_ROW]], %c4611686293305360384_i64 : i64
// CHECK-NEXT: %[[W_I64:.+]] = arith.index_castui %[[WEIGHTS]] : index to i64
// CHECK-NEXT: %[[W_ADDR:.+]] = arith.addi %{{.+}}, %[[W_I64]] : i64
// CHECK-NEXT: %[[W_ROW:.+]] = arith.shrui %[[W_ADDR]], %c4_i64 : i64
// CHECK-NEXT: %[[W_DESC:.+]] = arith.addi %[[W_ROW]], %c4611686293305360384_i64 : i64
// CHECK-NEXT: %{{.+}}:72 = qmat.warpgroup_mma_shared %[[ACT_DESC]] * %[[W_DESC]] + [
// CHECK-COUNT-3: qmat.warpgroup_mma_shared
// CHECK: qmat.store_tile {{.+}} offsets m [0, 0, 8, 8, 0, 0, 8, 8, {{.+}}] n [0, 1, 0, 1, 8, 9, 8, 9, {{.+}}, 136, 137, 136, 137] bounds

// The decoders: warp (w - 8) % 4 of its group, rows clamped to N - 1, the
// last pass live in warp 0 only; the group is (thread - 256) / 128 and
// starts the loop at its own iteration, two of the block's per step.
// CHECK: } else {
// CHECK-NEXT: %[[DWARP:.+]] = arith.subi %{{.+}}, %c8 : index
// CHECK-NEXT: %[[IN_GROUP:.+]] = arith.remui %[[DWARP]], %c4 : index
// CHECK: %[[LAST_LIVE:.+]] = arith.cmpi ult, %[[IN_GROUP]], %c1 : index
// CHECK: %[[GROUP:.+]] = arith.divui %{{.+}}, %c128 : index
// CHECK: vector.load %arg2[%{{.+}}, %c0] {alignment = 16 : i64} : memref<?x32xf8E4M3FN, strided<[32, 1], offset: ?>>, vector<16xf8E4M3FN>
// CHECK: scf.for %{{.+}} = %[[GROUP]] to %c8 step %c4 iter_args(
// CHECK-COUNT-3: vector.load %arg2[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<?x32xf8E4M3FN, strided<[32, 1], offset: ?>>, vector<16xf8E4M3FN>
// The trip's first iteration is the group's: its scales are 32-bit word 0
// of the trip's four in group 0, word 1 in group 1, shifted by 16 bits in
// the upper K half.
// CHECK: %[[UPPER:.+]] = arith.cmpi ne, %{{.+}}, %c0 : index
// CHECK-NEXT: %[[SECOND:.+]] = arith.cmpi eq, %[[GROUP]], %c1 : index
// CHECK-NEXT: %[[WORDS:.+]] = vector.bitcast %{{.+}} : vector<16xf8E4M3FN> to vector<4xi32>
// CHECK-NEXT: %[[WORD0:.+]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// CHECK-NEXT: %[[WORD1:.+]] = vector.extract %[[WORDS]][1] : i32 from vector<4xi32>
// CHECK-NEXT: %[[WORD:.+]] = arith.select %[[SECOND]], %[[WORD1]], %[[WORD0]] : i32
// CHECK-NEXT: %[[SHIFT:.+]] = arith.select %[[UPPER]], %c16_i32, %c0_i32 : i32
// CHECK-NEXT: arith.shrui %[[WORD]], %[[SHIFT]] : i32
// CHECK: scf.if %[[LAST_LIVE]] {
// CHECK: qmat.decode_tile
func.func @weights_as_b(%a: memref<?x512xbf16>, %w: memref<17408x256xi8>, %s: memref<17408x32xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x512xbf16>, memref<17408x256xi8>, memref<17408x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
      m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b
  return
}

// -----

// Three decoding warpgroups (decoders = 3) beside one multiplying
// warpgroup: 512 threads, 5 stages (each group fills the stage three
// iterations ahead, its own next) of 64 activation and 144 weight rows,
// 10 barrier objects (full: a decoding group and the announcement; empty:
// the 128 multiplying threads). K = 768: 12 iterations, a trip of three
// (one of each group's, its codes loaded one of its iterations ahead),
// which divides them, so a row's scales come per trip: 12 bytes, aligned
// to 4, whose 32-bit word g is group g's, chosen by a chain of selects.
// CHECK-LABEL: func.func @three_decoders(
// CHECK: gpu.launch_func  @qmat_kernels::@fused_nvfp4_bs16_k768_bf16_magic_bias_mt64_w1_s1_c9_p5_wg_wsb_d3 blocks in (%{{.+}}, %c2, %c1) threads in (%c512, %c1, %c1)  dynamic_shared_memory_size %c133200_i32
// CHECK: %[[BARS:.+]] = memref.view %{{.+}}[%c133120][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<10xi64, #gpu.address_space<workgroup>>
// CHECK: qmat.mbarrier_init %[[BARS]][%c0], 129
// CHECK-NEXT: qmat.mbarrier_init %[[BARS]][%c5], 128
// CHECK: scf.for %{{.+}} = %c0 to %c12 step %c1 iter_args(
// CHECK: %[[DECODER:.+]] = arith.subi %{{.+}}, %c128 : index
// CHECK: %[[GROUP:.+]] = arith.divui %[[DECODER]], %c128 : index
// CHECK: vector.load %arg2[%{{.+}}, %c0] {alignment = 4 : i64} : memref<?x48xf8E4M3FN, strided<[48, 1], offset: ?>>, vector<12xf8E4M3FN>
// CHECK: scf.for %[[I:.+]] = %[[GROUP]] to %c12 step %c3 iter_args(
// CHECK-NEXT: %[[START:.+]] = arith.subi %[[I]], %[[GROUP]] : index
// CHECK-NEXT: %[[NEXT:.+]] = arith.addi %[[START]], %c3 : index
// CHECK-NEXT: arith.minui %[[NEXT]], %c9 : index
// CHECK: %[[STAGE:.+]] = arith.remui %[[I]], %c5 : index
// CHECK-NEXT: %[[UPPER:.+]] = arith.cmpi ne, %{{.+}}, %c0 : index
// CHECK-NEXT: %[[SECOND:.+]] = arith.cmpi eq, %[[GROUP]], %c1 : index
// CHECK-NEXT: %[[THIRD:.+]] = arith.cmpi eq, %[[GROUP]], %c2 : index
// CHECK-NEXT: %[[WORDS:.+]] = vector.bitcast %{{.+}} : vector<12xf8E4M3FN> to vector<3xi32>
// CHECK-NEXT: %[[WORD0:.+]] = vector.extract %[[WORDS]][0] : i32 from vector<3xi32>
// CHECK-NEXT: %[[WORD1:.+]] = vector.extract %[[WORDS]][1] : i32 from vector<3xi32>
// CHECK-NEXT: %[[WORD01:.+]] = arith.select %[[SECOND]], %[[WORD1]], %[[WORD0]] : i32
// CHECK-NEXT: %[[WORD2:.+]] = vector.extract %[[WORDS]][2] : i32 from vector<3xi32>
// CHECK-NEXT: arith.select %[[THIRD]], %[[WORD2]], %[[WORD01]] : i32
// The next codes (iteration + 3, clamped to the last) and the stage to
// fill are one value.
// CHECK: %[[FILL:.+]] = arith.addi %[[I]], %c3 : index
// CHECK-NEXT: arith.minui %[[FILL]], %c11 : index
// CHECK: qmat.mbarrier_arrive %[[BARS]][%[[STAGE]]] :
// CHECK-NEXT: %[[IN_K:.+]] = arith.cmpi ule, %[[FILL]], %c11 : index
// CHECK-NEXT: scf.if %[[IN_K]] {
// CHECK-NEXT: %[[REFILL:.+]] = arith.cmpi uge, %[[FILL]], %c5 : index
func.func @three_decoders(%a: memref<?x768xbf16>, %w: memref<288x384xi8>, %s: memref<288x48xf8E4M3FN>,
                          %g: memref<f32>, %y: memref<?x288xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x768xbf16>, memref<288x384xi8>, memref<288x48xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x288xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 5 warpgroup specialized weights_as_b decoders = 3
  return
}

// -----

// K = 640: ten iterations, which a trip of three does not divide: the
// last trip (iteration 9, group 0's alone) takes the scales loaded from
// iteration 7 on, the last whole trip's that end at the row's last, so an
// iteration's place among the loaded scales is the iteration less
// min(trip start, 7), not its group.
// CHECK-LABEL: func.func @three_decoders_partial_trip(
// CHECK: %[[GROUP:.+]] = arith.divui %{{.+}}, %c128 : index
// CHECK: scf.for %[[I:.+]] = %[[GROUP]] to %c10 step %c3 iter_args(
// CHECK-NEXT: %[[START:.+]] = arith.subi %[[I]], %[[GROUP]] : index
// CHECK-NEXT: %[[NEXT:.+]] = arith.addi %[[START]], %c3 : index
// CHECK-NEXT: arith.minui %[[NEXT]], %c7 : index
// CHECK: %[[LOADED:.+]] = arith.minui %[[START]], %c7 : index
// CHECK-NEXT: %[[PLACE:.+]] = arith.subi %[[I]], %[[LOADED]] : index
// CHECK: %[[SECOND:.+]] = arith.cmpi eq, %[[PLACE]], %c1 : index
// CHECK-NEXT: %[[THIRD:.+]] = arith.cmpi eq, %[[PLACE]], %c2 : index
// CHECK-NEXT: %[[WORDS:.+]] = vector.bitcast %{{.+}} : vector<12xf8E4M3FN> to vector<3xi32>
// CHECK-NEXT: %[[WORD0:.+]] = vector.extract %[[WORDS]][0] : i32 from vector<3xi32>
// CHECK-NEXT: %[[WORD1:.+]] = vector.extract %[[WORDS]][1] : i32 from vector<3xi32>
// CHECK-NEXT: %[[WORD01:.+]] = arith.select %[[SECOND]], %[[WORD1]], %[[WORD0]] : i32
// CHECK-NEXT: %[[WORD2:.+]] = vector.extract %[[WORDS]][2] : i32 from vector<3xi32>
// CHECK-NEXT: arith.select %[[THIRD]], %[[WORD2]], %[[WORD01]] : i32
func.func @three_decoders_partial_trip(%a: memref<?x640xbf16>, %w: memref<288x320xi8>, %s: memref<288x40xf8E4M3FN>,
                                       %g: memref<f32>, %y: memref<?x288xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x640xbf16>, memref<288x320xi8>, memref<288x40xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x288xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 5 warpgroup specialized weights_as_b decoders = 3
  return
}

// -----

// K = 128: two iterations for three decoding groups. The third loads the
// last iteration's codes (its group clamped to 1) and its loop runs no
// trip; two iterations hold no whole trip of three, so each chunk loads
// its own two scales.
// CHECK-LABEL: func.func @three_decoders_short_k(
// CHECK: %[[GROUP:.+]] = arith.divui %{{.+}}, %c128 : index
// CHECK-NEXT: arith.remui %{{.+}}, %c128 : index
// CHECK-NEXT: %[[FIRST:.+]] = arith.minui %[[GROUP]], %c1 : index
// CHECK: arith.muli %[[FIRST]], %c64 : index
// CHECK: vector.load %arg2[%{{.+}}, %{{.+}}] {alignment = 2 : i64} : memref<?x8xf8E4M3FN, strided<[8, 1], offset: ?>>, vector<2xf8E4M3FN>
// CHECK: scf.for %{{.+}} = %[[GROUP]] to %c2 step %c3 iter_args(
func.func @three_decoders_short_k(%a: memref<?x128xbf16>, %w: memref<288x64xi8>, %s: memref<288x8xf8E4M3FN>,
                                  %g: memref<f32>, %y: memref<?x288xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x128xbf16>, memref<288x64xi8>, memref<288x8xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x288xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 5 warpgroup specialized weights_as_b decoders = 3
  return
}

// -----

// K split across a cluster of two blocks (k_slices = 2; K = 1024: 16
// iterations, 8 a block): the grid's z dimension holds the slices and the
// kernel the cluster's shape. Block z walks iterations 8z .. 8z + 7: its
// activations' tensor loads start at K column 64 (8z + i) and its decoders'
// codes and scales at K 64 (8z + i) + 32 h. After the roles, every thread
// (the decoders with zero sums) takes part in the exchange of the 16 sums
// of each multiplying lane, after which the first block's multiplying
// threads store the totals.
// CHECK-LABEL: func.func @specialized_sliced(
// CHECK: gpu.launch_func  @qmat_kernels::@fused_nvfp4_bs16_k1024_bf16_magic_bias_mt32_w4_s1_c1_p4_wg_ws_k2 blocks in (%{{.+}}, %c2, %c2) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @fused_nvfp4_bs16_k1024_bf16_magic_bias_mt32_w4_s1_c1_p4_wg_ws_k2({{.+}}) kernel attributes {{{.*}}nvvm.cluster_dim = array<i32: 1, 1, 2>
// CHECK: %[[PARTIALS:.+]] = memref.view %{{.+}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
// CHECK: %[[SLICE:.+]] = gpu.block_id  z
// CHECK-NEXT: %[[SLICE_FIRST:.+]] = arith.muli %[[SLICE]], %c8 : index
// CHECK: %[[MULTIPLIES:.+]] = arith.cmpi ult, %[[THREAD:.+]], %c128 : index
// CHECK-NEXT: %[[SUMS:.+]]:4 = scf.if %[[MULTIPLIES]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: scf.for %{{.+}} = %c0 to %c8 step %c1 iter_args(
// CHECK: qmat.warpgroup_wait 0,
// CHECK: vector.from_elements
// CHECK: scf.yield %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
// CHECK-NEXT: } else {
// CHECK: %[[K0:.+]] = arith.muli %[[SLICE]], %c512 : index
// CHECK-NEXT: qmat.tensor_load %{{.+}}[%[[K0]], %{{.+}}] box [64, 32]
// CHECK: %[[HALF_K:.+]] = arith.muli %{{.+}}, %c32 : index
// CHECK-NEXT: %[[SLICE_K:.+]] = arith.muli %[[SLICE]], %c512 : index
// CHECK-NEXT: %[[LANE_K:.+]] = arith.addi %[[SLICE_K]], %[[HALF_K]] : index
// CHECK-NEXT: %[[BYTE:.+]] = arith.shrui %[[LANE_K]], %c1 : index
// CHECK-NEXT: vector.load %arg1[%{{.+}}, %[[BYTE]]]
// CHECK: qmat.mbarrier_arrive %{{.+}}[%[[S:.+]]] expect 4096
// CHECK-NEXT: %[[AT:.+]] = arith.muli %[[S]], %c2048 : index
// CHECK-NEXT: %[[K_STEP:.+]] = arith.addi %{{.+}}, %[[SLICE_FIRST]] : index
// CHECK-NEXT: %[[K:.+]] = arith.muli %[[K_STEP]], %c64 : index
// CHECK-NEXT: qmat.tensor_load %{{.+}}[%[[K]], %{{.+}}] box [64, 32], %{{.+}}[%[[AT]]]
// CHECK: scf.yield %[[ZERO:.+]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
// CHECK: %[[TOTALS:.+]]:4 = qmat.reduce_k_slices %[[SUMS]]#0, %[[SUMS]]#1, %[[SUMS]]#2, %[[SUMS]]#3 through %[[PARTIALS]] rank %[[SLICE]] slices 2 thread %[[THREAD]] of 256
// CHECK-NEXT: %[[T0:.+]] = vector.extract %[[TOTALS]]#0[0] : f32 from vector<4xf32>
// CHECK: %[[FIRST_SLICE:.+]] = arith.cmpi eq, %[[SLICE]], %c0 : index
// CHECK-NEXT: %[[STORES:.+]] = arith.andi %[[MULTIPLIES]], %[[FIRST_SLICE]] : i1
// CHECK-NEXT: scf.if %[[STORES]] {
// CHECK: qmat.store_tile %[[T0]],
func.func @specialized_sliced(%a: memref<?x1024xbf16>, %w: memref<128x512xi8>, %s: memref<128x64xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x512xi8>, memref<128x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>) m_tile = 32 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 k_slices = 2 warpgroup specialized
  return
}
