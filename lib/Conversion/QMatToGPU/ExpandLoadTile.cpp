//===- ExpandLoadTile.cpp - qmat.load_tile -> the target's loads ----------===//
//
// A streaming load of 16 bytes becomes qmat.load_streaming at the global
// address of its first byte where the target has that load; any other load
// is vector.load or memref.load at the op's indices. The address is built
// as a kernel that computes it itself would write it: the source's base
// (aligned pointer plus offset), the op's own where the kernel computed it
// once, else once per source before the function's first memory access;
// then row * row stride + column, so that the loop's loads share the base
// and ptxas sees one induction variable per row.
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Conversion/QMatToGPU/DequantKernelBuilder.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATEXPANDLOADTILE
#include "qmat/Conversion/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// Bytes of the streaming load (qmat.load_streaming).
constexpr int64_t kStreamingBytes = 16;

/// A source's first byte address and its strides (index values).
struct SourceBase {
  Value address;
  SmallVector<Value> strides;
};

/// The metadata of `source` whose offset `base` adds, where it does (the
/// kernel built the base with emitBufferAddress).
memref::ExtractStridedMetadataOp getBaseMetadata(Value base, Value source) {
  auto add = base.getDefiningOp<arith::AddIOp>();
  if (!add)
    return {};
  for (Value operand : add->getOperands())
    if (auto metadata =
            operand.getDefiningOp<memref::ExtractStridedMetadataOp>())
      if (metadata.getSource() == source && operand == metadata.getOffset())
        return metadata;
  return {};
}

/// The strides of `op`'s source where the op brings its base: those of
/// the metadata the base was computed from, else read right after the
/// base; once per base.
SourceBase &getGivenBase(LoadTileOp op, DenseMap<Value, SourceBase> &bases) {
  auto [it, inserted] = bases.try_emplace(op.getBase());
  if (!inserted)
    return it->second;
  it->second.address = op.getBase();
  auto metadata = getBaseMetadata(op.getBase(), op.getSource());
  if (!metadata) {
    OpBuilder b(op.getContext());
    b.setInsertionPointAfterValue(op.getBase());
    metadata = memref::ExtractStridedMetadataOp::create(b, op.getLoc(),
                                                        op.getSource());
  }
  llvm::append_range(it->second.strides, metadata.getStrides());
  return it->second;
}

/// The base of `op`'s source, built the first time in the source's block
/// before the first op there that touches memory (the op itself or the
/// loop that holds it at the latest): the address is then ready before
/// the kernel's first load.
SourceBase &getSourceBase(LoadTileOp op, DenseMap<Value, SourceBase> &bases) {
  Value source = op.getSource();
  auto [it, inserted] = bases.try_emplace(source);
  if (!inserted)
    return it->second;
  Block *block = isa<BlockArgument>(source)
                     ? cast<BlockArgument>(source).getOwner()
                     : source.getDefiningOp()->getBlock();
  Operation *ancestor = block->findAncestorOpInBlock(*op);
  Operation *at = ancestor;
  auto from = isa<BlockArgument>(source)
                  ? block->begin()
                  : std::next(source.getDefiningOp()->getIterator());
  for (Operation &candidate : llvm::make_range(from, ancestor->getIterator()))
    if (!isMemoryEffectFree(&candidate)) {
      at = &candidate;
      break;
    }
  OpBuilder b(at);
  auto [address, metadata] = emitBufferAddress(b, source.getLoc(), source);
  it->second.address = address;
  llvm::append_range(it->second.strides, metadata.getStrides());
  return it->second;
}

bool isStreamingLoad(LoadTileOp op, const TargetInfo &target) {
  auto vector = dyn_cast<VectorType>(op.getResult().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return op.getCache() == CachePolicy::streaming &&
         succeeded(cast<MemRefType>(op.getSource().getType())
                       .getStridesAndOffset(strides, offset)) &&
         target.hasStreamingLoad() && vector &&
         vector.getNumElements() * vector.getElementTypeBitWidth() ==
             8 * kStreamingBytes &&
         op.getAlignment().value_or(0) >= kStreamingBytes;
}

void expandStreaming(LoadTileOp op, DenseMap<Value, SourceBase> &bases) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SourceBase &base =
      op.getBase() ? getGivenBase(op, bases) : getSourceBase(op, bases);
  auto source = cast<MemRefType>(op.getSource().getType());
  SmallVector<int64_t> staticStrides = source.getStridesAndOffset().first;
  // Element position: each index times its stride; an index of 0 adds
  // nothing, a stride of 1 multiplies by nothing.
  Value position;
  for (auto [d, index] : llvm::enumerate(op.getIndices())) {
    if (matchPattern(index, m_Zero()))
      continue;
    Value term = staticStrides[d] == 1
                     ? index
                     : arith::MulIOp::create(b, loc, index, base.strides[d]);
    position =
        position ? Value(arith::AddIOp::create(b, loc, position, term)) : term;
  }
  Value address = base.address;
  if (position) {
    int64_t elementBytes = source.getElementTypeBitWidth() / 8;
    if (elementBytes != 1)
      position = arith::MulIOp::create(
          b, loc, position,
          arith::ConstantIndexOp::create(b, loc, elementBytes));
    address = arith::AddIOp::create(b, loc, address, position);
  }
  Value bytes = LoadStreamingOp::create(
      b, loc, VectorType::get({kStreamingBytes}, b.getI8Type()),
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address));
  if (bytes.getType() != op.getType())
    bytes = vector::BitCastOp::create(b, loc, op.getType(), bytes);
  op.replaceAllUsesWith(bytes);
  op.erase();
}

void expandCached(LoadTileOp op) {
  OpBuilder b(op);
  llvm::MaybeAlign alignment;
  if (std::optional<uint64_t> bytes = op.getAlignment())
    alignment = llvm::Align(*bytes);
  Value loaded =
      isa<VectorType>(op.getType())
          ? Value(vector::LoadOp::create(b, op.getLoc(), op.getType(),
                                         op.getSource(), op.getIndices(),
                                         /*nontemporal=*/false, alignment))
          : Value(memref::LoadOp::create(b, op.getLoc(), op.getSource(),
                                         op.getIndices(),
                                         /*nontemporal=*/false, alignment));
  op.replaceAllUsesWith(loaded);
  op.erase();
}

struct QMatExpandLoadTilePass
    : qmat::impl::QMatExpandLoadTileBase<QMatExpandLoadTilePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<LoadTileOp> ops;
    getOperation()->walk([&](LoadTileOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    auto info = lookupTargetInfoOrEmit(getOperation(), target);
    if (!info)
      return signalPassFailure();
    DenseMap<Value, SourceBase> bases;
    for (LoadTileOp op : ops) {
      if (isStreamingLoad(op, *info))
        expandStreaming(op, bases);
      else
        expandCached(op);
    }
  }
};

} // namespace
