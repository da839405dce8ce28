//===- RewriteDecode.cpp - Exact decode sequences for qmat.decode ---------===//
//
// Each rewrite turns packed codes into f16 (or bf16) bit patterns without a
// branch. Exactness is the point: every sequence here is also run on the CPU
// over every byte value (test/Unit/Exactness) and compared bit for bit with
// lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "qmat/Target/TargetInfo.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATREWRITEDECODE
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// f16 high bytes of the e2m1 magnitudes 0, 0.5, 1, 1.5 and 2, 3, 4, 6 (the
/// low bytes are all zero), as the two halves of a byte_perm table.
constexpr uint32_t kE2M1F16HighBytesLo = 0x3E3C3800;
constexpr uint32_t kE2M1F16HighBytesHi = 0x46444240;

/// The two upper bytes of the fp32 patterns of the same magnitudes: byte 3
/// (sign-less exponent high bits) and byte 2.
constexpr uint32_t kE2M1F32Byte3Lo = 0x3F3F3F00;
constexpr uint32_t kE2M1F32Byte3Hi = 0x40404040;
constexpr uint32_t kE2M1F32Byte2Lo = 0xC0800000;
constexpr uint32_t kE2M1F32Byte2Hi = 0xC0804000;

/// Emits the per-byte decode: for byte `i` of the codes, an i32 holding the
/// two 16-bit results (low nibble in the low half).
class DecodeEmitter {
public:
  DecodeEmitter(PatternRewriter &rewriter, Location loc,
                const TargetInfo &target)
      : b(rewriter), loc(loc), target(target), i32(b.getI32Type()) {}

  Value c(int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); }
  Value andI(Value x, int64_t m) {
    return arith::AndIOp::create(b, loc, x, c(m));
  }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, int64_t s) {
    return s == 0 ? x : arith::ShLIOp::create(b, loc, x, c(s)).getResult();
  }
  Value shr(Value x, int64_t s) {
    return s == 0 ? x : arith::ShRUIOp::create(b, loc, x, c(s)).getResult();
  }

  /// byte_perm table lookup: the magnitudes select f16 high bytes, the zero
  /// entry of the table fills the low bytes, the signs are OR-ed in.
  Value e2m1Lookup(Value byte) {
    Value selector = orI(shl(andI(byte, 0x07), 4), shl(andI(byte, 0x70), 8));
    Value magnitudes = BytePermOp::create(b, loc, i32, c(kE2M1F16HighBytesLo),
                                          c(kE2M1F16HighBytesHi), selector);
    Value signs = orI(shl(andI(byte, 0x08), 12), shl(andI(byte, 0x80), 24));
    return orI(magnitudes, signs);
  }

  /// fp32 lookup of four codes held in the low 16 bits of `word`: one
  /// byte_perm per table gives bytes 3 and 2 of all four values (the
  /// magnitudes are the selector as they stand), one more per value places
  /// them, and the sign comes from bit 3 of the code.
  SmallVector<Value> e2m1LookupF32(Value word) {
    Value selector = andI(word, 0x7777);
    Value high = BytePermOp::create(b, loc, i32, c(kE2M1F32Byte3Lo),
                                    c(kE2M1F32Byte3Hi), selector);
    Value low = BytePermOp::create(b, loc, i32, c(kE2M1F32Byte2Lo),
                                   c(kE2M1F32Byte2Hi), selector);
    SmallVector<Value> values;
    for (int64_t j = 0; j < 4; ++j) {
      // Bytes [0, 0, low[j], high[j]]. The zero bytes replicate the sign
      // of high[1] (selector 0xD), clear for every table entry; an odd
      // byte because v_perm_b32 replicates signs of odd bytes only, so the
      // AMD lowering stays one instruction.
      Value placed = BytePermOp::create(b, loc, i32, low, high,
                                        c(((4 + j) << 12) | (j << 8) | 0xDD));
      Value sign = andI(shl(word, 28 - 4 * j), 0x80000000);
      values.push_back(orI(placed, sign));
    }
    return values;
  }

  /// fp32 magic bias: the magnitude bits under the fp32 exponent give the
  /// value times 2^-126 (code 1 is the subnormal 2^-127).
  Value e2m1MagicBiasF32(Value word, int64_t j) {
    Value mag = andI(shr(word, 4 * j), 7);
    Value sign = andI(shl(word, 28 - 4 * j), 0x80000000);
    return orI(shl(mag, 22), sign);
  }

  /// Magic bias: the three magnitude bits land under the exponent field, so
  /// the f16 (bf16) pattern is code * 2^-14 (2^-126), subnormals included.
  Value e2m1MagicBias(Value byte, bool bf16) {
    int64_t magShift = bf16 ? 6 : 9;
    Value lo = orI(shl(andI(byte, 0x07), magShift), shl(andI(byte, 0x08), 12));
    Value hi =
        orI(shl(andI(byte, 0x70), magShift + 12), shl(andI(byte, 0x80), 24));
    return orI(lo, hi);
  }

  /// Plain arithmetic on each nibble: the f16 exponent and mantissa computed
  /// from the magnitude, 0 and 0.5 selected apart.
  Value e2m1ArithNibble(Value nibble) {
    Value mag = andI(nibble, 7);
    Value exponent = arith::AddIOp::create(b, loc, shr(mag, 1), c(14));
    Value normal = orI(shl(exponent, 10), shl(andI(mag, 1), 9));
    Value isHalf =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mag, c(1));
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mag, c(0));
    Value bits = arith::SelectOp::create(b, loc, isHalf, c(0x3800), normal);
    bits = arith::SelectOp::create(b, loc, isZero, c(0), bits);
    return orI(bits, shl(andI(nibble, 8), 12));
  }
  Value e2m1Arith(Value byte) {
    return orI(e2m1ArithNibble(andI(byte, 15)),
               shl(e2m1ArithNibble(shr(byte, 4)), 16));
  }

  /// 0x6400 | q is 1024 + q in f16 (0x4300 | q is 128 + q in bf16); the
  /// caller subtracts the bias in the floating-point type.
  Value u4MagicBias(Value byte, bool bf16) {
    Value pair = orI(andI(byte, 0x0F), shl(andI(byte, 0xF0), 12));
    return orI(pair, c(bf16 ? 0x43004300 : 0x64006400));
  }

  OpBuilder &b;
  Location loc;
  const TargetInfo &target;
  Type i32;
};

/// Splits `codes` (vector<N x i8>) into i32 values holding one byte each.
SmallVector<Value> extractBytes(OpBuilder &b, Location loc, Value codes) {
  auto type = cast<VectorType>(codes.getType());
  SmallVector<Value> bytes;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    Value byte = vector::ExtractOp::create(b, loc, codes, ArrayRef<int64_t>{i});
    bytes.push_back(arith::ExtUIOp::create(b, loc, b.getI32Type(), byte));
  }
  return bytes;
}

/// The rewrite `op` gets: the forced one when it applies to the format,
/// else the op's own, else the target's default. Diagnoses (when `emit`)
/// a method the target lacks and an exponent bias the method cannot give.
FailureOr<DecodeMethod> resolveDecodeMethod(DecodeOp op,
                                            const TargetInfo &target,
                                            std::optional<DecodeMethod> forced,
                                            bool emit = false) {
  ElementFormat format = op.getFormat();
  DecodeMethod own = op.getMethod().value_or(target.getDefaultDecode(format));
  // A forced rewrite that cannot apply to this format (lookup of u4, say)
  // leaves the op's own choice in place rather than failing the kernel.
  DecodeMethod method =
      forced && target.supportsDecode(format, *forced) ? *forced : own;
  if (!target.supportsDecode(format, method)) {
    if (emit)
      op.emitOpError() << "decode method '" << stringifyDecodeMethod(method)
                       << "' is not available for "
                       << stringifyElementFormat(format) << " on this target";
    return failure();
  }
  bool magic =
      format == ElementFormat::e2m1 && method == DecodeMethod::magic_bias;
  if (magic != (op.getExponentBias() != 0)) {
    if (emit)
      op.emitOpError() << "exponent_bias " << op.getExponentBias()
                       << " does not match the "
                       << stringifyDecodeMethod(method)
                       << " rewrite (only magic_bias of e2m1 leaves a bias)";
    return failure();
  }
  return method;
}

struct RewriteDecodeOp : OpRewritePattern<DecodeOp> {
  RewriteDecodeOp(MLIRContext *context, const TargetInfo &target,
                  std::optional<DecodeMethod> forced)
      : OpRewritePattern(context), target(target), forced(forced) {}

  LogicalResult matchAndRewrite(DecodeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ElementFormat format = op.getFormat();
    FailureOr<DecodeMethod> resolved = resolveDecodeMethod(op, target, forced);
    if (failed(resolved))
      return rewriter.notifyMatchFailure(op, "no exact decode here");
    DecodeMethod method = *resolved;
    auto resultType = cast<VectorType>(op.getValues().getType());
    Type element = resultType.getElementType();

    DecodeEmitter em(rewriter, loc, target);
    SmallVector<Value> bytes = extractBytes(rewriter, loc, op.getCodes());
    Type f16 = rewriter.getF16Type(), bf16 = rewriter.getBF16Type();
    auto words = [&](ArrayRef<Value> pairs, Type half) -> Value {
      auto wordType = VectorType::get({(int64_t)pairs.size()}, em.i32);
      Value vec =
          vector::FromElementsOp::create(rewriter, loc, wordType, pairs);
      return vector::BitCastOp::create(
          rewriter, loc, VectorType::get({2 * (int64_t)pairs.size()}, half),
          vec);
    };

    Value result;
    switch (format) {
    case ElementFormat::e2m1: {
      if (element.isF32() && (method == DecodeMethod::lookup ||
                              method == DecodeMethod::magic_bias)) {
        // Straight to fp32: no half-precision intermediate to widen.
        SmallVector<Value> values;
        for (int64_t i = 0, e = bytes.size(); i < e; i += 2) {
          Value word = bytes[i];
          if (i + 1 < e)
            word = em.orI(word, em.shl(bytes[i + 1], 8));
          int64_t count = std::min<int64_t>(4, 2 * (e - i));
          if (method == DecodeMethod::lookup) {
            SmallVector<Value> four = em.e2m1LookupF32(word);
            values.append(four.begin(), four.begin() + count);
          } else {
            for (int64_t j = 0; j < count; ++j)
              values.push_back(em.e2m1MagicBiasF32(word, j));
          }
        }
        auto bitsType = VectorType::get({(int64_t)values.size()}, em.i32);
        Value bitsVec =
            vector::FromElementsOp::create(rewriter, loc, bitsType, values);
        result = vector::BitCastOp::create(rewriter, loc, resultType, bitsVec);
        break;
      }
      bool toBF16 = element.isBF16() && method == DecodeMethod::magic_bias;
      SmallVector<Value> pairs;
      for (Value byte : bytes) {
        switch (method) {
        case DecodeMethod::lookup:
          pairs.push_back(em.e2m1Lookup(byte));
          break;
        case DecodeMethod::magic_bias:
          pairs.push_back(em.e2m1MagicBias(byte, toBF16));
          break;
        case DecodeMethod::arith:
          pairs.push_back(em.e2m1Arith(byte));
          break;
        case DecodeMethod::native:
          break;
        }
      }
      if (method == DecodeMethod::native) {
        SmallVector<Value> halves;
        for (int64_t i = 0, e = bytes.size(); i < e; ++i) {
          Value byte = vector::ExtractOp::create(rewriter, loc, op.getCodes(),
                                                 ArrayRef<int64_t>{i});
          Value pair = target.emitNativeFp4x2ToF16x2(rewriter, loc, byte);
          for (int64_t j = 0; j < 2; ++j)
            halves.push_back(vector::ExtractOp::create(rewriter, loc, pair,
                                                       ArrayRef<int64_t>{j}));
        }
        result = vector::FromElementsOp::create(
            rewriter, loc, VectorType::get({2 * (int64_t)bytes.size()}, f16),
            halves);
      } else {
        result = words(pairs, toBF16 ? bf16 : f16);
      }
      break;
    }
    case ElementFormat::u4: {
      bool toBF16 = element.isBF16();
      SmallVector<Value> pairs;
      if (method == DecodeMethod::magic_bias) {
        for (Value byte : bytes)
          pairs.push_back(em.u4MagicBias(byte, toBF16));
        Type half = toBF16 ? bf16 : f16;
        Value biased = words(pairs, half);
        auto halfVec = cast<VectorType>(biased.getType());
        Value bias = arith::ConstantOp::create(
            rewriter, loc, halfVec,
            DenseElementsAttr::get(
                halfVec, rewriter.getFloatAttr(half, toBF16 ? 128.0 : 1024.0)));
        // (bias + q) - bias is exact: both are small integers.
        result = arith::SubFOp::create(rewriter, loc, biased, bias);
      } else {
        SmallVector<Value> halves;
        for (Value byte : bytes)
          for (int64_t shift : {0, 4})
            halves.push_back(arith::UIToFPOp::create(
                rewriter, loc, f16, em.andI(em.shr(byte, shift), 15)));
        result = vector::FromElementsOp::create(
            rewriter, loc, VectorType::get({2 * (int64_t)bytes.size()}, f16),
            halves);
      }
      break;
    }
    case ElementFormat::e4m3: {
      if (method == DecodeMethod::native) {
        // Two codes per conversion; every e4m3 value (NaN included) is an
        // f16 value, so the widening below changes none.
        SmallVector<Value> halves;
        int64_t count = bytes.size();
        for (int64_t i = 0; i < count; i += 2) {
          Value pair = target.emitE4M3x2ToF16x2(
              rewriter, loc,
              vector::ShuffleOp::create(
                  rewriter, loc, op.getCodes(), op.getCodes(),
                  ArrayRef<int64_t>{i, std::min(i + 1, count - 1)}));
          for (int64_t j = 0; j < 2 && i + j < count; ++j)
            halves.push_back(vector::ExtractOp::create(rewriter, loc, pair,
                                                       ArrayRef<int64_t>{j}));
        }
        result = vector::FromElementsOp::create(
            rewriter, loc, VectorType::get({(int64_t)halves.size()}, f16),
            halves);
        break;
      }
      // Shifted under the f16 exponent, an e4m3 pattern reads as its value
      // times 2^-8, subnormals included; NaN (S.1111.111) is patched in.
      SmallVector<Value> values;
      Type f32 = rewriter.getF32Type();
      for (Value byte : bytes) {
        Value bits = em.orI(em.shl(em.andI(byte, 0x80), 8),
                            em.shl(em.andI(byte, 0x7F), 7));
        Value half = arith::BitcastOp::create(
            rewriter, loc, f16,
            arith::TruncIOp::create(rewriter, loc, rewriter.getI16Type(),
                                    bits));
        Value wide = arith::ExtFOp::create(rewriter, loc, f32, half);
        wide = arith::MulFOp::create(
            rewriter, loc, wide,
            arith::ConstantFloatOp::create(rewriter, loc, cast<FloatType>(f32),
                                           APFloat(256.0f)));
        Value isNaN =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                  em.andI(byte, 0x7F), em.c(0x7F));
        Value nan = arith::ConstantFloatOp::create(
            rewriter, loc, cast<FloatType>(f32),
            APFloat::getQNaN(APFloat::IEEEsingle()));
        values.push_back(
            arith::SelectOp::create(rewriter, loc, isNaN, nan, wide));
      }
      result = vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({(int64_t)values.size()}, f32),
          values);
      break;
    }
    }

    // Widen or narrow to the requested element type. Every decoded value is
    // exact in f16, bf16 and f32, so the conversion changes no value.
    auto resultElement = cast<VectorType>(result.getType()).getElementType();
    if (resultElement != element) {
      if (resultElement.getIntOrFloatBitWidth() <
          element.getIntOrFloatBitWidth())
        result = arith::ExtFOp::create(rewriter, loc, resultType, result);
      else if (resultElement.getIntOrFloatBitWidth() >
               element.getIntOrFloatBitWidth())
        result = arith::TruncFOp::create(rewriter, loc, resultType, result);
      else {
        auto f32Type =
            VectorType::get(resultType.getShape(), rewriter.getF32Type());
        result = arith::TruncFOp::create(
            rewriter, loc, resultType,
            arith::ExtFOp::create(rewriter, loc, f32Type, result));
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  const TargetInfo &target;
  std::optional<DecodeMethod> forced;
};

struct QMatRewriteDecodePass
    : qmat::impl::QMatRewriteDecodeBase<QMatRewriteDecodePass> {
  using Base::Base;

  void runOnOperation() override {
    auto info = lookupTargetInfoOrEmit(getOperation(), target);
    if (!info)
      return signalPassFailure();
    std::optional<DecodeMethod> forcedMethod;
    if (force != "auto") {
      forcedMethod = symbolizeDecodeMethod(force);
      if (!forcedMethod) {
        emitError(getOperation()->getLoc())
            << "unknown decode method '" << force
            << "' (expected auto, arith, lookup, magic_bias or native)";
        return signalPassFailure();
      }
    }
    bool invalid = false;
    getOperation()->walk([&](DecodeOp op) {
      invalid |=
          failed(resolveDecodeMethod(op, *info, forcedMethod, /*emit=*/true));
    });
    if (invalid)
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateDecodeRewritePatterns(patterns, *info, forcedMethod);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::qmat::populateDecodeRewritePatterns(
    RewritePatternSet &patterns, const TargetInfo &target,
    std::optional<DecodeMethod> forced) {
  patterns.add<RewriteDecodeOp>(patterns.getContext(), target, forced);
}
