//===- RefRound.h - An independent round-to-nearest-even ---------*- C++
//-*-===//
//
// Rounding written differently from lib/Reference (double arithmetic and
// std::nearbyint), so that a shared mistake in its integer bit manipulation
// cannot hide.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_TEST_UNIT_REFERENCE_REFROUND_H
#define QMAT_TEST_UNIT_REFERENCE_REFROUND_H

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace qmat::testing {

/// Independent RNE of a double into a binary format with `mantBits` stored
/// mantissa bits, exponent bias `bias` and `expBits` exponent bits. Relies on
/// std::nearbyint under the default to-nearest-even mode.
inline uint16_t refRound(double x, int mantBits, int expBits, int bias) {
  if (std::isnan(x))
    return 0x7FFF;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  uint16_t infBits = uint16_t(((1 << expBits) - 1) << mantBits);
  double a = std::fabs(x);
  if (std::isinf(a))
    return sign | infBits;
  int emin = 1 - bias;
  int e = 0;
  (void)std::frexp(a, &e); // a in [2^(e-1), 2^e)
  int exp = std::max(e - 1, emin);
  int quantumExp = exp - mantBits;
  double n = std::nearbyint(std::ldexp(a, -quantumExp));
  double r = std::ldexp(n, quantumExp);
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, -mantBits), bias);
  if (r > maxFinite)
    return sign | infBits;
  if (r < std::ldexp(1.0, emin))
    return sign | uint16_t(n); // subnormal or zero: n counts quanta
  int e2 = 0;
  (void)std::frexp(r, &e2);
  int unbiased = e2 - 1;
  double frac = std::ldexp(r, -unbiased) - 1.0;
  uint16_t mant = uint16_t(std::ldexp(frac, mantBits));
  return sign | uint16_t((unbiased + bias) << mantBits) | mant;
}

inline uint16_t refF16(double x) { return refRound(x, 10, 5, 15); }
inline uint16_t refBF16(double x) { return refRound(x, 7, 8, 127); }

} // namespace qmat::testing

#endif // QMAT_TEST_UNIT_REFERENCE_REFROUND_H
