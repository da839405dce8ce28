//===- WaveMmaToMfma.cpp - qmat.wave_mma as amdgpu.mfma -------------------===//
//
// gfx942 and gfx950 both have v_mfma_f32_16x16x16_{f16,bf16}; the amdgpu
// op picks the instruction for the chipset when convert-gpu-to-rocdl lowers
// it.
//
//===----------------------------------------------------------------------===//

#include "qmat/Dialect/QMat/IR/QMatOps.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

struct WaveMmaToMfma : OpRewritePattern<WaveMmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WaveMmaOp op,
                                PatternRewriter &rewriter) const override {
    auto dim = rewriter.getI32IntegerAttr(16);
    rewriter.replaceOpWithNewOp<amdgpu::MFMAOp>(
        op, op.getType(), dim, dim, dim,
        /*blocks=*/rewriter.getI32IntegerAttr(1), op.getA(), op.getB(),
        op.getAcc());
    return success();
  }
};

} // namespace

void mlir::qmat::populateWaveMmaToAMDGPUPatterns(RewritePatternSet &patterns) {
  patterns.add<WaveMmaToMfma>(patterns.getContext());
}
