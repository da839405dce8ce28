//===- LowerDequantToLoops.cpp - qmat.dequantize -> host loops ------------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Conversion/QMatToGPU/DequantKernelBuilder.h"
#include "qmat/Target/TargetInfo.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATLOWERDEQUANTTOLOOPS
#include "qmat/Conversion/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

struct QMatLowerDequantToLoopsPass
    : qmat::impl::QMatLowerDequantToLoopsBase<QMatLowerDequantToLoopsPass> {
  void runOnOperation() override {
    auto host = createHostTargetInfo();
    SmallVector<DequantizeOp> ops;
    getOperation().walk([&](DequantizeOp op) { ops.push_back(op); });
    for (DequantizeOp op : ops) {
      DequantKernelSpec spec = DequantKernelSpec::get(
          op, host->getDefaultDecode(op.getScheme().getElementFormat()));
      OpBuilder b(op);
      Location loc = op.getLoc();
      DequantBuffers buffers;
      buffers.weights = op.getWeights();
      buffers.scales = op.getScales();
      buffers.zeroPoints = op.getZeroPoints();
      buffers.scratch = op.getScratch();
      if (op.getGlobalScale())
        buffers.globalScale = emitGlobalScaleLoad(b, loc, op.getGlobalScale());
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value rows = memref::DimOp::create(b, loc, op.getWeights(), 0);
      Value items =
          arith::ConstantIndexOp::create(b, loc, spec.getItemsPerRow());
      auto rowLoop = scf::ForOp::create(b, loc, zero, rows, one);
      OpBuilder rb = OpBuilder::atBlockBegin(rowLoop.getBody());
      auto itemLoop = scf::ForOp::create(rb, loc, zero, items, one);
      OpBuilder ib = OpBuilder::atBlockBegin(itemLoop.getBody());
      emitDequantWorkItems(ib, loc, spec, buffers, rowLoop.getInductionVar(),
                           {itemLoop.getInductionVar()});
      op.erase();
    }
  }
};

} // namespace
