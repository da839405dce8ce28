//===- ScalarGemvEmitter.cpp - Scalar GEMV kernels ------------------------===//
//
// The GEMV without matrix instructions: a warp per weight row, fp32 sums.
//
//===----------------------------------------------------------------------===//

#include "GemvEmitter.h"

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

namespace {

//===----------------------------------------------------------------------===//
// Scalar GEMV
//===----------------------------------------------------------------------===//

class ScalarGemvEmitter : GemvEmitterBase {
public:
  using GemvEmitterBase::GemvEmitterBase;
  void emit();

private:
  /// Per activation row, this lane's fp32 partial sum over its elements.
  SmallVector<Value> emitElementLoop();
  /// The same over 32-element chunks: 16-byte code loads, words decoded
  /// together, 8-wide products.
  SmallVector<Value> emitChunkLoop();

  Value lane, row;
  SmallVector<Value> activationRows;
};

SmallVector<Value> ScalarGemvEmitter::emitElementLoop() {
  int64_t warpSize = target.getWarpSize();
  bool packed = spec.scheme.isPacked();
  int64_t perItem = packed ? 2 : 1;
  int64_t bs = spec.scheme.getBlockSize();
  SmallVector<Value> zeros(spec.maxM, cF32(0.0f));
  auto loop = scf::ForOp::create(b, loc, lane, cIdx(spec.k / perItem),
                                 cIdx(warpSize), zeros);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value item = loop.getInductionVar();
    auto weightsType = cast<MemRefType>(buffers.weights.getType());
    Value codes = LoadTileOp::create(
        b, loc, VectorType::get({1}, weightsType.getElementType()),
        CachePolicy::cached, buffers.weights, ValueRange{row, item});
    if (!packed)
      codes = arith::BitcastOp::create(b, loc, VectorType::get({1}, i8), codes);
    Value values = emitCodesToF32(b, loc, spec.scheme.getElementFormat(),
                                  spec.decode, codes, perItem);
    SmallVector<Value> acc(loop.getRegionIterArgs().begin(),
                           loop.getRegionIterArgs().end());
    Value k0 = arith::MulIOp::create(b, loc, item, cIdx(perItem));
    for (int64_t e = 0; e < perItem; ++e) {
      Value k = e ? Value(arith::AddIOp::create(b, loc, k0, cIdx(e))) : k0;
      // An odd block may start inside a byte: each element finds its own.
      Value blockIndex = arith::DivUIOp::create(b, loc, k, cIdx(bs));
      Value w = vector::ExtractOp::create(b, loc, values, ArrayRef<int64_t>{e});
      if (spec.scheme.getKind() == SchemeKind::int4)
        w = arith::SubFOp::create(b, loc, w, loadZeroPoint(row, blockIndex));
      w = arith::MulFOp::create(b, loc, w, loadScale(row, blockIndex));
      if (globalScale)
        w = arith::MulFOp::create(b, loc, w, globalScale);
      // The reference rounds each weight to the activation type.
      w = arith::ExtFOp::create(b, loc, f32,
                                Value(arith::TruncFOp::create(b, loc, act, w)));
      for (int64_t m = 0; m < spec.maxM; ++m) {
        Value a = memref::LoadOp::create(b, loc, buffers.a,
                                         ValueRange{activationRows[m], k});
        Value product = arith::MulFOp::create(
            b, loc, w, arith::ExtFOp::create(b, loc, f32, a));
        acc[m] = arith::AddFOp::create(b, loc, acc[m], product);
      }
    }
    scf::YieldOp::create(b, loc, acc);
  }
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> ScalarGemvEmitter::emitChunkLoop() {
  auto wideWord = VectorType::get({8}, f32);
  Value zero = arith::ConstantOp::create(
      b, loc, wideWord, DenseElementsAttr::get(wideWord, b.getF32FloatAttr(0)));
  SmallVector<Value> zeros(spec.maxM, zero);
  auto loop = scf::ForOp::create(b, loc, lane, cIdx(spec.k / kLaneK),
                                 cIdx(target.getWarpSize()), zeros);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kc =
        arith::MulIOp::create(b, loc, loop.getInductionVar(), cIdx(kLaneK));
    RowChunk chunk = loadRowChunk(row, kc, wordBlocks(kc));
    SmallVector<Value> acc(loop.getRegionIterArgs());
    SmallVector<Value> weights;
    for (Value word : decodeWordsThroughF32(chunk))
      weights.push_back(arith::ExtFOp::create(b, loc, wideWord, word));
    for (int64_t m = 0; m < spec.maxM; ++m)
      for (auto [weight, a] :
           llvm::zip(weights, loadActivationWords(activationRows[m], kc))) {
        Value product = arith::MulFOp::create(
            b, loc, weight, arith::ExtFOp::create(b, loc, wideWord, a));
        acc[m] = arith::AddFOp::create(b, loc, acc[m], product);
      }
    scf::YieldOp::create(b, loc, acc);
  }
  SmallVector<Value> sums;
  for (Value partial : loop.getResults())
    sums.push_back(vector::ReductionOp::create(
        b, loc, vector::CombiningKind::ADD, partial));
  return sums;
}

void ScalarGemvEmitter::emit() {
  int64_t warpSize = target.getWarpSize();
  LaunchPosition at = getLaunchPosition(warpSize);
  lane = at.lane;
  Value numN = at.numN, numM = at.numM;
  Value n = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, at.block, cIdx(kScalarRowsPerBlock)),
      at.warp);
  row = arith::MinUIOp::create(b, loc, n, at.lastN);
  globalScale = buffers.globalScale ? loadGlobalScale() : Value();
  for (int64_t m = 0; m < spec.maxM; ++m)
    activationRows.push_back(arith::MinUIOp::create(b, loc, cIdx(m), at.lastM));

  SmallVector<Value> partials =
      spec.usesChunkedDot() ? emitChunkLoop() : emitElementLoop();
  Value isFirstLane =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, cIdx(0));
  SmallVector<Value> sums;
  for (Value partial : partials) {
    Value sum = partial;
    for (int64_t offset = warpSize / 2; offset > 0; offset /= 2) {
      Value other =
          gpu::ShuffleOp::create(b, loc, sum, cI32(offset), cI32(warpSize),
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult();
      sum = arith::AddFOp::create(b, loc, sum, other);
    }
    sums.push_back(sum);
  }
  auto onlyFirst = scf::IfOp::create(b, loc, isFirstLane, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(onlyFirst.thenBlock());
  // One sum per activation row.
  SmallVector<int64_t> mOffsets =
      llvm::to_vector(llvm::seq<int64_t>(0, spec.maxM));
  storeTile(sums, Value(), cIdx(0), n, mOffsets,
            SmallVector<int64_t>(spec.maxM, 0), numM, numN);
}

} // namespace

void mlir::qmat::gemv::emitScalarGemv(OpBuilder &b, Location loc,
                                      const GemvKernelSpec &spec,
                                      const GemvBuffers &buffers,
                                      const TargetInfo &target) {
  ScalarGemvEmitter(b, loc, spec, buffers, target).emit();
}
