//===- TileDecode.h - A lane's codes to matrix A pairs ----------*- C++ -*-===//
//
// The expansion of qmat.decode_tile (qmat-expand-decode-tile): the packed
// decode of nvfp4, mxfp4 and int4 codes straight into pairs of
// activation-typed weights, two 16-bit halves of a 32-bit register at a
// time (PackedDecoder).
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_CONVERSION_QMATTOGPU_TILEDECODE_H
#define QMAT_CONVERSION_QMATTOGPU_TILEDECODE_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/IR/Builders.h"

namespace mlir::qmat {

/// The power of two left on the packed nvfp4 weights: their pairs are
/// e2m1 · scale · 2^-kPackedFp4ResidualExponent, the caller multiplies its
/// fp32 sums by 2^kPackedFp4ResidualExponent.
constexpr int kPackedFp4ResidualExponent = 7;
/// f16 -64: the sign and exponent of -(64 + zp), whose significand is
/// zp << 4.
constexpr int64_t kNegative64F16 = 0xD400;

/// One row's scales as the decode reads them: per 8-element word (or per
/// pair), its scale block, raw scale and (int4 with zero points) the byte
/// holding the zero point; entries of one block repeat the Value, which is
/// how the decode converts each distinct scale once.
struct PackedRowScales {
  SmallVector<Value> blocks, rawScales, rawZeroPoints;
};

class PackedDecoder {
public:
  PackedDecoder(OpBuilder &builder, Location loc, SchemeAttr scheme, Type act,
                bool hasZeroPoints, const TargetInfo &target);

  /// What the decode of one word (or pair) applies after the bit placement:
  /// pair = (pair - offset) * multiplier, all vector<2 x act> (offset only
  /// for int4).
  struct Factors {
    Value multiplier, offset;
    /// mxfp4's two-step product: 2^E, undoing the bit placement's 2^-E
    /// first for the code's own value.
    Value codeValue;
    /// mxfp4 with f16 activations: a second power of two, applied last.
    Value lastMultiplier;
    /// int4 with f16 activations: -(64 + zp), for the odd nibbles' fma.
    Value highOffset;
  };
  /// Per row and entry of its rawScales, the factors, each distinct scale
  /// converted once. `oneMultiply` (mxfp4): every scale byte is at most
  /// getMxfp4OneMultiply's maxE, one factor per pair.
  SmallVector<SmallVector<Factors>> getFactors(ArrayRef<PackedRowScales> rows,
                                               bool oneMultiply);
  /// Pairs 4w .. 4w + 3 of words [firstWord, firstWord + numWords) of
  /// `codes` (vector<16xi8>), pair 4w + j holding elements 8w + j and
  /// 8w + j + 4. `factors` holds one entry per word, or one per pair.
  SmallVector<Value> decode(Value codes, ArrayRef<Factors> factors,
                            int64_t firstWord = 0, int64_t numWords = 4);

private:
  void addNvfp4Multipliers(ArrayRef<Value> distinct,
                           DenseMap<Value, Value> &multiplier);
  Value cI32(int64_t v);
  /// An i32 as a vector<2 x act> (low half first).
  Value toPair(Value bits);
  /// Both halves of a vector<2 x act> set to the 16-bit pattern `bits`.
  Value splatHalves(Value bits);
  /// A raw e8m0 scale's byte, zero-extended to i32.
  Value scaleByte(Value raw);

  OpBuilder &b;
  Location loc;
  SchemeAttr scheme;
  Type act, f32, i32, i8;
  bool hasZeroPoints;
  const TargetInfo &target;
};

/// The distinct raw scales of `rows`, in order of first use.
SmallVector<Value> getDistinctScales(ArrayRef<PackedRowScales> rows);

} // namespace mlir::qmat

#endif // QMAT_CONVERSION_QMATTOGPU_TILEDECODE_H
