//===- BytePermToPerm.cpp - qmat.byte_perm as AMD v_perm_b32 --------------===//
//
// qmat.byte_perm has PTX prmt semantics: four 4-bit selectors, bit 3 asking
// for the selected byte's sign replicated. v_perm_b32 (llvm.amdgcn.perm)
// takes one 8-bit selector per result byte over {src0, src1} (src1 supplies
// bytes 0-3): 0-7 copy a byte, 8-11 replicate the sign of byte 1, 3, 5 or 7
// (odd bytes only), 12 gives 0x00 and 13-255 give 0xFF.
//
// So a selector translates in one of three ways, picked from what is known
// about its bits at compile time:
//   copy:    no sign requests: selector byte i = nibble i & 7 (one perm);
//   direct:  every sign request names an odd byte 2j+1: selector 8+j;
//   general: each requested byte is first moved to an odd position of two
//            staging words, where the final perm can copy it or replicate
//            its sign (three perms).
// The translation is integer arithmetic on the selector (constants fold),
// the same ops whether the perm then runs on a GPU or in the host model,
// which emulates v_perm_b32 in arith so that the whole sequence is checked
// bit for bit on the CPU (test/Unit/Exactness).
//
//===----------------------------------------------------------------------===//

#include "qmat/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// Bits of an i32 known to be zero or one.
struct KnownBits {
  uint32_t zero = 0, one = 0;
};

/// A small known-bits walk over the integer ops the decode rewrites build
/// their selectors from; anything else is unknown.
KnownBits computeKnownBits(Value value, unsigned depth = 0) {
  KnownBits unknown;
  auto type = dyn_cast<IntegerType>(value.getType());
  if (!type || type.getWidth() > 32 || depth > 8)
    return unknown;
  uint32_t widthMask =
      type.getWidth() == 32 ? ~0u : (1u << type.getWidth()) - 1;
  Operation *def = value.getDefiningOp();
  if (!def)
    return unknown;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    uint32_t v = static_cast<uint32_t>(constant.getZExtValue()) & widthMask;
    return {~v, v};
  }
  auto constantShift = [&](Value amount) -> std::optional<uint32_t> {
    APInt s;
    if (matchPattern(amount, m_ConstantInt(&s)) && s.ult(type.getWidth()))
      return static_cast<uint32_t>(s.getZExtValue());
    return std::nullopt;
  };
  KnownBits result = unknown;
  if (auto op = dyn_cast<arith::AndIOp>(def)) {
    KnownBits l = computeKnownBits(op.getLhs(), depth + 1);
    KnownBits r = computeKnownBits(op.getRhs(), depth + 1);
    result = {l.zero | r.zero, l.one & r.one};
  } else if (auto op = dyn_cast<arith::OrIOp>(def)) {
    KnownBits l = computeKnownBits(op.getLhs(), depth + 1);
    KnownBits r = computeKnownBits(op.getRhs(), depth + 1);
    result = {l.zero & r.zero, l.one | r.one};
  } else if (auto op = dyn_cast<arith::ShLIOp>(def)) {
    if (auto s = constantShift(op.getRhs())) {
      KnownBits l = computeKnownBits(op.getLhs(), depth + 1);
      result = {(l.zero << *s) | ((1u << *s) - 1), l.one << *s};
    }
  } else if (auto op = dyn_cast<arith::ShRUIOp>(def)) {
    if (auto s = constantShift(op.getRhs())) {
      KnownBits l = computeKnownBits(op.getLhs(), depth + 1);
      uint32_t high = *s == 0 ? 0 : ~(widthMask >> *s) & widthMask;
      result = {((l.zero & widthMask) >> *s) | high, (l.one & widthMask) >> *s};
    }
  } else if (auto op = dyn_cast<arith::ExtUIOp>(def)) {
    auto from = cast<IntegerType>(op.getIn().getType());
    KnownBits in = computeKnownBits(op.getIn(), depth + 1);
    uint32_t inMask = (1u << from.getWidth()) - 1;
    result = {(in.zero & inMask) | ~inMask, in.one & inMask};
  }
  // Bits outside the type are neither: keep the masks to its width.
  return {result.zero & widthMask, result.one & widthMask};
}

enum class Translation { copy, direct, general };

Translation chooseTranslation(Value selector) {
  KnownBits known = computeKnownBits(selector);
  bool signFree = true, oddOnly = true;
  for (int i = 0; i < 4; ++i) {
    bool noSign = known.zero & (8u << (4 * i));
    bool odd = known.one & (1u << (4 * i));
    signFree &= noSign;
    oddOnly &= noSign || odd;
  }
  if (signFree)
    return Translation::copy;
  return oddOnly ? Translation::direct : Translation::general;
}

/// Builds the integer arithmetic; `perm` emits one v_perm_b32.
class PermLowering {
public:
  using PermBuilder =
      function_ref<Value(OpBuilder &, Location, Value, Value, Value)>;

  PermLowering(OpBuilder &b, Location loc, PermBuilder perm)
      : b(b), loc(loc), perm(perm), i32(b.getI32Type()) {}

  Value lower(Value low, Value high, Value selector) {
    Translation translation = chooseTranslation(selector);
    // Nibble i of the 16 selector bits into byte i: 0x0000DCBA -> 0x0D0C0B0A.
    Value x = andI(selector, 0xFFFF);
    Value t = andI(orI(x, shl(x, 8)), 0x00FF00FF);
    Value nibbles = andI(orI(t, shl(t, 4)), 0x0F0F0F0F);
    Value index = andI(nibbles, 0x07070707);
    if (translation == Translation::copy)
      return perm(b, loc, high, low, index);
    // 0xFF in every byte whose nibble asks for a sign (0/1 per byte times
    // 0xFF cannot carry into the next byte).
    Value signMask = mul(andI(shr(nibbles, 3), 0x01010101), c(0xFF));
    auto choose = [&](Value plain, Value sign) {
      return xorI(plain, andV(xorI(plain, sign), signMask));
    };
    if (translation == Translation::direct) {
      // The sign of byte 2j+1 is selector 8+j.
      Value signSelector = orI(andI(shr(index, 1), 0x03030303), c(0x08080808));
      return perm(b, loc, high, low, choose(index, signSelector));
    }
    // Staging: result bytes 0 and 1 come from bytes 1 and 3 of `lowStage`,
    // bytes 2 and 3 from bytes 1 and 3 of `highStage` (12 zeroes the rest).
    Value lowStage =
        perm(b, loc, high, low,
             orI(orI(shl(andI(index, 0xFF), 8), shl(andI(index, 0xFF00), 16)),
                 c(0x000C000C)));
    Value highStage =
        perm(b, loc, high, low,
             orI(orI(shr(andI(index, 0xFF0000), 8), andI(index, 0xFF000000)),
                 c(0x000C000C)));
    // Copy byte 2i+1 of {highStage, lowStage}, or replicate its sign (8+i).
    Value final = choose(c(0x07050301), c(0x0B0A0908));
    return perm(b, loc, highStage, lowStage, final);
  }

private:
  Value c(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32,
                                        static_cast<int32_t>(uint32_t(v)));
  }
  Value andI(Value x, int64_t m) { return andV(x, c(m)); }
  Value andV(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value shl(Value x, int64_t s) {
    return arith::ShLIOp::create(b, loc, x, c(s));
  }
  Value shr(Value x, int64_t s) {
    return arith::ShRUIOp::create(b, loc, x, c(s));
  }

  OpBuilder &b;
  Location loc;
  PermBuilder perm;
  Type i32;
};

Value emitAMDGCNPerm(OpBuilder &b, Location loc, Value src0, Value src1,
                     Value selector) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getI32Type(),
                                       b.getStringAttr("llvm.amdgcn.perm"),
                                       ValueRange{src0, src1, selector})
      .getResult(0);
}

/// v_perm_b32 in plain integer arithmetic, every selector value included
/// (AMD's ISA: BYTE_PERMUTE({S0, S1}, sel), S0 holding bytes 4-7).
Value emitPermOnHost(OpBuilder &b, Location loc, Value src0, Value src1,
                     Value selector) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  Value pool = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, src0),
                            c64(32)),
      arith::ExtUIOp::create(b, loc, i64, src1));
  auto byteAt = [&](Value index) -> Value {
    Value shift = arith::ExtUIOp::create(
        b, loc, i64, arith::MulIOp::create(b, loc, index, c32(8)));
    return arith::TruncIOp::create(
        b, loc, i32,
        arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, pool, shift), c64(0xFF)));
  };
  auto ult = [&](Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 c32(bound));
  };
  Value result = c32(0);
  for (int64_t i = 0; i < 4; ++i) {
    Value sel = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, selector, c32(8 * i)),
        c32(0xFF));
    Value plain = byteAt(arith::AndIOp::create(b, loc, sel, c32(7)));
    // 8..11: the sign of byte 2(sel & 3) + 1.
    Value odd = arith::OrIOp::create(
        b, loc,
        arith::ShLIOp::create(
            b, loc, arith::AndIOp::create(b, loc, sel, c32(3)), c32(1)),
        c32(1));
    Value replicated = arith::MulIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, byteAt(odd), c32(7)), c32(0xFF));
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sel, c32(12));
    Value chosen = arith::SelectOp::create(b, loc, isZero, c32(0), c32(0xFF));
    chosen = arith::SelectOp::create(b, loc, ult(sel, 12), replicated, chosen);
    chosen = arith::SelectOp::create(b, loc, ult(sel, 8), plain, chosen);
    result = arith::OrIOp::create(
        b, loc, result, arith::ShLIOp::create(b, loc, chosen, c32(8 * i)));
  }
  return result;
}

struct BytePermToAMDGCNPerm : OpRewritePattern<BytePermOp> {
  BytePermToAMDGCNPerm(MLIRContext *context, bool onHost)
      : OpRewritePattern(context), onHost(onHost) {}

  LogicalResult matchAndRewrite(BytePermOp op,
                                PatternRewriter &rewriter) const override {
    PermLowering lowering(rewriter, op.getLoc(),
                          onHost ? emitPermOnHost : emitAMDGCNPerm);
    rewriter.replaceOp(
        op, lowering.lower(op.getLow(), op.getHigh(), op.getSelector()));
    return success();
  }

  bool onHost;
};

} // namespace

void mlir::qmat::populateBytePermToAMDGCNPermPatterns(
    RewritePatternSet &patterns, bool emulateOnHost) {
  patterns.add<BytePermToAMDGCNPerm>(patterns.getContext(), emulateOnHost);
}

std::unique_ptr<TargetInfo> mlir::qmat::createROCDLHostModelTargetInfo() {
  return createHostTargetInfo([](RewritePatternSet &patterns) {
    populateBytePermToAMDGCNPermPatterns(patterns, /*emulateOnHost=*/true);
  });
}
