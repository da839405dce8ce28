//===- GemvEmitter.h - GEMV emitters' shared base -------------------------===//
//
// What every GEMV and fused-GEMM emitter shares (the row chunk loads, the
// scale and zero-point loads, the activation staging, the store with its
// epilogue), and the entry point of each emitter: the tensor-core one
// (warp and warpgroup instructions), the wavefront matrix-core one and the
// scalar one. emitGemvKernelBody (GemvKernelBuilder.cpp) picks one.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_LIB_CONVERSION_QMATTOGPU_GEMVEMITTER_H
#define QMAT_LIB_CONVERSION_QMATTOGPU_GEMVEMITTER_H

#include "qmat/Conversion/QMatToGPU/DequantKernelBuilder.h"
#include "qmat/Conversion/QMatToGPU/GemvKernelBuilder.h"
#include "qmat/Conversion/QMatToGPU/TileDecode.h"
#include "qmat/Dialect/QMat/IR/PreparedWeights.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::qmat::gemv {

/// Weight rows one scalar-GEMV block handles (one warp each).
constexpr int64_t kScalarRowsPerBlock = 4;
/// K elements per warp step and per lane in the tensor-core GEMV.
constexpr int64_t kWarpStepK = 128;
constexpr int64_t kLaneK = 32;
/// Lanes of the 16x8x16 matrix instruction.
constexpr int64_t kMmaLanes = 32;
/// Prepared codes advance this many bytes per K element: a 1 KB tile slice
/// per 128-element step.
constexpr int64_t kPreparedBytesPerK =
    kPreparedTileRows * kPreparedStepBytes / kWarpStepK;
/// 16-byte chunks of one activation row of a K step in the fused GEMM's
/// staged tile.
constexpr int64_t kStagedRowChunks = kWarpStepK / 8;

/// Shared helpers of both GEMV flavours.
class GemvEmitterBase {
public:
  GemvEmitterBase(OpBuilder &builder, Location loc, const GemvKernelSpec &spec,
                  const GemvBuffers &buffers, const TargetInfo &target)
      : b(builder), loc(loc), spec(spec), buffers(buffers), target(target),
        f32(b.getF32Type()), i32(b.getI32Type()), i8(b.getI8Type()),
        act(spec.actType) {}

protected:
  Value cIdx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value cI32(int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); }
  Value cF32(float v) {
    return arith::ConstantFloatOp::create(b, loc, cast<FloatType>(f32),
                                          APFloat(v));
  }
  Value toI32(Value index) {
    return arith::IndexCastUIOp::create(b, loc, i32, index);
  }
  /// The lane's sums as vectors of 4 (the reductions' unit), and back.
  SmallVector<Value> packQuads(ArrayRef<Value> sums);
  void unpackQuads(ValueRange quads, MutableArrayRef<Value> sums);

  /// A cached load of weight data (qmat.load_tile): scales and zero points,
  /// which the lanes of several rows and blocks read again.
  Value loadCached(Type type, Value source, ValueRange indices,
                   uint64_t alignment = 0) {
    return LoadTileOp::create(b, loc, type, CachePolicy::cached, source,
                              indices, alignment);
  }
  Value loadRawScale(Value row, Value block) {
    auto scales = cast<MemRefType>(buffers.scales.getType());
    return loadCached(scales.getElementType(), buffers.scales,
                      ValueRange{row, block});
  }
  Value loadScale(Value row, Value block) {
    return emitScaleToF32(b, loc, spec.scheme, loadRawScale(row, block));
  }
  /// The byte holding the u4 zero point of `block` (two per byte).
  Value loadRawZeroPoint(Value row, Value block) {
    Value col = arith::ShRUIOp::create(b, loc, block, cIdx(1));
    return loadCached(i8, buffers.zeroPoints, ValueRange{row, col});
  }
  Value loadZeroPoint(Value row, Value block) {
    if (!spec.hasZeroPoints)
      return cF32(8.0f);
    return emitZeroPointToF32(b, loc, loadRawZeroPoint(row, block),
                              toI32(block));
  }
  /// Elements [first, first + count) of a 1-D vector (a shuffle, which
  /// every target's vector lowering takes).
  Value sliceOf(Value vector, int64_t first, int64_t count) {
    SmallVector<int64_t> mask(count);
    for (int64_t i = 0; i < count; ++i)
      mask[i] = first + i;
    return vector::ShuffleOp::create(b, loc, vector, vector, mask);
  }
  Value loadGlobalScale() {
    return memref::LoadOp::create(b, loc, buffers.globalScale, ValueRange{});
  }

  /// The epilogue of the lane's sums (qmat.store_tile): sum i to y[m +
  /// mOffsets[i], n + nOffsets[i]] as round(sum * factor + bias[n]) where
  /// inside M x N (and `owner`, where given, holds).
  void storeTile(ArrayRef<Value> sums, Value factor, Value m, Value n,
                 ArrayRef<int64_t> mOffsets, ArrayRef<int64_t> nOffsets,
                 Value numM, Value numN, Value owner = {}) {
    StoreTileOp::create(b, loc, sums, buffers.y, m, n, mOffsets, nOffsets, numM,
                        numN, factor, buffers.bias, owner);
  }

  /// The split-K reduction (qmat.reduce_split_k) of the lane's `sums`
  /// (vectors of 4) over the block's spec.splitK K slices of warps (the
  /// fused GEMM's of spec.warpsN each): the lane is in warp `warp`, its
  /// sums take lane slot `laneSlot` of `laneSlots`, where `live` (if given)
  /// holds. The insertion point moves into the epilogue, which runs in the
  /// first slice; returns the totals there.
  SmallVector<Value> reduceSplitK(ArrayRef<Value> sums, Value warp,
                                  Value laneSlot, int64_t laneSlots,
                                  Value live = {});

  /// What one lane loads of one weight row for a 32-element K chunk (loads
  /// only: the arithmetic comes after every load of a step is issued).
  struct RowChunk {
    Value codes;
    /// Per 8-element word: its scale block (the index the scale and
    /// zero-point loads took), the raw scale element and (int4 with zero
    /// points) the raw zero-point byte; words of one block repeat the Value.
    SmallVector<Value> blocks, rawScales, rawZeroPoints;
    /// spec.warpgroup: the scale loads of several elements, one per
    /// 32-element part of the row's step, which rawScales extract from
    /// (carried through the main loop whole, so that the iteration that
    /// loads them does not wait for them).
    SmallVector<Value, 1> scaleVectors;
  };
  /// Chunks' loads as loop-carried values, and back: the codes (where
  /// loaded), then each chunk's distinct scales (or its whole scale loads)
  /// and zero-point bytes in order of first use. unflattenChunks rebuilds
  /// chunks of `shape` from `values`, each chunk's words in scale blocks
  /// `blocks`.
  SmallVector<Value> flattenChunks(ArrayRef<RowChunk> chunks);
  SmallVector<RowChunk> unflattenChunks(ArrayRef<RowChunk> shape,
                                        ValueRange values,
                                        ArrayRef<Value> blocks);
  /// The scale block of each 8-element word of the chunk at `kc` (a
  /// multiple of 32).
  SmallVector<Value> wordBlocks(Value kc);
  RowChunk loadRowChunk(Value row, Value kc, ArrayRef<Value> blocks);
  /// loadRowChunk's parts: the lane's 16 bytes of codes (32 for fp8) of
  /// `row` at `kc`, and the scales (and zero-point bytes) of the words of
  /// the 32-element chunk whose words are in `blocks`, appended to `chunk`.
  Value loadRowCodes(Value row, Value kc);
  /// The element of the codes memref where this lane's bytes of `row` at
  /// `kc` start (in the prepared layout where the codes are prepared).
  std::pair<Value, Value> getRowCodeIndices(Value row, Value kc);
  void loadRowScales(Value row, ArrayRef<Value> blocks, RowChunk &chunk);
  /// One iteration of a loop of loads carried two iterations ahead: it
  /// takes iteration `iteration`'s loads `own` and the lane's sums (which
  /// it updates) and returns the loads it started for iteration + 2.
  using PairedIteration = function_ref<SmallVector<Value>(
      Value iteration, ValueRange own, SmallVector<Value> &sums)>;
  /// `count` such iterations, two per trip of an scf.for whose carried
  /// values are `init`: the lane's `sums` first, then the loads of
  /// iterations 0 and 1 (`setValues` each). Each iteration has its own set,
  /// so that the loads land in the registers that set's reads free and no
  /// loaded value is moved at the loop's end (a move would wait for the
  /// load). An odd count's last iteration follows the loop, on the first
  /// set. Returns the sums.
  SmallVector<Value> emitPairedLoop(int64_t count, int64_t sums,
                                    int64_t setValues, ValueRange init,
                                    PairedIteration iteration);
  /// The scale block of each of the 16 words of the 128-element K step at
  /// `stepFirstK`, in K order.
  SmallVector<Value> stepBlocks(Value stepFirstK);
  /// The scales (and zero-point bytes) of all 16 words of a K step of `row`
  /// whose words are in `blocks` (stepBlocks), appended to `chunk`: one
  /// loadRowScales per 32-element part, or with `oneLoad` one vector load
  /// of the whole step's where it can be.
  void loadStepScales(Value row, ArrayRef<Value> blocks, RowChunk &chunk,
                      bool oneLoad = false);
  /// The warpgroup instruction's A fragments take K elements 2t + {0, 1}
  /// and 2t + {8, 9} of each K16 from lane t of a quad. The four lanes of a
  /// quad exchange one row's codes (3 shuffles): lane t's result holds the
  /// pairs (8G + 2t, 8G + 2t + 1) of the row's 16 words G (the 16 bytes
  /// each lane loaded, words 4t .. 4t + 3 of a 128-element step), as 4
  /// words in the checkpoint's form, so that PackedDecoder::decode turns
  /// them into pairs 0 .. 15 (pair G of word G / 4).
  Value exchangeQuadCodes(Value codes);
  /// Sets up exchangeQuadCodes for quad lane `t` (an index, lane % 4): the
  /// byte selectors (bytes t, t ^ 1 and t ^ 2, t ^ 3 of two words) and the
  /// bits of t, once per kernel.
  void setUpQuadExchange(Value t);
  SmallVector<Value> exchangeSelectors;
  Value quadLaneOdd, quadLaneHigh;
  /// The chunk's weights as the reference rounds them (docs/numerics.md), one
  /// vector<8 x act> per 8-element word (qmat.decode_words).
  SmallVector<Value> decodeWordsThroughF32(const RowChunk &chunk);

  /// The global scale, where the weights are decoded through fp32.
  Value globalScale;
  /// Where the codes' 16-byte loads stream past L1 (qmat.load_tile
  /// streaming, on a target that has such a load): their first byte's
  /// address (the loads' base) and their row stride in bytes (index); the
  /// prepared codes' address is then one byte offset per row
  /// (getPreparedCodeByte) instead of tile indices. Null otherwise.
  Value codesBase, codesRowStride;
  /// Prepared codes: each weight row of the tensor-core layouts as
  /// 16T + 8 half + (laneRow + offset), by row Value (rows of a tile past N
  /// moved to the last tile as a whole).
  struct PreparedRow {
    /// The first row of the row's tile (a multiple of 16).
    Value tileFirst;
    int64_t half, offset;
  };
  DenseMap<Value, PreparedRow> preparedRows;
  /// The lane's row within its 8-row half tile (g, or g % 4 with whole
  /// lines), and with prepared codes the lane's part of a code byte
  /// (getPreparedCodeByte).
  Value laneRow, preparedLane;
  /// The byte of the prepared codes where a 16-row lane's chunk of `row` at
  /// element `kc` starts (row in preparedRows).
  Value getPreparedCodeByte(Value row, Value kc);

  /// Where this thread sits in a launch whose lanes form groups of
  /// `lanes` (a warp, or a wavefront), and the operands' row counts.
  struct LaunchPosition {
    Value lane, warp, block, numN, numM, lastN, lastM;
  };
  LaunchPosition getLaunchPosition(int64_t lanes);
  /// The four 8-element activation words of `row` at `kc` (16-byte loads).
  SmallVector<Value> loadActivationWords(Value row, Value kc);

  /// The fused GEMM's staged activation tile: per K slice, m_tile rows of
  /// kStagedRowChunks 16-byte chunks, chunk c of row r stored at
  /// `swizzle(r, c)` so that the reader's lanes hit distinct banks.
  using StagedSwizzle = function_ref<Value(Value row, Value chunk)>;
  /// Copies the block's activations of K steps `firstStep` .. + split_k - 1
  /// (rows firstM .., clamped to lastM) into the staged tile at element
  /// `tileBase`. Each thread copies its 16-byte chunks, as asynchronous
  /// copies (`async`, rows past lastM zeros) or as loads followed by stores
  /// (rows past lastM repeat it); no barrier.
  void copyActivations(Value firstStep, Value firstM, Value lastM,
                       Value tileBase, bool async, StagedSwizzle swizzle);
  /// The activation (row, column) of 16-byte chunk `chunk` of staged row
  /// `row` in K slice `slice` of the steps from `firstStep`: row firstM +
  /// row clamped to lastM (rows past M repeat the last one).
  std::pair<Value, Value> getActivationChunk(Value firstStep, Value slice,
                                             Value chunk, Value firstM,
                                             Value row, Value lastM);
  /// The elements an asynchronous copy of activation row firstM + row
  /// reads: 8 inside A, 0 past its last row, whose 16 bytes the copy then
  /// fills with zeros. Copies clamped to the last row would read that row
  /// again for every missing one, in every block of the last M tile.
  Value getRowReadElements(Value firstM, Value row, Value lastM);
  /// copyActivations into the only tile, between barriers.
  void stageActivations(Value firstStep, Value firstM, Value lastM,
                        StagedSwizzle swizzle);
  /// The element of the staged tile where chunk `chunk` of row `row` of K
  /// slice `slice` is (swizzled).
  Value getStagedOffset(Value slice, Value row, Value chunk,
                        StagedSwizzle swizzle);

  OpBuilder &b;
  Location loc;
  const GemvKernelSpec &spec;
  const GemvBuffers &buffers;
  const TargetInfo &target;
  Type f32, i32, i8, act;
};

/// The kernel bodies, each at the builder's insertion point.
void emitTensorCoreGemv(OpBuilder &b, Location loc, const GemvKernelSpec &spec,
                        const GemvBuffers &buffers, const TargetInfo &target);
void emitWaveMmaGemv(OpBuilder &b, Location loc, const GemvKernelSpec &spec,
                     const GemvBuffers &buffers, const TargetInfo &target);
void emitSpecializedFusedGemm(OpBuilder &b, Location loc,
                              const GemvKernelSpec &spec,
                              const GemvBuffers &buffers,
                              const TargetInfo &target);
void emitScalarGemv(OpBuilder &b, Location loc, const GemvKernelSpec &spec,
                    const GemvBuffers &buffers, const TargetInfo &target);

} // namespace mlir::qmat::gemv

#endif // QMAT_LIB_CONVERSION_QMATTOGPU_GEMVEMITTER_H
