//===- TensorCoreWarpgroup.cpp - The warpgroup fused GEMM -----------------===//
//
// The fused GEMM's warpgroup form reads its B operand from workgroup memory,
// where asynchronous copies put the activations in A's own order; so its A
// fragments take the instruction's K order instead: the four lanes of a quad
// exchange the row's codes (exchangeQuadCodes) before the same decode
// (docs/design.md, "The warpgroup form").
//
//===----------------------------------------------------------------------===//

#include "TensorCoreGemvEmitter.h"

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

TensorCoreGemvEmitter::StepLoads
TensorCoreGemvEmitter::loadWarpgroupScales(Value stepFirstK,
                                           ArrayRef<Value> weightRows) {
  StepLoads loads;
  SmallVector<Value> blocks = stepBlocks(stepFirstK);
  for (Value row : weightRows) {
    RowChunk chunk;
    loadStepScales(row, blocks, chunk);
    loads.chunks.push_back(chunk);
  }
  return loads;
}

void TensorCoreGemvEmitter::copyWarpgroupCodes(Value kc,
                                               ArrayRef<Value> weightRows,
                                               Value slot) {
  int64_t rows = weightRows.size();
  for (auto [i, row] : llvm::enumerate(weightRows)) {
    auto [codeRow, codeCol] = getRowCodeIndices(row, kc);
    AsyncCopyOp::create(b, loc, buffers.weights, ValueRange{codeRow, codeCol},
                        buffers.stagedCodes,
                        ValueRange{getStagedCodeOffset(slot, i, rows)},
                        /*elements=*/16, /*src_elements=*/Value());
  }
}

Value TensorCoreGemvEmitter::getStagedCodeOffset(Value slot, int64_t row,
                                                 int64_t rows) {
  // Stage, then row, then thread: a warp's 32 lanes read and write 512
  // consecutive bytes.
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value slotRow = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, slot, cIdx(rows)), cIdx(row));
  return arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, slotRow,
                                cIdx(spec.getThreads(kMmaLanes))),
          thread),
      cIdx(16));
}

Value TensorCoreGemvEmitter::loadStagedCodes(Value slot, int64_t row,
                                             int64_t rows) {
  return vector::LoadOp::create(
      b, loc, VectorType::get({16}, b.getI8Type()), buffers.stagedCodes,
      ValueRange{getStagedCodeOffset(slot, row, rows)}, /*nontemporal=*/false,
      /*alignment=*/llvm::MaybeAlign(16));
}

void TensorCoreGemvEmitter::copyWarpgroupTile(Value firstStep, Value firstM,
                                              Value lastM, Value tileBase) {
  int64_t threads = spec.getThreads(kMmaLanes);
  int64_t groups = kWarpStepK / 8, rowBlocks = spec.maxM / 8;
  int64_t chunks = spec.splitK * spec.maxM * groups;
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, thread, cIdx(kMmaLanes));
  // Each warp's copy covers 8 rows x 4 words: its global reads are 64
  // consecutive bytes of each row, each quarter warp's writes one group's
  // 8 rows (128 consecutive bytes).
  Value laneRow = arith::RemUIOp::create(b, loc, lane, cIdx(8));
  Value laneGroup = arith::DivUIOp::create(b, loc, lane, cIdx(8));
  for (int64_t first = 0; first < chunks; first += threads) {
    Value warpChunk = arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, thread, cIdx(first)),
        cIdx(kMmaLanes));
    Value slice =
        arith::DivUIOp::create(b, loc, warpChunk, cIdx(rowBlocks * 4));
    Value inSlice =
        arith::RemUIOp::create(b, loc, warpChunk, cIdx(rowBlocks * 4));
    Value row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, inSlice, cIdx(4)), cIdx(8)),
        laneRow);
    Value group = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, arith::RemUIOp::create(b, loc, inSlice, cIdx(4)), cIdx(4)),
        laneGroup);
    auto [m, k] =
        getActivationChunk(firstStep, slice, group, firstM, row, lastM);
    // Group G of slice s: all m_tile rows of 16 bytes (K-major, the
    // descriptor's layout).
    Value offset = arith::AddIOp::create(
        b, loc, tileBase,
        arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(
                    b, loc,
                    arith::AddIOp::create(
                        b, loc,
                        arith::MulIOp::create(b, loc, slice, cIdx(groups)),
                        group),
                    cIdx(spec.maxM)),
                row),
            cIdx(8)));
    AsyncCopyOp::create(b, loc, buffers.a, ValueRange{m, k},
                        buffers.stagedActivations, ValueRange{offset},
                        /*elements=*/8, getRowReadElements(firstM, row, lastM));
  }
}

void TensorCoreGemvEmitter::computeStepWarpgroup(const StepLoads &loads,
                                                 MutableArrayRef<Value> acc) {
  int64_t mmaTiles = loads.chunks.size() / 2, groups = spec.getRowGroups();
  // Every A fragment of the step first: the fence then orders them all
  // before the step's instructions.
  // Each row's 16 pairs in the instruction's K order: pair G holds K
  // elements 8G + 2t, 8G + 2t + 1, and instruction s takes pairs 2s and
  // 2s + 1 (its K positions 2t + {0, 1} and 2t + {8, 9}).
  // The quads exchange every row's codes, then one tile decode with a
  // scale per pair (loadWarpgroupScales).
  StepLoads exchanged = loads;
  for (RowChunk &chunk : exchanged.chunks)
    chunk.codes = exchangeQuadCodes(chunk.codes);
  SmallVector<SmallVector<Value>> pairs =
      decodeTile(exchanged, /*oneMultiply=*/false, std::nullopt);
  SmallVector<Value> operands;
  for (int64_t s = 0; s < kWarpStepK / 16; ++s)
    for (int64_t i = 0; i < mmaTiles; ++i) {
      ArrayRef<Value> top = pairs[2 * i], bottom = pairs[2 * i + 1];
      llvm::append_range(operands,
                         ArrayRef<Value>{top[2 * s], bottom[2 * s],
                                         top[2 * s + 1], bottom[2 * s + 1]});
    }
  int64_t fragments = operands.size();
  llvm::append_range(operands, acc);
  SmallVector<Value> fenced(
      WarpgroupFenceOp::create(b, loc, operands).getFenced());
  SmallVector<Value> sums(fenced.begin() + fragments, fenced.end());
  int64_t tileSums = groups * 4;
  // The descriptor of this step's tile; instruction s starts 2s groups of
  // 16 bytes x m_tile rows further (the address field counts 16 bytes).
  Type i64 = b.getI64Type();
  Value tileBytes = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, stagedTileBase,
          arith::MulIOp::create(b, loc, warpgroupSlice,
                                cIdx(spec.maxM * kWarpStepK))),
      cIdx(2));
  Value descriptor = arith::AddIOp::create(
      b, loc, stagedDescriptor,
      arith::IndexCastUIOp::create(
          b, loc, i64, arith::ShRUIOp::create(b, loc, tileBytes, cIdx(4))));
  // Each column tile is one instruction per K16 (its own 64 rows: tile i
  // of each warp), all reading the same activations.
  for (int64_t s = 0; s < kWarpStepK / 16; ++s) {
    Value instruction = arith::AddIOp::create(
        b, loc, descriptor,
        arith::ConstantIntOp::create(b, loc, i64, 2 * s * spec.maxM));
    for (int64_t i = 0; i < mmaTiles; ++i) {
      auto mma = WarpgroupMmaOp::create(
          b, loc, ArrayRef<Value>(fenced).slice(4 * (s * mmaTiles + i), 4),
          instruction, ArrayRef<Value>(sums).slice(i * tileSums, tileSums));
      llvm::copy(mma.getSums(), sums.begin() + i * tileSums);
    }
  }
  WarpgroupCommitOp::create(b, loc);
  llvm::copy(sums, acc.begin());
}

void TensorCoreGemvEmitter::setUpWarpgroup() {
  // The no-swizzle K-major descriptor: start address / 16 (bits 0-13),
  // the distance of K-adjacent 8x16-byte core matrices / 16 (16-29: one
  // group of m_tile rows), that of 8-row neighbours / 16 (32-45: 128
  // bytes).
  Value address = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, buffers.stagedActivations));
  stagedDescriptor = arith::AddIOp::create(
      b, loc,
      arith::ShRUIOp::create(
          b, loc, address,
          arith::ConstantIntOp::create(b, loc, b.getI64Type(), 4)),
      arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                   (spec.maxM << 16) | (int64_t(8) << 32)));
  warpgroupSlice = kWarp;
  setUpQuadExchange(t);
}

// The warpgroup form's pipeline: the activations and the codes of
// iteration i arrive by asynchronous copies into workgroup memory started
// stages - 2 iterations earlier (loads into registers left their latency
// exposed: ptxas issues a step's loads late in its iteration), the
// scales two iterations ahead in registers, carried as loaded (taking
// bytes out of them would wait for the loads in the iteration that
// issues them). Iteration i waits for its stage, then, behind one
// barrier that also follows every warp's wait for the instructions of
// iteration i - 2, starts the copies of iteration i + stages - 2 into
// their stage and the scale loads of iteration i + 2, reads its codes
// back, decodes them and starts its instructions, and waits for those of
// iteration i - 1 only: the tensor cores work on one iteration while the
// warps decode the next. Copies and loads past the last iteration repeat
// it.
SmallVector<Value>
TensorCoreGemvEmitter::emitWarpgroupLoop(ArrayRef<Value> weightRows) {
  int64_t iterations = spec.k / kWarpStepK / spec.splitK;
  int64_t stages = spec.stages;
  int64_t tileElements = spec.splitK * spec.maxM * kWarpStepK;
  Value lastIteration = cIdx(iterations - 1);
  auto clampedAfter = [&](Value iteration, int64_t ahead) {
    return arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, iteration, cIdx(ahead)),
        lastIteration);
  };
  auto firstKOf = [&](Value iteration) {
    return arith::MulIOp::create(b, loc, stepOf(iteration), cIdx(kWarpStepK));
  };
  auto loadsOf = [&](Value iteration) {
    return loadWarpgroupScales(firstKOf(iteration), weightRows);
  };
  auto slotOf = [&](Value iteration) {
    return arith::RemUIOp::create(b, loc, iteration, cIdx(stages));
  };
  auto copyIteration = [&](Value iteration) {
    Value clamped = arith::MinUIOp::create(b, loc, iteration, lastIteration);
    Value slot = slotOf(iteration);
    copyWarpgroupTile(arith::MulIOp::create(b, loc, clamped, cIdx(spec.splitK)),
                      firstM, position.lastM,
                      arith::MulIOp::create(b, loc, slot, cIdx(tileElements)));
    copyWarpgroupCodes(stepK(stepOf(clamped)), weightRows, slot);
    AsyncCommitOp::create(b, loc);
  };
  // The instructions of iteration i are still running while iteration
  // i + 1 decodes, so the stage a copy refills is the one iteration i - 2
  // read: the copies run stages - 2 iterations ahead.
  int64_t ahead = stages - 2;
  for (int64_t i = 0; i < ahead; ++i)
    copyIteration(cIdx(i));
  // Iteration `iteration` on the loads `own` (a step's flattened loads,
  // shaped as `first`), which also starts the loads of iteration + 2.
  StepLoads first = loadsOf(cIdx(0));
  auto emitIteration = [&](Value iteration, ValueRange own,
                           SmallVector<Value> &acc) {
    // The copies of this thread land, are ordered before the
    // instructions' reads (another proxy), and the barrier shares both;
    // it also follows every warp's wait for the instructions of
    // iteration - 2, whose stage the next copies refill.
    AsyncWaitOp::create(b, loc, ahead - 1);
    AsyncProxyFenceOp::create(b, loc);
    gpu::BarrierOp::create(b, loc);
    // The codes are read back before the next copies are started, whose
    // address arithmetic then hides the reads' latency (the copies write
    // workgroup memory, which the reads cannot be moved across).
    StepLoads loads =
        unflattenStep(first, own, stepBlocks(firstKOf(iteration)));
    loads.staged = true;
    Value slot = slotOf(iteration);
    for (auto [i, chunk] : llvm::enumerate(loads.chunks))
      chunk.codes = loadStagedCodes(slot, i, loads.chunks.size());
    copyIteration(arith::AddIOp::create(b, loc, iteration, cIdx(ahead)));
    StepLoads later = loadsOf(clampedAfter(iteration, 2));
    stagedTileBase = arith::MulIOp::create(b, loc, slot, cIdx(tileElements));
    computeStep(loads, acc);
    stagedTileBase = Value();
    // The previous iteration's instructions are done (their A registers
    // free, their stage readable by the next copies); this one's run on
    // while the next iteration decodes.
    acc = llvm::to_vector(
        ValueRange(WarpgroupWaitOp::create(b, loc, 1, acc).getReady()));
    return flattenStep(later);
  };
  SmallVector<Value> init(zeros);
  SmallVector<Value> firstFlat = flattenStep(first);
  int64_t stepValues = firstFlat.size();
  llvm::append_range(init, firstFlat);
  llvm::append_range(init, flattenStep(loadsOf(clampedAfter(cIdx(0), 1))));
  SmallVector<Value> sums =
      emitPairedLoop(iterations, accumulators, stepValues, init, emitIteration);
  sums = llvm::to_vector(
      ValueRange(WarpgroupWaitOp::create(b, loc, 0, sums).getReady()));
  // The copies past the last iteration land before the memory is reused.
  AsyncWaitOp::create(b, loc, 0);
  return sums;
}
