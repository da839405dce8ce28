//===- NumericsTest.cpp - Bit-exact tests of the reference numerics -------===//
//
// Expected values are either written out by hand or produced by a second,
// deliberately different algorithm (double arithmetic + std::nearbyint), so a
// shared mistake in the integer bit manipulation cannot hide.
//
//===----------------------------------------------------------------------===//

#include "qmat/Reference/Numerics.h"
#include "RefRound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

using namespace qmat::ref;
using qmat::testing::refBF16;
using qmat::testing::refF16;
using qmat::testing::refRound;

namespace {

uint32_t bitsOf(float f) { return floatToBits(f); }
float floatOf(uint32_t u) { return bitsToFloat(u); }

/// e4m3fn from its textbook formula, in double.
double refE4M3(uint8_t b) {
  if ((b & 0x7F) == 0x7F)
    return std::numeric_limits<double>::quiet_NaN();
  int s = b >> 7, e = (b >> 3) & 0xF, m = b & 7;
  double mag = e == 0 ? (m / 8.0) * std::ldexp(1.0, -6)
                      : (1.0 + m / 8.0) * std::ldexp(1.0, e - 7);
  return s ? -mag : mag;
}

double refE2M1(uint8_t code) {
  // Written independently of the library's table: sign, exp (bias 1), man.
  int s = (code >> 3) & 1, e = (code >> 1) & 3, m = code & 1;
  double mag = e == 0 ? m * 0.5 : (1.0 + m * 0.5) * std::ldexp(1.0, e - 1);
  return s ? -mag : mag;
}

bool isF16NaN(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF); }
bool isBF16NaN(uint16_t h) { return (h & 0x7F80) == 0x7F80 && (h & 0x7F); }

} // namespace

//===----------------------------------------------------------------------===//
// Element decoders
//===----------------------------------------------------------------------===//

TEST(DecodeE2M1, AllSixteenCodes) {
  const uint32_t expected[16] = {
      0x00000000, 0x3F000000, 0x3F800000, 0x3FC00000, // 0 .5 1 1.5
      0x40000000, 0x40400000, 0x40800000, 0x40C00000, // 2 3 4 6
      0x80000000, 0xBF000000, 0xBF800000, 0xBFC00000, // -0 -.5 -1 -1.5
      0xC0000000, 0xC0400000, 0xC0800000, 0xC0C00000, // -2 -3 -4 -6
  };
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(bitsOf(decodeE2M1(uint8_t(c))), expected[c]) << "code " << c;
    EXPECT_EQ(bitsOf(decodeE2M1(uint8_t(c))),
              bitsOf(float(refE2M1(uint8_t(c)))))
        << "code " << c;
  }
  // Only the low nibble matters.
  EXPECT_EQ(bitsOf(decodeE2M1(0xF7)), 0x40C00000u);
}

TEST(DecodeE4M3FN, SpecialBytes) {
  EXPECT_EQ(bitsOf(decodeE4M3FN(0x00)), 0x00000000u);
  EXPECT_EQ(bitsOf(decodeE4M3FN(0x80)), 0x80000000u); // -0.0
  EXPECT_EQ(decodeE4M3FN(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(bitsOf(decodeE4M3FN(0x01)), 0x3B000000u);
  EXPECT_EQ(decodeE4M3FN(0x07), 7.0f * std::ldexp(1.0f, -9));
  EXPECT_EQ(decodeE4M3FN(0x08), std::ldexp(1.0f, -6)); // smallest normal
  EXPECT_EQ(decodeE4M3FN(0x38), 1.0f);
  EXPECT_EQ(decodeE4M3FN(0x7E), 448.0f);
  EXPECT_EQ(bitsOf(decodeE4M3FN(0x7E)), 0x43E00000u);
  EXPECT_EQ(decodeE4M3FN(0xFE), -448.0f);
  EXPECT_TRUE(std::isnan(decodeE4M3FN(0x7F)));
  EXPECT_TRUE(std::isnan(decodeE4M3FN(0xFF)));
  // No infinities: 0x78 is a plain power of two (2^8).
  EXPECT_EQ(decodeE4M3FN(0x78), 256.0f);
}

TEST(DecodeE4M3FN, AllBytesMatchFormula) {
  int nanCount = 0;
  for (int b = 0; b < 256; ++b) {
    float got = decodeE4M3FN(uint8_t(b));
    double want = refE4M3(uint8_t(b));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "byte " << b;
      ++nanCount;
      continue;
    }
    EXPECT_EQ(bitsOf(got), bitsOf(float(want))) << "byte " << b;
  }
  EXPECT_EQ(nanCount, 2);
}

TEST(DecodeE8M0, AllBytes) {
  EXPECT_EQ(bitsOf(decodeE8M0(0)), 0x00400000u); // 2^-127, fp32 subnormal
  EXPECT_EQ(double(decodeE8M0(0)), std::ldexp(1.0, -127));
  EXPECT_EQ(decodeE8M0(1), std::ldexp(1.0f, -126));
  EXPECT_EQ(decodeE8M0(127), 1.0f);
  EXPECT_EQ(decodeE8M0(254), std::ldexp(1.0f, 127));
  EXPECT_EQ(bitsOf(decodeE8M0(254)), 0x7F000000u);
  EXPECT_TRUE(std::isnan(decodeE8M0(255)));
  for (int b = 0; b < 255; ++b)
    EXPECT_EQ(double(decodeE8M0(uint8_t(b))), std::ldexp(1.0, b - 127))
        << "byte " << b;
}

TEST(DecodeU4, LowNibble) {
  for (int c = 0; c < 256; ++c)
    EXPECT_EQ(decodeU4(uint8_t(c)), float(c & 0xF));
}

//===----------------------------------------------------------------------===//
// Rounding to fp16
//===----------------------------------------------------------------------===//

TEST(RoundToF16, TiesAndNearTies) {
  EXPECT_EQ(roundToF16(1.0f), 0x3C00);
  // 1 + 2^-11 is exactly halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(roundToF16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: even is 1+2^-9.
  EXPECT_EQ(roundToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above a tie rounds up; just below rounds down.
  EXPECT_EQ(roundToF16(floatOf(0x3F801001)), 0x3C01);
  EXPECT_EQ(roundToF16(floatOf(0x3F800FFF)), 0x3C00);
  EXPECT_EQ(roundToF16(-(1.0f + std::ldexp(1.0f, -11))), 0xBC00);
  // Mantissa carry into the exponent: (2 - 2^-11) rounds to 2.
  EXPECT_EQ(roundToF16(2.0f - std::ldexp(1.0f, -11)), 0x4000);
}

TEST(RoundToF16, Overflow) {
  EXPECT_EQ(roundToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(roundToF16(65519.996f), 0x7BFF); // below the midpoint
  EXPECT_EQ(roundToF16(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  EXPECT_EQ(roundToF16(65520.0f), 0x7C00); // the midpoint ties to "even" inf
  EXPECT_EQ(roundToF16(-65520.0f), 0xFC00);
  EXPECT_EQ(roundToF16(1e10f), 0x7C00);
  EXPECT_EQ(roundToF16(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(roundToF16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(roundToF16(-std::numeric_limits<float>::infinity()), 0xFC00);
}

TEST(RoundToF16, Subnormals) {
  EXPECT_EQ(roundToF16(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
  EXPECT_EQ(roundToF16(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(roundToF16(std::ldexp(1.0f, -25)), 0x0000); // tie to even 0
  EXPECT_EQ(roundToF16(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(roundToF16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(roundToF16(3 * std::ldexp(1.0f, -26)), 0x0001);
  EXPECT_EQ(roundToF16(3 * std::ldexp(1.0f, -25)), 0x0002); // 1.5 ulp -> 2
  EXPECT_EQ(roundToF16(5 * std::ldexp(1.0f, -25)), 0x0002); // 2.5 ulp -> 2
  EXPECT_EQ(roundToF16(1023 * std::ldexp(1.0f, -24)), 0x03FF);
  // Halfway between the largest subnormal and the smallest normal.
  EXPECT_EQ(roundToF16(1023.5f * std::ldexp(1.0f, -24)), 0x0400);
  EXPECT_EQ(roundToF16(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(roundToF16(floatOf(0x00000001)), 0x0000); // fp32 subnormal
  EXPECT_EQ(roundToF16(floatOf(0x80000001)), 0x8000);
}

TEST(RoundToF16, ZeroAndNaN) {
  EXPECT_EQ(roundToF16(0.0f), 0x0000);
  EXPECT_EQ(roundToF16(-0.0f), 0x8000);
  EXPECT_EQ(roundToF16(std::numeric_limits<float>::quiet_NaN()), 0x7FFF);
  EXPECT_EQ(roundToF16(floatOf(0xFFC00000)), 0x7FFF);
  EXPECT_EQ(roundToF16(floatOf(0x7F800001)), 0x7FFF); // signalling
  EXPECT_EQ(roundToF16(floatOf(0xFF800001)), 0x7FFF);
  EXPECT_EQ(kCanonicalNaNF16, 0x7FFF);
  EXPECT_TRUE(isF16NaN(kCanonicalNaNF16));
}

TEST(RoundToF16, AllF16ValuesRoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint16_t bits = uint16_t(h);
    float f = f16BitsToFloat(bits);
    if (isF16NaN(bits)) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_EQ(roundToF16(f), 0x7FFF) << std::hex << h;
      continue;
    }
    ASSERT_EQ(roundToF16(f), bits) << std::hex << h;
  }
}

TEST(RoundToF16, MidpointsOfAllF16Pairs) {
  // Midpoints between neighbours are exact in fp32 and exercise every tie.
  for (uint32_t h = 0; h < 0x7BFF; ++h) {
    double lo = f16BitsToFloat(uint16_t(h));
    double hi = f16BitsToFloat(uint16_t(h + 1));
    float mid = float((lo + hi) / 2);
    ASSERT_EQ(double(mid), (lo + hi) / 2);
    uint16_t even = (h & 1) ? uint16_t(h + 1) : uint16_t(h);
    ASSERT_EQ(roundToF16(mid), even) << std::hex << h;
    ASSERT_EQ(roundToF16(-mid), even | 0x8000) << std::hex << h;
    ASSERT_EQ(roundToF16(std::nextafter(mid, 0.0f)), h) << std::hex << h;
    ASSERT_EQ(roundToF16(std::nextafter(mid, 1e9f)), h + 1) << std::hex << h;
  }
}

TEST(RoundToF16, SampledFp32PatternsMatchIndependentRounding) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4093) {
    float f = floatOf(uint32_t(u));
    ASSERT_EQ(roundToF16(f), refF16(f)) << std::hex << u;
  }
  // Every upper half with tie-ish low halves: covers all exponents/signs.
  const uint32_t lows[] = {0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001,
                           0x8000, 0x7FFF, 0xFFFF, 0x2000, 0x3000};
  for (uint32_t hi = 0; hi < 0x10000; ++hi)
    for (uint32_t lo : lows) {
      float f = floatOf((hi << 16) | lo);
      ASSERT_EQ(roundToF16(f), refF16(f)) << std::hex << ((hi << 16) | lo);
    }
}

//===----------------------------------------------------------------------===//
// Rounding to bf16
//===----------------------------------------------------------------------===//

TEST(RoundToBF16, TiesOverflowSubnormalsNaN) {
  EXPECT_EQ(roundToBF16(1.0f), 0x3F80);
  EXPECT_EQ(roundToBF16(floatOf(0x3F808000)), 0x3F80); // tie, even below
  EXPECT_EQ(roundToBF16(floatOf(0x3F818000)), 0x3F82); // tie, even above
  EXPECT_EQ(roundToBF16(floatOf(0x3F808001)), 0x3F81);
  EXPECT_EQ(roundToBF16(floatOf(0x3F807FFF)), 0x3F80);
  EXPECT_EQ(roundToBF16(floatOf(0xBF818000)), 0xBF82);
  // Largest finite bf16 is 0x7F7F; its upper midpoint overflows to inf.
  EXPECT_EQ(roundToBF16(floatOf(0x7F7F0000)), 0x7F7F);
  EXPECT_EQ(roundToBF16(floatOf(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(roundToBF16(floatOf(0x7F7F8000)), 0x7F80);
  EXPECT_EQ(roundToBF16(floatOf(0xFF7F8000)), 0xFF80);
  EXPECT_EQ(roundToBF16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(roundToBF16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(roundToBF16(-std::numeric_limits<float>::infinity()), 0xFF80);
  // fp32 subnormals keep their top bits (bf16 has the same exponent range).
  EXPECT_EQ(roundToBF16(floatOf(0x00008000)), 0x0000); // tie to even 0
  EXPECT_EQ(roundToBF16(floatOf(0x00008001)), 0x0001);
  EXPECT_EQ(roundToBF16(floatOf(0x00018000)), 0x0002);
  EXPECT_EQ(roundToBF16(floatOf(0x007FFFFF)), 0x0080); // to smallest normal
  EXPECT_EQ(roundToBF16(floatOf(0x00400000)), 0x0040); // 2^-127
  EXPECT_EQ(roundToBF16(0.0f), 0x0000);
  EXPECT_EQ(roundToBF16(-0.0f), 0x8000);
  EXPECT_EQ(roundToBF16(std::numeric_limits<float>::quiet_NaN()), 0x7FFF);
  EXPECT_EQ(roundToBF16(floatOf(0x7F800001)), 0x7FFF);
  EXPECT_EQ(roundToBF16(floatOf(0xFFFFFFFF)), 0x7FFF);
  EXPECT_TRUE(isBF16NaN(kCanonicalNaNBF16));
}

TEST(RoundToBF16, SampledFp32PatternsMatchIndependentRounding) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4093) {
    float f = floatOf(uint32_t(u));
    ASSERT_EQ(roundToBF16(f), refBF16(f)) << std::hex << u;
  }
  const uint32_t lows[] = {0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF};
  for (uint32_t hi = 0; hi < 0x10000; ++hi)
    for (uint32_t lo : lows) {
      float f = floatOf((hi << 16) | lo);
      ASSERT_EQ(roundToBF16(f), refBF16(f)) << std::hex << ((hi << 16) | lo);
    }
}

TEST(ActBits, ExactConversions) {
  EXPECT_EQ(bitsOf(f16BitsToFloat(0x0001)), bitsOf(std::ldexp(1.0f, -24)));
  EXPECT_EQ(bitsOf(f16BitsToFloat(0x8001)), bitsOf(-std::ldexp(1.0f, -24)));
  EXPECT_EQ(bitsOf(f16BitsToFloat(0x03FF)),
            bitsOf(1023 * std::ldexp(1.0f, -24)));
  EXPECT_EQ(f16BitsToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(bitsOf(f16BitsToFloat(0x8000)), 0x80000000u);
  EXPECT_EQ(f16BitsToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(f16BitsToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(f16BitsToFloat(0x7FFF)));
  EXPECT_TRUE(std::isnan(f16BitsToFloat(0x7C01)));
  EXPECT_EQ(bitsOf(bf16BitsToFloat(0x3F80)), 0x3F800000u);
  EXPECT_EQ(bitsOf(bf16BitsToFloat(0x8001)), 0x80010000u);
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(0x7FFF)));
  EXPECT_EQ(actBitsToFloat(ActType::F16, 0x3C00), 1.0f);
  EXPECT_EQ(actBitsToFloat(ActType::BF16, 0x3C00), 0.0078125f);
  EXPECT_EQ(roundToAct(ActType::F16, 1.0f), 0x3C00);
  EXPECT_EQ(roundToAct(ActType::BF16, 1.0f), 0x3F80);
}

//===----------------------------------------------------------------------===//
// Weights: packing, blocks and every scheme
//===----------------------------------------------------------------------===//

namespace {

QuantizedWeight makeNvfp4(int64_t n, int64_t k, int64_t bs) {
  QuantizedWeight w;
  w.scheme = Scheme::NVFP4;
  w.n = n;
  w.k = k;
  w.blockSize = bs;
  w.codes.assign(size_t(n * k / 2), 0);
  w.scaleBytes.assign(size_t(n * w.numScaleBlocks()), 0x38);
  return w;
}

} // namespace

TEST(Packing, LowNibbleIsEvenK) {
  QuantizedWeight w = makeNvfp4(2, 4, 16);
  w.codes = {0x21, 0x43, 0x65, 0x87};
  ASSERT_EQ(validate(w), "");
  EXPECT_EQ(codeAt(w, 0, 0), 1);
  EXPECT_EQ(codeAt(w, 0, 1), 2);
  EXPECT_EQ(codeAt(w, 0, 2), 3);
  EXPECT_EQ(codeAt(w, 0, 3), 4);
  EXPECT_EQ(codeAt(w, 1, 0), 5); // rows are over N: row 1 starts at byte 2
  EXPECT_EQ(codeAt(w, 1, 3), 8);
  EXPECT_EQ(dequantizeElement(w, 0, 0), 0x3800); // code 1 = 0.5
  EXPECT_EQ(dequantizeElement(w, 0, 1), 0x3C00); // code 2 = 1.0
}

TEST(Blocks, PartialTrailingBlockUsesLastScaleColumn) {
  QuantizedWeight w = makeNvfp4(2, 40, 16);
  ASSERT_EQ(w.numScaleBlocks(), 3);
  std::fill(w.codes.begin(), w.codes.end(), 0x22); // every element is 1.0
  // e4m3 0x38 = 1, 0x40 = 2, 0x48 = 4; row 1 uses the negated scales.
  w.scaleBytes = {0x38, 0x40, 0x48, 0xB8, 0xC0, 0xC8};
  ASSERT_EQ(validate(w), "");
  std::vector<uint16_t> d = dequantize(w);
  ASSERT_EQ(d.size(), 80u);
  for (int64_t c = 0; c < 40; ++c) {
    uint16_t want = c < 16 ? 0x3C00 : c < 32 ? 0x4000 : 0x4400;
    EXPECT_EQ(d[size_t(c)], want) << "col " << c;
    EXPECT_EQ(d[size_t(40 + c)], want | 0x8000) << "col " << c;
  }
}

TEST(Dequantize, Nvfp4HandChecked) {
  QuantizedWeight w = makeNvfp4(1, 4, 16);
  w.codes = {0x21, 0xF7}; // 0.5, 1.0, 6.0, -6.0
  w.scaleBytes = {0x3A};  // 1.25
  w.globalScale = 0.5f;
  ASSERT_EQ(validate(w), "");
  EXPECT_EQ(dequantizeElementF32(w, 0, 0), 0.3125f);
  EXPECT_EQ(dequantize(w),
            (std::vector<uint16_t>{0x3500, 0x3900, 0x4380, 0xC380}));
  w.act = ActType::BF16;
  EXPECT_EQ(dequantize(w),
            (std::vector<uint16_t>{0x3EA0, 0x3F20, 0x4070, 0xC070}));
  // A NaN scale byte propagates as the canonical NaN.
  w.scaleBytes = {0x7F};
  EXPECT_EQ(dequantize(w), (std::vector<uint16_t>(4, 0x7FFF)));
}

TEST(Dequantize, Mxfp4HandChecked) {
  QuantizedWeight w;
  w.scheme = Scheme::MXFP4;
  w.n = 1;
  w.k = 4;
  w.blockSize = 32;
  w.codes = {0x93, 0x08}; // 1.5, -0.5, -0.0, 0.0
  w.scaleBytes = {125};   // 2^-2
  ASSERT_EQ(validate(w), "");
  EXPECT_EQ(dequantize(w),
            (std::vector<uint16_t>{0x3600, 0xB000, 0x8000, 0x0000}));
  // 0.5 * 2^-127 = 2^-128: zero in fp16, the subnormal 0x0020 in bf16.
  w.codes = {0x91, 0x00};
  w.scaleBytes = {0};
  EXPECT_EQ(dequantizeElementF32(w, 0, 0), floatOf(0x00200000));
  EXPECT_EQ(dequantize(w),
            (std::vector<uint16_t>{0x0000, 0x8000, 0x0000, 0x0000}));
  w.act = ActType::BF16;
  EXPECT_EQ(dequantize(w),
            (std::vector<uint16_t>{0x0020, 0x8020, 0x0000, 0x0000}));
  // 6 * 2^127 overflows fp32 itself; a 0xFF scale is NaN.
  w.codes = {0x07, 0x00};
  w.scaleBytes = {254};
  EXPECT_EQ(dequantizeElement(w, 0, 0), 0x7F80);
  w.scaleBytes = {255};
  EXPECT_EQ(dequantizeElement(w, 0, 0), 0x7FFF);
  EXPECT_EQ(dequantizeElement(w, 0, 1), 0x7FFF); // 0 * NaN
}

TEST(Dequantize, Fp8OddKHandChecked) {
  QuantizedWeight w;
  w.scheme = Scheme::FP8;
  w.act = ActType::BF16;
  w.n = 1;
  w.k = 3;
  w.blockSize = 2;
  w.codes = {0x38, 0xC0, 0x7E}; // 1, -2, 448
  w.scaleF32 = {0.25f, 1000.0f};
  ASSERT_EQ(validate(w), "");
  // 448000 = 0x48DAC000: the dropped half 0xC000 rounds up.
  EXPECT_EQ(dequantize(w), (std::vector<uint16_t>{0x3E80, 0xBF00, 0x48DB}));
  w.act = ActType::F16;
  EXPECT_EQ(dequantize(w), (std::vector<uint16_t>{0x3400, 0xB800, 0x7C00}));
}

namespace {

QuantizedWeight makeInt4Example() {
  QuantizedWeight w;
  w.scheme = Scheme::INT4;
  w.act = ActType::F16;
  w.n = 2;
  w.k = 6;
  w.blockSize = 2; // three blocks: the zero-point row has a spare nibble
  // Row 0 q = 0 15 8 9 3 12; row 1 q = 1 2 3 4 5 6.
  w.codes = {0xF0, 0x98, 0xC3, 0x21, 0x43, 0x65};
  // Row 0: 1, 0.5, 2; row 1: -1, 1, 0.25.
  w.scaleAct = {0x3C00, 0x3800, 0x4000, 0xBC00, 0x3C00, 0x3400};
  return w;
}

} // namespace

TEST(Dequantize, Int4WithZeroPoints) {
  QuantizedWeight w = makeInt4Example();
  // Row 0 zp = 3 8 15; row 1 zp = 0 1 2. High nibble of byte 1 is unused.
  w.zeroPoints = {0x83, 0x0F, 0x10, 0x02};
  ASSERT_EQ(validate(w), "");
  EXPECT_EQ(dequantize(w),
            (std::vector<uint16_t>{0xC200, 0x4A00, 0x0000, 0x3800, 0xCE00,
                                   0xC600, // -3 12 0 .5 -24 -6
                                   0xBC00, 0xC000, 0x4000, 0x4200, 0x3A00,
                                   0x3C00})); // -1 -2 2 3 .75 1
}

TEST(Dequantize, Int4DefaultZeroPoint) {
  QuantizedWeight w = makeInt4Example();
  ASSERT_EQ(validate(w), "");
  EXPECT_EQ(dequantize(w),
            (std::vector<uint16_t>{0xC800, 0x4700, 0x0000, 0x3800, 0xC900,
                                   0x4800, // -8 7 0 .5 -10 8
                                   0x4700, 0x4600, 0xC500, 0xC400, 0xBA00,
                                   0xB800})); // 7 6 -5 -4 -.75 -.5
  // (8 - 8) * -1 is -0.0, not +0.0.
  w.codes[3] = 0x88;
  EXPECT_EQ(dequantizeElement(w, 1, 0), 0x8000);
  // bf16 scales: the same bits read as bf16.
  w.act = ActType::BF16;
  w.scaleAct = {0x3F80, 0x3F00, 0x4000, 0xBF80, 0x3F80, 0x3E80};
  EXPECT_EQ(dequantizeElement(w, 0, 0), 0xC100); // -8
  EXPECT_EQ(dequantizeElement(w, 0, 2), 0x0000);
  EXPECT_EQ(dequantizeElement(w, 0, 5), 0x4100); // 8
}

//===----------------------------------------------------------------------===//
// Exhaustive nvfp4 / mxfp4: every packed byte against every scale byte
//===----------------------------------------------------------------------===//

namespace {

/// N = 256 rows (row r uses scale byte r), K = 512 (columns 2b, 2b+1 hold the
/// nibbles of packed byte b), one block per row.
QuantizedWeight makeAllBytes(Scheme scheme, ActType act) {
  QuantizedWeight w;
  w.scheme = scheme;
  w.act = act;
  w.n = 256;
  w.k = 512;
  w.blockSize = 512;
  for (int r = 0; r < 256; ++r)
    for (int b = 0; b < 256; ++b)
      w.codes.push_back(uint8_t(b));
  for (int r = 0; r < 256; ++r)
    w.scaleBytes.push_back(uint8_t(r));
  return w;
}

} // namespace

TEST(Exhaustive, Nvfp4AllPackedBytesTimesAllScaleBytes) {
  for (ActType act : {ActType::F16, ActType::BF16}) {
    for (float global : {1.0f, 0.5f}) {
      QuantizedWeight w = makeAllBytes(Scheme::NVFP4, act);
      w.globalScale = global;
      ASSERT_EQ(validate(w), "");
      std::vector<uint16_t> d = dequantize(w);
      for (int r = 0; r < 256; ++r) {
        for (int c = 0; c < 512; ++c) {
          int byte = c / 2;
          uint8_t nib = (c & 1) ? uint8_t(byte >> 4) : uint8_t(byte & 0xF);
          // Exact in double: at most 6 significant bits times a power of 2.
          double v = refE2M1(nib) * refE4M3(uint8_t(r)) * global;
          uint16_t want = act == ActType::F16 ? refF16(v) : refBF16(v);
          ASSERT_EQ(d[size_t(r * 512 + c)], want)
              << "scale " << r << " col " << c << " global " << global;
        }
      }
    }
  }
}

TEST(Exhaustive, Mxfp4AllPackedBytesTimesAllScaleBytes) {
  for (ActType act : {ActType::F16, ActType::BF16}) {
    QuantizedWeight w = makeAllBytes(Scheme::MXFP4, act);
    ASSERT_EQ(validate(w), "");
    std::vector<uint16_t> d = dequantize(w);
    for (int r = 0; r < 256; ++r) {
      for (int c = 0; c < 512; ++c) {
        int byte = c / 2;
        uint8_t nib = (c & 1) ? uint8_t(byte >> 4) : uint8_t(byte & 0xF);
        double scale = r == 255 ? std::numeric_limits<double>::quiet_NaN()
                                : std::ldexp(1.0, r - 127);
        double v = refE2M1(nib) * scale;
        // Products beyond fp32's range become inf before the final rounding.
        if (std::fabs(v) > std::numeric_limits<float>::max())
          v = std::copysign(std::numeric_limits<double>::infinity(), v);
        uint16_t want = act == ActType::F16 ? refF16(v) : refBF16(v);
        ASSERT_EQ(d[size_t(r * 512 + c)], want)
            << "scale " << r << " col " << c;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// validate()
//===----------------------------------------------------------------------===//

TEST(Validate, Messages) {
  QuantizedWeight w = makeNvfp4(2, 32, 16);
  EXPECT_EQ(validate(w), "");

  QuantizedWeight bad = w;
  bad.k = 31;
  EXPECT_EQ(validate(bad),
            "K must be even for packed 4-bit schemes (two codes per byte)");
  bad.scheme = Scheme::INT4;
  EXPECT_EQ(validate(bad),
            "K must be even for packed 4-bit schemes (two codes per byte)");

  bad = w;
  bad.blockSize = 0;
  EXPECT_EQ(validate(bad), "block size must be positive");
  bad.blockSize = -16;
  EXPECT_EQ(validate(bad), "block size must be positive");

  bad = w;
  bad.n = 0;
  EXPECT_EQ(validate(bad), "N and K must be positive");

  bad = w;
  bad.codes.pop_back();
  EXPECT_EQ(validate(bad),
            "codes must hold N * K / 2 bytes (two 4-bit codes per byte)");

  bad = w;
  bad.scaleBytes.push_back(0x38);
  EXPECT_EQ(validate(bad),
            "nvfp4 scaleBytes must hold N * ceil(K / blockSize) e4m3 bytes");
  bad.scheme = Scheme::MXFP4;
  EXPECT_EQ(validate(bad),
            "mxfp4 scaleBytes must hold N * ceil(K / blockSize) e8m0 bytes");

  QuantizedWeight fp8;
  fp8.scheme = Scheme::FP8;
  fp8.n = 2;
  fp8.k = 5; // odd K is fine unpacked
  fp8.blockSize = 4;
  fp8.codes.assign(10, 0x38);
  fp8.scaleF32.assign(4, 1.0f);
  EXPECT_EQ(validate(fp8), "");
  fp8.codes.pop_back();
  EXPECT_EQ(validate(fp8), "codes must hold N * K e4m3 bytes");
  fp8.codes.push_back(0x38);
  fp8.scaleF32.pop_back();
  EXPECT_EQ(validate(fp8),
            "fp8 scaleF32 must hold N * ceil(K / blockSize) fp32 scales");

  QuantizedWeight i4 = makeInt4Example();
  EXPECT_EQ(validate(i4), "");
  i4.zeroPoints = {0x88, 0x88, 0x88, 0x88};
  EXPECT_EQ(validate(i4), "");
  i4.zeroPoints.pop_back();
  EXPECT_EQ(validate(i4), "int4 zeroPoints must be empty or hold N * "
                          "ceil(ceil(K / blockSize) / 2) bytes");
  i4.zeroPoints.clear();
  i4.scaleAct.pop_back();
  EXPECT_EQ(validate(i4),
            "int4 scaleAct must hold N * ceil(K / blockSize) scales");
}

//===----------------------------------------------------------------------===//
// Matmul reference and error metric
//===----------------------------------------------------------------------===//

TEST(Matmul, TinyExample) {
  // A = [[1, 2], [3, -1]], W = [[0.5, 1], [2, -2]], bias = [1, -0.5].
  std::vector<uint16_t> a = {0x3C00, 0x4000, 0x4200, 0xBC00};
  std::vector<uint16_t> w = {0x3800, 0x3C00, 0x4000, 0xC000};
  std::vector<uint16_t> bias = {0x3C00, 0xB800};
  EXPECT_EQ(matmulReference(ActType::F16, 2, 2, 2, a, w, &bias),
            (std::vector<double>{3.5, -2.5, 1.5, 7.5}));
  EXPECT_EQ(matmulReference(ActType::F16, 2, 2, 2, a, w, nullptr),
            (std::vector<double>{2.5, -2.0, 0.5, 8.0}));
  // fp64 accumulation keeps what fp32 would lose: 2^24 + 1 - 2^24.
  std::vector<uint16_t> a3 = {0x4B80, 0x3F80, 0xCB80}; // bf16 2^24, 1, -2^24
  std::vector<uint16_t> w3 = {0x3F80, 0x3F80, 0x3F80};
  EXPECT_EQ(matmulReference(ActType::BF16, 1, 1, 3, a3, w3, nullptr),
            (std::vector<double>{1.0}));
}

TEST(Matmul, RelativeFrobeniusError) {
  std::vector<double> ref = {3.0, 4.0};
  EXPECT_EQ(relativeFrobeniusError(ActType::F16, {0x4200, 0x4400}, ref), 0.0);
  // got = (3, 5): |diff| = 1, |ref| = 5.
  EXPECT_DOUBLE_EQ(relativeFrobeniusError(ActType::F16, {0x4200, 0x4500}, ref),
                   0.2);
  EXPECT_TRUE(
      std::isnan(relativeFrobeniusError(ActType::F16, {0x4200, 0x7E00}, ref)));
  EXPECT_TRUE(
      std::isnan(relativeFrobeniusError(ActType::BF16, {0x7FFF, 0x4080}, ref)));
  EXPECT_TRUE(
      std::isinf(relativeFrobeniusError(ActType::F16, {0x7C00, 0x4400}, ref)));
}
