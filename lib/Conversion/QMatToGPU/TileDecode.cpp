//===- TileDecode.cpp - A lane's codes to matrix A pairs ------------------===//
//
// Packed decodes (exact: each pair holds the reference's rounded weights):
// - fp4: the nibble's sign lands on bit 15 of a 16-bit half and its three
//   magnitude bits under the exponent (f16: bits 11..9, bf16: bits 8..6),
//   which is code * 2^-14 (f16) or code * 2^-126 (bf16), subnormal 0.5
//   included. nvfp4 applies the block scale as a packed multiply by
//   scale * 2^(E - 7) (E = 14 or 126), exact because the product has at most
//   6 significant bits and stays in range; the factor 2^7 and the global
//   scale are applied to the fp32 sums. mxfp4 first multiplies by 2^E,
//   which gives the code's own value, then by 2^(e - 127): one rounding of
//   the exact product, as the reference's, including overflow to infinity
//   and underflow (2^(e - 127) alone would not fit one factor). f16 cannot
//   hold 2^(e - 127) either: it takes two factors 2^a 2^b, the first
//   keeping the product exact, the second rounding it once. Where every
//   scale of a step, in every lane of the warp, makes 2^(e - 127 + E) a
//   normal number (e <= 128; f16 raises e below 99 to 99, where every code
//   rounds to zero either way), a warp vote takes that single factor
//   instead, the same one rounding (PackedFp4Placement.h).
// - int4: the nibble under the magic bias (f16 1024, bf16 128, whose last
//   significand bit is 1) is bias + q; subtracting bias + zp leaves q - zp
//   exactly, and the multiply by the act-typed scale rounds the exact
//   product once, as the reference does in fp32. f16 reads the odd nibbles
//   in place at bits 4-7 (1024 + 16q) and centres them with x/16 - (64 + zp).
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/QMatToGPU/TileDecode.h"
#include "qmat/Conversion/QMatToGPU/DequantKernelBuilder.h"
#include "qmat/Conversion/QMatToGPU/PackedFp4Placement.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::qmat;

SmallVector<Value>
mlir::qmat::getDistinctScales(ArrayRef<PackedRowScales> rows) {
  SmallVector<Value> distinct;
  for (const PackedRowScales &row : rows)
    for (Value raw : row.rawScales)
      if (!llvm::is_contained(distinct, raw))
        distinct.push_back(raw);
  return distinct;
}

PackedDecoder::PackedDecoder(OpBuilder &builder, Location loc,
                             SchemeAttr scheme, Type act, bool hasZeroPoints,
                             const TargetInfo &target)
    : b(builder), loc(loc), scheme(scheme), act(act), f32(b.getF32Type()),
      i32(b.getI32Type()), i8(b.getI8Type()), hasZeroPoints(hasZeroPoints),
      target(target) {}

Value PackedDecoder::cI32(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, i32, v);
}

Value PackedDecoder::toPair(Value bits) {
  return vector::BitCastOp::create(
      b, loc, VectorType::get({2}, act),
      vector::BroadcastOp::create(b, loc, VectorType::get({1}, i32), bits));
}

Value PackedDecoder::splatHalves(Value bits) {
  return toPair(arith::OrIOp::create(
      b, loc, bits, arith::ShLIOp::create(b, loc, bits, cI32(16))));
}

Value PackedDecoder::scaleByte(Value raw) {
  return arith::ExtUIOp::create(b, loc, i32,
                                arith::BitcastOp::create(b, loc, i8, raw));
}

void PackedDecoder::addNvfp4Multipliers(ArrayRef<Value> distinct,
                                        DenseMap<Value, Value> &multiplier) {
  bool f16 = act.isF16();
  int64_t exponent = f16 ? 14 : 126;
  float fold = std::ldexp(1.0f, exponent - kPackedFp4ResidualExponent);
  auto pairType = VectorType::get({2}, act);
  auto f32Pair = VectorType::get({2}, f32);
  auto broadcastHalf = [&](Value pair, int64_t half) {
    return vector::ShuffleOp::create(b, loc, pair, pair,
                                     ArrayRef<int64_t>{half, half});
  };
  for (size_t i = 0; i < distinct.size(); i += 2) {
    Value first = distinct[i];
    Value second = i + 1 < distinct.size() ? distinct[i + 1] : first;
    Value bytes = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, i8),
        ValueRange{arith::BitcastOp::create(b, loc, i8, first),
                   arith::BitcastOp::create(b, loc, i8, second)});
    // One conversion for two scales where the target has it.
    Value halves = target.emitE4M3x2ToF16x2(b, loc, bytes);
    Value scaled;
    if (halves) {
      Value wide = arith::ExtFOp::create(b, loc, f32Pair, halves);
      scaled = arith::MulFOp::create(
          b, loc, wide,
          vector::BroadcastOp::create(
              b, loc, f32Pair,
              arith::ConstantFloatOp::create(b, loc, cast<FloatType>(f32),
                                             APFloat(fold))));
    } else {
      Value lo = emitScaleToF32(b, loc, scheme, first);
      Value hi = emitScaleToF32(b, loc, scheme, second);
      scaled = arith::MulFOp::create(
          b, loc,
          vector::FromElementsOp::create(b, loc, f32Pair, ValueRange{lo, hi}),
          vector::BroadcastOp::create(
              b, loc, f32Pair,
              arith::ConstantFloatOp::create(b, loc, cast<FloatType>(f32),
                                             APFloat(fold))));
    }
    // Exact: s * 2^(E - 7) keeps the e4m3 significand and stays in range.
    Value packed = arith::TruncFOp::create(b, loc, pairType, scaled);
    multiplier[first] = broadcastHalf(packed, 0);
    if (second != first)
      multiplier[second] = broadcastHalf(packed, 1);
  }
}

SmallVector<SmallVector<PackedDecoder::Factors>>
PackedDecoder::getFactors(ArrayRef<PackedRowScales> rows,
                          bool mxfp4OneMultiply) {
  SchemeKind kind = scheme.getKind();
  SmallVector<Value> distinct = getDistinctScales(rows);
  DenseMap<Value, Value> multiplier, lastMultiplier;
  // mxfp4's two-step product: 2^E first, for the code's own value.
  Value codeValue;
  if (kind == SchemeKind::mxfp4 && !mxfp4OneMultiply)
    codeValue = arith::ConstantOp::create(
        b, loc,
        SplatElementsAttr::get(
            VectorType::get({2}, act),
            b.getFloatAttr(act, std::ldexp(1.0, act.isF16() ? 14 : 126))));
  if (kind == SchemeKind::nvfp4) {
    addNvfp4Multipliers(distinct, multiplier);
  } else if (mxfp4OneMultiply) {
    // One factor 2^(e - 127 + E), a normal number for the step's scales
    // (allMxfp4OneMultiply).
    Mxfp4OneMultiply range = getMxfp4OneMultiply(act.isF16());
    for (Value raw : distinct) {
      Value e = scaleByte(raw);
      if (range.lowestE > 0)
        e = arith::MaxUIOp::create(b, loc, e, cI32(range.lowestE));
      multiplier[raw] = splatHalves(arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, e, cI32(range.exponentBias)),
          cI32(range.significandBits)));
    }
  } else if (kind == SchemeKind::mxfp4 && act.isF16()) {
    // f16 2^a and 2^b with a + b = e - 127 clamped to [-28, 17] (below,
    // every code rounds to zero; above, every nonzero code overflows),
    // a = clamp(e - 127, -14, 13): code * 2^a is exact (no overflow, no
    // bits below 2^-24) and the product by 2^b rounds once. NaN for 0xFF.
    for (Value raw : distinct) {
      Value e = scaleByte(raw);
      auto clamp = [&](Value v, int64_t lo, int64_t hi) {
        return arith::MinSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, v, cI32(lo)), cI32(hi));
      };
      Value total = clamp(arith::SubIOp::create(b, loc, e, cI32(127)), -28, 17);
      Value first = clamp(total, -14, 13);
      Value second = arith::SubIOp::create(b, loc, total, first);
      auto powerOfTwo = [&](Value exponent) {
        return arith::ShLIOp::create(
            b, loc, arith::AddIOp::create(b, loc, exponent, cI32(15)),
            cI32(10));
      };
      Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e,
                                          cI32(0xFF));
      multiplier[raw] = splatHalves(arith::SelectOp::create(
          b, loc, isNaN, cI32(0x7E00), powerOfTwo(first)));
      lastMultiplier[raw] = splatHalves(powerOfTwo(second));
    }
  } else if (kind == SchemeKind::mxfp4) {
    // bf16 2^(e - 127): the top half of the fp32 pattern (exact, its low
    // half is zero).
    for (Value raw : distinct)
      multiplier[raw] = splatHalves(arith::ShRUIOp::create(
          b, loc, emitE8M0ToF32Bits(b, loc, raw), cI32(16)));
  } else {
    // int4: the act-typed scale itself.
    for (Value raw : distinct)
      multiplier[raw] =
          vector::BroadcastOp::create(b, loc, VectorType::get({2}, act), raw);
  }

  SmallVector<SmallVector<Factors>> perRow;
  bool zeroPoints = kind == SchemeKind::int4 && hasZeroPoints;
  int64_t magic = act.isF16() ? 0x6400 : 0x4300;
  bool highNibbles = kind == SchemeKind::int4 && act.isF16();
  Value noZeroPoint, noZeroPointHigh;
  if (kind == SchemeKind::int4 && !hasZeroPoints) {
    noZeroPoint = splatHalves(cI32(magic | 8));
    if (highNibbles)
      noZeroPointHigh = splatHalves(cI32(kNegative64F16 | 8 << 4));
  }
  for (const PackedRowScales &row : rows) {
    SmallVector<Factors> words;
    Value lastZeroPoint, lastBlock, offset = noZeroPoint,
                                    highOffset = noZeroPointHigh;
    for (int64_t w = 0, e = row.rawScales.size(); w < e; ++w) {
      if (zeroPoints && (row.rawZeroPoints[w] != lastZeroPoint ||
                         row.blocks[w] != lastBlock)) {
        lastZeroPoint = row.rawZeroPoints[w];
        lastBlock = row.blocks[w];
        // The block's u4 zero point under the magic bias: bias + zp.
        Value zeroPoint = emitZeroPointNibble(
            b, loc, lastZeroPoint,
            arith::IndexCastUIOp::create(b, loc, i32, lastBlock));
        offset =
            splatHalves(arith::OrIOp::create(b, loc, zeroPoint, cI32(magic)));
        // -(64 + zp): f16 64 has a significand step of 1/16.
        if (highNibbles)
          highOffset = splatHalves(arith::OrIOp::create(
              b, loc, arith::ShLIOp::create(b, loc, zeroPoint, cI32(4)),
              cI32(kNegative64F16)));
      }
      words.push_back({multiplier.lookup(row.rawScales[w]), offset, codeValue,
                       lastMultiplier.lookup(row.rawScales[w]), highOffset});
    }
    perRow.push_back(words);
  }
  return perRow;
}

SmallVector<Value> PackedDecoder::decode(Value codes, ArrayRef<Factors> factors,
                                         int64_t firstWord, int64_t numWords) {
  bool f16 = act.isF16();
  SchemeKind kind = scheme.getKind();
  auto pairType = VectorType::get({2}, act);
  Value words =
      vector::BitCastOp::create(b, loc, VectorType::get({4}, i32), codes);
  SmallVector<Value> pairs(4 * numWords);
  int64_t endWord = firstWord + numWords;
  // One set of factors per word, or (chunks in the warpgroup's K order,
  // whose pairs come from 16 different words of the row) per pair.
  bool perPair = factors.size() == 16;
  auto factorOf = [&](int64_t w, int64_t j) -> const Factors & {
    return factors[perPair ? 4 * w + j : w];
  };
  if (kind == SchemeKind::int4) {
    Value nibbles = cI32(0x000F000F);
    Value magic = cI32(f16 ? 0x64006400 : 0x43004300);
    // f16's 10 significand bits hold a nibble at bits 4-7 too: 1024 + 16q,
    // which times 1/16 minus (64 + zp) is q - zp, exact fused or not (both
    // steps are), so a word takes one shift (by 8) instead of three.
    Value sixteenth =
        f16 ? Value(arith::ConstantOp::create(
                  b, loc,
                  SplatElementsAttr::get(pairType, b.getF16FloatAttr(0.0625))))
            : Value();
    for (int64_t w = firstWord; w < endWord; ++w) {
      Value x = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w});
      Value upper =
          f16 ? Value(arith::ShRUIOp::create(b, loc, x, cI32(8))) : Value();
      for (int64_t j = 0; j < 4; ++j) {
        // Nibbles j and j + 4 under the magic bias of each 16-bit half.
        bool high = f16 && j % 2 == 1;
        Value v = f16 ? (j < 2 ? x : upper)
                  : j == 0
                      ? x
                      : Value(arith::ShRUIOp::create(b, loc, x, cI32(4 * j)));
        Value mask = high ? cI32(0x00F000F0) : nibbles;
        Value biased = toPair(arith::OrIOp::create(
            b, loc, arith::AndIOp::create(b, loc, v, mask), magic));
        const Factors &factor = factorOf(w, j);
        Value centered =
            high ? Value(vector::FMAOp::create(b, loc, biased, sixteenth,
                                               factor.highOffset))
                 : Value(arith::SubFOp::create(b, loc, biased, factor.offset));
        pairs[4 * (w - firstWord) + j] =
            arith::MulFOp::create(b, loc, centered, factor.multiplier);
      }
    }
    return pairs;
  }

  // The bit placement of PackedFp4Placement.h: two selects per word, then
  // each pair one mask and at most one shift.
  PackedFp4Placement placement = getPackedFp4Placement(f16);
  Value pairMask = cI32(placement.pairMask);
  auto shifted = [&](Value x, int shift) -> Value {
    if (shift == 0)
      return x;
    if (shift > 0)
      return arith::ShLIOp::create(b, loc, x, cI32(shift));
    return arith::ShRUIOp::create(b, loc, x, cI32(-shift));
  };
  for (int64_t w = firstWord; w < endWord; ++w) {
    Value x = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w});
    Value selected[2];
    for (int i = 0; i < 2; ++i) {
      Value ifSet = shifted(x, placement.selectShift[i][0]);
      Value ifClear = shifted(x, placement.selectShift[i][1]);
      selected[i] = BitSelectOp::create(b, loc, i32, ifSet, ifClear,
                                        placement.selectMask);
    }
    for (int64_t j = 0; j < 4; ++j) {
      Value bits =
          shifted(selected[placement.pairSource[j]], placement.pairShift[j]);
      Value pair = toPair(arith::AndIOp::create(b, loc, bits, pairMask));
      const Factors &factor = factorOf(w, j);
      if (factor.codeValue)
        pair = arith::MulFOp::create(b, loc, pair, factor.codeValue);
      pair = arith::MulFOp::create(b, loc, pair, factor.multiplier);
      if (factor.lastMultiplier)
        pair = arith::MulFOp::create(b, loc, pair, factor.lastMultiplier);
      pairs[4 * (w - firstWord) + j] = pair;
    }
  }
  return pairs;
}
