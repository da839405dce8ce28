//===- SpecializedGemmEmitter.h - The fused GEMM's specialized form -*- C++
//-*-===//
//
// The specialized form's emitter (docs/design.md, "The specialized
// warpgroup form"); its methods are defined in SpecializedGemmEmitter.cpp
// (the roles with the decoded weights in workgroup memory, the kernel) and
// in SpecializedRegisterWeights.cpp (the decoded weights in the multiplying
// warps' registers, `weights_in_registers`).
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_LIB_CONVERSION_QMATTOGPU_SPECIALIZEDGEMMEMITTER_H
#define QMAT_LIB_CONVERSION_QMATTOGPU_SPECIALIZEDGEMMEMITTER_H

#include "GemvEmitter.h"

#include "qmat/Dialect/QMat/IR/FusedGemm.h"

namespace mlir::qmat::gemv {

/// Rows of one warpgroup instruction's A tile, rows of one swizzle atom
/// (8 x 128 bytes), and K elements per 16-byte chunk.
constexpr int64_t kTileRows = 64, kCoreRows = 8, kGroupK = 8;
/// Bytes of one staged row (64 two-byte elements), and the descriptors'
/// distance between 8-row atoms.
constexpr int64_t kRowBytes = kSpecializedStageK * 2,
                  kAtomBytes = kCoreRows * kRowBytes;
/// Groups of 8 K elements per stage, and threads of a warpgroup.
constexpr int64_t kStageGroups = kSpecializedStageK / kGroupK;
constexpr int64_t kWarpgroupThreads = 128;
/// Iterations between a decoder's loads of a stage's codes and their use.
constexpr int64_t kCodeDistance = 4;

class SpecializedGemmEmitter : GemvEmitterBase {
public:
  using GemvEmitterBase::GemvEmitterBase;
  void emit();

private:
  /// Multiplying warpgroup `consumer`: the instructions of every stage on
  /// its column tile; returns the lane's sums.
  SmallVector<Value> multiply(Value consumer);
  /// Warpgroup `consumer`'s epilogue on the lane's sums `sums`.
  void storeSums(Value consumer, ArrayRef<Value> sums);
  /// The lane's sums: a 64 x N instruction's N / 2, N the M tile, or with
  /// the weights as B the block's rows.
  int64_t tileSums() const {
    return (spec.weightsAsB ? spec.getRowsPerBlock() : spec.maxM) / 2;
  }
  /// `weights_in_registers`: multiplying warpgroup `consumer` decodes the
  /// A fragments of its 64 rows itself, one 128-element K step (a stage)
  /// per iteration, and multiplies them by the stage's activations; returns
  /// the lane's sums.
  SmallVector<Value> multiplyFromRegisters(Value consumer);
  /// `weights_in_registers`: announces and starts the tensor loads of K
  /// step `step`'s activations into its stage (two tiles of 64 columns).
  void loadStage(Value step);
  /// `weights_in_registers`: this lane's codes and scales of K step `step`
  /// for its two weight rows.
  SmallVector<RowChunk> loadStepChunks(Value step);
  /// `weights_in_registers`: the A fragments of K step `step` from its
  /// loads `own` (flattened, shaped as `shape`), 4 per K16, in order.
  SmallVector<Value> decodeFragments(Value step, ValueRange own,
                                     ArrayRef<RowChunk> shape);
  /// The decoding warpgroup: loads, decode and stores of every stage.
  void emitDecode();
  /// One decoding iteration on its loads `own` (flattened, shaped as
  /// `shape`); `next` receives the loads of iteration + codeDistance().
  void emitDecodeIteration(Value decoder, Value iteration, ValueRange own,
                           ArrayRef<RowChunk> shape, SmallVector<Value> &next,
                           ValueRange tripScales = {}, Value place = {},
                           int64_t places = 1, int64_t j = 0);
  /// Announces and starts the tensor load of the activations of iteration
  /// `iteration` into its stage (rows firstM .., zeros past M).
  void loadActivations(Value iteration);
  /// The first K element of this thread's half of iteration `iteration`.
  Value laneK(Value iteration) {
    return arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, kIteration(iteration),
                              cIdx(kSpecializedStageK)),
        arith::MulIOp::create(b, loc, half, cIdx(kLaneK)));
  }
  /// This thread's codes and scales of iteration `iteration`, one chunk
  /// per pass (codes only where the scales come per trip).
  SmallVector<RowChunk> loadChunks(Value iteration);
  /// Iterations of one trip of the decode loop (over every decoding
  /// warpgroup): a trip's scales are loaded at once where
  /// tripScaleElements() is not 0.
  int64_t tripIterations() const { return codeDistance() * spec.decoderGroups; }
  /// Scale elements of one row in one trip, where one vector load of at
  /// most 16 bytes holds them and each chunk's words take whole elements
  /// of it; else 0 (each iteration loads its chunk's scales, as do the
  /// layers with zero points).
  int64_t tripScaleElements() const;
  /// The scales of each pass's row for the trip from iteration
  /// `tripStart` (a multiple of tripIterations()).
  SmallVector<Value> loadTripScales(Value tripStart);
  /// `chunk`'s raw scales taken from its row's trip scales `vector`: the
  /// chunk is iteration place + places x j of those the vector holds
  /// (place dynamic, below `places`).
  void takeTripScales(RowChunk &chunk, Value vector, Value place,
                      int64_t places, int64_t j);
  /// Decodes `chunk` of column tile `c` and stores its 32 weights in stage
  /// `stage`.
  void storeDecoded(const RowChunk &chunk, int64_t c, Value stage);
  /// Emits `body` where `condition` holds.
  void emitIf(Value condition, llvm::function_ref<void()> body) {
    auto branch = scf::IfOp::create(b, loc, condition, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    body();
  }
  /// `value` `predicate` `bound` (unsigned).
  Value compare(arith::CmpIPredicate predicate, Value value, int64_t bound) {
    return arith::CmpIOp::create(b, loc, predicate, value, cIdx(bound));
  }
  /// The i64 matrix descriptor of the K-major, 128-byte-swizzled tile at
  /// byte `offset` of the workgroup memory.
  Value descriptor(Value offset);
  /// The element of a staged tile where 16-byte chunk `chunk` of row `row`
  /// is, from the tile's first element.
  Value swizzledChunk(Value row, Value chunk) {
    Value atomRow = arith::AndIOp::create(b, loc, row, cIdx(kCoreRows - 1));
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, cIdx(kSpecializedStageK)),
        arith::MulIOp::create(b, loc,
                              arith::XOrIOp::create(b, loc, chunk, atomRow),
                              cIdx(kGroupK)));
  }
  /// Barrier object `full` or `empty` of `stage`.
  Value barrier(Value stage, bool empty) {
    return empty ? arith::AddIOp::create(b, loc, stage, cIdx(spec.stages))
                 : stage;
  }
  /// The parity of the phase of a stage's barrier objects that iteration
  /// `round` x stages + stage completes, from `round`.
  Value parity(Value round) {
    return toI32(arith::AndIOp::create(b, loc, round, cIdx(1)));
  }
  /// The block's iterations: its K slice's.
  int64_t iterations() const {
    return spec.k / kSpecializedStageK / spec.kSlices;
  }
  /// The K step of the block's iteration `iteration` (its slice's first
  /// one on).
  Value kIteration(Value iteration) {
    return sliceFirst ? arith::AddIOp::create(b, loc, iteration, sliceFirst)
                      : iteration;
  }
  /// How many iterations ahead a decoder loads its codes and scales: far
  /// enough that a stage's loads have landed when the decoder reaches it
  /// although the memory's latency exceeds two stages' multiplying time.
  /// The loop's trip takes that many iterations, so it divides their count
  /// (K is a multiple of 128: two always do). Counted in a decoding
  /// warpgroup's own iterations: with two, each takes every other one;
  /// with three, every third one, one of them ahead (a trip of one of its
  /// iterations, which needs no count to divide).
  int64_t codeDistance() const {
    int64_t groups = spec.decoderGroups;
    return std::max<int64_t>(
        1, (iterations() % kCodeDistance ? 2 : kCodeDistance) / groups);
  }
  /// Elements of one stage's activations, and of one stage's weights.
  int64_t activationElements() const { return spec.maxM * kSpecializedStageK; }
  int64_t weightElements() const {
    return spec.getRowsPerBlock() * kSpecializedStageK;
  }
  /// Multiplying warpgroups: one per column tile, or with the weights as B
  /// one per 64 tokens.
  int64_t multiplyingGroups() const {
    return spec.weightsAsB ? spec.maxM / kTileRows : spec.colTiles;
  }
  /// The decoders' passes over the block's rows, 64 rows each (the last
  /// may be partial with the weights as B).
  int64_t decodePasses() const {
    return llvm::divideCeil(spec.getRowsPerBlock(), kTileRows);
  }

  /// Where the multiplying warpgroups release a stage's `empty`: every
  /// thread at its own block's, or with `multicast` their first `multicast`
  /// threads, one at each block's of the cluster.
  void releaseStage(Value stage, Value consumer);
  /// Rows of the M tile one block of the cluster brings in.
  int64_t sliceRows() const { return spec.maxM / spec.multicast; }

  LaunchPosition position;
  /// The workgroup memory's address (i64), where the descriptors start.
  Value sharedBase;
  Value firstM, blockFirst, thread;
  /// The block's rank in its cluster (multicast).
  Value rank;
  /// With k_slices, the block's K slice (its rank in the cluster) and the
  /// slice's first iteration.
  Value slice, sliceFirst;
  /// The decoding thread's weight row of each column tile (clamped to
  /// N - 1), its K half, and the element of a stage's weights where the
  /// chunk of each of its 4 words goes in column tile 0 (the column tiles'
  /// weights follow each other).
  SmallVector<Value, 2> rows;
  /// Where the last pass holds rows of the block for this decoder's warp
  /// (null where every pass does).
  Value lastPassLive;
  Value half;
  SmallVector<Value, 4> wordStores;
  /// `weights_in_registers`: the lane's weight rows 16w + g and 16w + g + 8
  /// of its warpgroup's 64 (clamped to N - 1), and its quad lane t.
  SmallVector<Value, 2> fragmentRows;
  Value quadLane;
};

} // namespace mlir::qmat::gemv

#endif // QMAT_LIB_CONVERSION_QMATTOGPU_SPECIALIZEDGEMMEMITTER_H
