//===- WaveMmaGemvEmitter.cpp - Wavefront GEMV kernels --------------------===//
//
// The GEMV and fused GEMM on 64-lane wavefronts' 16x16x16 matrix
// instructions (AMD's MFMA).
//
//===----------------------------------------------------------------------===//

#include "GemvEmitter.h"

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

namespace {

//===----------------------------------------------------------------------===//
// Wavefront matrix-core GEMV (16x16x16, 64 lanes)
//===----------------------------------------------------------------------===//

/// The matrix-core GEMV for targets with qmat.wave_mma. A
/// wavefront owns 16 weight rows per column tile and walks K in steps of
/// 128: lane l = 16q + r loads the 32 consecutive K elements [32q, 32q + 32)
/// of weight row r and of activation row r (+ 16 per row group), decoded
/// to the reference's rounded weights. Instruction i takes elements
/// 4i..4i+3 of every lane's chunk, so that A and B agree on each K
/// position, as the NVIDIA mapping does with its own lane layout.
class WaveMmaGemvEmitter : GemvEmitterBase {
public:
  using GemvEmitterBase::GemvEmitterBase;
  void emit();

private:
  /// The fused GEMM's staged chunk: chunk c of row r goes to c ^ (r % 8).
  /// Lane (r, q) reads chunk 4q + w of row 16g + r, so the eight lanes of
  /// each 128-byte phase of a 16-byte read take eight distinct bank groups.
  Value waveStagedChunk(Value row, Value chunk) {
    return arith::XOrIOp::create(b, loc, chunk,
                                 arith::AndIOp::create(b, loc, row, cIdx(7)));
  }
  /// The four activation words of staged row `row` (of K slice `slice`) at
  /// lane chunk `q` (16-byte reads from workgroup memory).
  SmallVector<Value> loadStagedWords(Value slice, Value row, Value q);
};

SmallVector<Value> WaveMmaGemvEmitter::loadStagedWords(Value slice, Value row,
                                                       Value q) {
  auto actWord = VectorType::get({8}, act);
  SmallVector<Value> words;
  for (int64_t w = 0; w < kLaneK / 8; ++w) {
    Value chunk = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, q, cIdx(kLaneK / 8)), cIdx(w));
    Value offset =
        getStagedOffset(slice, row, chunk, [&](Value row, Value chunk) {
          return waveStagedChunk(row, chunk);
        });
    words.push_back(vector::LoadOp::create(
        b, loc, actWord, buffers.stagedActivations, ValueRange{offset},
        /*nontemporal=*/false, /*alignment=*/llvm::MaybeAlign(16)));
  }
  return words;
}

void WaveMmaGemvEmitter::emit() {
  int64_t colTiles = spec.colTiles, groups = (spec.maxM + 15) / 16;
  int64_t lanes = target.getWarpSize();
  // Columns of D that can hold a live activation row: the rest are never
  // stored, and leaving them out of the split-K exchange keeps its size
  // that of the 16x8x16 mapping (GemvOp::getPartialSumBytes).
  int64_t liveColumns = spec.maxM <= 8 ? 8 : 16;
  auto [lane, warp, block, numN, numM, lastN, lastM] = getLaunchPosition(lanes);
  // The GEMV: wavefront w takes K steps w, w + split_k, ... of the block's
  // weight tile. The fused GEMM (spec.mTiled): block x is the M tile, block
  // y the group of warps_n weight tiles; wavefront w takes weight tile
  // w % warps_n and K slice w / warps_n of each split_k steps.
  Value kWave = warp, tile = block, firstM = cIdx(0);
  if (spec.mTiled) {
    firstM = arith::MulIOp::create(b, loc, block, cIdx(spec.maxM));
    kWave = arith::DivUIOp::create(b, loc, warp, cIdx(spec.warpsN));
    Value nWave = arith::RemUIOp::create(b, loc, warp, cIdx(spec.warpsN));
    tile = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc,
                              gpu::BlockIdOp::create(b, loc, gpu::Dimension::y),
                              cIdx(spec.warpsN)),
        nWave);
  }
  Value r = arith::RemUIOp::create(b, loc, lane, cIdx(16));
  Value q = arith::DivUIOp::create(b, loc, lane, cIdx(16));
  Value firstRow = arith::MulIOp::create(b, loc, tile, cIdx(16 * colTiles));
  SmallVector<Value> weightRows, activationRows;
  for (int64_t c = 0; c < colTiles; ++c)
    weightRows.push_back(arith::MinUIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::AddIOp::create(b, loc, firstRow, cIdx(16 * c)), r),
        lastN));
  // The GEMV's rows of A (rows past M repeat the last one); the fused
  // GEMM's rows of the staged tile (the copy clamps them).
  for (int64_t g = 0; g < groups; ++g) {
    Value row = arith::AddIOp::create(b, loc, r, cIdx(16 * g));
    activationRows.push_back(
        spec.mTiled ? row : Value(arith::MinUIOp::create(b, loc, row, lastM)));
  }
  globalScale = buffers.globalScale ? loadGlobalScale() : Value();

  auto quad = VectorType::get({4}, f32);
  Value zero = arith::ConstantOp::create(
      b, loc, quad, DenseElementsAttr::get(quad, b.getF32FloatAttr(0)));
  SmallVector<Value> zeros(colTiles * groups, zero);
  Value laneK = arith::MulIOp::create(b, loc, q, cIdx(kLaneK));
  // The fused GEMM's loop is the same for every wavefront of the block (its
  // barriers need that): iteration i stages steps i * split_k .. + split_k
  // - 1 and wavefront w multiplies step i * split_k + w / warps_n.
  int64_t steps = spec.k / kWarpStepK;
  auto loop = spec.mTiled ? scf::ForOp::create(b, loc, cIdx(0),
                                               cIdx(steps / spec.splitK),
                                               cIdx(1), zeros)
                          : scf::ForOp::create(b, loc, warp, cIdx(steps),
                                               cIdx(spec.splitK), zeros);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar(), firstStep;
    if (spec.mTiled) {
      firstStep = arith::MulIOp::create(b, loc, step, cIdx(spec.splitK));
      step = arith::AddIOp::create(b, loc, firstStep, kWave);
    }
    Value kc = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, step, cIdx(kWarpStepK)), laneK);
    SmallVector<Value> blocks = wordBlocks(kc);
    SmallVector<RowChunk> chunks;
    for (Value row : weightRows)
      chunks.push_back(loadRowChunk(row, kc, blocks));
    // The weights' loads are in flight while the block stages the step's
    // activations.
    if (spec.mTiled)
      stageActivations(firstStep, firstM, lastM, [&](Value row, Value chunk) {
        return waveStagedChunk(row, chunk);
      });
    SmallVector<SmallVector<Value>> activationWords;
    for (Value row : activationRows)
      activationWords.push_back(spec.mTiled ? loadStagedWords(kWave, row, q)
                                            : loadActivationWords(row, kc));
    SmallVector<Value> acc(loop.getRegionIterArgs());
    for (auto [c, chunk] : llvm::enumerate(chunks)) {
      SmallVector<Value> weights = decodeWordsThroughF32(chunk);
      for (int64_t i = 0; i < kLaneK / 4; ++i)
        for (int64_t g = 0; g < groups; ++g) {
          Value &sum = acc[c * groups + g];
          sum = WaveMmaOp::create(
              b, loc, sliceOf(weights[i / 2], 4 * (i % 2), 4),
              sliceOf(activationWords[g][i / 2], 4 * (i % 2), 4), sum);
        }
    }
    scf::YieldOp::create(b, loc, acc);
  }
  SmallVector<Value> sums(loop.getResults());

  Value column = r;
  OpBuilder::InsertionGuard epilogueGuard(b);
  if (spec.splitK > 1) {
    // Only the columns that hold a live activation row take part; a lane's
    // slot is its column of its quarter.
    Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       column, cIdx(liveColumns));
    Value laneSlot = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, q, cIdx(liveColumns)), column);
    sums = reduceSplitK(sums, warp, laneSlot, 4 * liveColumns, live);
  }

  // The 16x16 accumulator: element i of a tile holds row 4q + i and
  // column `column`.
  Value firstN = arith::AddIOp::create(
      b, loc, firstRow, arith::MulIOp::create(b, loc, q, cIdx(4)));
  Value lanesM = arith::AddIOp::create(b, loc, firstM, column);
  SmallVector<Value> lanesSums;
  SmallVector<int64_t> mOffsets, nOffsets;
  for (int64_t c = 0; c < colTiles; ++c)
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t i = 0; i < 4; ++i) {
        lanesSums.push_back(vector::ExtractOp::create(
            b, loc, sums[c * groups + g], ArrayRef<int64_t>{i}));
        mOffsets.push_back(16 * g);
        nOffsets.push_back(16 * c + i);
      }
  storeTile(lanesSums, Value(), lanesM, firstN, mOffsets, nOffsets, numM, numN);
}

} // namespace

void mlir::qmat::gemv::emitWaveMmaGemv(OpBuilder &b, Location loc,
                                       const GemvKernelSpec &spec,
                                       const GemvBuffers &buffers,
                                       const TargetInfo &target) {
  WaveMmaGemvEmitter(b, loc, spec, buffers, target).emit();
}
