//===- LowerToTarget.cpp - Vendor-neutral qmat ops -> target ops ----------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATLOWERTOTARGET
#include "qmat/Conversion/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

struct QMatLowerToTargetPass
    : qmat::impl::QMatLowerToTargetBase<QMatLowerToTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    auto info = lookupTargetInfoOrEmit(getOperation(), target);
    if (!info)
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    info->populateLowerToTargetPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What the target's patterns left has no instruction here.
    WalkResult unlowered = getOperation()->walk([&](Operation *op) {
      if (!op->hasTrait<qmat::OpTrait::TargetInstruction>())
        return WalkResult::advance();
      op->emitOpError() << "has no lowering on target '" << target << "'";
      return WalkResult::interrupt();
    });
    if (unlowered.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
