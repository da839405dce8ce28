//===- ExpandReduceSplitK.cpp - The split-K reductions -> park, add -------===//
//
// The split-K exchange through workgroup memory: every lane parks its sums
// in its warp's slot, one barrier, then the lanes of the first K slice add
// the other slices' sums in slice order and run the epilogue, which is
// inlined under that condition. Across the blocks of a cluster
// (qmat.reduce_k_slices) the same, with cluster barriers, the first block
// reading the others' workgroup memory.
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATEXPANDREDUCESPLITK
#include "qmat/Conversion/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

void expandReduceSplitK(ReduceSplitKOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto cIdx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t groups = op.getSums().size(), laneSlots = op.getLaneSlots(),
          columns = op.getColumns();
  Value warp = op.getWarp();
  // The warp of K slice `slice` in this lane's column.
  auto warpOfSlice = [&](int64_t slice) -> Value {
    if (columns == 1)
      return cIdx(slice);
    return arith::AddIOp::create(
        b, loc, cIdx(slice * columns),
        arith::RemUIOp::create(b, loc, warp, cIdx(columns)));
  };
  // Element 4 * ((warp * G + g) * lane_slots + lane_slot) of the partials.
  auto slot = [&](Value warp, int64_t group) -> Value {
    Value groupBase = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc,
                              arith::MulIOp::create(b, loc, warp, cIdx(groups)),
                              cIdx(group)),
        cIdx(laneSlots * 4));
    return arith::AddIOp::create(
        b, loc, groupBase,
        arith::MulIOp::create(b, loc, op.getLaneSlot(), cIdx(4)));
  };

  Value slice =
      columns == 1 ? warp
                   : Value(arith::DivUIOp::create(b, loc, warp, cIdx(columns)));
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slice, cIdx(0));
  if (op.getFenced())
    gpu::BarrierOp::create(b, loc);
  {
    OpBuilder::InsertionGuard guard(b);
    if (op.getLive())
      b.setInsertionPointToStart(
          scf::IfOp::create(b, loc, op.getLive(), /*withElse=*/false)
              .thenBlock());
    for (auto [group, sum] : llvm::enumerate(op.getSums()))
      vector::StoreOp::create(b, loc, sum, op.getPartials(),
                              ValueRange{slot(warp, group)});
  }
  gpu::BarrierOp::create(b, loc);
  if (op.getLive())
    first = arith::AndIOp::create(b, loc, first, op.getLive());
  auto onlyFirst = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPointToStart(onlyFirst.thenBlock());
  SmallVector<Value> totals;
  for (auto [group, sum] : llvm::enumerate(op.getSums())) {
    Value total = sum;
    for (int64_t other = 1, slices = op.getSlices(); other < slices; ++other)
      total = arith::AddFOp::create(
          b, loc, total,
          vector::LoadOp::create(b, loc, sum.getType(), op.getPartials(),
                                 ValueRange{slot(warpOfSlice(other), group)}));
    totals.push_back(total);
  }
  Block &epilogue = op.getEpilogue().front();
  epilogue.getTerminator()->erase();
  b.getInsertionBlock()->getOperations().splice(b.getInsertionPoint(),
                                                epilogue.getOperations());
  for (auto [argument, total] : llvm::zip(epilogue.getArguments(), totals))
    argument.replaceAllUsesWith(total);
  op.erase();
}

void expandReduceKSlices(ReduceKSlicesOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto cIdx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t threads = op.getThreads();
  // Sum g's element of the partials, 4 * (g * threads + thread), the same
  // in every block.
  SmallVector<Value> slots;
  for (int64_t group = 0, groups = op.getSums().size(); group < groups; ++group)
    slots.push_back(arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, cIdx(group * threads), op.getThread()),
        cIdx(4)));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      op.getRank(), cIdx(0));
  // The buffer overlays the staged tiles the block's warps may still read.
  gpu::BarrierOp::create(b, loc);
  {
    OpBuilder::InsertionGuard guard(b);
    Value others = arith::XOrIOp::create(
        b, loc, first, arith::ConstantIntOp::create(b, loc, 1, 1));
    b.setInsertionPointToStart(
        scf::IfOp::create(b, loc, others, /*withElse=*/false).thenBlock());
    for (auto [group, sum] : llvm::enumerate(op.getSums()))
      vector::StoreOp::create(b, loc, sum, op.getPartials(),
                              ValueRange{slots[group]});
  }
  ClusterBarrierOp::create(b, loc);
  auto add = scf::IfOp::create(b, loc, op.getSums().getTypes(), first,
                               /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(add.thenBlock());
    SmallVector<Value> totals;
    for (auto [group, sum] : llvm::enumerate(op.getSums())) {
      Value total = sum;
      for (int64_t rank = 1, slices = op.getSlices(); rank < slices; ++rank)
        total = arith::AddFOp::create(
            b, loc, total,
            LoadClusterPeerOp::create(b, loc, sum.getType(), op.getPartials(),
                                      slots[group], cIdx(rank)));
      totals.push_back(total);
    }
    scf::YieldOp::create(b, loc, totals);
    b.setInsertionPointToStart(add.elseBlock());
    scf::YieldOp::create(b, loc, op.getSums());
  }
  // The other blocks' buffers stay until the first block has read them.
  ClusterBarrierOp::create(b, loc);
  op.replaceAllUsesWith(add.getResults());
  op.erase();
}

struct QMatExpandReduceSplitKPass
    : qmat::impl::QMatExpandReduceSplitKBase<QMatExpandReduceSplitKPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<ReduceKSlicesOp> sliceOps;
    getOperation()->walk([&](ReduceKSlicesOp op) { sliceOps.push_back(op); });
    for (ReduceKSlicesOp op : sliceOps)
      expandReduceKSlices(op);
    SmallVector<ReduceSplitKOp> ops;
    getOperation()->walk([&](ReduceSplitKOp op) { ops.push_back(op); });
    for (ReduceSplitKOp op : ops)
      expandReduceSplitK(op);
  }
};

} // namespace
