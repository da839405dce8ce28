//===- SpecializedRegisterWeights.cpp - Decoded weights in registers ------===//
//
// The specialized form with `weights_in_registers` (docs/design.md, "The
// decoded weights in registers"): the multiplying warpgroups decode their
// own weights into the warpgroup instruction's register A operand, so that
// workgroup memory carries only the activations: per 64 x m_tile x 16
// instruction the instruction's reads of them and the tensor copy's
// writes, where the decoded weights' round trip through workgroup memory
// (the decoders' stores and the instruction's reads of A) adds half as
// much again in the form with decoding warps. Each lane holds rows 16w + g and
// 16w + g + 8 of its warpgroup's 64 (warp w, lane 4g + t) and loads the 16
// bytes of codes of each that the warpgroup form's lanes load; the quad
// exchanges them into the instruction's K order and decodes them (the same
// decoded values as every path) while the instructions of the previous K step
// run. The block's first thread brings in each stage's activations (128 K
// elements: two tensor loads of 64 columns) once the instructions that
// read its previous round are done: with a separate loading warp two
// blocks of 160 threads at about 200 registers a thread would exceed a
// multiprocessor's 65536 registers, leaving one block per multiprocessor.
//
//===----------------------------------------------------------------------===//

#include "SpecializedGemmEmitter.h"

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

/// K elements of one stage (one K step of the quad exchange's decode).
static constexpr int64_t kRegisterStageK = kWarpStepK;
/// K steps between a lane's loads of codes and scales and their decode.
static constexpr int64_t kRegisterCodeDistance = 2;

void SpecializedGemmEmitter::loadStage(Value step) {
  int64_t tileElements = spec.maxM * kSpecializedStageK;
  Value stage = arith::RemUIOp::create(b, loc, step, cIdx(spec.stages));
  Value full = barrier(stage, /*empty=*/false);
  MBarrierArriveOp::create(b, loc, buffers.stageBarriers, full,
                           b.getI64IntegerAttr(2 * tileElements * 2));
  Value first = arith::MulIOp::create(b, loc, step, cIdx(kRegisterStageK));
  Value base = arith::MulIOp::create(b, loc, stage, cIdx(2 * tileElements));
  // Two tiles of 64 columns (a 128-byte swizzled row each), one after the
  // other.
  for (int64_t half = 0; half < 2; ++half)
    TensorLoadOp::create(
        b, loc, buffers.activationMap,
        arith::AddIOp::create(b, loc, first, cIdx(half * kSpecializedStageK)),
        firstM, b.getDenseI64ArrayAttr({kSpecializedStageK, spec.maxM}),
        buffers.stagedActivations,
        arith::AddIOp::create(b, loc, base, cIdx(half * tileElements)),
        buffers.stageBarriers, full, IntegerAttr());
}

SmallVector<GemvEmitterBase::RowChunk>
SpecializedGemmEmitter::loadStepChunks(Value step) {
  Value first = arith::MulIOp::create(b, loc, step, cIdx(kRegisterStageK));
  SmallVector<Value> blocks = stepBlocks(first);
  // Lane t loads words 4t .. 4t + 3 of each row (K 32t .. 32t + 31).
  Value laneFirst = arith::AddIOp::create(
      b, loc, first, arith::MulIOp::create(b, loc, quadLane, cIdx(kLaneK)));
  SmallVector<RowChunk> chunks;
  for (Value row : fragmentRows) {
    RowChunk chunk;
    chunk.codes = loadRowCodes(row, laneFirst);
    loadStepScales(row, blocks, chunk, /*oneLoad=*/true);
    chunks.push_back(chunk);
  }
  return chunks;
}

SmallVector<Value>
SpecializedGemmEmitter::decodeFragments(Value step, ValueRange own,
                                        ArrayRef<RowChunk> shape) {
  Value first = arith::MulIOp::create(b, loc, step, cIdx(kRegisterStageK));
  SmallVector<RowChunk> chunks = unflattenChunks(shape, own, stepBlocks(first));
  SmallVector<Value> codes, scales, zeroPoints, blocks;
  for (const RowChunk &chunk : chunks) {
    codes.push_back(exchangeQuadCodes(chunk.codes));
    llvm::append_range(scales, chunk.rawScales);
    if (spec.hasZeroPoints)
      llvm::append_range(zeroPoints, chunk.rawZeroPoints);
  }
  if (spec.hasZeroPoints)
    blocks = chunks.front().blocks;
  int64_t pairs = DecodeTileOp::kWordsPerRow * DecodeTileOp::kPairsPerWord;
  auto tileType = VectorType::get({2, pairs, 2}, act);
  Value tile = DecodeTileOp::create(b, loc, tileType, spec.scheme, codes,
                                    scales, zeroPoints, blocks, IntegerAttr(),
                                    /*oneMultiply=*/false)
                   .getPairs();
  auto pair = [&](int64_t row, int64_t p) -> Value {
    return vector::ExtractOp::create(b, loc, tile, ArrayRef<int64_t>{row, p});
  };
  // Instruction s takes pairs 2s (K 2t + {0, 1}) and 2s + 1 (2t + {8, 9})
  // of the top and the bottom row.
  SmallVector<Value> fragments;
  for (int64_t s = 0; s < kRegisterStageK / 16; ++s)
    llvm::append_range(fragments,
                       ArrayRef<Value>{pair(0, 2 * s), pair(1, 2 * s),
                                       pair(0, 2 * s + 1), pair(1, 2 * s + 1)});
  return fragments;
}

// Iteration j decodes step j (its loads issued two iterations before) while
// the instructions of step j - 1 run, then loads the codes and scales of
// step j + 2 into the registers it has just read, waits for the stage's
// activations and starts its 8 instructions; once those of step j - 1 are
// done it releases their stage, which the first thread refills with step
// j - 1 + stages. The loop takes two iterations per trip (emitPairedLoop).
SmallVector<Value>
SpecializedGemmEmitter::multiplyFromRegisters(Value consumer) {
  int64_t stages = spec.stages, steps = spec.k / kRegisterStageK;
  int64_t tileElements = spec.maxM * kSpecializedStageK;
  sharedBase = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, buffers.stagedActivations));
  Value lane = position.lane;
  Value warp = arith::RemUIOp::create(b, loc, position.warp,
                                      cIdx(kWarpgroupThreads / 32));
  quadLane = arith::RemUIOp::create(b, loc, lane, cIdx(4));
  setUpQuadExchange(quadLane);
  Value top = arith::AddIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, blockFirst,
          arith::MulIOp::create(b, loc, consumer, cIdx(kTileRows))),
      arith::AddIOp::create(b, loc,
                            arith::MulIOp::create(b, loc, warp, cIdx(16)),
                            arith::DivUIOp::create(b, loc, lane, cIdx(4))));
  for (int64_t h = 0; h < 2; ++h)
    fragmentRows.push_back(arith::MinUIOp::create(
        b, loc, h ? arith::AddIOp::create(b, loc, top, cIdx(8)) : top,
        position.lastN));

  // The block's first thread brings every stage in: the first `stages`
  // steps now, each later one once the step before it in its stage is
  // released.
  Value loads = compare(arith::CmpIPredicate::eq, thread, 0);
  emitIf(loads, [&] {
    for (int64_t i = 0; i < std::min(stages, steps); ++i)
      loadStage(cIdx(i));
  });
  Value lastStep = cIdx(steps - 1);
  SmallVector<RowChunk> shape = loadStepChunks(cIdx(0));
  SmallVector<Value> init(tileSums(), cF32(0.0f));
  SmallVector<Value> firstSet = flattenChunks(shape);
  int64_t setValues = firstSet.size(), sums = tileSums();
  llvm::append_range(init, firstSet);
  llvm::append_range(init, flattenChunks(loadStepChunks(arith::MinUIOp::create(
                               b, loc, cIdx(1), lastStep))));

  auto emitIteration = [&](Value step, ValueRange own,
                           SmallVector<Value> &acc) {
    SmallVector<Value> fragments = decodeFragments(step, own, shape);
    SmallVector<Value> next =
        flattenChunks(loadStepChunks(arith::MinUIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, step, cIdx(kRegisterCodeDistance)),
            lastStep)));
    Value stage = arith::RemUIOp::create(b, loc, step, cIdx(stages));
    MBarrierWaitOp::create(
        b, loc, buffers.stageBarriers, barrier(stage, /*empty=*/false),
        parity(arith::DivUIOp::create(b, loc, step, cIdx(stages))));
    SmallVector<Value> operands(fragments);
    llvm::append_range(operands, acc);
    SmallVector<Value> fenced(
        WarpgroupFenceOp::create(b, loc, operands).getFenced());
    int64_t count = fragments.size();
    acc.assign(fenced.begin() + count, fenced.end());
    // Instruction s reads K elements 16s .. 16s + 15: tile s / 4 of the
    // stage, 32 bytes further into each row per instruction.
    Value stageBytes =
        arith::MulIOp::create(b, loc, stage, cIdx(2 * tileElements * 2));
    for (int64_t s = 0; s < kRegisterStageK / 16; ++s) {
      Value desc = descriptor(arith::AddIOp::create(
          b, loc, stageBytes, cIdx((s / 4) * tileElements * 2 + 32 * (s % 4))));
      auto mma = WarpgroupMmaOp::create(
          b, loc, ArrayRef<Value>(fenced).slice(4 * s, 4), desc, acc);
      acc.assign(mma.getSums().begin(), mma.getSums().end());
    }
    WarpgroupCommitOp::create(b, loc);
    // The previous step's instructions are done: its stage is free for the
    // loading warp (and its A registers for the next decode).
    acc = llvm::to_vector(
        ValueRange(WarpgroupWaitOp::create(b, loc, 1, acc).getReady()));
    emitIf(compare(arith::CmpIPredicate::uge, step, 1), [&] {
      Value released = arith::SubIOp::create(b, loc, step, cIdx(1));
      Value previous = arith::RemUIOp::create(b, loc, released, cIdx(stages));
      releaseStage(previous, consumer);
      // Step released + stages refills that stage once every multiplying
      // thread has released it (the round of step `released`).
      Value fill = arith::AddIOp::create(b, loc, released, cIdx(stages));
      emitIf(arith::AndIOp::create(
                 b, loc, loads,
                 compare(arith::CmpIPredicate::ule, fill, steps - 1)),
             [&] {
               MBarrierWaitOp::create(b, loc, buffers.stageBarriers,
                                      barrier(previous, /*empty=*/true),
                                      parity(arith::DivUIOp::create(
                                          b, loc, released, cIdx(stages))));
               loadStage(fill);
             });
    });
    return next;
  };

  SmallVector<Value> acc =
      emitPairedLoop(steps, sums, setValues, init, emitIteration);
  return llvm::to_vector(
      ValueRange(WarpgroupWaitOp::create(b, loc, 0, acc).getReady()));
}
