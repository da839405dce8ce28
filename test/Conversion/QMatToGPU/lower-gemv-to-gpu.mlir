// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels --qmat-lower-gemv-to-gpu | FileCheck %s --enable-var-scope
// RUN: not qmat-opt %s -split-input-file --qmat-lower-gemv-to-gpu=target=host 2>&1 | FileCheck %s --check-prefix=HOST

// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=gfx942 --qmat-lower-gemv-to-gpu=target=gfx942 | FileCheck %s --check-prefix=GFX --enable-var-scope

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
// GFX: arith.divui %thread_id_x, %c64{{.*}} : index
// GFX: arith.remui %[[LANE]], %c16 : index
// GFX: arith.divui %[[LANE]], %c16{{.*}} : index
// GFX: scf.for %{{.+}} = %{{.+}} to %c2 step %c4 iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>) {
// GFX: vector.load %{{.+}} : memref<?x128xi8, strided<[128, 1], offset: ?>>, vector<16xi8>
// GFX: vector.load %{{.+}} : memref<?x256xbf16, strided<[256, 1], offset: ?>>, vector<8xbf16>
// GFX: qmat.decode e2m1 %{{.+}} method = magic_bias : vector<16xi8> -> vector<32xf32>
// GFX-COUNT-16: qmat.wave_mma %{{.+}} * %{{.+}} + %{{.+}} : vector<4xbf16>, vector<4xf32>
// GFX-NOT: qmat.wave_mma
// GFX: vector.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// GFX: gpu.barrier
// GFX: memref.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : memref<?x?xbf16, strided<[?, 1], offset: ?>>

// Tensor core, 4 warps of split-K, 2 column tiles: 32 rows per block, 128
// threads, the split-K partial sums in 4 x 2 x 32 x 4 floats of workgroup
// memory; Y is [M, N] with N free so that layers of the same K share it.
// CHECK-LABEL: func.func @tensor_core(
// CHECK: %[[ROWS:.+]] = memref.dim %{{.+}}, %c0 : memref<?x128xi8, strided<[128, 1], offset: ?>>
// CHECK: %[[BLOCKS:.+]] = arith.ceildivui %[[ROWS]], %c32 : index
// CHECK: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_bias_m8_s4_c2 blocks in (%[[BLOCKS]], %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK-SAME: memref<f32>, %{{.+}} : memref<?xbf16, strided<[1], offset: ?>>, %{{.+}} : memref<?x?xbf16, strided<[?, 1], offset: ?>>)
// CHECK: gpu.func @gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_bias_m8_s4_c2(
// CHECK-SAME: workgroup(%{{.+}} : memref<1024xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
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
// CHECK: qmat.load_streaming %[[ADDRESS]] : vector<16xi8>
// CHECK-COUNT-3: qmat.load_streaming %{{.+}} : vector<16xi8>
// CHECK-NOT: vector.load %{{.+}} : memref<?x128xi8
// The two scales of a lane's 32-element chunk in one 2-byte load (the
// launcher checks the alignment), one conversion; the fold 2^119 = 6.64e35
// for bf16.
// CHECK: vector.load %{{.+}} {alignment = 2 : i64} : memref<?x16xf8E4M3FN, strided<[16, 1], offset: ?>>, vector<2xf8E4M3FN>
// CHECK-NOT: memref.load %{{.+}} : memref<?x16xf8E4M3FN
// CHECK: nvvm.convert.f8x2.to.f16x2 %{{.+}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: arith.constant 6.64613997E+35 : f32
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 0] : vector<2xbf16>, vector<2xbf16>
// The fp4 bit placement (PackedFp4Placement.h), bf16: per word two
// selects under 0x01DC01DC (qmat.bit_select: one lop3 each on NVIDIA) put every code's sign 9 bits
// above its magnitude; pair 0 is X0 << 4, pair 1 X0, both masked with
// 0x81C081C0 (sign bits 15 / 31, magnitudes under the exponent), times the
// block scale.
// CHECK: %[[SET:.+]] = arith.shli %[[WORD:.+]], %c2_i32{{.*}} : i32
// CHECK: %[[CLEAR:.+]] = arith.shli %[[WORD]], %c8_i32{{.*}} : i32
// CHECK: %[[X0:.+]] = qmat.bit_select %[[SET]], %[[CLEAR]] mask 31195612 : i32
// CHECK: %[[RIGHT:.+]] = arith.shrui %[[WORD]], %c6_i32{{.*}} : i32
// CHECK: %[[X1:.+]] = qmat.bit_select %[[RIGHT]], %[[WORD]] mask 31195612 : i32
// CHECK: %[[UP:.+]] = arith.shli %[[X0]], %c4_i32{{.*}} : i32
// CHECK: %[[PAIR0:.+]] = arith.andi %[[UP]], %c-2118090304_i32{{.*}} : i32
// CHECK: arith.mulf %{{.+}}, %{{.+}} : vector<2xbf16>
// CHECK: %[[PAIR1:.+]] = arith.andi %[[X0]], %c-2118090304_i32{{.*}} : i32
// CHECK: arith.andi %[[X1]], %c-2118090304_i32{{.*}} : i32
// Activation pairs (k, k + 4), as the weights pair them.
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 4] : vector<8xbf16>, vector<8xbf16>
// CHECK: %{{.+}}:4 = qmat.warp_mma [%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] * [%{{.+}}, %{{.+}}] + [%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : vector<2xbf16>, vector<2xbf16>, f32
// CHECK-COUNT-15: qmat.warp_mma
// The last block: the 4 rows clamped, the same loop.
// CHECK: } else {
// CHECK-COUNT-4: arith.minui %{{.+}}, %{{.+}} : index
// CHECK: scf.for
// CHECK-COUNT-16: qmat.warp_mma
// CHECK-NOT: qmat.warp_mma
// Split-K: park, barrier, warp 0 adds and stores with 2^7 x global and bias.
// CHECK: vector.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: vector.load %{{.+}}[%{{.+}}] : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : memref<?x?xbf16, strided<[?, 1], offset: ?>>
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
// CHECK: vector.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<512xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: %[[LOWG:.+]] = arith.cmpi ult, %[[G]], %c4{{.*}} : index
// CHECK: %[[LOWT:.+]] = arith.cmpi ult, %[[T]], %c2{{.*}} : index
// CHECK: %[[OWNER:.+]] = arith.andi %[[LOWG]], %[[LOWT]] : i1
// CHECK: %[[INSIDE:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK: %[[STORES:.+]] = arith.andi %[[INSIDE]], %[[OWNER]] : i1
// CHECK: scf.if %[[STORES]] {
// CHECK: memref.store
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
// CHECK: qmat.decode e4m3 %{{.+}} method = native : vector<32xi8> -> vector<32xf32>
// CHECK: arith.truncf %{{.+}} : vector<8xf32> to vector<8xf16>
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 1] : vector<8xf16>, vector<8xf16>
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

// int4 decodes into bf16 pairs: the nibbles under the magic bias 128
// (0x4300), minus 128 + zp (the block's zero-point nibble, both halves),
// times the scale broadcast to both halves; no fp32 on the way.
// CHECK-LABEL: func.func @int4_packed(
// CHECK: gpu.func @gemv_int4_bs128_k256_bf16_tc_magic_bias_zp_m8_s1_c1(
// CHECK: qmat.load_streaming
// CHECK: %[[SCALE:.+]] = vector.broadcast %{{.+}} : bf16 to vector<2xbf16>
// CHECK: %[[ZP:.+]] = arith.andi %{{.+}}, %c15_i32
// CHECK: %[[ZPBIASED:.+]] = arith.ori %[[ZP]], %c17152_i32
// CHECK: %[[OFFSET:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK: %[[NIBBLES:.+]] = arith.andi %{{.+}}, %c983055_i32
// CHECK: %[[BIASED:.+]] = arith.ori %[[NIBBLES]], %c1124090624_i32
// CHECK: %[[PAIR:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK: %[[CENTERED:.+]] = arith.subf %[[PAIR]], %[[OFFSET]] : vector<2xbf16>
// CHECK: arith.mulf %[[CENTERED]], %[[SCALE]] : vector<2xbf16>
// CHECK-NOT: arith.truncf {{.*}} to vector<8xbf16>
// CHECK: qmat.warp_mma
func.func @int4_packed(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x2xbf16>, %z: memref<48x1xi8>, %y: memref<?x48xbf16>) {
  qmat.gemv <int4, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x2xbf16>)
      zero_points(%z : memref<48x1xi8>) outs(%y : memref<?x48xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// mxfp4 with bf16 activations: the fp4 bit placement (code * 2^-126), then
// where every scale byte of the step is at most 128 in every lane of the
// warp (nvvm.vote.sync all: a warp-uniform branch), one factor 2^(e - 1),
// the bf16 bits (e + 126) << 7: one rounding of the exact product. Each arm
// decodes its own pinned copy of the codes and pins its sums ("arm 0",
// "arm 1"), so that LLVM neither hoists the decode nor sinks the matrix
// instructions out of it.
// CHECK-LABEL: func.func @mxfp4_packed(
// CHECK: gpu.func @gemv_mxfp4_bs32_k256_bf16_tc_magic_bias_m8_s1_c1(
// CHECK: qmat.load_streaming
// Both rows' scales (g and g + 8) feed the vote.
// CHECK: %[[E0:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[FITS0:.+]] = arith.cmpi ule, %[[E0]], %c128_i32
// CHECK: %[[E1:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[FITS1:.+]] = arith.cmpi ule, %[[E1]], %c128_i32
// CHECK: %[[BOTH:.+]] = arith.andi %[[FITS0]], %[[FITS1]] : i1
// CHECK: %[[ALL:.+]] = nvvm.vote.sync  all %c-1_i32, %[[BOTH]] -> i1
// CHECK: scf.if %[[ALL]] -> (f32, f32, f32, f32) {
// CHECK-NOT: dense<8.507050e+37>
// CHECK: qmat.pinned_copy %{{.+}} arm 0 : i32
// CHECK: %[[EF:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[BIASEDE:.+]] = arith.addi %[[EF]], %c126_i32
// CHECK: arith.shli %[[BIASEDE]], %c7_i32
// CHECK: %[[ONE:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK-NOT: dense<8.507050e+37>
// CHECK: arith.mulf %{{.+}}, %[[ONE]] : vector<2xbf16>
// CHECK-NOT: dense<8.507050e+37>
// CHECK: qmat.warp_mma
// CHECK-NOT: dense<8.507050e+37>
// CHECK: qmat.pinned_copy %{{.+}} arm 0 : i32
// CHECK: } else {
// CHECK: qmat.pinned_copy %{{.+}} arm 1 : i32
// The other arm: times 2^126, then times the bf16 2^(e - 127) of the scale
// byte (exact: one rounding). The bf16 pattern is the top half of the fp32
// one: e << 23, 2^-127
// (0x00400000) for e = 0, NaN (0x7FC00000) for 0xFF.
// CHECK: %[[CODE:.+]] = arith.constant dense<8.507050e+37> : vector<2xbf16>
// CHECK: %[[E:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[NORMAL:.+]] = arith.shli %[[E]], %c23_i32
// CHECK: %[[NOTZERO:.+]] = arith.select %{{.+}}, %c4194304_i32, %[[NORMAL]]
// CHECK: %[[F32BITS:.+]] = arith.select %{{.+}}, %c2143289344_i32, %[[NOTZERO]]
// CHECK: arith.shrui %[[F32BITS]], %c16_i32
// CHECK: %[[POW:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK: %[[VALUE:.+]] = arith.mulf %{{.+}}, %[[CODE]] : vector<2xbf16>
// CHECK: arith.mulf %[[VALUE]], %[[POW]] : vector<2xbf16>
// CHECK: qmat.warp_mma
// CHECK: qmat.pinned_copy %{{.+}} arm 1 : i32
// CHECK: scf.yield
// With f16 activations one factor 2^(max(e, 99) - 113), bits
// (max(e, 99) - 98) << 10, where every scale byte is at most 128 (below 99
// every code rounds to zero either way); otherwise 2^(e - 127) takes two factors
// 2^a 2^b: e - 127 clamped to [-28, 17], a to [-14, 13]; NaN (0x7E00) for
// 0xFF. The code's value first (2^14), then 2^a (exact), then 2^b (the one
// rounding).
// CHECK: gpu.func @gemv_mxfp4_bs32_k256_f16_tc_magic_bias_m8_s1_c1(
// CHECK: %[[EH:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: arith.cmpi ule, %[[EH]], %c128_i32
// CHECK: nvvm.vote.sync  all
// CHECK: scf.if
// CHECK-NOT: dense<1.638400e+04>
// CHECK: %[[EHF:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[RAISED:.+]] = arith.maxui %[[EHF]], %c99_i32
// CHECK: %[[BIASEDH:.+]] = arith.addi %[[RAISED]], %c-98_i32
// CHECK: arith.shli %[[BIASEDH]], %c10_i32
// CHECK-NOT: dense<1.638400e+04>
// CHECK: } else {
// CHECK: %[[CODE16:.+]] = arith.constant dense<1.638400e+04> : vector<2xf16>
// CHECK: %[[UNBIASED:.+]] = arith.subi %{{.+}}, %c127_i32
// CHECK: %[[LOW:.+]] = arith.maxsi %[[UNBIASED]], %c-28_i32
// CHECK: %[[TOTAL:.+]] = arith.minsi %[[LOW]], %c17_i32
// CHECK: %[[ALOW:.+]] = arith.maxsi %[[TOTAL]], %c-14_i32
// CHECK: %[[A:.+]] = arith.minsi %[[ALOW]], %c13_i32
// CHECK: arith.subi %[[TOTAL]], %[[A]]
// CHECK: arith.select %{{.+}}, %c32256_i32,
// CHECK: %[[VALUE16:.+]] = arith.mulf %{{.+}}, %[[CODE16]] : vector<2xf16>
// CHECK: %[[EXACT:.+]] = arith.mulf %[[VALUE16]], %{{.+}} : vector<2xf16>
// CHECK: arith.mulf %[[EXACT]], %{{.+}} : vector<2xf16>
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
// CHECK: qmat.decode e2m1 %{{.+}} method = magic_bias : vector<16xi8> -> vector<32xf32>
// CHECK: arith.truncf %{{.+}} : vector<8xf32> to vector<8xbf16>
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
