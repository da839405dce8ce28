//===- PackedGemvDecodeTest.cpp - The GEMV's packed decodes, exhaustively -===//
//
// The tensor-core GEMV decodes 4-bit weights straight into f16/bf16 pairs
// (GemvKernelBuilder.cpp): a bit placement, then multiplies (and for int4 a
// subtraction) in the activation type, each rounding once as the GPU's
// mul.rn / sub.rn do. This replays that arithmetic with the constants the
// emitter uses (lit checks them in the IR and PTX) for every code and every
// scale, and compares with lib/Reference: the pairs must hold the reference's
// rounded weights (nvfp4: code x scale x 2^-7, the rest applied to the fp32
// sums).
//
//===----------------------------------------------------------------------===//

#include "RefRound.h"
#include "qmat/Conversion/QMatToGPU/PackedFp4Placement.h"
#include "qmat/Reference/Numerics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace qmat::ref;
using qmat::testing::refBF16;
using qmat::testing::refF16;

namespace {

double valueOf(ActType act, uint16_t bits) {
  return double(actBitsToFloat(act, bits));
}
uint16_t roundTo(ActType act, double x) {
  return act == ActType::F16 ? refF16(x) : refBF16(x);
}
/// One rounding of the exact result (two f16/bf16 operands: the double
/// product and difference are exact).
uint16_t mul(ActType act, uint16_t a, uint16_t b) {
  return roundTo(act, valueOf(act, a) * valueOf(act, b));
}
uint16_t sub(ActType act, uint16_t a, uint16_t b) {
  return roundTo(act, valueOf(act, a) - valueOf(act, b));
}
bool isNaN(ActType act, uint16_t bits) {
  return std::isnan(actBitsToFloat(act, bits));
}
/// Equal bits, or both NaN.
bool sameWeight(ActType act, uint16_t got, uint16_t want) {
  return got == want || (isNaN(act, got) && isNaN(act, want));
}

/// The fp4 bit placement: sign on bit 15, magnitude under the exponent
/// (code x 2^-14 in f16, code x 2^-126 in bf16).
uint16_t placeE2M1(ActType act, int code) {
  int shift = act == ActType::F16 ? 9 : 6;
  return uint16_t((code & 8) << 12 | (code & 7) << shift);
}

const ActType kActs[] = {ActType::F16, ActType::BF16};

/// A whole word's four pairs (pair j: codes j and j + 4) through the
/// emitter's constants against placing each code on its own; a magnitude
/// bit meeting another code's sign inside the selects would show as a
/// neighbour-dependent pair. Reports the first wrong pair only.
bool placesWord(ActType act, uint32_t word) {
  uint32_t pairs[4];
  mlir::qmat::placePackedFp4Word(act == ActType::F16, word, pairs);
  for (int j = 0; j < 4; ++j) {
    uint32_t want = uint32_t(placeE2M1(act, (word >> (4 * j)) & 15)) |
                    uint32_t(placeE2M1(act, (word >> (4 * j + 16)) & 15)) << 16;
    if (pairs[j] != want) {
      ADD_FAILURE() << "act " << int(act) << " word 0x" << std::hex << word
                    << " pair " << j << ": 0x" << pairs[j] << " want 0x"
                    << want;
      return false;
    }
  }
  return true;
}

TEST(PackedGemvDecode, WordPlacementIsEveryCodesPlacement) {
  std::mt19937 random(20261130);
  for (ActType act : kActs) {
    // Shifts, constant masks and selects are linear over GF(2): zero and
    // the 32 one-bit words decide every word. Then every code at every
    // position with the other seven equal, and random words.
    bool right = placesWord(act, 0);
    for (int bit = 0; right && bit < 32; ++bit)
      right = placesWord(act, uint32_t(1) << bit);
    for (int position = 0; right && position < 8; ++position)
      for (uint32_t code = 0; right && code < 16; ++code)
        for (uint32_t others = 0; right && others < 16; ++others) {
          uint32_t word = 0;
          for (int p = 0; p < 8; ++p)
            word |= (p == position ? code : others) << (4 * p);
          right = placesWord(act, word);
        }
    for (int i = 0; right && i < 1 << 20; ++i)
      right = placesWord(act, uint32_t(random()));
  }
}

TEST(PackedGemvDecode, Nvfp4IsCodeTimesScaleTimes2ToMinus7) {
  for (ActType act : kActs) {
    int exponent = act == ActType::F16 ? 14 : 126;
    for (int scale = 0; scale < 256; ++scale) {
      if ((scale & 0x7F) == 0x7F)
        continue; // NaN scale: the fp32 sum carries it, not the pair
      float s = decodeE4M3FN(uint8_t(scale));
      uint16_t multiplier =
          roundTo(act, double(s) * std::ldexp(1.0, exponent - 7));
      for (int code = 0; code < 16; ++code) {
        uint16_t got = mul(act, placeE2M1(act, code), multiplier);
        double want = double(decodeE2M1(uint8_t(code))) * s / 128.0;
        EXPECT_EQ(valueOf(act, got), want)
            << "act " << int(act) << " code " << code << " scale " << scale;
      }
    }
  }
}

/// Every code under every e8m0 byte: `decode(code, e)` against the
/// reference's rne(e2m1 x 2^(e - 127)).
template <typename Decode> void checkMxfp4(ActType act, Decode decode) {
  for (int e = 0; e < 256; ++e)
    for (int code = 0; code < 16; ++code) {
      uint16_t got = decode(code, e);
      uint16_t want =
          roundToAct(act, decodeE2M1(uint8_t(code)) * decodeE8M0(uint8_t(e)));
      EXPECT_TRUE(sameWeight(act, got, want))
          << "code " << code << " e " << e << ": 0x" << std::hex << got
          << " want 0x" << want;
    }
}

TEST(PackedGemvDecode, Mxfp4Bf16IsTheReferenceWeight) {
  ActType act = ActType::BF16;
  checkMxfp4(act, [&](int code, int e) {
    uint16_t power = e == 0 ? 0x0040 : e == 255 ? 0x7FC0 : uint16_t(e << 7);
    uint16_t value = mul(act, placeE2M1(act, code), 0x7E80); // x 2^126
    return mul(act, value, power);
  });
}

TEST(PackedGemvDecode, Mxfp4F16IsTheReferenceWeight) {
  ActType act = ActType::F16;
  checkMxfp4(act, [&](int code, int e) {
    int total = std::clamp(e - 127, -28, 17);
    int first = std::clamp(total, -14, 13), second = total - first;
    uint16_t power1 = e == 255 ? 0x7E00 : uint16_t((first + 15) << 10);
    uint16_t power2 = uint16_t((second + 15) << 10);
    uint16_t value = mul(act, placeE2M1(act, code), 0x7400); // x 2^14
    return mul(act, mul(act, value, power1), power2);
  });
}

// The one-multiply arm the GEMV takes when a warp's scale bytes are all at
// most getMxfp4OneMultiply's maxE: exact for every code there (f16 below
// e = 99 through the factor of 99, every product rounding to +-0), and the
// range ends where the factor stops being finite (the vote sends the rest
// to the products above).
TEST(PackedGemvDecode, Mxfp4OneMultiplyIsTheReferenceWeightInItsRange) {
  for (ActType act : kActs) {
    bool f16 = act == ActType::F16;
    mlir::qmat::Mxfp4OneMultiply range = mlir::qmat::getMxfp4OneMultiply(f16);
    int placedExponent = f16 ? 14 : 126;
    for (int e = 0; e <= range.maxE; ++e) {
      uint16_t factor = mlir::qmat::getMxfp4OneMultiplyFactor(f16, e);
      EXPECT_EQ(
          valueOf(act, factor),
          std::ldexp(1.0, std::max(e, range.lowestE) - 127 + placedExponent))
          << "e " << e;
      for (int code = 0; code < 16; ++code) {
        uint16_t got = mul(act, placeE2M1(act, code), factor);
        uint16_t want =
            roundToAct(act, decodeE2M1(uint8_t(code)) * decodeE8M0(uint8_t(e)));
        EXPECT_TRUE(sameWeight(act, got, want))
            << "act " << int(act) << " code " << code << " e " << e;
      }
    }
    EXPECT_TRUE(std::isinf(valueOf(
        act, mlir::qmat::getMxfp4OneMultiplyFactor(f16, range.maxE + 1))));
  }
}

TEST(PackedGemvDecode, Int4IsTheReferenceWeightForEveryScale) {
  for (ActType act : kActs) {
    uint16_t magic = act == ActType::F16 ? 0x6400 : 0x4300;
    int64_t wrong = 0;
    for (int scale = 0; scale < 65536; ++scale) {
      float s = actBitsToFloat(act, uint16_t(scale));
      for (int zp = 0; zp < 16; ++zp) {
        uint16_t offset = uint16_t(magic | zp);
        for (int q = 0; q < 16; ++q) {
          uint16_t centered = sub(act, uint16_t(magic | q), offset);
          uint16_t got = mul(act, centered, uint16_t(scale));
          uint16_t want = roundToAct(act, (float(q) - float(zp)) * s);
          if (!sameWeight(act, got, want) && wrong++ < 5)
            ADD_FAILURE() << "act " << int(act) << " q " << q << " zp " << zp
                          << " scale 0x" << std::hex << scale << ": 0x" << got
                          << " want 0x" << want;
        }
      }
    }
    EXPECT_EQ(wrong, 0);
  }
}

// f16 also reads the odd nibbles at bits 4-7 (one shift per word, not
// three): 1024 + 16q times 1/16 plus -(64 + zp) in one fma, then the scale.
TEST(PackedGemvDecode, Int4F16HighNibbleIsTheReferenceWeightForEveryScale) {
  const ActType act = ActType::F16;
  int64_t wrong = 0;
  for (int zp = 0; zp < 16; ++zp) {
    // The emitter's constants: 0xD400 | zp << 4 is -(64 + zp).
    uint16_t highOffset = uint16_t(0xD400 | zp << 4);
    ASSERT_EQ(valueOf(act, highOffset), -(64.0 + zp));
    for (int q = 0; q < 16; ++q) {
      uint16_t biased = uint16_t(0x6400 | q << 4);
      // fma: one rounding of the exact x / 16 + offset (0x2C00 is 1/16).
      uint16_t centered =
          roundTo(act, valueOf(act, biased) * valueOf(act, 0x2C00) +
                           valueOf(act, highOffset));
      for (int scale = 0; scale < 65536; ++scale) {
        float s = actBitsToFloat(act, uint16_t(scale));
        uint16_t got = mul(act, centered, uint16_t(scale));
        uint16_t want = roundToAct(act, (float(q) - float(zp)) * s);
        if (!sameWeight(act, got, want) && wrong++ < 5)
          ADD_FAILURE() << "q " << q << " zp " << zp << " scale 0x" << std::hex
                        << scale << ": 0x" << got << " want 0x" << want;
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

} // namespace
