//===- TensorCoreGemvEmitter.cpp - Warp-level GEMV kernels ----------------===//
//
// Tensor-core mapping (docs/design.md): a warp owns 16 weight rows per column
// tile and walks K in steps of 128. Lane l = 4g + t loads 32 consecutive K
// elements (16 bytes of packed codes) of rows g and g + 8, and the same 32
// activations of rows g (+ 8 per row group). The matrix instruction only
// needs A and B to agree on which logical K sits at each physical position,
// and the physical positions of lane l depend on t alone; so each lane may
// feed its own K range in any pairing, as long as A and B use the same one.
// The packed decodes pair elements 4 apart (k, k + 4): the two 16-bit
// halves of a 32-bit word of codes hold nibbles 4 apart, so one shift and
// mask moves both halves' codes at once.
// The whole-line layout (GemvKernelSpec::wholeLines) uses the same freedom
// across rows: A rows g and g + 4 take the two K halves of one weight row,
// so that a load instruction covers whole 128-byte lines.
//===----------------------------------------------------------------------===//

#include "TensorCoreGemvEmitter.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

TensorCoreGemvEmitter::StepLoads
TensorCoreGemvEmitter::loadStep(Value kc, ArrayRef<Value> weightRows,
                                ArrayRef<Value> activationRows) {
  StepLoads loads;
  SmallVector<Value> blocks = wordBlocks(kc);
  for (Value row : weightRows)
    loads.chunks.push_back(loadRowChunk(row, kc, blocks));
  for (Value activationRow : activationRows)
    loads.activationWords.push_back(loadActivationWords(activationRow, kc));
  return loads;
}

void TensorCoreGemvEmitter::computeStep(const StepLoads &loads,
                                        MutableArrayRef<Value> acc) {
  if (!spec.usesPackedDecode()) {
    computeStepWith(loads, /*oneMultiply=*/false, acc);
    return;
  }
  // mxfp4: one multiply per pair where the whole warp's scales allow it,
  // the exact two- or three-factor product otherwise; the branch is
  // warp-uniform, so the matrix instructions in both arms see a converged warp.
  // The warpgroup instruction needs all four warps on one path, which a
  // warp's vote does not give.
  Value oneMultiply =
      spec.scheme.getKind() == SchemeKind::mxfp4 && !spec.warpgroup
          ? allMxfp4OneMultiply(loads.chunks)
          : Value();
  if (!oneMultiply) {
    computeStepWith(loads, /*oneMultiply=*/false, acc);
    return;
  }
  auto branch = scf::IfOp::create(b, loc, SmallVector<Type>(acc.size(), f32),
                                  oneMultiply, /*withElseRegion=*/true);
  for (bool fast : {true, false}) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(fast ? branch.thenBlock() : branch.elseBlock());
    SmallVector<Value> armAcc(acc.begin(), acc.end());
    // Each arm decodes its own copy of the codes: the bit placement is the
    // same in both, and LLVM would otherwise hoist it above the branch for
    // every chunk of the step at once (measured: spills under the
    // half-step register budget, 128-228 registers in whole-line kernels).
    StepLoads armLoads = loads;
    auto wordsType = VectorType::get({kLaneK / 8}, i32);
    for (RowChunk &chunk : armLoads.chunks) {
      Value words = vector::BitCastOp::create(b, loc, wordsType, chunk.codes);
      SmallVector<Value> pinned;
      for (int64_t w = 0; w < kLaneK / 8; ++w)
        pinned.push_back(PinnedCopyOp::create(
            b, loc,
            vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w}),
            fast ? 0 : 1));
      chunk.codes = vector::BitCastOp::create(
          b, loc, chunk.codes.getType(),
          vector::FromElementsOp::create(b, loc, wordsType, pinned));
    }
    computeStepWith(armLoads, fast, armAcc);
    // And its own copy of the sums, which keeps LLVM from sinking the
    // arms' matrix instructions below the branch, away from their decode.
    for (Value &sum : armAcc)
      sum = arith::BitcastOp::create(
          b, loc, f32,
          PinnedCopyOp::create(b, loc,
                               arith::BitcastOp::create(b, loc, i32, sum),
                               fast ? 0 : 1));
    scf::YieldOp::create(b, loc, armAcc);
  }
  llvm::copy(branch.getResults(), acc.begin());
}

void TensorCoreGemvEmitter::computeStepWith(const StepLoads &loads,
                                            bool oneMultiply,
                                            MutableArrayRef<Value> acc) {
  // A half step (halfSteps) carries half of the tiles' rows.
  int64_t mmaTiles = loads.chunks.size() / 2, groups = spec.getRowGroups();
  if (loads.staged) {
    computeStepByWord(loads, oneMultiply, acc);
    return;
  }
  SmallVector<SmallVector<Value>> weightPairs;
  if (spec.usesPackedDecode())
    weightPairs = decodeTile(loads, oneMultiply, std::nullopt);
  else
    for (const RowChunk &chunk : loads.chunks)
      weightPairs.push_back(decodeThroughF32(chunk));
  SmallVector<SmallVector<Value>> actPairs;
  for (ArrayRef<Value> words : loads.activationWords)
    actPairs.push_back(activationPairs(words));

  for (int64_t s = 0; s < kLaneK / 4; ++s) {
    int64_t p0 = 4 * (s / 2) + 2 * (s % 2), p1 = p0 + 1;
    for (int64_t i = 0; i < mmaTiles; ++i) {
      ArrayRef<Value> top = weightPairs[2 * i], bottom = weightPairs[2 * i + 1];
      SmallVector<Value> aOperand = {top[p0], bottom[p0], top[p1], bottom[p1]};
      for (int64_t r = 0; r < groups; ++r) {
        int64_t base = (i * groups + r) * 4;
        SmallVector<Value> bOperand = {actPairs[r][p0], actPairs[r][p1]};
        auto mma = WarpMmaOp::create(b, loc, aOperand, bOperand,
                                     ArrayRef<Value>(acc).slice(base, 4));
        llvm::copy(mma.getSums(), acc.begin() + base);
      }
    }
  }
}

SmallVector<Value> TensorCoreGemvEmitter::flattenStep(const StepLoads &loads) {
  return flattenChunks(loads.chunks);
}

TensorCoreGemvEmitter::StepLoads
TensorCoreGemvEmitter::unflattenStep(const StepLoads &shape, ValueRange values,
                                     ArrayRef<Value> blocks) {
  StepLoads loads;
  loads.chunks = unflattenChunks(shape.chunks, values, blocks);
  return loads;
}

SmallVector<SmallVector<Value>>
TensorCoreGemvEmitter::decodeWholeChunks(const StepLoads &loads) {
  SmallVector<SmallVector<Value>> whole;
  if (!spec.usesPackedDecode())
    for (const RowChunk &chunk : loads.chunks)
      whole.push_back(decodeThroughF32(chunk));
  return whole;
}

SmallVector<SmallVector<Value>>
TensorCoreGemvEmitter::decodeWord(const StepLoads &loads, bool oneMultiply,
                                  ArrayRef<SmallVector<Value>> wholeChunks,
                                  int64_t w) {
  if (spec.usesPackedDecode())
    return decodeTile(loads, oneMultiply, w);
  SmallVector<SmallVector<Value>> pairs; // [chunk][4 pairs of w]
  for (ArrayRef<Value> whole : wholeChunks)
    pairs.push_back(SmallVector<Value>(whole.slice(4 * w, 4)));
  return pairs;
}

void TensorCoreGemvEmitter::computeStepByWord(const StepLoads &loads,
                                              bool oneMultiply,
                                              MutableArrayRef<Value> acc) {
  if (spec.warpgroup) {
    computeStepWarpgroup(loads, acc);
    return;
  }
  int64_t mmaTiles = loads.chunks.size() / 2, groups = spec.getRowGroups();
  SmallVector<SmallVector<Value>> wholeChunks = decodeWholeChunks(loads);
  auto actWord = VectorType::get({8}, act);
  for (int64_t w = 0; w < kLaneK / 8; ++w) {
    SmallVector<SmallVector<Value>> weightPairs =
        decodeWord(loads, oneMultiply, wholeChunks, w);
    for (int64_t r = 0; r < groups; ++r) {
      // Row 8r + g of the staged tile, chunk 4t + w (loop-invariant
      // addresses: the tile is refilled in place every step).
      Value offset = arith::AddIOp::create(b, loc, stagedWordOffsets[w],
                                           cIdx(8 * kStagedRowChunks * 8 * r));
      if (stagedTileBase)
        offset = arith::AddIOp::create(b, loc, offset, stagedTileBase);
      Value word = vector::LoadOp::create(
          b, loc, actWord, buffers.stagedActivations, ValueRange{offset},
          /*nontemporal=*/false, /*alignment=*/llvm::MaybeAlign(16));
      SmallVector<Value> actPairs = activationPairs(word);
      for (int64_t half = 0; half < 2; ++half) {
        int64_t p0 = 2 * half, p1 = p0 + 1;
        for (int64_t i = 0; i < mmaTiles; ++i) {
          ArrayRef<Value> top = weightPairs[2 * i],
                          bottom = weightPairs[2 * i + 1];
          SmallVector<Value> aOperand = {top[p0], bottom[p0], top[p1],
                                         bottom[p1]};
          SmallVector<Value> bOperand = {actPairs[p0], actPairs[p1]};
          int64_t base = (i * groups + r) * 4;
          auto mma = WarpMmaOp::create(b, loc, aOperand, bOperand,
                                       ArrayRef<Value>(acc).slice(base, 4));
          llvm::copy(mma.getSums(), acc.begin() + base);
        }
      }
    }
  }
}

SmallVector<Value>
TensorCoreGemvEmitter::activationPairs(ArrayRef<Value> words) {
  SmallVector<Value> pairs;
  for (Value word : words)
    for (int64_t j = 0; j < 4; ++j)
      pairs.push_back(
          vector::ShuffleOp::create(b, loc, word, word, pairElements(j)));
  return pairs;
}

void TensorCoreGemvEmitter::setUpLanes() {
  position = getLaunchPosition(kMmaLanes);
  // The fused GEMM: the warp's K slice and weight tile, and the block's
  // first activation row (GemvKernelSpec::mTiled).
  kWarp = position.warp;
  Value tile = position.block;
  if (spec.mTiled) {
    firstM = arith::MulIOp::create(b, loc, position.block, cIdx(spec.maxM));
    tile = blockTile = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    if (spec.warpsN > 1) {
      kWarp = arith::DivUIOp::create(b, loc, position.warp, cIdx(spec.warpsN));
      Value nWarp =
          arith::RemUIOp::create(b, loc, position.warp, cIdx(spec.warpsN));
      tile = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, tile, cIdx(spec.warpsN)),
          nWarp);
    }
  }
  g = arith::DivUIOp::create(b, loc, position.lane, cIdx(4));
  t = arith::RemUIOp::create(b, loc, position.lane, cIdx(4));
  // Whole lines: lane g takes row g % 4 of each 4-row quarter, K half g / 4.
  laneRow =
      spec.wholeLines ? Value(arith::RemUIOp::create(b, loc, g, cIdx(4))) : g;
  if (spec.warpgroup)
    setUpWarpgroup();
  else if (spec.mTiled)
    setUpStagedWordOffsets();
  if (spec.preparedWeights)
    preparedLane = arith::SubIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, laneRow, cIdx(4 * kPreparedPieceBytes)),
        arith::MulIOp::create(
            b, loc, t,
            cIdx(kPreparedBytesPerK * kLaneK - kPreparedPieceBytes)));
  blockFirst = arith::MulIOp::create(b, loc, tile, cIdx(16 * spec.colTiles));
  firstRow = arith::AddIOp::create(b, loc, blockFirst, laneRow);
}

void TensorCoreGemvEmitter::setUpStagedWordOffsets() {
  // Lane (g, t) reads chunk 4t + w of row g (+ 8 per group) of its K
  // slice's tile, at chunk 4t + (w ^ s), s = 2 (t / 2) + g % 2: the eight
  // lanes of each quarter warp then hit eight distinct 16-byte bank
  // groups (stageActivations writes the same permutation).
  Value swizzle = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc, arith::ShRUIOp::create(b, loc, t, cIdx(1)),
                            cIdx(1)),
      arith::AndIOp::create(b, loc, g, cIdx(1)));
  Value rowBase = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, kWarp, cIdx(spec.maxM)), g),
      cIdx(kStagedRowChunks));
  for (int64_t w = 0; w < kLaneK / 8; ++w) {
    Value chunk =
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, t, cIdx(4)),
                              arith::XOrIOp::create(b, loc, swizzle, cIdx(w)));
    stagedWordOffsets.push_back(arith::MulIOp::create(
        b, loc, arith::AddIOp::create(b, loc, rowBase, chunk), cIdx(8)));
  }
}

int64_t TensorCoreGemvEmitter::rowOffset(int64_t i, int64_t h) const {
  return spec.wholeLines ? 16 * (i / 2) + 8 * (i % 2) + 4 * h : 16 * i + 8 * h;
}

// Rows past N and activation rows past M read row N-1 / M-1 instead of
// branching; their results are never stored. Only the last block can have
// such rows: the others take every row at a constant distance from the
// first, which the loads fold into their address (no per-row address
// arithmetic in the loop).
SmallVector<Value> TensorCoreGemvEmitter::getWeightRows(bool clamp) {
  SmallVector<Value> rows; // [matrix tile][top, bottom]
  for (int64_t i = 0; i < getMmaTiles(); ++i)
    for (int64_t h = 0; h < 2; ++h) {
      Value row =
          arith::AddIOp::create(b, loc, firstRow, cIdx(rowOffset(i, h)));
      if (spec.preparedWeights) {
        // Row 16T + 8 half + (laneRow + offset) of the layout. N is a
        // multiple of 16 with prepared codes: a tile past N moves to the
        // last tile as a whole, so its rows keep that form.
        int64_t inTile = rowOffset(i, h) % kPreparedTileRows;
        Value tile = arith::AddIOp::create(b, loc, blockFirst,
                                           cIdx(rowOffset(i, h) - inTile));
        if (clamp) {
          tile = arith::MinUIOp::create(
              b, loc, tile,
              arith::SubIOp::create(b, loc, position.numN,
                                    cIdx(kPreparedTileRows)));
          row = arith::AddIOp::create(
              b, loc, tile,
              arith::AddIOp::create(b, loc, laneRow, cIdx(inTile)));
        }
        preparedRows[row] = {tile, inTile / 8, inTile % 8};
        rows.push_back(row);
        continue;
      }
      rows.push_back(
          clamp ? Value(arith::MinUIOp::create(b, loc, row, position.lastN))
                : row);
    }
  return rows;
}

void TensorCoreGemvEmitter::setUpOperands() {
  int64_t rowsPerGroup = getGemvRowsPerGroup(spec.wholeLines);
  Value firstActivationRow =
      firstM ? Value(arith::AddIOp::create(b, loc, firstM, laneRow)) : laneRow;
  for (int64_t r = 0; r < spec.getRowGroups(); ++r)
    activationRows.push_back(
        arith::MinUIOp::create(b, loc,
                               arith::AddIOp::create(b, loc, firstActivationRow,
                                                     cIdx(rowsPerGroup * r)),
                               position.lastM));

  // The packed codes are read once per block: loads that bypass L1 leave it
  // to the activations and scales, which the block's warps and its
  // neighbours read again (nvfp4 17408 x 5120 about 6 % faster on the H200).
  // A row's 128-byte line holds two K steps, which two warps of the block
  // read at about the same time, so the first miss fetches the whole line
  // (1-3 % faster on every timed layer). fp8 loads 32-byte chunks and keeps
  // plain loads (not measured). Figures: bench/README.md, "Measurements
  // behind the compiler's choices".
  // Their base address is computed once, here, for every load.
  if (spec.scheme.isPacked() && target.hasStreamingLoad()) {
    auto [base, metadata] = emitBufferAddress(b, loc, buffers.weights);
    codesBase = base;
    codesRowStride = metadata.getStrides()[0];
  }
  if (buffers.globalScale) {
    Value global = loadGlobalScale();
    if (spec.usesPackedDecode())
      epilogueFactor = arith::MulFOp::create(
          b, loc, global, cF32(std::ldexp(1.0f, kPackedFp4ResidualExponent)));
    else
      globalScale = global;
  }

  accumulators = getMmaTiles() * spec.getRowGroups() * 4;
  zeros.assign(accumulators, cF32(0.0f));
  warpStepK = spec.wholeLines ? 2 * kWarpStepK : kWarpStepK;
  if (spec.kSlices > 1) {
    kSlice = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    sliceFirstStep = arith::MulIOp::create(b, loc, kSlice, cIdx(sliceSteps()));
  }
  lanesK = arith::MulIOp::create(b, loc, t, cIdx(kLaneK));
  if (spec.wholeLines)
    lanesK = arith::AddIOp::create(
        b, loc, lanesK,
        arith::MulIOp::create(b, loc,
                              arith::DivUIOp::create(b, loc, g, cIdx(4)),
                              cIdx(kWarpStepK)));
}

Value TensorCoreGemvEmitter::stepK(Value step) {
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, step, cIdx(warpStepK)), lanesK);
}

Value TensorCoreGemvEmitter::stepOf(Value iteration) {
  Value step = arith::AddIOp::create(
      b, loc, kWarp,
      arith::MulIOp::create(b, loc, iteration, cIdx(spec.splitK)));
  return sliceFirstStep ? arith::AddIOp::create(b, loc, step, sliceFirstStep)
                        : step;
}

// One iteration per K step, every load of the step issued before its
// arithmetic: carrying the next step's loads through the loop was slower
// on the H200 (about 15 % for nvfp4 17408 x 5120 at M = 1;
// bench/README.md, "Measurements behind the compiler's choices").
// The fused GEMM's software pipeline (spec.stages > 1): iteration i
// waits for its tile of activations (copied stages - 1 iterations ago),
// then, behind one barrier that also frees the tile read in iteration
// i - 1, starts the copy of iteration i + stages - 1 into that tile and
// the loads of its own next weights, and multiplies. Copies and loads
// past the last iteration repeat the last one's, so that every thread
// takes the same branch-free path and commits one group per iteration.
SmallVector<Value>
TensorCoreGemvEmitter::emitPipelinedLoop(ArrayRef<Value> weightRows) {
  int64_t iterations = sliceSteps() / spec.splitK;
  int64_t stages = spec.stages;
  int64_t tileElements = spec.splitK * spec.maxM * kWarpStepK;
  Value lastIteration = cIdx(iterations - 1);
  auto copyIteration = [&](Value iteration) {
    Value clamped = arith::MinUIOp::create(b, loc, iteration, lastIteration);
    Value slot = arith::RemUIOp::create(b, loc, iteration, cIdx(stages));
    Value firstStep = arith::MulIOp::create(b, loc, clamped, cIdx(spec.splitK));
    if (sliceFirstStep)
      firstStep = arith::AddIOp::create(b, loc, firstStep, sliceFirstStep);
    copyActivations(firstStep, firstM, position.lastM,
                    arith::MulIOp::create(b, loc, slot, cIdx(tileElements)),
                    /*async=*/true, [&](Value row, Value chunk) {
                      return warpStagedChunk(row, chunk);
                    });
    AsyncCommitOp::create(b, loc);
  };
  for (int64_t i = 0; i + 1 < stages; ++i)
    copyIteration(cIdx(i));
  StepLoads first = loadStep(stepK(stepOf(cIdx(0))), weightRows, {});
  SmallVector<Value> init(zeros);
  llvm::append_range(init, flattenStep(first));
  auto loop =
      scf::ForOp::create(b, loc, cIdx(0), cIdx(iterations), cIdx(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value iteration = loop.getInductionVar();
    ValueRange args = loop.getRegionIterArgs();
    SmallVector<Value> acc(args.begin(), args.begin() + accumulators);
    AsyncWaitOp::create(b, loc, stages - 2);
    gpu::BarrierOp::create(b, loc);
    copyIteration(arith::AddIOp::create(b, loc, iteration, cIdx(stages - 1)));
    Value nextIteration = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, iteration, cIdx(1)),
        lastIteration);
    StepLoads next = loadStep(stepK(stepOf(nextIteration)), weightRows, {});
    StepLoads loads = unflattenStep(first, args.drop_front(accumulators),
                                    wordBlocks(stepK(stepOf(iteration))));
    loads.staged = true;
    stagedTileBase = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, iteration, cIdx(stages)),
        cIdx(tileElements));
    computeStep(loads, acc);
    stagedTileBase = Value();
    SmallVector<Value> yielded(acc);
    llvm::append_range(yielded, flattenStep(next));
    scf::YieldOp::create(b, loc, yielded);
  }
  // The copies past the last iteration land before the memory is reused.
  AsyncWaitOp::create(b, loc, 0);
  return SmallVector<Value>(loop.getResults().take_front(accumulators));
}

SmallVector<Value>
TensorCoreGemvEmitter::emitStepLoop(ArrayRef<Value> weightRows) {
  Value lower = kWarp, upper = cIdx(sliceSteps());
  if (sliceFirstStep) {
    lower = arith::AddIOp::create(b, loc, lower, sliceFirstStep);
    upper = arith::AddIOp::create(b, loc, upper, sliceFirstStep);
  }
  auto loop =
      scf::ForOp::create(b, loc, lower, upper, cIdx(spec.splitK), zeros);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> acc(loop.getRegionIterArgs().begin(),
                         loop.getRegionIterArgs().end());
  Value kc = stepK(loop.getInductionVar());
  // The fused GEMM issues the step's weight loads, then stages the
  // block's activations for the step (loadStep below reads registers only).
  SmallVector<Value> stepWeightRows(weightRows.begin(), weightRows.end());
  std::optional<StepLoads> early;
  if (spec.mTiled) {
    early = loadStep(kc, stepWeightRows, {});
    stageActivations(
        arith::SubIOp::create(b, loc, loop.getInductionVar(), kWarp), firstM,
        position.lastM,
        [&](Value row, Value chunk) { return warpStagedChunk(row, chunk); });
  }
  // Half steps: each half's loads before its arithmetic, the second half
  // reusing the first half's activation words.
  size_t parts = spec.halfSteps ? 2 : 1;
  size_t rowsPerPart = weightRows.size() / parts,
         accPerPart = acc.size() / parts;
  SmallVector<SmallVector<Value>> activationWords;
  for (size_t part = 0; part < parts; ++part) {
    bool lazy = spec.mTiled;
    StepLoads loads =
        lazy ? *early
             : loadStep(kc, weightRows.slice(part * rowsPerPart, rowsPerPart),
                        part == 0 ? ArrayRef<Value>(activationRows)
                                  : ArrayRef<Value>());
    if (lazy) {
      loads.staged = true;
    } else if (part == 0)
      activationWords = loads.activationWords;
    else
      loads.activationWords = activationWords;
    computeStep(loads, MutableArrayRef<Value>(acc).slice(part * accPerPart,
                                                         accPerPart));
  }
  scf::YieldOp::create(b, loc, acc);
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> TensorCoreGemvEmitter::emitLoop(ArrayRef<Value> weightRows) {
  if (spec.warpgroup)
    return emitWarpgroupLoop(weightRows);
  if (spec.mTiled && spec.stages > 1)
    return emitPipelinedLoop(weightRows);
  return emitStepLoop(weightRows);
}

SmallVector<Value> TensorCoreGemvEmitter::emitMainLoop() {
  if (spec.wholeBlocksOnly)
    return emitLoop(getWeightRows(/*clamp=*/false));
  // The fused GEMM's loop holds barriers: every warp of a block takes the
  // same side, the one of the block's last row.
  Value lastRowEnd =
      spec.mTiled
          ? (Value)arith::MulIOp::create(
                b, loc, arith::AddIOp::create(b, loc, blockTile, cIdx(1)),
                cIdx(spec.getRowsPerBlock()))
          : (Value)arith::AddIOp::create(b, loc, blockFirst,
                                         cIdx(16 * spec.colTiles));
  Value wholeBlock = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                           lastRowEnd, position.numN);
  auto rowsInside =
      scf::IfOp::create(b, loc, SmallVector<Type>(accumulators, f32),
                        wholeBlock, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rowsInside.thenBlock());
  scf::YieldOp::create(b, loc, emitLoop(getWeightRows(/*clamp=*/false)));
  b.setInsertionPointToStart(rowsInside.elseBlock());
  scf::YieldOp::create(b, loc, emitLoop(getWeightRows(/*clamp=*/true)));
  return SmallVector<Value>(rowsInside.getResults());
}

void TensorCoreGemvEmitter::addWholeLineHalves(MutableArrayRef<Value> sums) {
  // C[g][n] (g, n < 4) and C[g + 4][n + 4] are one product's two K halves,
  // held by lanes l and l ^ 18; the other columns pair a row with the
  // other half's activations and are dropped.
  Value width = cI32(kMmaLanes), partner = cI32(18);
  for (Value &sum : sums)
    sum = arith::AddFOp::create(b, loc, sum,
                                gpu::ShuffleOp::create(b, loc, sum, partner,
                                                       width,
                                                       gpu::ShuffleMode::XOR)
                                    .getShuffleResult());
}

void TensorCoreGemvEmitter::reduceKSlices(MutableArrayRef<Value> sums) {
  if (spec.kSlices == 1)
    return;
  SmallVector<Value> packed = packQuads(sums);
  auto reduce = ReduceKSlicesOp::create(
      b, loc, TypeRange(ValueRange(packed)), packed, buffers.partials, kSlice,
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x), spec.kSlices,
      spec.getThreads(kMmaLanes));
  unpackQuads(reduce.getTotals(), sums);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kSlice, cIdx(0));
  b.setInsertionPointToStart(
      scf::IfOp::create(b, loc, first, /*withElse=*/false).thenBlock());
}

// Split-K: the first warp of each weight tile adds the others' sums.
void TensorCoreGemvEmitter::reduceSplitK(MutableArrayRef<Value> sums) {
  if (spec.splitK == 1)
    return;
  unpackQuads(GemvEmitterBase::reduceSplitK(packQuads(sums), position.warp,
                                            position.lane, kMmaLanes),
              sums);
}

void TensorCoreGemvEmitter::storeSums(ArrayRef<Value> sums) {
  int64_t groups = spec.getRowGroups();
  int64_t rowsPerGroup = getGemvRowsPerGroup(spec.wholeLines);
  Value pairCol = arith::MulIOp::create(b, loc, t, cIdx(2));
  Value firstPairCol =
      firstM ? Value(arith::AddIOp::create(b, loc, firstM, pairCol)) : pairCol;
  // Whole lines: lanes g < 4, t < 2 hold the sums (columns n < 4).
  Value owner;
  if (spec.wholeLines) {
    Value lowRow =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, g, cIdx(4));
    Value lowColumn =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t, cIdx(2));
    owner = arith::AndIOp::create(b, loc, lowRow, lowColumn);
  }
  // The 16x8 accumulator: element e of a tile holds row g (+ 8 for e >= 2)
  // and column 2t + e % 2.
  SmallVector<int64_t> mOffsets, nOffsets;
  for (int64_t i = 0; i < getMmaTiles(); ++i)
    for (int64_t r = 0; r < groups; ++r)
      for (int64_t e = 0; e < 4; ++e) {
        mOffsets.push_back(rowsPerGroup * r + e % 2);
        nOffsets.push_back(rowOffset(i, e / 2));
      }
  storeTile(sums, epilogueFactor, firstPairCol, firstRow, mOffsets, nOffsets,
            position.numM, position.numN, owner);
}

/// The kernel, stage by stage: each lane's place, the operands' set-up, the
/// K loop (per block shape), the whole-line, K-slice and split-K
/// reductions, the epilogue's stores.
void TensorCoreGemvEmitter::emit() {
  setUpLanes();
  setUpOperands();
  SmallVector<Value> sums = emitMainLoop();
  if (spec.wholeLines)
    addWholeLineHalves(sums);
  OpBuilder::InsertionGuard epilogueGuard(b);
  reduceKSlices(sums);
  reduceSplitK(sums);
  storeSums(sums);
}

void mlir::qmat::gemv::emitTensorCoreGemv(OpBuilder &b, Location loc,
                                          const GemvKernelSpec &spec,
                                          const GemvBuffers &buffers,
                                          const TargetInfo &target) {
  TensorCoreGemvEmitter(b, loc, spec, buffers, target).emit();
}
