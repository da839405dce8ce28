//===- ExpandPrefill.cpp - N-tiled dequantize + GEMM ----------------------===//

#include "qmat/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATEXPANDPREFILL
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// Rows [n0, n0 + rows) of a rank-2 memref.
Value rowSlice(OpBuilder &b, Location loc, Value source, OpFoldResult n0,
               OpFoldResult rows) {
  auto type = cast<MemRefType>(source.getType());
  SmallVector<OpFoldResult> offsets = {n0, b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {rows, b.getIndexAttr(type.getDimSize(1))};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return memref::SubViewOp::create(b, loc, source, offsets, sizes, strides);
}

struct QMatExpandPrefillPass
    : qmat::impl::QMatExpandPrefillBase<QMatExpandPrefillPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<MatmulOp> matmuls;
    func.walk([&](MatmulOp op) {
      if (op.getPlan())
        matmuls.push_back(op);
    });

    for (MatmulOp op : matmuls) {
      PlanAttr plan = *op.getPlan();
      Location loc = op.getLoc();
      int64_t n = op.getN(), k = op.getK();
      int64_t tileRows = std::min(plan.getTileRows(), n);
      Type act = op.getActType();
      // The verifiers keep both positive; a loop of step 0 would not end.
      if (tileRows <= 0 || k <= 0) {
        op.emitOpError() << "tile_rows, N and K must be positive, got "
                         << plan.getTileRows() << ", " << n << ", " << k;
        return signalPassFailure();
      }

      // The launcher owns the workspace: the scratch arrives as an argument
      // marked so that it can be sized and passed.
      auto scratchType = MemRefType::get({tileRows, k}, act);
      unsigned index = func.getNumArguments();
      auto argAttrs = DictionaryAttr::get(
          context, {NamedAttribute(StringAttr::get(context, "qmat.workspace"),
                                   UnitAttr::get(context))});
      if (failed(func.insertArgument(index, scratchType, argAttrs, loc))) {
        op.emitOpError() << "cannot add the scratch argument to the function";
        return signalPassFailure();
      }
      Value scratch = func.getArgument(index);

      OpBuilder b(op);
      auto kernelAttr = DequantKernelAttr::get(context, plan.getDequant());
      auto decodeAttr = DecodeMethodAttr::get(context, plan.getDecode());
      auto emitTile = [&](OpBuilder &tb, Value w, Value s, Value zp,
                          Value tileScratch, Value bias, Value y) {
        DequantizeOp::create(tb, loc, op.getScheme(), w, s, op.getGlobalScale(),
                             zp, tileScratch, kernelAttr, decodeAttr,
                             plan.getPreparedWeights());
        GemmOp::create(tb, loc, op.getA(), tileScratch, bias, y);
      };

      if (tileRows >= n) {
        emitTile(b, op.getWeights(), op.getScales(), op.getZeroPoints(),
                 scratch, op.getBias(), op.getY());
        op.erase();
        continue;
      }

      // Row-major [M, N] is column-major [N, M] to a BLAS: a tile of Y is
      // the same matrix at a column offset, so no copy is needed.
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value upper = arith::ConstantIndexOp::create(b, loc, n);
      Value step = arith::ConstantIndexOp::create(b, loc, tileRows);
      auto loop = scf::ForOp::create(b, loc, zero, upper, step);
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value n0 = loop.getInductionVar();
      Value remaining = arith::SubIOp::create(lb, loc, upper, n0);
      Value rows = arith::MinSIOp::create(lb, loc, step, remaining);
      Value w = rowSlice(lb, loc, op.getWeights(), n0, rows);
      Value s = rowSlice(lb, loc, op.getScales(), n0, rows);
      Value zp = op.getZeroPoints()
                     ? rowSlice(lb, loc, op.getZeroPoints(), n0, rows)
                     : Value();
      Value tileScratch = rowSlice(lb, loc, scratch, lb.getIndexAttr(0), rows);
      Value m = memref::DimOp::create(lb, loc, op.getY(), 0);
      SmallVector<OpFoldResult> yOffsets = {lb.getIndexAttr(0), n0};
      SmallVector<OpFoldResult> ySizes = {m, rows};
      SmallVector<OpFoldResult> ones(2, lb.getIndexAttr(1));
      Value y =
          memref::SubViewOp::create(lb, loc, op.getY(), yOffsets, ySizes, ones);
      Value bias;
      if (op.getBias())
        bias = memref::SubViewOp::create(
            lb, loc, op.getBias(), ArrayRef<OpFoldResult>{n0},
            ArrayRef<OpFoldResult>{rows},
            ArrayRef<OpFoldResult>{lb.getIndexAttr(1)});
      emitTile(lb, w, s, zp, tileScratch, bias, y);
      op.erase();
    }
  }
};

} // namespace
