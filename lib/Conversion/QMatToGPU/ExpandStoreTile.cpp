//===- ExpandStoreTile.cpp - qmat.store_tile -> guarded stores ------------===//
//
// The kernels' epilogue, one sum at a time in the op's order: the position
// from the lane's base and the sum's offsets, the bounds (and mask) check,
// and under it the factor, the bias in fp32, one rounding and the store.
// Offsets of 0 add nothing, so that the emitted index arithmetic is what an
// emitter writing the stores itself would write.
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATEXPANDSTORETILE
#include "qmat/Conversion/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// `base + offset`: the base itself for offset 0, one constant where the
/// base is a constant.
Value offsetIndex(OpBuilder &b, Location loc, Value base, int64_t offset) {
  if (offset == 0)
    return base;
  APInt constantBase;
  if (matchPattern(base, m_ConstantInt(&constantBase)))
    return arith::ConstantIndexOp::create(b, loc,
                                          constantBase.getSExtValue() + offset);
  return arith::AddIOp::create(b, loc, base,
                               arith::ConstantIndexOp::create(b, loc, offset));
}

void expandStoreTile(StoreTileOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();
  Type outType = op.getY().getType().getElementType();
  for (auto [sum, mOffset, nOffset] :
       llvm::zip(op.getSums(), op.getMOffsets(), op.getNOffsets())) {
    Value n = offsetIndex(b, loc, op.getN(), nOffset);
    Value m = offsetIndex(b, loc, op.getM(), mOffset);
    Value inM = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, m,
                                      op.getNumM());
    Value inN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n,
                                      op.getNumN());
    Value inside = arith::AndIOp::create(b, loc, inM, inN);
    if (op.getMask())
      inside = arith::AndIOp::create(b, loc, inside, op.getMask());
    auto guard = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(guard.thenBlock());
    Value v = sum;
    if (op.getFactor())
      v = arith::MulFOp::create(b, loc, v, op.getFactor());
    if (op.getBias()) {
      Value bias = memref::LoadOp::create(b, loc, op.getBias(), ValueRange{n});
      v = arith::AddFOp::create(b, loc, v,
                                arith::ExtFOp::create(b, loc, f32, bias));
    }
    Value rounded = arith::TruncFOp::create(b, loc, outType, v);
    memref::StoreOp::create(b, loc, rounded, op.getY(), ValueRange{m, n});
  }
  op.erase();
}

struct QMatExpandStoreTilePass
    : qmat::impl::QMatExpandStoreTileBase<QMatExpandStoreTilePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<StoreTileOp> ops;
    getOperation()->walk([&](StoreTileOp op) { ops.push_back(op); });
    for (StoreTileOp op : ops)
      expandStoreTile(op);
  }
};

} // namespace
