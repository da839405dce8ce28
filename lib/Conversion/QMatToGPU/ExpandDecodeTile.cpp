//===- ExpandDecodeTile.cpp - qmat.decode_tile -> packed arithmetic -------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Conversion/QMatToGPU/TileDecode.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATEXPANDDECODETILE
#include "qmat/Conversion/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// The factors a decode op computed, for the ops after it in its block
/// that take the same scales.
struct ComputedFactors {
  Block *block;
  SmallVector<Value> scaleOperands;
  bool oneMultiply;
  SmallVector<SmallVector<PackedDecoder::Factors>> factors;
};

/// The op's scales, zero points and blocks: what its factors depend on.
SmallVector<Value> getScaleOperands(DecodeTileOp op) {
  SmallVector<Value> operands(op.getScales());
  llvm::append_range(operands, op.getZeroPoints());
  llvm::append_range(operands, op.getBlocks());
  return operands;
}

void expandDecodeTile(DecodeTileOp op, const TargetInfo &target,
                      SmallVectorImpl<ComputedFactors> &computed) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  VectorType tileType = op.getPairs().getType();
  Type act = tileType.getElementType();
  PackedDecoder decoder(b, loc, op.getScheme(), act,
                        !op.getZeroPoints().empty(), target);
  int64_t rows = op.getCodes().size(), words = DecodeTileOp::kWordsPerRow;
  SmallVector<Value> scaleOperands = getScaleOperands(op);
  auto sameScales = [&](const ComputedFactors &c) {
    return c.block == op->getBlock() && c.oneMultiply == op.getOneMultiply() &&
           c.scaleOperands == scaleOperands;
  };
  auto found = llvm::find_if(computed, sameScales);
  if (found == computed.end()) {
    // One scale per word, or (the warpgroup's K order) one per pair.
    int64_t perRow = op.getScales().size() / rows;
    SmallVector<PackedRowScales> rowScales(rows);
    for (int64_t r = 0; r < rows; ++r) {
      PackedRowScales &row = rowScales[r];
      llvm::append_range(row.blocks, op.getBlocks());
      llvm::append_range(row.rawScales,
                         op.getScales().slice(r * perRow, perRow));
      if (!op.getZeroPoints().empty())
        llvm::append_range(row.rawZeroPoints,
                           op.getZeroPoints().slice(r * perRow, perRow));
    }
    computed.push_back({op->getBlock(), scaleOperands, op.getOneMultiply(),
                        decoder.getFactors(rowScales, op.getOneMultiply())});
    found = std::prev(computed.end());
  }

  std::optional<int64_t> word = op.getWord();
  SmallVector<SmallVector<Value>> pairs;
  for (auto [codes, factors] : llvm::zip(op.getCodes(), found->factors))
    pairs.push_back(
        decoder.decode(codes, factors, word.value_or(0), word ? 1 : words));

  // Extracts of one pair take it directly; any other use gets the whole
  // tile.
  for (OpOperand &use : llvm::make_early_inc_range(op.getPairs().getUses())) {
    auto extract = dyn_cast<vector::ExtractOp>(use.getOwner());
    if (!extract || extract.hasDynamicPosition() ||
        extract.getStaticPosition().size() != 2)
      continue;
    ArrayRef<int64_t> at = extract.getStaticPosition();
    extract.replaceAllUsesWith(pairs[at[0]][at[1]]);
    extract.erase();
  }
  if (!op.getPairs().use_empty()) {
    Value tile =
        arith::ConstantOp::create(b, loc, tileType, b.getZeroAttr(tileType));
    for (auto [r, rowPairs] : llvm::enumerate(pairs))
      for (auto [p, pair] : llvm::enumerate(rowPairs))
        tile = vector::InsertOp::create(
            b, loc, pair, tile,
            ArrayRef<int64_t>{static_cast<int64_t>(r),
                              static_cast<int64_t>(p)});
    op.getPairs().replaceAllUsesWith(tile);
  }
  op.erase();
}

struct QMatExpandDecodeTilePass
    : qmat::impl::QMatExpandDecodeTileBase<QMatExpandDecodeTilePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<DecodeTileOp> ops;
    getOperation()->walk([&](DecodeTileOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    auto info = lookupTargetInfoOrEmit(getOperation(), target);
    if (!info)
      return signalPassFailure();
    // In program order within each block: the first op of a step computes
    // the factors that the step's later ops reuse.
    SmallVector<ComputedFactors> computed;
    for (DecodeTileOp op : ops)
      expandDecodeTile(op, *info, computed);
  }
};

} // namespace
