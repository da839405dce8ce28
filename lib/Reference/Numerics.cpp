//===- Numerics.cpp - Scalar reference numerics for qmat formats ----------===//
//
// Every conversion here is done with integer bit manipulation on purpose: the
// compiler's own half-precision conversions are among the things this code is
// used to check, so it must not depend on them.
//
//===----------------------------------------------------------------------===//

#include "qmat/Reference/Numerics.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace qmat::ref {

float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint32_t floatToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

namespace {

constexpr uint32_t kF32ExpMask = 0x7F800000u;
constexpr uint32_t kF32AbsMask = 0x7FFFFFFFu;
constexpr uint32_t kF32QuietNaN = 0x7FC00000u;

bool isPackedScheme(Scheme s) { return s != Scheme::FP8; }

/// Rounds `value >> shift` to nearest, ties to even. `shift` is in [1, 63].
uint64_t shiftRightRNE(uint64_t value, unsigned shift) {
  uint64_t kept = value >> shift;
  uint64_t rest = value & ((uint64_t(1) << shift) - 1);
  uint64_t half = uint64_t(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1)))
    ++kept;
  return kept;
}

int64_t scaleIndex(const QuantizedWeight &w, int64_t row, int64_t col) {
  return row * w.numScaleBlocks() + col / w.blockSize;
}

} // namespace

float decodeE2M1(uint8_t code) {
  // Listed rather than computed so the table reads exactly like the format
  // definition in docs/numerics.md.
  static const float kMagnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f,
                                       2.0f, 3.0f, 4.0f, 6.0f};
  float mag = kMagnitudes[code & 0x7];
  return (code & 0x8) ? -mag : mag;
}

float decodeE4M3FN(uint8_t byte) {
  if ((byte & 0x7F) == 0x7F)
    return bitsToFloat(kF32QuietNaN | (uint32_t(byte & 0x80) << 24));
  uint32_t sign = uint32_t(byte & 0x80) << 24;
  uint32_t exp = (byte >> 3) & 0xF;
  uint32_t man = byte & 0x7;
  if (exp == 0) {
    // Subnormal: man * 2^-9. Small enough to normalise by hand into fp32.
    if (man == 0)
      return bitsToFloat(sign);
    int e = -9;
    while (!(man & 0x8)) {
      man <<= 1;
      --e;
    }
    // Now the value is (man / 8) * 2^(e + 3) with man in [8, 15].
    uint32_t f32Exp = uint32_t(e + 3 + 127);
    return bitsToFloat(sign | (f32Exp << 23) | ((man & 0x7) << 20));
  }
  // Rebias 7 -> 127 and widen the 3-bit mantissa to 23 bits.
  return bitsToFloat(sign | ((exp + 120) << 23) | (man << 20));
}

float decodeE8M0(uint8_t byte) {
  if (byte == 0xFF)
    return bitsToFloat(kF32QuietNaN);
  // 2^-127 is below fp32's normal range; it is the subnormal with only the
  // top mantissa bit set.
  if (byte == 0)
    return bitsToFloat(0x00400000u);
  return bitsToFloat(uint32_t(byte) << 23);
}

float decodeU4(uint8_t code) { return float(code & 0xF); }

uint16_t roundToF16(float value) {
  uint32_t bits = floatToBits(value);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t abs = bits & kF32AbsMask;
  if (abs > kF32ExpMask)
    return kCanonicalNaNF16;
  if (abs == kF32ExpMask)
    return sign | 0x7C00;

  uint32_t exp = abs >> 23;
  uint32_t man = abs & 0x7FFFFF;
  // fp16 normals start at 2^-14, i.e. fp32 biased exponent 127 - 14 = 113.
  if (exp >= 113) {
    // Overflowing the exponent field is not a special case: a mantissa
    // carry or a too-large exponent both land on or past 0x7C00 (inf).
    uint64_t joined = (uint64_t(exp - 112) << 23) | man;
    uint64_t h = shiftRightRNE(joined, 13);
    if (h >= 0x7C00)
      return sign | 0x7C00;
    return sign | uint16_t(h);
  }

  // Subnormal (or zero) result: count in units of 2^-24. The value is
  // sig * 2^(e - 150), so in those units it is sig * 2^(e - 126).
  uint32_t effExp = exp == 0 ? 1 : exp;
  uint32_t sig = exp == 0 ? man : (man | 0x800000);
  unsigned shift = 126 - effExp; // >= 14 here
  // sig < 2^24, so beyond a shift of 25 the value is below half a unit.
  if (shift > 25)
    return sign;
  // A carry out of the subnormal range yields 0x0400, the smallest normal,
  // which is exactly the right encoding.
  return sign | uint16_t(shiftRightRNE(sig, shift));
}

uint16_t roundToBF16(float value) {
  uint32_t bits = floatToBits(value);
  if ((bits & kF32AbsMask) > kF32ExpMask)
    return kCanonicalNaNBF16;
  // bf16 shares fp32's exponent, so RNE is a plain 16-bit rounding shift on
  // the whole pattern; a carry into the exponent (incl. to inf) is correct.
  uint32_t lsb = (bits >> 16) & 1;
  return uint16_t((uint64_t(bits) + 0x7FFF + lsb) >> 16);
}

uint16_t roundToAct(ActType act, float value) {
  return act == ActType::F16 ? roundToF16(value) : roundToBF16(value);
}

float f16BitsToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1F;
  uint32_t man = bits & 0x3FF;
  if (exp == 0x1F)
    return bitsToFloat(sign | kF32ExpMask | (man << 13));
  if (exp == 0) {
    // man * 2^-24 is exact in fp32 (at most 10 significant bits).
    float mag = std::ldexp(float(man), -24);
    return bitsToFloat(sign | floatToBits(mag));
  }
  return bitsToFloat(sign | ((exp + 112) << 23) | (man << 13));
}

float bf16BitsToFloat(uint16_t bits) {
  return bitsToFloat(uint32_t(bits) << 16);
}

float actBitsToFloat(ActType act, uint16_t bits) {
  return act == ActType::F16 ? f16BitsToFloat(bits) : bf16BitsToFloat(bits);
}

std::string validate(const QuantizedWeight &w) {
  if (w.n <= 0 || w.k <= 0)
    return "N and K must be positive";
  if (w.blockSize <= 0)
    return "block size must be positive";
  bool packed = isPackedScheme(w.scheme);
  if (packed && (w.k % 2) != 0)
    return "K must be even for packed 4-bit schemes (two codes per byte)";
  // Keep every size product below in range before computing it.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 4;
  if (w.n > kMax / w.k)
    return "N * K is too large";

  int64_t blocks = w.numScaleBlocks();
  int64_t scaleCount = w.n * blocks;
  int64_t codeBytes = packed ? w.n * (w.k / 2) : w.n * w.k;
  if (int64_t(w.codes.size()) != codeBytes)
    return packed ? "codes must hold N * K / 2 bytes (two 4-bit codes per "
                    "byte)"
                  : "codes must hold N * K e4m3 bytes";

  switch (w.scheme) {
  case Scheme::NVFP4:
    if (int64_t(w.scaleBytes.size()) != scaleCount)
      return "nvfp4 scaleBytes must hold N * ceil(K / blockSize) e4m3 bytes";
    break;
  case Scheme::MXFP4:
    if (int64_t(w.scaleBytes.size()) != scaleCount)
      return "mxfp4 scaleBytes must hold N * ceil(K / blockSize) e8m0 bytes";
    break;
  case Scheme::FP8:
    if (int64_t(w.scaleF32.size()) != scaleCount)
      return "fp8 scaleF32 must hold N * ceil(K / blockSize) fp32 scales";
    break;
  case Scheme::INT4: {
    if (int64_t(w.scaleAct.size()) != scaleCount)
      return "int4 scaleAct must hold N * ceil(K / blockSize) scales";
    int64_t zpBytes = w.n * ((blocks + 1) / 2);
    if (!w.zeroPoints.empty() && int64_t(w.zeroPoints.size()) != zpBytes)
      return "int4 zeroPoints must be empty or hold N * ceil(ceil(K / "
             "blockSize) / 2) bytes";
    break;
  }
  }
  return "";
}

uint8_t codeAt(const QuantizedWeight &w, int64_t row, int64_t col) {
  if (!isPackedScheme(w.scheme))
    return w.codes[row * w.k + col];
  uint8_t byte = w.codes[row * (w.k / 2) + col / 2];
  return (col & 1) ? uint8_t(byte >> 4) : uint8_t(byte & 0xF);
}

float dequantizeElementF32(const QuantizedWeight &w, int64_t row, int64_t col) {
  uint8_t code = codeAt(w, row, col);
  int64_t s = scaleIndex(w, row, col);
  switch (w.scheme) {
  case Scheme::NVFP4: {
    // Separate statements pin the left-to-right fp32 evaluation order.
    float partial = decodeE2M1(code) * decodeE4M3FN(w.scaleBytes[s]);
    return partial * w.globalScale;
  }
  case Scheme::MXFP4:
    return decodeE2M1(code) * decodeE8M0(w.scaleBytes[s]);
  case Scheme::FP8:
    return decodeE4M3FN(code) * w.scaleF32[s];
  case Scheme::INT4: {
    uint8_t zp = 8;
    if (!w.zeroPoints.empty()) {
      int64_t block = col / w.blockSize;
      int64_t zpRow = (w.numScaleBlocks() + 1) / 2;
      uint8_t byte = w.zeroPoints[row * zpRow + block / 2];
      zp = (block & 1) ? uint8_t(byte >> 4) : uint8_t(byte & 0xF);
    }
    float centered = decodeU4(code) - decodeU4(zp);
    return centered * actBitsToFloat(w.act, w.scaleAct[s]);
  }
  }
  return std::numeric_limits<float>::quiet_NaN();
}

uint16_t dequantizeElement(const QuantizedWeight &w, int64_t row, int64_t col) {
  return roundToAct(w.act, dequantizeElementF32(w, row, col));
}

std::vector<uint16_t> dequantize(const QuantizedWeight &w) {
  std::vector<uint16_t> out(size_t(w.n * w.k));
  for (int64_t r = 0; r < w.n; ++r)
    for (int64_t c = 0; c < w.k; ++c)
      out[size_t(r * w.k + c)] = dequantizeElement(w, r, c);
  return out;
}

std::vector<double> matmulReference(ActType act, int64_t m, int64_t n,
                                    int64_t k, const std::vector<uint16_t> &a,
                                    const std::vector<uint16_t> &w,
                                    const std::vector<uint16_t> *bias) {
  // Decode once: the operands are reused n (resp. m) times.
  std::vector<double> ad(a.size()), wd(w.size());
  for (size_t i = 0; i < a.size(); ++i)
    ad[i] = actBitsToFloat(act, a[i]);
  for (size_t i = 0; i < w.size(); ++i)
    wd[i] = actBitsToFloat(act, w[i]);

  std::vector<double> y(size_t(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < k; ++p)
        acc += ad[size_t(i * k + p)] * wd[size_t(j * k + p)];
      if (bias)
        acc += actBitsToFloat(act, (*bias)[size_t(j)]);
      y[size_t(i * n + j)] = acc;
    }
  }
  return y;
}

double relativeFrobeniusError(ActType act, const std::vector<uint16_t> &got,
                              const std::vector<double> &ref) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (got.size() != ref.size())
    return kNaN;
  double diff2 = 0.0, ref2 = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = actBitsToFloat(act, got[i]);
    if (std::isnan(g))
      return kNaN;
    double d = g - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
  }
  // A zero reference would give 0/0; an exact zero result is then error 0.
  if (ref2 == 0.0)
    return diff2 == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff2) / std::sqrt(ref2);
}

} // namespace qmat::ref
