//===- PackedFp4Placement.h - e2m1 words into f16/bf16 pairs ----*- C++ -*-===//
//
// How the tensor-core GEMV turns a 32-bit word of eight e2m1 codes into
// four f16/bf16 pairs (pair j holds codes j and j + 4) by bit placement
// alone: sign on bit 15 of each half, the three magnitude bits under the
// exponent (bits 11..9 in f16, 8..6 in bf16), which is the code's value
// times 2^-14 (f16) or 2^-126 (bf16).
//
// Placing each pair on its own costs two shifts and two masks (the sign
// and the magnitude move by different distances). Instead, two bit-selects
// build words X0 and X1 in which every code's sign already sits where its
// magnitude will need it; a pair is then X masked (the pair that X is
// aligned to) or X shifted and masked: 11 instructions per word, not 15.
// No magnitude bit meets a sign bit inside X0 or X1: bf16 pairs codes
// (0, 1) and (2, 3) in them, f16 (0, 2) and (1, 3), because f16's sign
// would land on the next code's magnitude.
//
// Plain C++ so that the unit test replays exactly these constants
// (test/Unit/Reference/PackedGemvDecodeTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_CONVERSION_QMATTOGPU_PACKEDFP4PLACEMENT_H
#define QMAT_CONVERSION_QMATTOGPU_PACKEDFP4PLACEMENT_H

#include <cstdint>

namespace mlir::qmat {

struct PackedFp4Placement {
  /// X_i = (word << selectShift[i][0]) where selectMask is set, else
  /// (word << selectShift[i][1]); a negative shift moves right.
  int selectShift[2][2];
  uint32_t selectMask;
  /// pair j = (X_{pairSource[j]} << pairShift[j]) & pairMask.
  int pairSource[4];
  int pairShift[4];
  uint32_t pairMask;
};

constexpr PackedFp4Placement getPackedFp4Placement(bool f16) {
  if (f16)
    return {{{1, 4}, {-3, 0}},
            0x0E0E0E0Eu,
            {0, 1, 0, 1},
            {8, 8, 0, 0},
            0x8E008E00u};
  return {
      {{2, 8}, {-6, 0}}, 0x01DC01DCu, {0, 0, 1, 1}, {4, 0, 4, 0}, 0x81C081C0u};
}

/// mxfp4's one-multiply decode: a placed code (code x 2^-14 in f16,
/// code x 2^-126 in bf16) times 2^(e - 127 + 14) or 2^(e - 127 + 126) is one
/// rounding of the exact code x 2^(e - 127), as the reference's, wherever
/// that factor is a normal number of the activation type. bf16 holds it for
/// every e up to maxE = 128; f16 only from e = 99, but below that every code
/// rounds to +-0 (6 x 2^-29 < 2^-25) and so does its product with the
/// factor of e = 99 (6 x 2^-28 < 2^-25), so f16 takes max(e, 99) and the
/// same range. Scales above 128 (blocks with weights of 16 and more, which
/// quantized checkpoints do not have) and the NaN scale 0xFF take two
/// factors (f16 three).
struct Mxfp4OneMultiply {
  int maxE;
  /// The factor's exponent: max(e, lowestE).
  int lowestE;
  /// The factor's bits are (max(e, lowestE) + exponentBias) <<
  /// significandBits.
  int exponentBias, significandBits;
};
constexpr Mxfp4OneMultiply getMxfp4OneMultiply(bool f16) {
  if (f16)
    return {128, 99, 15 + 14 - 127, 10};
  return {128, 0, 127 + 126 - 127, 7};
}
constexpr uint16_t getMxfp4OneMultiplyFactor(bool f16, int e) {
  Mxfp4OneMultiply range = getMxfp4OneMultiply(f16);
  int exponent = e > range.lowestE ? e : range.lowestE;
  return uint16_t((exponent + range.exponentBias) << range.significandBits);
}

constexpr uint32_t shiftWord(uint32_t word, int shift) {
  return shift >= 0 ? word << shift : word >> -shift;
}

/// The four pairs of `word`, as the GEMV's emitted code computes them.
constexpr void placePackedFp4Word(bool f16, uint32_t word, uint32_t pairs[4]) {
  PackedFp4Placement p = getPackedFp4Placement(f16);
  uint32_t x[2] = {};
  for (int i = 0; i < 2; ++i)
    x[i] = (shiftWord(word, p.selectShift[i][0]) & p.selectMask) |
           (shiftWord(word, p.selectShift[i][1]) & ~p.selectMask);
  for (int j = 0; j < 4; ++j)
    pairs[j] = shiftWord(x[p.pairSource[j]], p.pairShift[j]) & p.pairMask;
}

} // namespace mlir::qmat

#endif // QMAT_CONVERSION_QMATTOGPU_PACKEDFP4PLACEMENT_H
