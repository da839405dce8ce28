// RUN: qmat-opt %s -split-input-file --qmat-expand-decode-tile | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-expand-decode-tile=target=host | FileCheck %s --check-prefix=HOST --enable-var-scope
// RUN: not qmat-opt %s -split-input-file --qmat-expand-decode-tile=target=sm_91 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// nvfp4, bf16: the two scales of a row convert together (one cvt on
// NVIDIA, the exact e4m3 decode on the host), times the fold 2^(126 - 7) =
// 6.64e35, each broadcast to both halves of a pair. The fp4 bit placement
// (PackedFp4Placement.h), per word: two selects under 0x01DC01DC
// (qmat.bit_select: one lop3 each on NVIDIA) put every code's sign 9 bits
// above its magnitude; pair 0 is X0 << 4, pair 1 X0, pair 2 X1 << 4, pair
// 3 X1, each masked with 0x81C081C0 (sign bits 15 / 31, magnitudes under
// the exponent), times its word's block scale. An extract of one pair
// takes it directly.
// CHECK-LABEL: func.func @nvfp4_bf16(
// CHECK-SAME: %[[C0:[a-z0-9]+]]: vector<16xi8>, %[[C1:[a-z0-9]+]]: vector<16xi8>, %[[S0:[a-z0-9]+]]: f8E4M3FN, %[[S1:[a-z0-9]+]]: f8E4M3FN
// CHECK: %[[B0:.+]] = arith.bitcast %[[S0]] : f8E4M3FN to i8
// CHECK-NEXT: %[[B1:.+]] = arith.bitcast %[[S1]] : f8E4M3FN to i8
// CHECK-NEXT: %[[BYTES:.+]] = vector.from_elements %[[B0]], %[[B1]] : vector<2xi8>
// CHECK-NEXT: %[[HALVES:.+]] = nvvm.convert.f8x2.to.f16x2 %[[BYTES]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK-NEXT: %[[WIDE:.+]] = arith.extf %[[HALVES]] : vector<2xf16> to vector<2xf32>
// CHECK-NEXT: %[[FOLD:.+]] = arith.constant 6.64613997E+35 : f32
// CHECK-NEXT: %[[FOLDS:.+]] = vector.broadcast %[[FOLD]] : f32 to vector<2xf32>
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[WIDE]], %[[FOLDS]] : vector<2xf32>
// CHECK-NEXT: %[[PACKED:.+]] = arith.truncf %[[SCALED]] : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT: %[[M0:.+]] = vector.shuffle %[[PACKED]], %[[PACKED]] [0, 0] : vector<2xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[M1:.+]] = vector.shuffle %[[PACKED]], %[[PACKED]] [1, 1] : vector<2xbf16>, vector<2xbf16>
// The second row's two scales.
// CHECK: nvvm.convert.f8x2.to.f16x2
// CHECK: %[[N1:.+]] = vector.shuffle %{{.+}}, %{{.+}} [1, 1] : vector<2xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[WORDS:.+]] = vector.bitcast %[[C0]] : vector<16xi8> to vector<4xi32>
// CHECK-NEXT: %[[MASK:.+]] = arith.constant -2118090304 : i32
// CHECK-NEXT: %[[WORD:.+]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// CHECK: %[[SET:.+]] = arith.shli %[[WORD]], %c2_i32{{.*}} : i32
// CHECK: %[[CLEAR:.+]] = arith.shli %[[WORD]], %c8_i32{{.*}} : i32
// CHECK-NEXT: %[[X0:.+]] = qmat.bit_select %[[SET]], %[[CLEAR]] mask 31195612 : i32
// CHECK: %[[RIGHT:.+]] = arith.shrui %[[WORD]], %c6_i32{{.*}} : i32
// CHECK-NEXT: %[[X1:.+]] = qmat.bit_select %[[RIGHT]], %[[WORD]] mask 31195612 : i32
// CHECK: %[[UP:.+]] = arith.shli %[[X0]], %c4_i32{{.*}} : i32
// CHECK-NEXT: %[[P0BITS:.+]] = arith.andi %[[UP]], %[[MASK]] : i32
// CHECK-NEXT: %[[P0WORD:.+]] = vector.broadcast %[[P0BITS]] : i32 to vector<1xi32>
// CHECK-NEXT: %[[P0CODE:.+]] = vector.bitcast %[[P0WORD]] : vector<1xi32> to vector<2xbf16>
// CHECK-NEXT: %[[PAIR0:.+]] = arith.mulf %[[P0CODE]], %[[M0]] : vector<2xbf16>
// CHECK-NEXT: %[[P1BITS:.+]] = arith.andi %[[X0]], %[[MASK]] : i32
// CHECK: arith.mulf %{{.+}}, %[[M0]] : vector<2xbf16>
// CHECK: arith.andi %[[X1]], %[[MASK]] : i32
// Words 2 and 3 take the second block's scale; the last pair of the
// second row is its word 3's pair 3 (X1 unshifted).
// CHECK: %[[WORDS1:.+]] = vector.bitcast %[[C1]] : vector<16xi8> to vector<4xi32>
// CHECK: %[[LAST:.+]] = vector.extract %[[WORDS1]][3] : i32 from vector<4xi32>
// CHECK: %[[LASTX1:.+]] = qmat.bit_select %{{.+}}, %[[LAST]] mask 31195612 : i32
// CHECK: %[[P15BITS:.+]] = arith.andi %[[LASTX1]], %{{.+}} : i32
// CHECK-NEXT: %[[P15WORD:.+]] = vector.broadcast %[[P15BITS]] : i32 to vector<1xi32>
// CHECK-NEXT: %[[P15CODE:.+]] = vector.bitcast %[[P15WORD]] : vector<1xi32> to vector<2xbf16>
// CHECK-NEXT: %[[PAIR15:.+]] = arith.mulf %[[P15CODE]], %[[N1]] : vector<2xbf16>
// CHECK-NOT: qmat.decode_tile
// CHECK-NOT: vector.extract %{{.+}} from vector<2x16x2xbf16>
// CHECK: return %[[PAIR0]], %[[PAIR15]] : vector<2xbf16>, vector<2xbf16>
// The host has no paired conversion: each scale through the exact e4m3
// decode (qmat.decode, rewritten by qmat-rewrite-decode), then the same
// fold.
// HOST-LABEL: func.func @nvfp4_bf16(
// HOST-NOT: nvvm.
// HOST: %[[LO:.+]] = qmat.decode  e4m3 %{{.+}} : vector<1xi8> -> vector<1xf32>
// HOST: %[[HI:.+]] = qmat.decode  e4m3 %{{.+}} : vector<1xi8> -> vector<1xf32>
// HOST: %[[FOLD:.+]] = arith.constant 6.64613997E+35 : f32
// HOST: %[[BOTH:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf32>
// HOST-NEXT: arith.mulf %[[BOTH]], %{{.+}} : vector<2xf32>
// HOST: qmat.bit_select
// HOST-NOT: nvvm.
// UNKNOWN: error: unknown target 'sm_91' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942, gfx950, host or host-amdgcn)
func.func @nvfp4_bf16(%c0: vector<16xi8>, %c1: vector<16xi8>, %s0: f8E4M3FN, %s1: f8E4M3FN,
                      %t0: f8E4M3FN, %t1: f8E4M3FN) -> (vector<2xbf16>, vector<2xbf16>) {
  %tile = qmat.decode_tile <nvfp4, block = 16> %c0, %c1 scales %s0, %s0, %s1, %s1, %t0, %t0, %t1, %t1
      : vector<16xi8>, f8E4M3FN -> vector<2x16x2xbf16>
  %p0 = vector.extract %tile[0, 0] : vector<2xbf16> from vector<2x16x2xbf16>
  %p1 = vector.extract %tile[1, 15] : vector<2xbf16> from vector<2x16x2xbf16>
  return %p0, %p1 : vector<2xbf16>, vector<2xbf16>
}

// -----

// int4 with zero points, bf16: the nibbles under the magic bias 128
// (0x4300), minus 128 + zp (the block's zero-point nibble, chosen by the
// block's parity, in both halves), times the scale broadcast to both
// halves; no fp32 on the way. Pair j of a word takes nibbles j and j + 4:
// the word shifted right by 4j.
// CHECK-LABEL: func.func @int4_zero_points_bf16(
// CHECK-SAME: %[[CODES:[a-z0-9]+]]: vector<16xi8>, %[[S:[a-z0-9]+]]: bf16, %[[ZP:[a-z0-9]+]]: i8, %[[BLOCK:[a-z0-9]+]]: index
// CHECK: %[[SCALE:.+]] = vector.broadcast %[[S]] : bf16 to vector<2xbf16>
// CHECK-NEXT: %[[BLOCK32:.+]] = arith.index_castui %[[BLOCK]] : index to i32
// CHECK-NEXT: %[[BYTE:.+]] = arith.extui %[[ZP]] : i8 to i32
// CHECK: %[[ODD:.+]] = arith.andi %[[BLOCK32]], %c1_i32 : i32
// CHECK-NEXT: %[[SHIFT:.+]] = arith.shli %[[ODD]], %c2_i32 : i32
// CHECK: %[[SHIFTED:.+]] = arith.shrui %[[BYTE]], %[[SHIFT]] : i32
// CHECK-NEXT: %[[NIBBLE:.+]] = arith.andi %[[SHIFTED]], %c15_i32 : i32
// CHECK: %[[BIASEDZP:.+]] = arith.ori %[[NIBBLE]], %c17152_i32 : i32
// CHECK: %[[UPPER:.+]] = arith.shli %[[BIASEDZP]], %c16_i32 : i32
// CHECK-NEXT: %[[BOTHZP:.+]] = arith.ori %[[BIASEDZP]], %[[UPPER]] : i32
// CHECK-NEXT: %[[ZPWORD:.+]] = vector.broadcast %[[BOTHZP]] : i32 to vector<1xi32>
// CHECK-NEXT: %[[OFFSET:.+]] = vector.bitcast %[[ZPWORD]] : vector<1xi32> to vector<2xbf16>
// CHECK-NEXT: %[[WORDS:.+]] = vector.bitcast %[[CODES]] : vector<16xi8> to vector<4xi32>
// CHECK-NEXT: %[[NIBBLES:.+]] = arith.constant 983055 : i32
// CHECK-NEXT: %[[MAGIC:.+]] = arith.constant 1124090624 : i32
// CHECK-NEXT: %[[WORD:.+]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// CHECK-NEXT: arith.andi %[[WORD]], %[[NIBBLES]] : i32
// CHECK: arith.subf %{{.+}}, %[[OFFSET]] : vector<2xbf16>
// CHECK: %[[BY4:.+]] = arith.shrui %[[WORD]], %c4_i32 : i32
// CHECK-NEXT: %[[N1:.+]] = arith.andi %[[BY4]], %[[NIBBLES]] : i32
// CHECK-NEXT: %[[B1:.+]] = arith.ori %[[N1]], %[[MAGIC]] : i32
// CHECK-NEXT: %[[W1:.+]] = vector.broadcast %[[B1]] : i32 to vector<1xi32>
// CHECK-NEXT: %[[PAIR:.+]] = vector.bitcast %[[W1]] : vector<1xi32> to vector<2xbf16>
// CHECK-NEXT: %[[CENTERED:.+]] = arith.subf %[[PAIR]], %[[OFFSET]] : vector<2xbf16>
// CHECK-NEXT: %[[PAIR1:.+]] = arith.mulf %[[CENTERED]], %[[SCALE]] : vector<2xbf16>
// CHECK-NOT: arith.truncf
// CHECK: return %[[PAIR1]] : vector<2xbf16>
func.func @int4_zero_points_bf16(%c0: vector<16xi8>, %s0: bf16, %z0: i8, %b: index) -> vector<2xbf16> {
  %tile = qmat.decode_tile <int4, block = 128> %c0 scales %s0, %s0, %s0, %s0
      zero_points %z0, %z0, %z0, %z0 blocks %b, %b, %b, %b : vector<16xi8>, bf16 -> vector<1x16x2xbf16>
  %p = vector.extract %tile[0, 1] : vector<2xbf16> from vector<1x16x2xbf16>
  return %p : vector<2xbf16>
}

// -----

// int4, f16, no zero points (zp = 8): the even nibbles under the magic
// bias 1024 (0x6400) minus 1032 (0x6408); the odd ones read in place at
// bits 4-7 (1024 + 16q), times 1/16 minus 64 + 8 (0xD480, an fma): one
// shift by 8 per word instead of three.
// CHECK-LABEL: func.func @int4_f16(
// CHECK-SAME: %[[CODES:[a-z0-9]+]]: vector<16xi8>, %[[S:[a-z0-9]+]]: f16
// CHECK: %[[SCALE:.+]] = vector.broadcast %[[S]] : f16 to vector<2xf16>
// CHECK-NEXT: %[[LOWZP:.+]] = arith.constant 25608 : i32
// CHECK: %[[LOWBITS:.+]] = arith.ori %[[LOWZP]], %{{.+}} : i32
// CHECK: %[[LOWOFFSET:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// CHECK-NEXT: %[[HIGHZP:.+]] = arith.constant 54400 : i32
// CHECK: %[[HIGHOFFSET:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// CHECK-NEXT: %[[WORDS:.+]] = vector.bitcast %[[CODES]] : vector<16xi8> to vector<4xi32>
// CHECK-NEXT: %[[NIBBLES:.+]] = arith.constant 983055 : i32
// CHECK-NEXT: %[[MAGIC:.+]] = arith.constant 1677747200 : i32
// CHECK-NEXT: %[[SIXTEENTH:.+]] = arith.constant dense<6.250000e-02> : vector<2xf16>
// CHECK-NEXT: %[[WORD:.+]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// CHECK: %[[UPPERWORD:.+]] = arith.shrui %[[WORD]], %c8_i32 : i32
// CHECK-NEXT: %[[N0:.+]] = arith.andi %[[WORD]], %[[NIBBLES]] : i32
// CHECK-NEXT: %[[B0:.+]] = arith.ori %[[N0]], %[[MAGIC]] : i32
// CHECK: %[[PAIR0:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// CHECK-NEXT: %[[CENTERED0:.+]] = arith.subf %[[PAIR0]], %[[LOWOFFSET]] : vector<2xf16>
// CHECK-NEXT: %[[W0:.+]] = arith.mulf %[[CENTERED0]], %[[SCALE]] : vector<2xf16>
// CHECK-NEXT: %[[HIGHMASK:.+]] = arith.constant 15728880 : i32
// CHECK-NEXT: %[[N1:.+]] = arith.andi %[[WORD]], %[[HIGHMASK]] : i32
// CHECK-NEXT: %[[B1:.+]] = arith.ori %[[N1]], %[[MAGIC]] : i32
// CHECK: %[[PAIR1:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// CHECK-NEXT: %[[CENTERED1:.+]] = vector.fma %[[PAIR1]], %[[SIXTEENTH]], %[[HIGHOFFSET]] : vector<2xf16>
// CHECK-NEXT: %[[W1:.+]] = arith.mulf %[[CENTERED1]], %[[SCALE]] : vector<2xf16>
// CHECK-NEXT: arith.andi %[[UPPERWORD]], %[[NIBBLES]] : i32
// CHECK: return %[[W0]], %[[W1]] : vector<2xf16>, vector<2xf16>
func.func @int4_f16(%c0: vector<16xi8>, %s0: f16) -> (vector<2xf16>, vector<2xf16>) {
  %tile = qmat.decode_tile <int4, block = 32> %c0 scales %s0, %s0, %s0, %s0 : vector<16xi8>, f16 -> vector<1x16x2xf16>
  %p0 = vector.extract %tile[0, 0] : vector<2xf16> from vector<1x16x2xf16>
  %p1 = vector.extract %tile[0, 1] : vector<2xf16> from vector<1x16x2xf16>
  return %p0, %p1 : vector<2xf16>, vector<2xf16>
}

// -----

// mxfp4, bf16. one_multiply: the placed code (code x 2^-126) times one
// factor 2^(e - 1), the bf16 bits (e + 126) << 7: one rounding of the exact
// product. Otherwise times 2^126 (the code's own value), then times the
// bf16 2^(e - 127) of the scale byte, the top half of its fp32 pattern:
// e << 23, 2^-127 (0x00400000) for e = 0, NaN (0x7FC00000) for 0xFF.
// CHECK-LABEL: func.func @mxfp4_bf16(
// CHECK-SAME: %[[CODES:[a-z0-9]+]]: vector<16xi8>, %[[S:[a-z0-9]+]]: f8E8M0FNU
// CHECK: %[[SBYTE:.+]] = arith.bitcast %[[S]] : f8E8M0FNU to i8
// CHECK-NEXT: %[[E:.+]] = arith.extui %[[SBYTE]] : i8 to i32
// CHECK: %[[BIASED:.+]] = arith.addi %[[E]], %c126_i32 : i32
// CHECK: %[[BITS:.+]] = arith.shli %[[BIASED]], %c7_i32 : i32
// CHECK: arith.shli %[[BITS]], %c16_i32 : i32
// CHECK: %[[ONE:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK-NOT: dense<8.507050e+37>
// CHECK: %[[P0:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK-NEXT: %[[FAST:.+]] = arith.mulf %[[P0]], %[[ONE]] : vector<2xbf16>
// CHECK: %[[CODE:.+]] = arith.constant dense<8.507050e+37> : vector<2xbf16>
// CHECK: %[[E2:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[NORMAL:.+]] = arith.shli %[[E2]], %c23_i32 : i32
// CHECK: %[[NOTZERO:.+]] = arith.select %{{.+}}, %c4194304_i32, %[[NORMAL]] : i32
// CHECK: %[[F32BITS:.+]] = arith.select %{{.+}}, %c2143289344_i32, %[[NOTZERO]] : i32
// CHECK-NEXT: arith.shrui %[[F32BITS]], %c16_i32{{.*}} : i32
// CHECK: %[[POW:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK: %[[PLACED:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK-NEXT: %[[VALUE:.+]] = arith.mulf %[[PLACED]], %[[CODE]] : vector<2xbf16>
// CHECK-NEXT: %[[EXACT:.+]] = arith.mulf %[[VALUE]], %[[POW]] : vector<2xbf16>
// CHECK: return %[[FAST]], %[[EXACT]] : vector<2xbf16>, vector<2xbf16>
func.func @mxfp4_bf16(%c0: vector<16xi8>, %s0: f8E8M0FNU) -> (vector<2xbf16>, vector<2xbf16>) {
  %fast = qmat.decode_tile <mxfp4, block = 32> %c0 scales %s0, %s0, %s0, %s0 one_multiply : vector<16xi8>, f8E8M0FNU -> vector<1x16x2xbf16>
  %exact = qmat.decode_tile <mxfp4, block = 32> %c0 scales %s0, %s0, %s0, %s0 : vector<16xi8>, f8E8M0FNU -> vector<1x16x2xbf16>
  %p0 = vector.extract %fast[0, 0] : vector<2xbf16> from vector<1x16x2xbf16>
  %p1 = vector.extract %exact[0, 0] : vector<2xbf16> from vector<1x16x2xbf16>
  return %p0, %p1 : vector<2xbf16>, vector<2xbf16>
}

// -----

// mxfp4, f16. one_multiply: one factor 2^(max(e, 99) - 113), bits
// (max(e, 99) - 98) << 10 (below 99 every code rounds to zero either way).
// Otherwise 2^(e - 127) as two factors 2^a 2^b: e - 127 clamped to
// [-28, 17], a to [-14, 13]; NaN (0x7E00) for 0xFF. The code's value first
// (2^14), then 2^a (exact), then 2^b (the one rounding).
// CHECK-LABEL: func.func @mxfp4_f16(
// CHECK: %[[E:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[RAISED:.+]] = arith.maxui %[[E]], %c99_i32 : i32
// CHECK: %[[BIASED:.+]] = arith.addi %[[RAISED]], %c-98_i32 : i32
// CHECK-NEXT: arith.shli %[[BIASED]], %c10_i32 : i32
// CHECK-NOT: dense<1.638400e+04>
// CHECK: %[[ONE:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// CHECK: %[[P0:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// CHECK-NEXT: %[[FAST:.+]] = arith.mulf %[[P0]], %[[ONE]] : vector<2xf16>
// CHECK: %[[CODE16:.+]] = arith.constant dense<1.638400e+04> : vector<2xf16>
// CHECK: %[[UNBIASED:.+]] = arith.subi %{{.+}}, %c127_i32 : i32
// CHECK: %[[LOW:.+]] = arith.maxsi %[[UNBIASED]], %c-28_i32 : i32
// CHECK-NEXT: %[[TOTAL:.+]] = arith.minsi %[[LOW]], %c17_i32 : i32
// CHECK: %[[ALOW:.+]] = arith.maxsi %[[TOTAL]], %c-14_i32 : i32
// CHECK-NEXT: %[[A:.+]] = arith.minsi %[[ALOW]], %c13_i32 : i32
// CHECK-NEXT: arith.subi %[[TOTAL]], %[[A]] : i32
// CHECK: arith.select %{{.+}}, %c32256_i32, %{{.+}} : i32
// CHECK: %[[POWA:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// CHECK: %[[POWB:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// The f16 bit placement: selects under 0x0E0E0E0E put each sign 12 bits
// above its magnitude; pair 0 is X0 << 8 masked with 0x8E008E00.
// CHECK-NEXT: %[[WORDS:.+]] = vector.bitcast %{{.+}} : vector<16xi8> to vector<4xi32>
// CHECK-NEXT: %[[MASK:.+]] = arith.constant -1912566272 : i32
// CHECK-NEXT: %[[WORD:.+]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// CHECK: %[[SET:.+]] = arith.shli %[[WORD]], %c1_i32{{.*}} : i32
// CHECK: %[[CLEAR:.+]] = arith.shli %[[WORD]], %c4_i32{{.*}} : i32
// CHECK-NEXT: %[[X0:.+]] = qmat.bit_select %[[SET]], %[[CLEAR]] mask 235802126 : i32
// CHECK: %[[UP:.+]] = arith.shli %[[X0]], %c8_i32{{.*}} : i32
// CHECK-NEXT: %[[BITS:.+]] = arith.andi %[[UP]], %[[MASK]] : i32
// CHECK-NEXT: %[[SPLAT:.+]] = vector.broadcast %[[BITS]] : i32 to vector<1xi32>
// CHECK-NEXT: %[[PLACED:.+]] = vector.bitcast %[[SPLAT]] : vector<1xi32> to vector<2xf16>
// CHECK-NEXT: %[[VALUE:.+]] = arith.mulf %[[PLACED]], %[[CODE16]] : vector<2xf16>
// CHECK-NEXT: %[[EXACT:.+]] = arith.mulf %[[VALUE]], %[[POWA]] : vector<2xf16>
// CHECK-NEXT: %[[ROUNDED:.+]] = arith.mulf %[[EXACT]], %[[POWB]] : vector<2xf16>
// CHECK: return %[[FAST]], %[[ROUNDED]] : vector<2xf16>, vector<2xf16>
func.func @mxfp4_f16(%c0: vector<16xi8>, %s0: f8E8M0FNU) -> (vector<2xf16>, vector<2xf16>) {
  %fast = qmat.decode_tile <mxfp4, block = 32> %c0 scales %s0, %s0, %s0, %s0 one_multiply : vector<16xi8>, f8E8M0FNU -> vector<1x16x2xf16>
  %exact = qmat.decode_tile <mxfp4, block = 32> %c0 scales %s0, %s0, %s0, %s0 : vector<16xi8>, f8E8M0FNU -> vector<1x16x2xf16>
  %p0 = vector.extract %fast[0, 0] : vector<2xf16> from vector<1x16x2xf16>
  %p1 = vector.extract %exact[0, 0] : vector<2xf16> from vector<1x16x2xf16>
  return %p0, %p1 : vector<2xf16>, vector<2xf16>
}

// -----

// A step decoded word by word: the first op converts the scales, the later
// ops of its block that take the same scales reuse them; an op in another
// block converts its own. `word` decodes one word of each row; a use other
// than a pair's extract gets the whole tile.
// CHECK-LABEL: func.func @words(
// CHECK-SAME: %[[CODES:[a-z0-9]+]]: vector<16xi8>
// CHECK: nvvm.convert.f8x2.to.f16x2
// CHECK: %[[M0:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 0] : vector<2xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[M1:.+]] = vector.shuffle %{{.+}}, %{{.+}} [1, 1] : vector<2xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[WORDS0:.+]] = vector.bitcast %[[CODES]] : vector<16xi8> to vector<4xi32>
// CHECK: vector.extract %[[WORDS0]][0] : i32 from vector<4xi32>
// CHECK: %[[PAIR0:.+]] = arith.mulf %{{.+}}, %[[M0]] : vector<2xbf16>
// CHECK-NOT: nvvm.convert.f8x2.to.f16x2
// CHECK: %[[WORDS3:.+]] = vector.bitcast %[[CODES]] : vector<16xi8> to vector<4xi32>
// CHECK-NOT: vector.extract %[[WORDS3]][0]
// CHECK: vector.extract %[[WORDS3]][3] : i32 from vector<4xi32>
// CHECK-NOT: nvvm.convert.f8x2.to.f16x2
// CHECK: arith.mulf %{{.+}}, %[[M1]] : vector<2xbf16>
// CHECK: arith.mulf %{{.+}}, %[[M1]] : vector<2xbf16>
// CHECK: arith.mulf %{{.+}}, %[[M1]] : vector<2xbf16>
// CHECK: %[[PAIR15:.+]] = arith.mulf %{{.+}}, %[[M1]] : vector<2xbf16>
// CHECK-NEXT: %[[OTHER:.+]] = scf.if
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: vector.from_elements
// CHECK-NEXT: nvvm.convert.f8x2.to.f16x2
// CHECK: %[[WORDS1:.+]] = vector.bitcast %[[CODES]] : vector<16xi8> to vector<4xi32>
// CHECK: vector.extract %[[WORDS1]][1] : i32 from vector<4xi32>
// CHECK-COUNT-3: arith.mulf
// CHECK: %[[Q3:.+]] = arith.mulf
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<1x4x2xbf16>
// CHECK-NEXT: %[[T0:.+]] = vector.insert %{{.+}}, %[[ZERO]] [0, 0] : vector<2xbf16> into vector<1x4x2xbf16>
// CHECK-NEXT: %[[T1:.+]] = vector.insert %{{.+}}, %[[T0]] [0, 1] : vector<2xbf16> into vector<1x4x2xbf16>
// CHECK-NEXT: %[[T2:.+]] = vector.insert %{{.+}}, %[[T1]] [0, 2] : vector<2xbf16> into vector<1x4x2xbf16>
// CHECK-NEXT: %[[T3:.+]] = vector.insert %[[Q3]], %[[T2]] [0, 3] : vector<2xbf16> into vector<1x4x2xbf16>
// CHECK-NEXT: scf.yield %[[T3]] : vector<1x4x2xbf16>
// CHECK: return %[[PAIR0]], %[[PAIR15]], %[[OTHER]]
func.func @words(%c0: vector<16xi8>, %s0: f8E4M3FN, %s1: f8E4M3FN, %cond: i1)
    -> (vector<2xbf16>, vector<2xbf16>, vector<1x4x2xbf16>) {
  %w0 = qmat.decode_tile <nvfp4, block = 16> %c0 scales %s0, %s0, %s1, %s1 word 0
      : vector<16xi8>, f8E4M3FN -> vector<1x4x2xbf16>
  %w3 = qmat.decode_tile <nvfp4, block = 16> %c0 scales %s0, %s0, %s1, %s1 word 3
      : vector<16xi8>, f8E4M3FN -> vector<1x4x2xbf16>
  %p0 = vector.extract %w0[0, 0] : vector<2xbf16> from vector<1x4x2xbf16>
  %p3 = vector.extract %w3[0, 3] : vector<2xbf16> from vector<1x4x2xbf16>
  %other = scf.if %cond -> vector<1x4x2xbf16> {
    %w1 = qmat.decode_tile <nvfp4, block = 16> %c0 scales %s0, %s0, %s1, %s1 word 1
        : vector<16xi8>, f8E4M3FN -> vector<1x4x2xbf16>
    scf.yield %w1 : vector<1x4x2xbf16>
  } else {
    %z = arith.constant dense<0.0> : vector<1x4x2xbf16>
    scf.yield %z : vector<1x4x2xbf16>
  }
  return %p0, %p3, %other : vector<2xbf16>, vector<2xbf16>, vector<1x4x2xbf16>
}

// -----

// One scale per pair (the warpgroup instruction's K order, 16 per row):
// pair p of a row takes its p-th scale, whatever its word. Each distinct
// scale converts once, two at a time.
// CHECK-LABEL: func.func @per_pair(
// CHECK-SAME: %[[A:[a-z0-9]+]]: f8E4M3FN, %[[B:[a-z0-9]+]]: f8E4M3FN, %[[C:[a-z0-9]+]]: f8E4M3FN, %[[D:[a-z0-9]+]]: f8E4M3FN
// CHECK: %[[BA:.+]] = arith.bitcast %[[A]] : f8E4M3FN to i8
// CHECK-NEXT: %[[BB:.+]] = arith.bitcast %[[B]] : f8E4M3FN to i8
// CHECK-NEXT: vector.from_elements %[[BA]], %[[BB]] : vector<2xi8>
// CHECK: %[[MA:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 0] : vector<2xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[MB:.+]] = vector.shuffle %{{.+}}, %{{.+}} [1, 1] : vector<2xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[BC:.+]] = arith.bitcast %[[C]] : f8E4M3FN to i8
// CHECK-NEXT: %[[BD:.+]] = arith.bitcast %[[D]] : f8E4M3FN to i8
// CHECK-NEXT: vector.from_elements %[[BC]], %[[BD]] : vector<2xi8>
// CHECK: %[[MC:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 0] : vector<2xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[MD:.+]] = vector.shuffle %{{.+}}, %{{.+}} [1, 1] : vector<2xbf16>, vector<2xbf16>
// CHECK-NOT: nvvm.convert.f8x2.to.f16x2
// Row 0, word 0: pairs 0 and 1 take A, pairs 2 and 3 take B.
// CHECK: arith.mulf %{{.+}}, %[[MA]] : vector<2xbf16>
// CHECK-NEXT: arith.andi
// CHECK: %[[P1:.+]] = arith.mulf %{{.+}}, %[[MA]] : vector<2xbf16>
// CHECK: %[[P2:.+]] = arith.mulf %{{.+}}, %[[MB]] : vector<2xbf16>
// CHECK: arith.mulf %{{.+}}, %[[MB]] : vector<2xbf16>
// CHECK-NOT: %[[MC]]
// CHECK: arith.mulf %{{.+}}, %[[MA]] : vector<2xbf16>
// Row 1: C and D.
// CHECK: arith.mulf %{{.+}}, %[[MC]] : vector<2xbf16>
// CHECK: arith.mulf %{{.+}}, %[[MC]] : vector<2xbf16>
// CHECK: arith.mulf %{{.+}}, %[[MD]] : vector<2xbf16>
// CHECK: %[[Q3:.+]] = arith.mulf %{{.+}}, %[[MD]] : vector<2xbf16>
// CHECK: return %[[P1]], %[[P2]], %[[Q3]]
func.func @per_pair(%c0: vector<16xi8>, %c1: vector<16xi8>, %a: f8E4M3FN, %b: f8E4M3FN,
                    %c: f8E4M3FN, %d: f8E4M3FN) -> (vector<2xbf16>, vector<2xbf16>, vector<2xbf16>) {
  %t = qmat.decode_tile <nvfp4, block = 16> %c0, %c1
      scales %a, %a, %b, %b, %a, %a, %b, %b, %a, %a, %b, %b, %a, %a, %b, %b,
             %c, %c, %d, %d, %c, %c, %d, %d, %c, %c, %d, %d, %c, %c, %d, %d
      : vector<16xi8>, f8E4M3FN -> vector<2x16x2xbf16>
  %p1 = vector.extract %t[0, 1] : vector<2xbf16> from vector<2x16x2xbf16>
  %p2 = vector.extract %t[0, 2] : vector<2xbf16> from vector<2x16x2xbf16>
  %q3 = vector.extract %t[1, 3] : vector<2xbf16> from vector<2x16x2xbf16>
  return %p1, %p2, %q3 : vector<2xbf16>, vector<2xbf16>, vector<2xbf16>
}

// -----

// qmat.decode_words, int4 with zero points: the codes' values once, then
// per word its 8 elements minus the zero point (the nibble of its block's
// parity), times the scale, one rounding; words of one block share the
// converted scale and zero point.
// CHECK-LABEL: func.func @int4_words(
// CHECK-SAME: %[[C:[a-z0-9]+]]: vector<16xi8>, %[[S0:[a-z0-9]+]]: bf16, %[[S1:[a-z0-9]+]]: bf16, %[[Z0:[a-z0-9]+]]: i8, %[[Z1:[a-z0-9]+]]: i8, %[[B0:[a-z0-9]+]]: index, %[[B1:[a-z0-9]+]]: index
// CHECK: %[[VALUES:.+]] = qmat.decode u4 %[[C]] method = arith : vector<16xi8> -> vector<32xf32>
// CHECK-NEXT: %[[SCALE0:.+]] = arith.extf %[[S0]] : bf16 to f32
// CHECK-NEXT: %[[BLOCK0:.+]] = arith.index_castui %[[B0]] : index to i32
// CHECK-NEXT: %[[BYTE0:.+]] = arith.extui %[[Z0]] : i8 to i32
// CHECK: %[[ZP0:.+]] = arith.uitofp %{{.+}} : i32 to f32
// CHECK-NEXT: %[[W0:.+]] = vector.shuffle %[[VALUES]], %[[VALUES]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<32xf32>, vector<32xf32>
// CHECK-NEXT: %[[ZPS0:.+]] = vector.broadcast %[[ZP0]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[D0:.+]] = arith.subf %[[W0]], %[[ZPS0]] : vector<8xf32>
// CHECK-NEXT: %[[SCALES0:.+]] = vector.broadcast %[[SCALE0]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[P0:.+]] = arith.mulf %[[D0]], %[[SCALES0]] : vector<8xf32>
// CHECK-NEXT: %[[R0:.+]] = arith.truncf %[[P0]] : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT: %[[W1:.+]] = vector.shuffle %[[VALUES]], %[[VALUES]] [8, 9, 10, 11, 12, 13, 14, 15]
// CHECK-NEXT: vector.broadcast %[[ZP0]]
// CHECK: %[[R1:.+]] = arith.truncf
// The second block's scale and zero point.
// CHECK-NEXT: arith.extf %[[S1]] : bf16 to f32
// CHECK-NEXT: arith.index_castui %[[B1]] : index to i32
// CHECK-NEXT: arith.extui %[[Z1]] : i8 to i32
// CHECK: vector.shuffle %[[VALUES]], %[[VALUES]] [16, 17, 18, 19, 20, 21, 22, 23]
// CHECK: %[[R2:.+]] = arith.truncf
// CHECK: vector.shuffle %[[VALUES]], %[[VALUES]] [24, 25, 26, 27, 28, 29, 30, 31]
// CHECK: %[[R3:.+]] = arith.truncf
// CHECK-NOT: qmat.decode_words
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
func.func @int4_words(%c: vector<16xi8>, %s0: bf16, %s1: bf16, %z0: i8, %z1: i8, %b0: index, %b1: index) -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>) {
  %w = qmat.decode_words <int4, block = 16> %c scales %s0, %s0, %s1, %s1 zero_points %z0, %z0, %z1, %z1 blocks %b0, %b0, %b1, %b1 method = arith : vector<16xi8>, bf16 -> vector<4x8xbf16>
  %w0 = vector.extract %w[0] : vector<8xbf16> from vector<4x8xbf16>
  %w1 = vector.extract %w[1] : vector<8xbf16> from vector<4x8xbf16>
  %w2 = vector.extract %w[2] : vector<8xbf16> from vector<4x8xbf16>
  %w3 = vector.extract %w[3] : vector<8xbf16> from vector<4x8xbf16>
  return %w0, %w1, %w2, %w3 : vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>
}

// -----

// nvfp4: the scale once for the four words, then the global scale on the
// fp32 product before the rounding. A use of the whole result gets the
// words inserted in order.
// CHECK-LABEL: func.func @nvfp4_words(
// CHECK-SAME: %{{[a-z0-9]+}}: vector<16xi8>, %{{[a-z0-9]+}}: f8E4M3FN, %[[G:[a-z0-9]+]]: f32
// CHECK: qmat.decode e2m1 %{{.+}} method = lookup : vector<16xi8> -> vector<32xf32>
// CHECK-COUNT-1: qmat.decode e4m3
// CHECK-NOT: qmat.decode e4m3
// CHECK: %[[GLOBAL:.+]] = vector.broadcast %[[G]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[P:.+]] = arith.mulf %{{.+}}, %[[GLOBAL]] : vector<8xf32>
// CHECK-NEXT: %[[R0:.+]] = arith.truncf %[[P]] : vector<8xf32> to vector<8xf16>
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4x8xf16>
// CHECK-NEXT: %[[I0:.+]] = vector.insert %[[R0]], %[[ZERO]] [0] : vector<8xf16> into vector<4x8xf16>
// CHECK-NEXT: %[[I1:.+]] = vector.insert %{{.+}}, %[[I0]] [1]
// CHECK-NEXT: %[[I2:.+]] = vector.insert %{{.+}}, %[[I1]] [2]
// CHECK-NEXT: %[[I3:.+]] = vector.insert %{{.+}}, %[[I2]] [3]
// CHECK-NEXT: return %[[I3]] : vector<4x8xf16>
func.func @nvfp4_words(%c: vector<16xi8>, %s: f8E4M3FN, %g: f32) -> vector<4x8xf16> {
  %w = qmat.decode_words <nvfp4, block = 16> %c scales %s, %s, %s, %s global_scale %g method = lookup : vector<16xi8>, f8E4M3FN -> vector<4x8xf16>
  return %w : vector<4x8xf16>
}
