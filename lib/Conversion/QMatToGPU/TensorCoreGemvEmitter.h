//===- TensorCoreGemvEmitter.h - Warp and warpgroup GEMV ------------------===//
//
// The tensor-core emitter's declaration; its methods are defined in
// TensorCoreGemvEmitter.cpp (the step loop and the kernel), in
// TensorCorePackedDecode.cpp (the decodes into A fragments) and in
// TensorCoreWarpgroup.cpp (the fused GEMM's warpgroup form).
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_LIB_CONVERSION_QMATTOGPU_TENSORCOREGEMVEMITTER_H
#define QMAT_LIB_CONVERSION_QMATTOGPU_TENSORCOREGEMVEMITTER_H

#include "GemvEmitter.h"

namespace mlir::qmat::gemv {

//===----------------------------------------------------------------------===//
// Tensor-core GEMV
//===----------------------------------------------------------------------===//

class TensorCoreGemvEmitter : GemvEmitterBase {
public:
  using GemvEmitterBase::GemvEmitterBase;
  void emit();

private:
  /// emit()'s stages. setUpLanes: the lane's position (launch position,
  /// K slice, weight tile, lane row) and the per-lane constants of the
  /// staged forms; setUpOperands: the activation rows, the codes' streaming
  /// base, the global scale, the accumulators and the K addressing.
  void setUpLanes();
  void setUpStagedWordOffsets();
  void setUpWarpgroup();
  void setUpOperands();
  /// The sums over K: one loop where every block is whole, else a branch
  /// between the loop on whole blocks and the one on clamped rows.
  SmallVector<Value> emitMainLoop();
  /// The K loop on `weightRows` (getWeightRows): the warpgroup pipeline,
  /// the warp form's pipeline (stages > 1) or one step per iteration.
  SmallVector<Value> emitLoop(ArrayRef<Value> weightRows);
  SmallVector<Value> emitStepLoop(ArrayRef<Value> weightRows);
  SmallVector<Value> emitPipelinedLoop(ArrayRef<Value> weightRows);
  SmallVector<Value> emitWarpgroupLoop(ArrayRef<Value> weightRows);
  /// Whole lines: adds the two K halves of each product.
  void addWholeLineHalves(MutableArrayRef<Value> sums);
  /// K slices (spec.kSlices > 1): the cluster's first block adds the
  /// others' sums in rank order, and the insertion point moves into its
  /// branch (the split-K reduction and the stores that follow run there).
  void reduceKSlices(MutableArrayRef<Value> sums);
  /// Split-K: the first warp of each weight tile adds the others' sums in
  /// order, and the insertion point moves into its branch (the stores that
  /// follow run there).
  void reduceSplitK(MutableArrayRef<Value> sums);
  /// The epilogue: every sum stored with the global scale and bias.
  void storeSums(ArrayRef<Value> sums);
  /// The weight-row offset of matrix tile i's top (h = 0) or bottom rows.
  int64_t rowOffset(int64_t i, int64_t h) const;
  /// The lane's weight rows, [matrix tile][top, bottom]; `clamp`: rows past
  /// N read row N - 1 (or, prepared, the last tile).
  SmallVector<Value> getWeightRows(bool clamp);
  /// The lane's first K element in step `step`.
  Value stepK(Value step);
  /// The fused GEMM's pipelines: the warp's K step in loop iteration
  /// `iteration` (split_k K slices per iteration).
  Value stepOf(Value iteration);

  LaunchPosition position;
  /// The warp's K slice within the block (the fused GEMM with warps_n > 1
  /// has several warps per slice), the block's first activation row and its
  /// weight tile (the fused GEMM), lane (g, t) = (lane / 4, lane % 4), the
  /// block's and the lane's first weight row.
  Value kWarp, firstM, blockTile, g, t, blockFirst, firstRow;
  /// spec.kSlices > 1: the block's K slice (its rank in the cluster) and
  /// the first K step of its range; null otherwise.
  Value kSlice, sliceFirstStep;
  /// K steps of one block's range.
  int64_t sliceSteps() const { return spec.k / warpStepK / spec.kSlices; }
  /// The lane's activation rows, one per row group (clamped to M - 1).
  SmallVector<Value> activationRows;
  /// The factor of the epilogue (the global scale, with the packed decode's
  /// residual power of two), the lane's K offset in a step, zero sums.
  Value epilogueFactor, lanesK;
  SmallVector<Value> zeros;
  int64_t accumulators = 0, warpStepK = 0;

  /// How the 16 pairs of a lane's 32 K elements are formed: pair 4w + j
  /// holds elements (8w + j, 8w + j + 4) (strided) or (8w + 2j, 8w + 2j + 1).
  enum class PairOrder { strided, adjacent };

  /// Every load of one K step: the weight rows' chunks and, per row group,
  /// the four 8-element activation words.
  struct StepLoads {
    SmallVector<RowChunk> chunks;
    SmallVector<SmallVector<Value>> activationWords;
    /// spec.mTiled: the activations are staged in workgroup memory and
    /// each word is read where it is multiplied (activationWords stays
    /// empty).
    bool staged = false;
  };
  StepLoads loadStep(Value kc, ArrayRef<Value> weightRows,
                     ArrayRef<Value> activationRows);
  /// Decodes and multiplies one step into `acc`.
  void computeStep(const StepLoads &loads, MutableArrayRef<Value> acc);

  /// The packed decode (spec.usesPackedDecode()) of every chunk of a step
  /// as one qmat.decode_tile: all of each row's 16 pairs, or word `word`'s
  /// 4 (computeStepByWord). `oneMultiply`: the mxfp4 arm whose scales all
  /// take one multiply.
  SmallVector<SmallVector<Value>> decodeTile(const StepLoads &loads,
                                             bool oneMultiply,
                                             std::optional<int64_t> word);
  /// mxfp4: whether every scale byte of the step, in every lane of the
  /// warp, takes one multiply (a warp-uniform i1); null where the target
  /// has no warp vote.
  Value allMxfp4OneMultiply(ArrayRef<RowChunk> chunks);
  /// computeStep on one arm of the mxfp4 vote (`oneMultiply`: its fast
  /// arm).
  void computeStepWith(const StepLoads &loads, bool oneMultiply,
                       MutableArrayRef<Value> acc);
  /// spec.mTiled: the element offset of each word w of the lane's chunk in
  /// the staged tile (row g of its K slice; + 8 x kStagedRowChunks x 8 per
  /// row group).
  SmallVector<Value> stagedWordOffsets;
  /// spec.stages > 1: the element where the tile read this step starts.
  Value stagedTileBase;
  /// The warp form's staged chunk: chunk c of row r goes to
  /// c ^ 2 (c / 8) ^ (r % 2) (the reads' permutation, emit()).
  Value warpStagedChunk(Value row, Value chunk) {
    return arith::XOrIOp::create(
        b, loc, chunk,
        arith::OrIOp::create(b, loc,
                             arith::ShLIOp::create(
                                 b, loc,
                                 arith::ShRUIOp::create(b, loc, chunk, cIdx(3)),
                                 cIdx(1)),
                             arith::AndIOp::create(b, loc, row, cIdx(1))));
  }

  /// spec.warpgroup: the staged tile holds, per K slice, 16 groups of 8 K
  /// positions, each all m_tile rows of 16 bytes (K-major, not swizzled),
  /// the activations in A's own order; instruction s of a step reads groups
  /// 2s and 2s + 1. copyWarpgroupTile starts the asynchronous copies of K
  /// steps `firstStep` .. + split_k - 1 (rows firstM .., clamped to lastM)
  /// into the tile at element `tileBase`.
  void copyWarpgroupTile(Value firstStep, Value firstM, Value lastM,
                         Value tileBase);
  /// spec.warpgroup: a step's scales, of the whole 128-element step from
  /// `stepFirstK` for each row: 16 words, in K order (the chunks' codes stay
  /// null: they arrive through workgroup memory, copyWarpgroupCodes).
  StepLoads loadWarpgroupScales(Value stepFirstK, ArrayRef<Value> weightRows);
  /// spec.warpgroup: starts the asynchronous copies of this lane's 16 bytes
  /// of codes of each row at `kc` (the bytes the warp form loads) into
  /// stage `slot` of the staged codes, where only this thread reads them
  /// back (loadStagedCodes), so no barrier orders them.
  void copyWarpgroupCodes(Value kc, ArrayRef<Value> weightRows, Value slot);
  /// The codes copyWarpgroupCodes brought into stage `slot` for row `row`
  /// (an index into its weight rows).
  Value loadStagedCodes(Value slot, int64_t row, int64_t rows);
  /// The byte of the staged codes where this thread's 16 bytes of weight row
  /// `row` (of `rows`) in stage `slot` start.
  Value getStagedCodeOffset(Value slot, int64_t row, int64_t rows);
  /// The decode through fp32 of every chunk of a step (empty for the packed
  /// decodes, which decode word by word).
  SmallVector<SmallVector<Value>> decodeWholeChunks(const StepLoads &loads);
  /// Per chunk, the 4 pairs of word w: decoded here (packed decodes) or taken
  /// from `wholeChunks`.
  SmallVector<SmallVector<Value>>
  decodeWord(const StepLoads &loads, bool oneMultiply,
             ArrayRef<SmallVector<Value>> wholeChunks, int64_t w);
  /// computeStepByWord with the warpgroup instruction.
  void computeStepWarpgroup(const StepLoads &loads, MutableArrayRef<Value> acc);
  /// spec.warpgroup: the descriptor of the staged memory's first byte for
  /// this tile shape, and the warp's K slice.
  Value stagedDescriptor, warpgroupSlice;
  /// A step's loads as loop-carried values, and back: the codes (where
  /// loaded), then each chunk's distinct scales and zero-point bytes in
  /// order of first use.
  /// unflattenStep rebuilds the chunks of `shape` (a step's loads) from
  /// `values`, each chunk's words in scale blocks `blocks`.
  SmallVector<Value> flattenStep(const StepLoads &loads);
  StepLoads unflattenStep(const StepLoads &shape, ValueRange values,
                          ArrayRef<Value> blocks);
  /// computeStepWith for spec.mTiled: word by word, each word's weights
  /// decoded (packed decodes) and every row group's activation word loaded
  /// just before the two k16 instructions that take them. Each sum receives
  /// its products in the same order as in computeStepWith.
  void computeStepByWord(const StepLoads &loads, bool oneMultiply,
                         MutableArrayRef<Value> acc);
  /// A raw e8m0 scale's byte, zero-extended to i32.
  Value scaleByte(Value raw) {
    return arith::ExtUIOp::create(b, loc, i32,
                                  arith::BitcastOp::create(b, loc, i8, raw));
  }
  /// The chunks' scales as the packed decode reads them.
  static SmallVector<PackedRowScales> rowScales(ArrayRef<RowChunk> chunks) {
    SmallVector<PackedRowScales> rows;
    for (const RowChunk &chunk : chunks)
      rows.push_back({chunk.blocks, chunk.rawScales, chunk.rawZeroPoints});
    return rows;
  }
  /// decodeWordsThroughF32's words as pairs.
  SmallVector<Value> decodeThroughF32(const RowChunk &chunk);
  /// The activation pairs of one row group, in the weights' pair order.
  SmallVector<Value> activationPairs(ArrayRef<Value> words);

  PairOrder order() const {
    return spec.usesPackedDecode() ? PairOrder::strided : PairOrder::adjacent;
  }
  /// The two elements of an 8-element word that its pair j holds.
  SmallVector<int64_t> pairElements(int64_t j) const {
    return order() == PairOrder::strided
               ? SmallVector<int64_t>{j, j + 4}
               : SmallVector<int64_t>{2 * j, 2 * j + 1};
  }
  /// 16 x 8 matrix tiles per column tile and K step.
  int64_t getMmaTiles() const {
    return spec.colTiles * getGemvMmaTilesPerColTile(spec.wholeLines);
  }
};

} // namespace mlir::qmat::gemv

#endif // QMAT_LIB_CONVERSION_QMATTOGPU_TENSORCOREGEMVEMITTER_H
