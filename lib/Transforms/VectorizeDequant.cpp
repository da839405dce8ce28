//===- VectorizeDequant.cpp - vec8 where legal, scalar elsewhere ----------===//

#include "qmat/Transforms/Passes.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATVECTORIZEDEQUANT
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

struct QMatVectorizeDequantPass
    : qmat::impl::QMatVectorizeDequantBase<QMatVectorizeDequantPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<DequantKernel> forced;
    if (force != "auto" && !(forced = symbolizeDequantKernel(force))) {
      emitError(getOperation()->getLoc())
          << "unknown dequant kernel '" << force
          << "' (expected auto, vec8 or scalar)";
      return signalPassFailure();
    }
    WalkResult result = getOperation()->walk([&](DequantizeOp op) {
      int64_t k = op.getScratch().getType().getDimSize(1);
      bool legal = op.getScheme().isVec8Legal(k);
      // A kernel already chosen by the plan stands unless forced.
      DequantKernel kernel = forced.value_or(op.getKernel().value_or(
          legal ? DequantKernel::vec8 : DequantKernel::scalar));
      if (kernel == DequantKernel::vec8 && !legal) {
        op.emitOpError() << "vec8 needs K % 8 == 0 and an even block size, "
                            "got K = "
                         << k << ", block = " << op.getScheme().getBlockSize();
        return WalkResult::interrupt();
      }
      op.setKernel(kernel);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
