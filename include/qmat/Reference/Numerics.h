//===- Numerics.h - Scalar reference numerics for qmat formats --*- C++ -*-===//
//
// The bit-exact reference every generated kernel is compared against
// (docs/numerics.md defines the formats and the formulas). Plain C++: no MLIR dependency, so it can be linked
// into unit tests, GPU harnesses and host-side exactness checks alike.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_REFERENCE_NUMERICS_H
#define QMAT_REFERENCE_NUMERICS_H

#include <cstdint>
#include <string>
#include <vector>

namespace qmat::ref {

enum class Scheme { NVFP4, MXFP4, FP8, INT4 };
enum class ActType { F16, BF16 };

/// Canonical NaN produced by every rounding to an activation type. A NaN
/// result carries no payload; kernels must produce exactly this pattern.
constexpr uint16_t kCanonicalNaNF16 = 0x7FFF;
constexpr uint16_t kCanonicalNaNBF16 = 0x7FFF;

/// The bit pattern of an fp32 value and back (no conversion).
uint32_t floatToBits(float value);
float bitsToFloat(uint32_t bits);

// Element decoders. Each returns the exact fp32 value of the code.
float decodeE2M1(uint8_t code);   // uses the low 4 bits only
float decodeE4M3FN(uint8_t byte); // S.1111.111 is NaN
float decodeE8M0(uint8_t byte);   // 2^(byte-127); 0xFF is NaN
float decodeU4(uint8_t code);     // low 4 bits, 0..15

// Round-to-nearest-even from fp32, NaN -> canonical NaN, overflow -> inf.
uint16_t roundToF16(float value);
uint16_t roundToBF16(float value);
uint16_t roundToAct(ActType act, float value);
float f16BitsToFloat(uint16_t bits);
float bf16BitsToFloat(uint16_t bits);
float actBitsToFloat(ActType act, uint16_t bits);

/// A quantized weight matrix W [N, K] in one of the four schemes of
/// docs/numerics.md. Only the buffers the scheme uses are read.
struct QuantizedWeight {
  Scheme scheme = Scheme::NVFP4;
  ActType act = ActType::F16;
  int64_t n = 0, k = 0, blockSize = 16;
  /// nvfp4/mxfp4/int4: [N, K/2] two codes per byte, low nibble = even k.
  /// fp8: [N, K] e4m3 bytes.
  std::vector<uint8_t> codes;
  /// nvfp4: e4m3 bytes; mxfp4: e8m0 bytes. [N, ceil(K/bs)].
  std::vector<uint8_t> scaleBytes;
  /// fp8: fp32 scales [N, ceil(K/bs)].
  std::vector<float> scaleF32;
  /// int4: scales in the activation type (bits) [N, ceil(K/bs)].
  std::vector<uint16_t> scaleAct;
  /// nvfp4 only.
  float globalScale = 1.0f;
  /// int4 only: u4 zero points packed [N, ceil(ceil(K/bs)/2)]; empty = 8.
  std::vector<uint8_t> zeroPoints;

  int64_t numScaleBlocks() const { return (k + blockSize - 1) / blockSize; }
};

/// Validates buffer sizes against the scheme; returns an empty string when
/// consistent, otherwise a message naming the violated rule.
std::string validate(const QuantizedWeight &w);

/// The packed code of element (row, col) (nibble or byte, unsigned).
uint8_t codeAt(const QuantizedWeight &w, int64_t row, int64_t col);

/// Dequantized fp32 value before rounding (docs/numerics.md, left to right).
float dequantizeElementF32(const QuantizedWeight &w, int64_t row, int64_t col);
/// Dequantized element bits in the activation type.
uint16_t dequantizeElement(const QuantizedWeight &w, int64_t row, int64_t col);
/// Whole matrix [N, K], row-major, activation-type bits.
std::vector<uint16_t> dequantize(const QuantizedWeight &w);

/// Y[m, n] = sum_k A[m, k] * W[n, k] (+ bias[n]) in fp64, where A, W and the
/// bias are activation-type bits. W is [N, K] dequantized bits.
std::vector<double> matmulReference(ActType act, int64_t m, int64_t n,
                                    int64_t k, const std::vector<uint16_t> &a,
                                    const std::vector<uint16_t> &w,
                                    const std::vector<uint16_t> *bias);

/// ||got - ref||_F / ||ref||_F with got in activation-type bits. Returns NaN
/// if any element of got is NaN.
double relativeFrobeniusError(ActType act, const std::vector<uint16_t> &got,
                              const std::vector<double> &ref);

} // namespace qmat::ref

#endif // QMAT_REFERENCE_NUMERICS_H
