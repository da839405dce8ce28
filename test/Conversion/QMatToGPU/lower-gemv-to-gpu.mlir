// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels --qmat-lower-gemv-to-gpu --qmat-expand-load-tile | FileCheck %s --enable-var-scope
// RUN: not qmat-opt %s -split-input-file --qmat-lower-gemv-to-gpu=target=host 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels --qmat-lower-gemv-to-gpu | FileCheck %s --check-prefix=LOADS --enable-var-scope

// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=gfx942 --qmat-lower-gemv-to-gpu=target=gfx942 --qmat-expand-load-tile=target=gfx942 | FileCheck %s --check-prefix=GFX --enable-var-scope

// HOST: error: qmat-lower-gemv-to-gpu needs a GPU target

// On gfx942 the same op is the wavefront matrix-core GEMV: 64 lanes per
// split-K slice, lane l = 16q + r owns weight row r (and activation row r)
// at the 32 K elements [32q, 32q + 32) of each 128-K step, 8 v_mfma
// 16x16x16 per step and column tile; the live partial sums (columns < 8
// for 8 rows) meet in the same 1024 floats of workgroup memory.
// GFX-LABEL: func.func @tensor_core(
// GFX: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_bias_m8_s4_c2 blocks in (%{{.+}}, %c1, %c1) threads in (%c256, %c1, %c1)
// GFX: gpu.func @gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_bias_m8_s4_c2(
// GFX-SAME: workgroup(%{{.+}} : memref<1024xf32, #gpu.address_space<workgroup>>)
// GFX: %[[LANE:.+]] = arith.remui %thread_id_x, %c64 : index
// GFX: %[[WAVE:.+]] = arith.divui %thread_id_x, %c64{{.*}} : index
// GFX: %[[R:.+]] = arith.remui %[[LANE]], %c16 : index
// GFX: %[[Q:.+]] = arith.divui %[[LANE]], %c16{{.*}} : index
// GFX: scf.for %{{.+}} = %{{.+}} to %c2 step %c4 iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>) {
// GFX: vector.load %{{.+}} : memref<?x128xi8, strided<[128, 1], offset: ?>>, vector<16xi8>
// GFX: vector.load %{{.+}} : memref<?x256xbf16, strided<[256, 1], offset: ?>>, vector<8xbf16>
// The row chunk decodes into words in K order, whose 4-element slices are
// the wavefront instruction's A operand.
// GFX: %[[GWORDS:.+]] = qmat.decode_words <nvfp4, block = 16> %{{.+}} scales %[[GS0:.+]], %[[GS0]], %[[GS1:.+]], %[[GS1]] global_scale %{{.+}} method = magic_bias : vector<16xi8>, f8E4M3FN -> vector<4x8xbf16>
// GFX-NEXT: %[[GWORD0:.+]] = vector.extract %[[GWORDS]][0] : vector<8xbf16> from vector<4x8xbf16>
// GFX: %[[GSLICE:.+]] = vector.shuffle %[[GWORD0]], %[[GWORD0]] [0, 1, 2, 3] : vector<8xbf16>, vector<8xbf16>
// GFX: qmat.wave_mma %[[GSLICE]] * %{{.+}} + %{{.+}} : vector<4xbf16>, vector<4xf32>
// GFX-COUNT-15: qmat.wave_mma %{{.+}} * %{{.+}} + %{{.+}} : vector<4xbf16>, vector<4xf32>
// GFX-NOT: qmat.wave_mma
// GFX: %[[LIVE:.+]] = arith.cmpi ult, %[[R]], %c8{{.*}} : index
// GFX: %[[QUARTER:.+]] = arith.muli %[[Q]], %c8{{.*}} : index
// GFX: %[[SLOT:.+]] = arith.addi %[[QUARTER]], %[[R]] : index
// GFX: qmat.reduce_split_k %{{.+}}, %{{.+}} through %{{.+}} warp %[[WAVE]] slices 4 columns 1 lane %[[SLOT]] of 32 live %[[LIVE]] : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
// The 16x16 accumulator's epilogue: element i of column tile c is row
// 4q + 16c + i of the lane's column.
// GFX: qmat.store_tile %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} to %{{.+}}[%{{.+}}, %{{.+}}] offsets m [0, 0, 0, 0, 0, 0, 0, 0] n [0, 1, 2, 3, 16, 17, 18, 19] bounds %{{.+}}, %{{.+}} bias %{{.+}} : f32, f32, f32, f32, f32, f32, f32, f32 to memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<?xbf16, strided<[1], offset: ?>>

// Tensor core, 4 warps of split-K, 2 column tiles: 32 rows per block, 128
// threads, the split-K partial sums in 4 x 2 x 32 x 4 floats of workgroup
// memory; Y is [M, N] with N free so that layers of the same K share it.
// Before qmat-expand-load-tile (the other prefixes check after it): a
// lane's codes of a row are one streaming load from the base the kernel
// computes once, its chunk's scales one cached load.
// LOADS-LABEL: func.func @tensor_core(
// LOADS: %[[CODEBASE:.+]] = arith.addi %intptr{{.*}}, %offset{{.*}} : index
// LOADS: scf.for
// LOADS: qmat.load_tile streaming %arg1[%[[TROW:[a-z0-9_]+]], %{{.+}}] base %[[CODEBASE]] {alignment = 16 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>> -> vector<16xi8>
// LOADS-NEXT: qmat.load_tile cached %arg2[%[[TROW]], %{{.+}}] {alignment = 2 : i64} : memref<?x16xf8E4M3FN, strided<[16, 1], offset: ?>> -> vector<2xf8E4M3FN>
// LOADS-NOT: vector.load %{{.+}} : memref<?x128xi8
// LOADS-NOT: qmat.load_streaming
// CHECK-LABEL: func.func @tensor_core(
// CHECK: %[[ROWS:.+]] = memref.dim %{{.+}}, %c0 : memref<?x128xi8, strided<[128, 1], offset: ?>>
// CHECK: %[[BLOCKS:.+]] = arith.ceildivui %[[ROWS]], %c32 : index
// CHECK: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_bias_m8_s4_c2 blocks in (%[[BLOCKS]], %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK-SAME: memref<f32>, %{{.+}} : memref<?xbf16, strided<[1], offset: ?>>, %{{.+}} : memref<?x?xbf16, strided<[?, 1], offset: ?>>)
// CHECK: gpu.func @gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_bias_m8_s4_c2(
// CHECK-SAME: workgroup(%[[PARTIALS:.+]] : memref<1024xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: %[[LANE:.+]] = arith.remui %thread_id_x, %c32 : index
// CHECK: %[[WARP:.+]] = arith.divui %thread_id_x, %c32{{.*}} : index
// The codes, read once per block, stream (L1 bypassed, whole lines into
// L2): their loads take byte
// addresses from the aligned pointer plus the descriptor's offset, and
// rows at the descriptor's row stride.
// CHECK: %{{.+}}, %[[OFFSET:[a-z_0-9]+]], %{{.+}}:2, %[[STRIDES:[a-z_0-9]+]]:2 = memref.extract_strided_metadata %arg1 : memref<?x128xi8, strided<[128, 1], offset: ?>>
// CHECK: %[[POINTER:.+]] = memref.extract_aligned_pointer_as_index %arg1 : memref<?x128xi8, strided<[128, 1], offset: ?>> -> index
// CHECK: %[[BASE:.+]] = arith.addi %[[POINTER]], %[[OFFSET]] : index
// Blocks whose 32 rows all lie below N take every row at a constant
// distance from the first; only the last block clamps rows to N - 1.
// CHECK: %[[END:.+]] = arith.addi %{{.+}}, %c32{{.*}} : index
// CHECK: %[[WHOLE:.+]] = arith.cmpi ule, %[[END]], %{{.+}} : index
// CHECK: scf.if %[[WHOLE]] -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NOT: arith.minui
// Warps take K steps warp, warp + 4, ... (K = 256: two steps); a step's
// loads (4 rows of 16 code bytes, their scales, 4 activation words) come
// before its arithmetic.
// CHECK: scf.for %{{.+}} = %{{.+}} to %c2{{.*}} step %c4{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// Byte (row, K / 2) of the codes: row x stride + column, from the base.
// CHECK: %[[COLUMN:.+]] = arith.shrui %{{.+}}, %c1{{.*}} : index
// CHECK: %[[ROWBYTE:.+]] = arith.muli %{{.+}}, %[[STRIDES]]#0 : index
// CHECK: %[[INBUFFER:.+]] = arith.addi %[[ROWBYTE]], %[[COLUMN]] : index
// CHECK: %[[BYTE:.+]] = arith.addi %[[BASE]], %[[INBUFFER]] : index
// CHECK: %[[ADDRESS:.+]] = arith.index_castui %[[BYTE]] : index to i64
// CHECK: %[[CODES0:.+]] = qmat.load_streaming %[[ADDRESS]] : vector<16xi8>
// CHECK-COUNT-3: qmat.load_streaming %{{.+}} : vector<16xi8>
// CHECK-NOT: vector.load %{{.+}} : memref<?x128xi8
// The two scales of a lane's 32-element chunk in one 2-byte load (the
// launcher checks the alignment), each word taking its block's element.
// CHECK: %[[SV:.+]] = vector.load %{{.+}} {alignment = 2 : i64} : memref<?x16xf8E4M3FN, strided<[16, 1], offset: ?>>, vector<2xf8E4M3FN>
// CHECK-NEXT: %[[SA:.+]] = vector.extract %[[SV]][0] : f8E4M3FN from vector<2xf8E4M3FN>
// CHECK-NEXT: %[[SB:.+]] = vector.extract %[[SV]][1] : f8E4M3FN from vector<2xf8E4M3FN>
// CHECK-NOT: memref.load %{{.+}} : memref<?x16xf8E4M3FN
// After every load of the step, the 4 rows' codes decode as one tile into
// the A pairs (qmat-expand-decode-tile writes the bit placement), the
// last row's words 0-1 in block 2k, 2-3 in 2k + 1.
// CHECK: %[[TILE:.+]] = qmat.decode_tile <nvfp4, block = 16> %[[CODES0]], %{{.+}}, %{{.+}}, %{{.+}} scales %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[SA]], %[[SA]], %[[SB]], %[[SB]] : vector<16xi8>, f8E4M3FN -> vector<4x16x2xbf16>
// CHECK: %[[TOP0:.+]] = vector.extract %[[TILE]][0, 0] : vector<2xbf16> from vector<4x16x2xbf16>
// CHECK-NEXT: %[[TOP1:.+]] = vector.extract %[[TILE]][0, 1] : vector<2xbf16> from vector<4x16x2xbf16>
// CHECK: %[[BOTTOM0:.+]] = vector.extract %[[TILE]][1, 0] : vector<2xbf16> from vector<4x16x2xbf16>
// CHECK-NEXT: %[[BOTTOM1:.+]] = vector.extract %[[TILE]][1, 1] : vector<2xbf16> from vector<4x16x2xbf16>
// CHECK: vector.extract %[[TILE]][3, 15] : vector<2xbf16> from vector<4x16x2xbf16>
// CHECK-NOT: qmat.bit_select
// Activation pairs (k, k + 4), as the weights pair them.
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 4] : vector<8xbf16>, vector<8xbf16>
// CHECK: %{{.+}}:4 = qmat.warp_mma [%[[TOP0]], %[[BOTTOM0]], %[[TOP1]], %[[BOTTOM1]]] * [%{{.+}}, %{{.+}}] + [%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : vector<2xbf16>, vector<2xbf16>, f32
// CHECK-COUNT-15: qmat.warp_mma
// The last block: the 4 rows clamped, the same loop.
// CHECK: } else {
// CHECK-COUNT-4: arith.minui %{{.+}}, %{{.+}} : index
// CHECK: scf.for
// CHECK-COUNT-16: qmat.warp_mma
// CHECK-NOT: qmat.warp_mma
// Split-K: the 8 sums as two groups of 4 through the workgroup memory,
// each warp a K slice (of 4) and the lane its slot (of 32); the epilogue,
// in warp 0, stores with 2^7 x global and bias.
// CHECK: %[[G0:.+]] = vector.from_elements %{{.+}}#0, %{{.+}}#1, %{{.+}}#2, %{{.+}}#3 : vector<4xf32>
// CHECK-NEXT: %[[G1:.+]] = vector.from_elements %{{.+}}#4, %{{.+}}#5, %{{.+}}#6, %{{.+}}#7 : vector<4xf32>
// CHECK-NEXT: qmat.reduce_split_k %[[G0]], %[[G1]] through %[[PARTIALS]] warp %[[WARP]] slices 4 columns 1 lane %[[LANE]] of 32 : vector<4xf32>, vector<4xf32> through memref<1024xf32, #gpu.address_space<workgroup>> {
// CHECK-NEXT: ^bb0(%[[T0:.+]]: vector<4xf32>, %[[T1:.+]]: vector<4xf32>):
// CHECK-NEXT: vector.extract %[[T0]][0] : f32 from vector<4xf32>
// The 16x8 accumulators of the two column tiles: rows g, g + 8, g + 16,
// g + 24 and columns 2t, 2t + 1.
// CHECK: qmat.store_tile %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} to %{{.+}}[%{{.+}}, %{{.+}}] offsets m [0, 1, 0, 1, 0, 1, 0, 1] n [0, 0, 8, 8, 16, 16, 24, 24] bounds %{{.+}}, %{{.+}} factor %{{.+}} bias %{{.+}} : f32, f32, f32, f32, f32, f32, f32, f32 to memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<?xbf16, strided<[1], offset: ?>>
func.func @tensor_core(%a: memref<?x256xbf16>, %w: memref<40x128xi8>, %s: memref<40x16xf8E4M3FN>,
                       %g: memref<f32>, %b: memref<40xbf16>, %y: memref<?x40xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<40x128xi8>, memref<40x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) bias(%b : memref<40xbf16>) outs(%y : memref<?x40xbf16>) max_m = 8 split_k = 4 col_tiles = 2 tensor_core
  return
}

// -----

// The whole-line layout (nvfp4, max_m <= 4, K a multiple of 256): lane
// l = 4g + t takes row g % 4 of each 4-row quarter and K half g / 4 of a
// 256-element step at 32 t, so that one code load reads 4 rows x 128
// bytes; a column tile is two 16 x 8 matrix tiles (8 accumulators), the
// activation row is g % 4. After the loop lanes l and l ^ 18 add their K
// halves; lanes g < 4, t < 2 store.
// CHECK-LABEL: func.func @whole_lines(
// CHECK: %[[BLOCKS:.+]] = arith.ceildivui %{{.+}}, %c16 : index
// CHECK: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k512_bf16_tc_magic_bias_m4_s2_c1_lines blocks in (%[[BLOCKS]], %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @gemv_nvfp4_bs16_k512_bf16_tc_magic_bias_m4_s2_c1_lines(
// CHECK-SAME: workgroup(%{{.+}} : memref<512xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[LANE:.+]] = arith.remui %thread_id_x, %c32 : index
// CHECK: %[[G:.+]] = arith.divui %[[LANE]], %c4 : index
// CHECK: %[[T:.+]] = arith.remui %[[LANE]], %c4{{.*}} : index
// CHECK: %[[QUARTER:.+]] = arith.remui %[[G]], %c4{{.*}} : index
// CHECK: %[[FIRST:.+]] = arith.muli %block_id_x, %c16 : index
// CHECK: %[[ROW:.+]] = arith.addi %[[FIRST]], %[[QUARTER]] : index
// CHECK: %[[ACTROW:.+]] = arith.addi %[[QUARTER]], %c0{{.*}} : index
// CHECK: arith.minui %[[ACTROW]], %{{.+}} : index
// CHECK: %[[LANEK:.+]] = arith.muli %[[T]], %c32{{.*}} : index
// CHECK: %[[HALF:.+]] = arith.divui %[[G]], %c4{{.*}} : index
// CHECK: %[[HALFK:.+]] = arith.muli %[[HALF]], %c128 : index
// CHECK: arith.addi %[[LANEK]], %[[HALFK]] : index
// Rows at 0, 4, 8, 12 from the lane's first: the two matrix tiles' tops
// and bottoms.
// CHECK: arith.addi %[[ROW]], %c4{{.*}} : index
// CHECK: arith.addi %[[ROW]], %c8{{.*}} : index
// CHECK: arith.addi %[[ROW]], %c12{{.*}} : index
// K = 512: two 256-element steps, one per warp.
// CHECK: scf.for %{{.+}} = %{{.+}} to %c2{{.*}} step %c2{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: arith.muli %{{.+}}, %c256 : index
// CHECK-COUNT-4: qmat.load_streaming
// CHECK-COUNT-16: qmat.warp_mma
// CHECK-NOT: qmat.warp_mma
// CHECK: scf.yield
// CHECK: } else {
// CHECK-COUNT-4: arith.minui %{{.+}}, %{{.+}} : index
// CHECK: scf.for
// CHECK-COUNT-16: qmat.warp_mma
// CHECK-NOT: qmat.warp_mma
// CHECK-COUNT-8: gpu.shuffle  xor %{{.+}}, %c18_i32, %c32_i32 : f32
// CHECK: qmat.reduce_split_k %{{.+}}, %{{.+}} through %{{.+}} warp %{{.+}} slices 2 columns 1 lane %[[LANE]] of 32 : vector<4xf32>, vector<4xf32> through memref<512xf32, #gpu.address_space<workgroup>> {
// CHECK: %[[LOWG:.+]] = arith.cmpi ult, %[[G]], %c4{{.*}} : index
// CHECK: %[[LOWT:.+]] = arith.cmpi ult, %[[T]], %c2{{.*}} : index
// CHECK: %[[OWNER:.+]] = arith.andi %[[LOWG]], %[[LOWT]] : i1
// Rows g (< 4) and g + 4 of each 8-row half, stored by their owners only.
// CHECK: qmat.store_tile %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} to %{{.+}}[%{{.+}}, %{{.+}}] offsets m [0, 1, 0, 1, 0, 1, 0, 1] n [0, 0, 4, 4, 8, 8, 12, 12] bounds %{{.+}}, %{{.+}} factor %{{.+}} mask %[[OWNER]] : f32, f32, f32, f32, f32, f32, f32, f32 to memref<?x?xbf16, strided<[?, 1], offset: ?>>
func.func @whole_lines(%a: memref<?x512xbf16>, %w: memref<40x256xi8>, %s: memref<40x32xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x40xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xbf16>, memref<40x256xi8>, memref<40x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>) max_m = 4 split_k = 2 col_tiles = 1 tensor_core
  return
}

// -----

// Two column tiles: four matrix tiles at rows 0, 4 | 8, 12 | 16, 20 |
// 24, 28 from the lane's first, 16 accumulators, 32 instructions a step.
// CHECK-LABEL: func.func @whole_lines_two_tiles(
// CHECK: gpu.func @gemv_nvfp4_bs16_k512_f16_tc_magic_bias_m4_s1_c2_lines(
// CHECK: %[[FIRST2:.+]] = arith.muli %block_id_x, %c32{{.*}} : index
// CHECK: %[[ROW2:.+]] = arith.addi %[[FIRST2]], %{{.+}} : index
// CHECK: arith.addi %[[ROW2]], %c4{{.*}} : index
// CHECK: arith.addi %[[ROW2]], %c8{{.*}} : index
// CHECK: arith.addi %[[ROW2]], %c12{{.*}} : index
// CHECK: arith.addi %[[ROW2]], %c16{{.*}} : index
// CHECK: arith.addi %[[ROW2]], %c20{{.*}} : index
// CHECK: arith.addi %[[ROW2]], %c24{{.*}} : index
// CHECK: arith.addi %[[ROW2]], %c28{{.*}} : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %c2{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-8: qmat.load_streaming
// CHECK-COUNT-32: qmat.warp_mma
// CHECK-NOT: qmat.warp_mma
// CHECK: scf.yield
func.func @whole_lines_two_tiles(%a: memref<?x512xf16>, %w: memref<40x256xi8>, %s: memref<40x32xf8E4M3FN>,
                                 %g: memref<f32>, %y: memref<?x40xf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xf16>, memref<40x256xi8>, memref<40x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xf16>) max_m = 4 split_k = 1 col_tiles = 2 tensor_core
  return
}

// -----

// fp8 codes convert two at a time (cvt.rn.f16x2.e4m3x2, exact, the native
// decode on sm_89 and later), then through fp32 (the reference's rounding)
// into adjacent pairs;
// f16 operands go to the instruction as they are. No split: no workgroup
// memory, no barrier.
// CHECK-LABEL: func.func @fp8(
// CHECK: gpu.func @gemv_fp8_bs128_k256_f16_tc_native_m16_s1_c1(
// CHECK-NOT: workgroup
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// fp8 codes (32 bytes a lane) keep plain loads.
// CHECK-NOT: qmat.load_streaming
// CHECK: vector.load %{{.+}} : memref<?x256xf8E4M3FN, strided<[256, 1], offset: ?>>, vector<32xf8E4M3FN>
// The row chunk decodes through fp32 into words in K order (one scale per
// word, the same block's), whose adjacent pairs are the A operand.
// CHECK: %[[FP8WORDS:.+]] = qmat.decode_words <fp8, block = 128> %{{.+}} scales %[[FP8SCALE:.+]], %[[FP8SCALE]], %[[FP8SCALE]], %[[FP8SCALE]] method = native : vector<32xi8>, f32 -> vector<4x8xf16>
// CHECK-NEXT: %[[FP8WORD:.+]] = vector.extract %[[FP8WORDS]][0] : vector<8xf16> from vector<4x8xf16>
// CHECK: vector.shuffle %[[FP8WORD]], %[[FP8WORD]] [0, 1] : vector<8xf16>, vector<8xf16>
// CHECK: qmat.warp_mma {{.*}} : vector<2xf16>, vector<2xf16>, f32
// Two row groups (max_m = 16): 8 steps x 2 groups, in each of the two
// loops (whole blocks, the last block).
// CHECK-COUNT-15: qmat.warp_mma
// CHECK: } else {
// CHECK-COUNT-16: qmat.warp_mma
// CHECK-NOT: qmat.warp_mma
// CHECK-NOT: gpu.barrier
func.func @fp8(%a: memref<?x256xf16>, %w: memref<48x256xf8E4M3FN>, %s: memref<48x2xf32>, %y: memref<?x48xf16>) {
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xf16>, memref<48x256xf8E4M3FN>, memref<48x2xf32>)
      outs(%y : memref<?x48xf16>) max_m = 16 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// int4 decodes into bf16 pairs, no fp32 on the way: each row's block
// scale, the byte holding its zero point and the block (whose parity picks
// the nibble) go to the tile decode with the rows' codes
// (expand-decode-tile.mlir checks its arithmetic).
// CHECK-LABEL: func.func @int4_packed(
// CHECK: gpu.func @gemv_int4_bs128_k256_bf16_tc_magic_bias_zp_m8_s1_c1(
// CHECK: %[[BLOCK:.+]] = arith.divui %{{.+}}, %c128{{.*}} : index
// CHECK: %[[C0:.+]] = qmat.load_streaming
// CHECK-NEXT: %[[S0:.+]] = memref.load %arg2[%{{.+}}, %[[BLOCK]]] : memref<?x2xbf16, strided<[2, 1], offset: ?>>
// CHECK: %[[Z0:.+]] = memref.load %arg3[%{{.+}}, %{{.+}}] : memref<?x1xi8, strided<[1, 1], offset: ?>>
// CHECK: %[[C1:.+]] = qmat.load_streaming
// CHECK-NEXT: %[[S1:.+]] = memref.load %arg2[%{{.+}}, %[[BLOCK]]] : memref<?x2xbf16, strided<[2, 1], offset: ?>>
// CHECK: %[[Z1:.+]] = memref.load %arg3[%{{.+}}, %{{.+}}] : memref<?x1xi8, strided<[1, 1], offset: ?>>
// CHECK: qmat.decode_tile <int4, block = 128> %[[C0]], %[[C1]] scales %[[S0]], %[[S0]], %[[S0]], %[[S0]], %[[S1]], %[[S1]], %[[S1]], %[[S1]] zero_points %[[Z0]], %[[Z0]], %[[Z0]], %[[Z0]], %[[Z1]], %[[Z1]], %[[Z1]], %[[Z1]] blocks %[[BLOCK]], %[[BLOCK]], %[[BLOCK]], %[[BLOCK]] : vector<16xi8>, bf16 -> vector<2x16x2xbf16>
// CHECK-NOT: arith.truncf {{.*}} to vector<8xbf16>
// CHECK: qmat.warp_mma
func.func @int4_packed(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x2xbf16>, %z: memref<48x1xi8>, %y: memref<?x48xbf16>) {
  qmat.gemv <int4, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x2xbf16>)
      zero_points(%z : memref<48x1xi8>) outs(%y : memref<?x48xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// mxfp4: where every scale byte of the step is at most 128 in every lane
// of the warp (nvvm.vote.sync all: a warp-uniform branch), the tile decode
// takes one multiply per pair (one_multiply), otherwise the exact two-step
// (f16: three-step) product; expand-decode-tile.mlir checks both. Each arm
// decodes its own pinned copy of the codes and pins its sums ("arm 0",
// "arm 1"), so that LLVM neither hoists the decode nor sinks the matrix
// instructions out of it.
// CHECK-LABEL: func.func @mxfp4_packed(
// CHECK: gpu.func @gemv_mxfp4_bs32_k256_bf16_tc_magic_bias_m8_s1_c1(
// Both rows' scales (g and g + 8) feed the vote.
// CHECK: %[[S0:.+]] = memref.load %arg2[%{{.+}}, %{{.+}}] : memref<?x8xf8E8M0FNU, strided<[8, 1], offset: ?>>
// CHECK: %[[S1:.+]] = memref.load %arg2[%{{.+}}, %{{.+}}] : memref<?x8xf8E8M0FNU, strided<[8, 1], offset: ?>>
// CHECK: %[[B0:.+]] = arith.bitcast %[[S0]] : f8E8M0FNU to i8
// CHECK-NEXT: %[[E0:.+]] = arith.extui %[[B0]] : i8 to i32
// CHECK-NEXT: %[[FITS0:.+]] = arith.cmpi ule, %[[E0]], %c128_i32
// CHECK: %[[B1:.+]] = arith.bitcast %[[S1]] : f8E8M0FNU to i8
// CHECK-NEXT: %[[E1:.+]] = arith.extui %[[B1]] : i8 to i32
// CHECK-NEXT: %[[FITS1:.+]] = arith.cmpi ule, %[[E1]], %c128_i32
// CHECK-NEXT: %[[BOTH:.+]] = arith.andi %[[FITS0]], %[[FITS1]] : i1
// CHECK: %[[ALL:.+]] = nvvm.vote.sync  all %c-1_i32, %[[BOTH]] -> i1
// CHECK: scf.if %[[ALL]] -> (f32, f32, f32, f32) {
// CHECK-COUNT-4: qmat.pinned_copy %{{.+}} arm 0 : i32
// CHECK: %[[PINNED0:.+]] = vector.bitcast %{{.+}} : vector<4xi32> to vector<16xi8>
// CHECK-COUNT-4: qmat.pinned_copy %{{.+}} arm 0 : i32
// CHECK: %[[PINNED1:.+]] = vector.bitcast %{{.+}} : vector<4xi32> to vector<16xi8>
// CHECK-NEXT: %[[FAST:.+]] = qmat.decode_tile <mxfp4, block = 32> %[[PINNED0]], %[[PINNED1]] scales %[[S0]], %[[S0]], %[[S0]], %[[S0]], %[[S1]], %[[S1]], %[[S1]], %[[S1]] one_multiply : vector<16xi8>, f8E8M0FNU -> vector<2x16x2xbf16>
// CHECK: %[[FAST00:.+]] = vector.extract %[[FAST]][0, 0] : vector<2xbf16> from vector<2x16x2xbf16>
// CHECK: qmat.warp_mma [%[[FAST00]],
// CHECK: qmat.pinned_copy %{{.+}} arm 0 : i32
// CHECK: } else {
// CHECK-COUNT-8: qmat.pinned_copy %{{.+}} arm 1 : i32
// CHECK: qmat.decode_tile <mxfp4, block = 32> %{{.+}}, %{{.+}} scales %[[S0]], %[[S0]], %[[S0]], %[[S0]], %[[S1]], %[[S1]], %[[S1]], %[[S1]] : vector<16xi8>, f8E8M0FNU -> vector<2x16x2xbf16>
// CHECK: qmat.warp_mma
// CHECK: qmat.pinned_copy %{{.+}} arm 1 : i32
// CHECK: scf.yield
// f16 activations: the same vote and arms.
// CHECK: gpu.func @gemv_mxfp4_bs32_k256_f16_tc_magic_bias_m8_s1_c1(
// CHECK: nvvm.vote.sync  all
// CHECK: scf.if
// CHECK: qmat.decode_tile <mxfp4, block = 32> %{{.+}}, %{{.+}} scales %{{.+}} one_multiply : vector<16xi8>, f8E8M0FNU -> vector<2x16x2xf16>
// CHECK: } else {
// CHECK: qmat.decode_tile <mxfp4, block = 32> %{{.+}}, %{{.+}} scales %{{[^o]+}} : vector<16xi8>, f8E8M0FNU -> vector<2x16x2xf16>
// CHECK-NOT: arith.truncf %{{.+}} : vector<8xf32> to vector<8xf16>
// CHECK: qmat.warp_mma
func.func @mxfp4_packed(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x8xf8E8M0FNU>, %y: memref<?x48xbf16>,
                        %ah: memref<?x256xf16>, %yh: memref<?x48xf16>) {
  qmat.gemv <mxfp4, block = 32> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x8xf8E8M0FNU>)
      outs(%y : memref<?x48xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  qmat.gemv <mxfp4, block = 32> ins(%ah, %w, %s : memref<?x256xf16>, memref<48x128xi8>, memref<48x8xf8E8M0FNU>)
      outs(%yh : memref<?x48xf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// Scalar: one warp per row, four rows per block, a butterfly of shuffles
// per activation row.
// CHECK-LABEL: func.func @scalar(
// CHECK: %[[BLOCKS:.+]] = arith.ceildivui %{{.+}}, %c4 : index
// CHECK: gpu.launch_func @qmat_kernels::@gemv_fp8_bs128_k250_f16_scalar_native_m2_s1_c1 blocks in (%[[BLOCKS]], %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK: scf.for %{{.+}} = %{{.+}} to %c250 step %c32{{.*}} -> (f32, f32)
// CHECK: gpu.shuffle  xor %{{.+}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// Lane 0 stores one sum per activation row, rows 0 and 1 of its weight row.
// CHECK: scf.if %{{.+}} {
// CHECK-NEXT: %[[ROW0:.+]] = arith.constant 0 : index
// CHECK-NEXT: qmat.store_tile %{{.+}}, %{{.+}} to %{{.+}}[%[[ROW0]], %{{.+}}] offsets m [0, 1] n [0, 0] bounds %{{.+}}, %{{.+}} : f32, f32 to memref<?x?xf16, strided<[?, 1], offset: ?>>
func.func @scalar(%a: memref<?x250xf16>, %w: memref<40x250xf8E4M3FN>, %s: memref<40x2xf32>, %y: memref<?x40xf16>) {
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x250xf16>, memref<40x250xf8E4M3FN>, memref<40x2xf32>)
      outs(%y : memref<?x40xf16>) max_m = 2 split_k = 1 col_tiles = 1
  return
}

// -----

// Dot (the scalar GEMV where K % 32 == 0 and the block is a multiple of 8):
// each lane takes 32-element chunks, one 16-byte load of codes, the words
// decoded to the reference's rounded weights and multiplied 8 wide against
// 16-byte activation loads; the 8 lanes of the sum are added before the
// shuffles.
// CHECK-LABEL: func.func @dot(
// CHECK: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k160_bf16_dot_magic_bias_m2_s1_c1 blocks in (%{{.+}}, %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK: scf.for %{{.+}} = %{{.+}} to %c5 step %c32{{.*}} -> (vector<8xf32>, vector<8xf32>)
// CHECK: vector.load %{{.+}} : memref<?x80xi8, strided<[80, 1], offset: ?>>, vector<16xi8>
// CHECK: vector.load %{{.+}} {alignment = 2 : i64} : memref<?x10xf8E4M3FN, strided<[10, 1], offset: ?>>, vector<2xf8E4M3FN>
// CHECK: qmat.decode_words <nvfp4, block = 16> %{{.+}} scales %[[DOTS0:.+]], %[[DOTS0]], %[[DOTS1:.+]], %[[DOTS1]] global_scale %{{.+}} method = magic_bias : vector<16xi8>, f8E4M3FN -> vector<4x8xbf16>
// CHECK: vector.load %{{.+}} : memref<?x160xbf16, strided<[160, 1], offset: ?>>, vector<8xbf16>
// CHECK: arith.mulf %{{.+}}, %{{.+}} : vector<8xf32>
// CHECK-COUNT-2: vector.reduction <add>, %{{.+}} : vector<8xf32> into f32
// CHECK-NOT: vector.reduction
// CHECK: gpu.shuffle  xor %{{.+}}, %c16_i32, %c32_i32 : f32
func.func @dot(%a: memref<?x160xbf16>, %w: memref<40x80xi8>, %s: memref<40x10xf8E4M3FN>, %g: memref<f32>, %y: memref<?x40xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x160xbf16>, memref<40x80xi8>, memref<40x10xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>) max_m = 2 split_k = 1 col_tiles = 1
  return
}

// -----

// Codes whose row length is only known at run time: the row stride comes
// from the descriptor.
// CHECK-LABEL: func.func @dynamic_code_columns(
// CHECK: gpu.func @gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_m8_s1_c1(
// CHECK-SAME: %arg1: memref<?x?xi8, strided<[?, 1], offset: ?>>
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}:2, %[[STRIDES:[a-z_0-9]+]]:2 = memref.extract_strided_metadata %arg1 : memref<?x?xi8, strided<[?, 1], offset: ?>>
// CHECK: scf.for
// CHECK: arith.muli %{{.+}}, %[[STRIDES]]#0 : index
// CHECK: qmat.load_streaming
func.func @dynamic_code_columns(%a: memref<?x256xbf16>, %w: memref<40x?xi8>, %s: memref<40x?xf8E4M3FN>,
                                %g: memref<f32>, %y: memref<?x40xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<40x?xi8>, memref<40x?xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// Prepared codes: the 16-row kernel under its own name; a lane's code byte
// is the row-major row start plus 8 bytes per K element and a lane constant
// with -240 per piece t (PreparedWeights.h), and a tile past N reads the
// last tile (N - 16) instead of clamping each row.
// Streamed prepared codes: one byte offset per row from the buffer's
// first byte.
// LOADS-LABEL: func.func @prepared(
// LOADS: %[[PREPBASE:.+]] = arith.addi %intptr{{.*}}, %offset{{.*}} : index
// LOADS: scf.for
// LOADS: qmat.load_tile streaming %arg1[%c0{{(_[0-9]+)?}}, %{{.+}}] base %[[PREPBASE]] {alignment = 16 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>> -> vector<16xi8>
// CHECK-LABEL: func.func @prepared(
// CHECK: gpu.func @gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_m8_s2_c2_prepared(
// CHECK: %[[PIECE:.+]] = arith.constant 240 : index
// CHECK-NEXT: arith.muli %{{.+}}, %[[PIECE]] : index
// CHECK: scf.if
// CHECK: } else {
// CHECK: %[[LAST:.+]] = arith.subi %{{.+}}, %c16{{.*}} : index
// CHECK: arith.minui %{{.+}}, %[[LAST]] : index
func.func @prepared(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x16xf8E4M3FN>,
                    %g: memref<f32>, %y: memref<?x48xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>) max_m = 8 split_k = 2 col_tiles = 2 tensor_core prepared_weights
  return
}

// -----

// N a multiple of the block's rows: no partial block, so no clamped loop
// (GemvKernelSpec::wholeBlocksOnly) and the name says so.
// CHECK-LABEL: func.func @prepared_full(
// CHECK: gpu.func @gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_m8_s2_c2_prepared_full(
// CHECK-NOT: arith.subi %{{[a-z0-9_]+}}, %c16{{(_[0-9]+)?}} : index
// CHECK: gpu.return
func.func @prepared_full(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                         %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 2 col_tiles = 2 tensor_core prepared_weights
  return
}

// -----

// The fused GEMM on AMD: eight 64-lane wavefronts over N (512 threads) for a
// 16-row tile of 16 x 16 chunks, so the copy's one round has more threads
// than chunks: those past the last copy it again (the index clamped to 255).
// Per step: the weights' loads, the barrier, the copy into the 4 KB tile,
// the barrier, four 16-byte reads of the tile, 8 matrix instructions.
// GFX-LABEL: func.func @fused_small_tile(
// GFX: gpu.launch_func @qmat_kernels::@fused_nvfp4_bs16_k256_bf16_magic_bias_mt16_w8_s1_c1 blocks in (%{{.+}}, %{{.+}}, %c1) threads in (%c512, %c1, %c1)
// GFX: gpu.func @fused_nvfp4_bs16_k256_bf16_magic_bias_mt16_w8_s1_c1(
// GFX-SAME: workgroup(%{{.+}} : memref<4096xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GFX: gpu.block_id  y
// GFX: scf.for %{{.+}} = %{{.+}} to %c2 step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (vector<4xf32>) {
// GFX: vector.load %{{.+}} : memref<?x128xi8, strided<[128, 1], offset: ?>>, vector<16xi8>
// GFX: gpu.barrier
// GFX: %[[LAST:.+]] = arith.constant 255 : index
// GFX-NEXT: arith.minui %{{.+}}, %[[LAST]] : index
// GFX: vector.load %{{.+}} : memref<?x256xbf16, strided<[256, 1], offset: ?>>, vector<8xbf16>
// GFX-NEXT: vector.store %{{.+}} : memref<2048xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// GFX-NEXT: gpu.barrier
// GFX-COUNT-4: vector.load %{{.+}} : memref<2048xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// GFX-COUNT-8: qmat.wave_mma %{{.+}} * %{{.+}} + %{{.+}} : vector<4xbf16>, vector<4xf32>
// GFX-NOT: qmat.wave_mma
// GFX: scf.yield
func.func @fused_small_tile(%a: memref<?x256xbf16>, %w: memref<256x128xi8>, %s: memref<256x16xf8E4M3FN>,
                            %g: memref<f32>, %y: memref<?x256xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<256x128xi8>, memref<256x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x256xbf16>) m_tile = 16 warps_n = 8 split_k = 1 col_tiles = 1
  return
}

// -----

// Split-K over two warps per K slice (warps_n = 2): the warp's sums meet
// those of its column's other slice; the partial sums overlay the staged
// activations, so the exchange is fenced. On gfx942 the wavefront's live
// columns (m_tile 16: all 16) take lane slots 16q + column.
// CHECK-LABEL: func.func @fused_split_k(
// CHECK: gpu.func @fused_nvfp4_bs16_k256_bf16_magic_bias_mt16_w2_s2_c1(
// CHECK: %[[LANE:.+]] = arith.remui %thread_id_x, %c32 : index
// CHECK: %[[WARP:.+]] = arith.divui %thread_id_x, %c32{{.*}} : index
// CHECK: qmat.reduce_split_k %{{.+}}, %{{.+}} through %{{.+}} warp %[[WARP]] slices 2 columns 2 lane %[[LANE]] of 32 fenced : vector<4xf32>, vector<4xf32> through memref<2048xf32, #gpu.address_space<workgroup>> {
// CHECK: qmat.store_tile
// GFX-LABEL: func.func @fused_split_k(
// GFX: %[[WAVE:.+]] = arith.divui %thread_id_x, %c64{{.*}} : index
// GFX: qmat.reduce_split_k %{{.+}} through %{{.+}} warp %[[WAVE]] slices 2 columns 2 lane %{{.+}} of 64 live %{{.+}} fenced : vector<4xf32> through memref<2048xf32, #gpu.address_space<workgroup>> {
func.func @fused_split_k(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                         %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) m_tile = 16 warps_n = 2 split_k = 2 col_tiles = 1
  return
}
