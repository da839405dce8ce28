//===- HostTargetInfo.cpp - The CPU as a model target ---------------------===//
//
// Runs the decode rewrites on the CPU so that `make check` proves them exact
// without a GPU. It claims every rewrite except the native conversions,
// which only hardware has.
//
//===----------------------------------------------------------------------===//

#include "qmat/Target/TargetInfo.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// prmt's default mode in plain integer arithmetic: byte i of the result is
/// byte sel[4i+2:4i] of {high, low}, or that byte's sign replicated when
/// sel[4i+3] is set.
struct BytePermToArith : OpRewritePattern<BytePermOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BytePermOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto c32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, i32, v);
    };
    auto c64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, i64, v);
    };
    Value pool = arith::OrIOp::create(
        rewriter, loc,
        arith::ShLIOp::create(
            rewriter, loc,
            arith::ExtUIOp::create(rewriter, loc, i64, op.getHigh()), c64(32)),
        arith::ExtUIOp::create(rewriter, loc, i64, op.getLow()));
    Value result = c32(0);
    for (int64_t i = 0; i < 4; ++i) {
      Value nibble = arith::AndIOp::create(
          rewriter, loc,
          arith::ShRUIOp::create(rewriter, loc, op.getSelector(), c32(4 * i)),
          c32(15));
      Value index = arith::AndIOp::create(rewriter, loc, nibble, c32(7));
      Value shift = arith::ExtUIOp::create(
          rewriter, loc, i64,
          arith::MulIOp::create(rewriter, loc, index, c32(8)));
      Value byte = arith::TruncIOp::create(
          rewriter, loc, i32,
          arith::AndIOp::create(
              rewriter, loc, arith::ShRUIOp::create(rewriter, loc, pool, shift),
              c64(0xFF)));
      Value sign = arith::ShRUIOp::create(rewriter, loc, byte, c32(7));
      Value replicated = arith::MulIOp::create(rewriter, loc, sign, c32(0xFF));
      Value useSign = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(rewriter, loc, nibble, c32(8)), c32(0));
      Value chosen =
          arith::SelectOp::create(rewriter, loc, useSign, replicated, byte);
      result = arith::OrIOp::create(
          rewriter, loc, result,
          arith::ShLIOp::create(rewriter, loc, chosen, c32(8 * i)));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

class HostTargetInfo final : public TargetInfo {
public:
  explicit HostTargetInfo(
      std::function<void(RewritePatternSet &)> populateBytePermPatterns)
      : populateBytePermPatterns(std::move(populateBytePermPatterns)) {}

  std::optional<Chip> getChip() const override { return std::nullopt; }
  unsigned getWarpSize() const override { return 1; }
  DecodeMethod getDefaultDecode(ElementFormat format) const override {
    return format == ElementFormat::e2m1 ? DecodeMethod::lookup
                                         : DecodeMethod::arith;
  }
  void
  populateLowerToTargetPatterns(RewritePatternSet &patterns) const override {
    if (populateBytePermPatterns)
      populateBytePermPatterns(patterns);
    else
      patterns.add<BytePermToArith>(patterns.getContext());
    populateGenericLowerToTargetPatterns(patterns);
  }
  Attribute getGpuModuleTarget(MLIRContext *context) const override {
    return nullptr;
  }
  void buildGpuModuleToLLVMPipeline(OpPassManager &pm) const override {}

private:
  std::function<void(RewritePatternSet &)> populateBytePermPatterns;
};

} // namespace

std::unique_ptr<TargetInfo> mlir::qmat::createHostTargetInfo(
    std::function<void(RewritePatternSet &)> populateBytePermPatterns) {
  return std::make_unique<HostTargetInfo>(std::move(populateBytePermPatterns));
}
