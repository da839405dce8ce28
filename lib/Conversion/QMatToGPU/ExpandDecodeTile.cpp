//===- ExpandDecodeTile.cpp - the tile decodes -> arithmetic --------------===//
//
// qmat.decode_tile into the packed decode (TileDecode.h); qmat.decode_words
// into the reference's arithmetic through fp32, each distinct scale
// converted once.
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Conversion/QMatToGPU/DequantKernelBuilder.h"
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

/// Replaces `result`'s extracts at a full position of `shape` (its leading
/// dimensions) by `parts`, indexed by the flattened position, and any
/// other use by the whole value built from them.
void replaceByParts(OpBuilder &b, Location loc, Value result,
                    ArrayRef<int64_t> shape, ArrayRef<Value> parts) {
  for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
    auto extract = dyn_cast<vector::ExtractOp>(use.getOwner());
    if (!extract || extract.hasDynamicPosition() ||
        extract.getStaticPosition().size() != shape.size())
      continue;
    int64_t flat = 0;
    for (auto [at, extent] : llvm::zip(extract.getStaticPosition(), shape))
      flat = flat * extent + at;
    extract.replaceAllUsesWith(parts[flat]);
    extract.erase();
  }
  if (result.use_empty())
    return;
  auto type = cast<VectorType>(result.getType());
  Value whole = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  for (auto [flat, part] : llvm::enumerate(parts)) {
    SmallVector<int64_t> position(shape.size());
    int64_t rest = flat;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      position[d] = rest % shape[d];
      rest /= shape[d];
    }
    whole = vector::InsertOp::create(b, loc, part, whole, position);
  }
  result.replaceAllUsesWith(whole);
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
  SmallVector<Value> parts;
  for (ArrayRef<Value> rowPairs : pairs)
    llvm::append_range(parts, rowPairs);
  replaceByParts(b, loc, op.getPairs(), {rows, tileType.getDimSize(1)}, parts);
  op.erase();
}

void expandDecodeWords(DecodeWordsOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SchemeAttr scheme = op.getScheme();
  Type f32 = b.getF32Type();
  Type act = op.getWords().getType().getElementType();
  int64_t words = DecodeWordsOp::kWords, width = DecodeWordsOp::kWordElements;
  Value values = emitCodesToF32(b, loc, scheme.getElementFormat(),
                                op.getMethod(), op.getCodes(), words * width);
  auto wordType = VectorType::get({width}, f32);
  auto broadcast = [&](Value scalar) {
    return vector::BroadcastOp::create(b, loc, wordType, scalar);
  };
  bool isInt4 = scheme.getKind() == SchemeKind::int4;
  SmallVector<Value> decoded;
  Value lastRaw, scale, zeroPoint;
  for (int64_t w = 0; w < words; ++w) {
    if (op.getScales()[w] != lastRaw) {
      lastRaw = op.getScales()[w];
      scale = emitScaleToF32(b, loc, scheme, lastRaw);
      if (isInt4)
        zeroPoint = op.getZeroPoints().empty()
                        ? Value(arith::ConstantFloatOp::create(
                              b, loc, cast<FloatType>(f32), APFloat(8.0f)))
                        : emitZeroPointToF32(
                              b, loc, op.getZeroPoints()[w],
                              arith::IndexCastUIOp::create(
                                  b, loc, b.getI32Type(), op.getBlocks()[w]));
    }
    SmallVector<int64_t> mask(width);
    for (int64_t i = 0; i < width; ++i)
      mask[i] = width * w + i;
    Value word = vector::ShuffleOp::create(b, loc, values, values, mask);
    if (isInt4)
      word = arith::SubFOp::create(b, loc, word, broadcast(zeroPoint));
    Value product = arith::MulFOp::create(b, loc, word, broadcast(scale));
    if (op.getGlobalScale())
      product = arith::MulFOp::create(b, loc, product,
                                      broadcast(op.getGlobalScale()));
    decoded.push_back(arith::TruncFOp::create(
        b, loc, VectorType::get({width}, act), product));
  }
  replaceByParts(b, loc, op.getWords(), {words}, decoded);
  op.erase();
}

struct QMatExpandDecodeTilePass
    : qmat::impl::QMatExpandDecodeTileBase<QMatExpandDecodeTilePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<DecodeWordsOp> wordOps;
    getOperation()->walk([&](DecodeWordsOp op) { wordOps.push_back(op); });
    for (DecodeWordsOp op : wordOps)
      expandDecodeWords(op);
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
