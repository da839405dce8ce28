//===- GemvKernelBuilder.cpp - Decode-path GEMV kernels -------------------===//
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
// The fused GEMM's warpgroup form reads its B operand from workgroup memory,
// where asynchronous copies put the activations in A's own order; so its A
// fragments take the instruction's K order instead: the four lanes of a quad
// exchange the row's codes (exchangeQuadCodes) before the same decode
// (docs/design.md, "The warpgroup form").
//
// Packed decodes (exact: each pair holds the reference's rounded weights):
// - fp4: the nibble's sign lands on bit 15 of a 16-bit half and its three
//   magnitude bits under the exponent (f16: bits 11..9, bf16: bits 8..6),
//   which is code * 2^-14 (f16) or code * 2^-126 (bf16), subnormal 0.5
//   included. nvfp4 applies the block scale as a packed multiply by
//   scale * 2^(E - 7) (E = 14 or 126), exact because the product has at most
//   6 significant bits and stays in range; the factor 2^7 and the global
//   scale are applied to the fp32 sums. mxfp4 first multiplies by 2^E,
//   which gives the code's own value, then by 2^(e - 127): one rounding of
//   the exact product, as the reference's, including overflow to infinity
//   and underflow (2^(e - 127) alone would not fit one factor). f16 cannot
//   hold 2^(e - 127) either: it takes two factors 2^a 2^b, the first
//   keeping the product exact, the second rounding it once. Where every
//   scale of a step, in every lane of the warp, makes 2^(e - 127 + E) a
//   normal number (e <= 128; f16 raises e below 99 to 99, where every code
//   rounds to zero either way), a warp vote takes that single factor
//   instead, the same one rounding (PackedFp4Placement.h).
// - int4: the nibble under the magic bias (f16 1024, bf16 128, whose last
//   significand bit is 1) is bias + q; subtracting bias + zp leaves q - zp
//   exactly, and the multiply by the act-typed scale rounds the exact
//   product once, as the reference does in fp32. f16 reads the odd nibbles
//   in place at bits 4-7 (1024 + 16q) and centres them with x/16 - (64 + zp).
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/QMatToGPU/GemvKernelBuilder.h"
#include "qmat/Conversion/QMatToGPU/DequantKernelBuilder.h"
#include "qmat/Conversion/QMatToGPU/PackedFp4Placement.h"
#include "qmat/Dialect/QMat/IR/PreparedWeights.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// Weight rows one scalar-GEMV block handles (one warp each).
constexpr int64_t kScalarRowsPerBlock = 4;
/// f16 -64: the sign and exponent of -(64 + zp), whose significand is
/// zp << 4.
constexpr int64_t kNegative64F16 = 0xD400;
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
/// The power of two left on the packed fp4 weights (see the file comment).
constexpr int kPackedFp4ResidualExponent = 7;

} // namespace

/// The fields qmat.gemv and qmat.fused_gemm share.
template <typename OpT>
static GemvKernelSpec getOperandSpec(OpT op, KernelConfigAttr config) {
  GemvKernelSpec spec;
  spec.scheme = op.getScheme();
  spec.k = op.getK();
  spec.actType = op.getActType();
  spec.splitK = op.getSplitK();
  spec.colTiles = op.getColTiles();
  spec.decode = config.getDecode();
  spec.hasZeroPoints = static_cast<bool>(op.getZeroPoints());
  spec.hasBias = static_cast<bool>(op.getBias());
  spec.preparedWeights = op.getPreparedWeights();
  spec.wholeBlocksOnly = config.getWholeBlocks();
  return spec;
}

GemvKernelSpec GemvKernelSpec::get(GemvOp op, KernelConfigAttr config) {
  GemvKernelSpec spec = getOperandSpec(op, config);
  spec.maxM = op.getMaxM();
  spec.tensorCore = config.getMatrix() != MatrixOp::scalar;
  spec.wholeLines = config.getWholeLines();
  spec.halfSteps = config.getHalfSteps();
  return spec;
}

GemvKernelSpec GemvKernelSpec::get(FusedGemmOp op, KernelConfigAttr config) {
  GemvKernelSpec spec = getOperandSpec(op, config);
  spec.maxM = op.getMTile();
  spec.tensorCore = true;
  spec.mTiled = true;
  spec.warpsN = op.getWarpsN();
  spec.stages = op.getStages();
  spec.warpgroup = config.getMatrix() == MatrixOp::wgmma_64xnx16;
  spec.dynamicShared = op.getWarpgroup();
  return spec;
}

int64_t GemvKernelSpec::getThreads(unsigned warpSize) const {
  return tensorCore ? warpSize * splitK * warpsN
                    : warpSize * kScalarRowsPerBlock;
}

int64_t GemvKernelSpec::getRowsPerBlock() const {
  return tensorCore ? 16 * colTiles * warpsN : kScalarRowsPerBlock;
}

int64_t GemvKernelSpec::getSharedBytes() const {
  if (mTiled)
    return FusedGemmOp::getWorkgroupBytes(maxM, warpsN, splitK, colTiles,
                                          stages, warpgroup);
  return tensorCore
             ? GemvOp::getPartialSumBytes(splitK, colTiles, maxM, wholeLines)
             : 0;
}

bool mlir::qmat::isPackedGemvDecode(SchemeKind scheme, bool tensorCore,
                                    DecodeMethod decode) {
  if (!tensorCore || decode != DecodeMethod::magic_bias)
    return false;
  switch (scheme) {
  case SchemeKind::nvfp4:
  case SchemeKind::int4:
  case SchemeKind::mxfp4:
    return true;
  case SchemeKind::fp8:
    return false;
  }
  llvm_unreachable("unknown scheme");
}

bool GemvKernelSpec::usesPackedDecode() const {
  return isPackedGemvDecode(scheme.getKind(), tensorCore, decode);
}

bool mlir::qmat::isChunkedGemvDot(bool tensorCore, int64_t k,
                                  int64_t blockSize) {
  return !tensorCore && k % kLaneK == 0 && blockSize % 8 == 0;
}

bool GemvKernelSpec::usesChunkedDot() const {
  return isChunkedGemvDot(tensorCore, k, scheme.getBlockSize());
}

int64_t mlir::qmat::getGemvScaleLoadElements(bool tensorCore, int64_t k,
                                             int64_t blockSize) {
  bool chunked = tensorCore || isChunkedGemvDot(tensorCore, k, blockSize);
  if (!chunked || blockSize >= kLaneK || kLaneK % blockSize != 0)
    return 1;
  return kLaneK / blockSize;
}

int64_t GemvKernelSpec::getScaleLoadElements() const {
  return getGemvScaleLoadElements(tensorCore, k, scheme.getBlockSize());
}

std::string GemvKernelSpec::getKernelName() const {
  std::string act = actType.isF16() ? "f16" : "bf16";
  if (mTiled)
    return llvm::formatv(
               "fused_{0}_bs{1}_k{2}_{3}_{4}{5}{6}_mt{7}_w{8}_s{9}_c{10}{11}{"
               "12}{13}",
               stringifySchemeKind(scheme.getKind()), scheme.getBlockSize(), k,
               act, stringifyDecodeMethod(decode), hasZeroPoints ? "_zp" : "",
               hasBias ? "_bias" : "", maxM, warpsN, splitK, colTiles,
               stages > 1 ? "_p" + std::to_string(stages) : std::string(),
               preparedWeights ? "_prepared" : "",
               wholeBlocksOnly ? "_full" : "")
               .str() +
           (warpgroup ? "_wg" : "");
  return llvm::formatv(
             "gemv_{0}_bs{1}_k{2}_{3}_{4}_{5}{6}{7}_m{8}_s{9}_c{10}{11}{12}{13}"
             "{14}",
             stringifySchemeKind(scheme.getKind()), scheme.getBlockSize(), k,
             act, tensorCore ? "tc" : (usesChunkedDot() ? "dot" : "scalar"),
             stringifyDecodeMethod(decode), hasZeroPoints ? "_zp" : "",
             hasBias ? "_bias" : "", maxM, splitK, colTiles,
             wholeLines ? "_lines" : "", halfSteps ? "_halves" : "",
             preparedWeights ? "_prepared" : "", wholeBlocksOnly ? "_full" : "")
      .str();
}

namespace {

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

  Value loadScale(Value row, Value block) {
    Value raw =
        memref::LoadOp::create(b, loc, buffers.scales, ValueRange{row, block});
    return emitScaleToF32(b, loc, spec.scheme, raw);
  }
  /// The byte holding the u4 zero point of `block` (two per byte).
  Value loadRawZeroPoint(Value row, Value block) {
    Value col = arith::ShRUIOp::create(b, loc, block, cIdx(1));
    return memref::LoadOp::create(b, loc, buffers.zeroPoints,
                                  ValueRange{row, col});
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

  /// y[m, n] = round(sum * factor + bias[n]) when m < M and n < N (and
  /// `owner`, where given, holds).
  void emitStore(Value sum, Value factor, Value m, Value n, Value numM,
                 Value numN, Value owner = {}) {
    Value inM =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, m, numM);
    Value inN =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n, numN);
    Value inside = arith::AndIOp::create(b, loc, inM, inN);
    if (owner)
      inside = arith::AndIOp::create(b, loc, inside, owner);
    auto guard = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(guard.thenBlock());
    Value v = sum;
    if (factor)
      v = arith::MulFOp::create(b, loc, v, factor);
    if (buffers.bias) {
      Value bias = memref::LoadOp::create(b, loc, buffers.bias, ValueRange{n});
      v = arith::AddFOp::create(b, loc, v,
                                arith::ExtFOp::create(b, loc, f32, bias));
    }
    Value rounded = arith::TruncFOp::create(b, loc, act, v);
    memref::StoreOp::create(b, loc, rounded, buffers.y, ValueRange{m, n});
  }

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
  /// The chunk's weights as the reference rounds them (docs/numerics.md), one
  /// vector<8 x act> per 8-element word.
  SmallVector<Value> decodeWordsThroughF32(const RowChunk &chunk);

  /// The global scale, where the weights are decoded through fp32.
  Value globalScale;
  /// The codes' first byte address and row stride in bytes (index), where
  /// their 16-byte loads stream (TargetInfo::emitStreamingLoad16); null
  /// otherwise.
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
  /// copies (`async`) or as loads followed by stores; no barrier.
  void copyActivations(Value firstStep, Value firstM, Value lastM,
                       Value tileBase, bool async, StagedSwizzle swizzle);
  /// The activation (row, column) of 16-byte chunk `chunk` of staged row
  /// `row` in K slice `slice` of the steps from `firstStep`: row firstM +
  /// row clamped to lastM (rows past M repeat the last one).
  std::pair<Value, Value> getActivationChunk(Value firstStep, Value slice,
                                             Value chunk, Value firstM,
                                             Value row, Value lastM);
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

//===----------------------------------------------------------------------===//
// Tensor-core GEMV
//===----------------------------------------------------------------------===//

class TensorCoreGemvEmitter : GemvEmitterBase {
public:
  using GemvEmitterBase::GemvEmitterBase;
  void emit();

private:
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

  /// What the packed decode of one 8-element word applies after the bit
  /// placement: pair = (pair - offset) * multiplier, both vector<2 x act>
  /// (offset only for int4).
  struct WordFactors {
    Value multiplier, offset;
    /// mxfp4's two-step product: 2^E, undoing the bit placement's 2^-E
    /// first for the code's own value.
    Value codeValue;
    /// mxfp4 with f16 activations: a second power of two, applied last.
    Value lastMultiplier;
    /// int4 with f16 activations: -(64 + zp), for the odd nibbles' fma.
    Value highOffset;
  };
  /// 16 vector<2 x act> pairs of weights, ready for the A operand.
  SmallVector<Value> decodeRowChunk(const RowChunk &chunk,
                                    ArrayRef<WordFactors> factors);
  /// Pairs 4w..4w+3 of words [firstWord, firstWord + numWords). `factors`
  /// holds one entry per word, or one per pair (a chunk in the warpgroup's
  /// K order, exchangeQuadCodes).
  SmallVector<Value> decodePacked(const RowChunk &chunk,
                                  ArrayRef<WordFactors> factors,
                                  int64_t firstWord = 0,
                                  int64_t numWords = kLaneK / 8);
  /// Per chunk and word, the factors of the packed decode, each distinct
  /// scale converted once. `mxfp4OneMultiply`: every mxfp4 scale of the
  /// step is within getMxfp4OneMultiply's range, one factor per pair.
  SmallVector<SmallVector<WordFactors>>
  packedFactors(ArrayRef<RowChunk> chunks, bool mxfp4OneMultiply = false);
  /// mxfp4: whether every scale byte of the step, in every lane of the
  /// warp, takes one multiply (a warp-uniform i1); null where the target
  /// has no warp vote.
  Value allMxfp4OneMultiply(ArrayRef<RowChunk> chunks);
  /// computeStep with the packed decode's factors given (none for the
  /// decode through fp32).
  void computeStepWith(const StepLoads &loads,
                       ArrayRef<SmallVector<WordFactors>> factors,
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
  /// The scale block of each of the 16 words of the step at `stepFirstK`.
  SmallVector<Value> warpgroupBlocks(Value stepFirstK);
  /// The four lanes of a quad exchange one row's codes (3 shuffles): lane
  /// t's result holds the pairs (8G + 2t, 8G + 2t + 1) of the row's 16 words
  /// G, as 4 words in the checkpoint's form, so that decodePacked turns them
  /// into pairs 0 .. 15 (pair G of word G / 4).
  Value exchangeQuadCodes(Value codes);
  /// The byte selectors of exchangeQuadCodes (bytes t, t ^ 1 and t ^ 2,
  /// t ^ 3 of two words) and the bits of t, set up once per kernel.
  SmallVector<Value> exchangeSelectors;
  Value quadLaneOdd, quadLaneHigh;
  /// The decode through fp32 of every chunk of a step (empty for the packed
  /// decodes, which decode word by word).
  SmallVector<SmallVector<Value>> decodeWholeChunks(const StepLoads &loads);
  /// Per chunk, the 4 pairs of word w: decoded here (packed decodes) or taken
  /// from `wholeChunks`.
  SmallVector<SmallVector<Value>>
  decodeWord(const StepLoads &loads, ArrayRef<SmallVector<WordFactors>> factors,
             ArrayRef<SmallVector<Value>> wholeChunks, int64_t w);
  /// computeStepByWord with the warpgroup instruction.
  void computeStepWarpgroup(const StepLoads &loads,
                            ArrayRef<SmallVector<WordFactors>> factors,
                            MutableArrayRef<Value> acc);
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
  void computeStepByWord(const StepLoads &loads,
                         ArrayRef<SmallVector<WordFactors>> factors,
                         MutableArrayRef<Value> acc);
  /// nvfp4: the multiplier scale * 2^(E - 7) of each distinct raw scale,
  /// converting two at a time.
  void addNvfp4Multipliers(ArrayRef<Value> distinct,
                           DenseMap<Value, Value> &multiplier);
  /// The distinct raw scales of a step's chunks, in order of first use.
  static SmallVector<Value> distinctScales(ArrayRef<RowChunk> chunks) {
    SmallVector<Value> distinct;
    for (const RowChunk &chunk : chunks)
      for (Value raw : chunk.rawScales)
        if (!llvm::is_contained(distinct, raw))
          distinct.push_back(raw);
    return distinct;
  }
  /// A raw e8m0 scale's byte, zero-extended to i32.
  Value scaleByte(Value raw) {
    return arith::ExtUIOp::create(b, loc, i32,
                                  arith::BitcastOp::create(b, loc, i8, raw));
  }
  /// An i32 as a vector<2 x act> (low half first).
  Value toPair(Value bits);
  /// Both halves of a vector<2 x act> set to the 16-bit pattern `bits`
  /// (an i32 below 2^16).
  Value splatHalves(Value bits);
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

SmallVector<Value> GemvEmitterBase::wordBlocks(Value kc) {
  int64_t bs = spec.scheme.getBlockSize();
  SmallVector<Value> blocks;
  if (kLaneK % bs == 0) {
    // Several whole blocks per chunk: one division, then constant steps.
    Value base = arith::DivUIOp::create(b, loc, kc, cIdx(bs));
    Value last;
    int64_t lastOffset = -1;
    for (int64_t w = 0; w < kLaneK / 8; ++w) {
      int64_t offset = 8 * w / bs;
      if (offset != lastOffset)
        last = offset ? Value(arith::AddIOp::create(b, loc, base, cIdx(offset)))
                      : base;
      lastOffset = offset;
      blocks.push_back(last);
    }
    return blocks;
  }
  if (bs % kLaneK == 0) {
    // A chunk starts at a multiple of 32 and never crosses a block.
    Value block = arith::DivUIOp::create(b, loc, kc, cIdx(bs));
    return SmallVector<Value>(kLaneK / 8, block);
  }
  for (int64_t w = 0; w < kLaneK / 8; ++w)
    blocks.push_back(arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, kc, cIdx(8 * w)), cIdx(bs)));
  return blocks;
}

Value GemvEmitterBase::getPreparedCodeByte(Value row, Value kc) {
  // Row 16T + 8h + r, piece t of 128-element step s (kc = 128s + 32t, plus
  // 128 for the whole-line layout's upper K half, which is step s + 1): the
  // prepared byte T * 8K + 1024s + 512h + 16 (4r + t) is
  //   16T * K / 2 + (64 laneRow - 240t) + (512h + 64 offset) + 8kc
  // (240t = 8 * 32t - 16t),
  // the tile's row start, a lane constant, a row constant and 8 bytes per K
  // element, so that every row shares one induction variable (written from
  // the row itself, LLVM kept one per row and ptxas spilled).
  PreparedRow prepared = preparedRows.lookup(row);
  Value rowPart = arith::AddIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, prepared.tileFirst, codesRowStride),
          preparedLane),
      cIdx(8 * kPreparedStepBytes * prepared.half +
           4 * kPreparedPieceBytes * prepared.offset));
  return arith::AddIOp::create(
      b, loc, rowPart,
      arith::MulIOp::create(b, loc, kc, cIdx(kPreparedBytesPerK)));
}

Value GemvEmitterBase::loadRowCodes(Value row, Value kc) {
  bool packed = spec.scheme.isPacked();
  int64_t bytes = packed ? kLaneK / 2 : kLaneK;
  auto weightsType = cast<MemRefType>(buffers.weights.getType());
  Value codes;
  if (codesBase) {
    // Byte (row, col) of the codes (i8 elements: offsets are bytes).
    Value col = packed ? arith::ShRUIOp::create(b, loc, kc, cIdx(1)) : kc;
    Value byte =
        spec.preparedWeights
            ? getPreparedCodeByte(row, kc)
            : arith::AddIOp::create(
                  b, loc, arith::MulIOp::create(b, loc, row, codesRowStride),
                  col);
    Value address = arith::AddIOp::create(b, loc, codesBase, byte);
    codes = target.emitStreamingLoad16(
        b, loc, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address));
  } else {
    auto [codeRow, codeCol] = getRowCodeIndices(row, kc);
    codes = vector::LoadOp::create(
        b, loc, VectorType::get({bytes}, weightsType.getElementType()),
        buffers.weights, ValueRange{codeRow, codeCol}, /*nontemporal=*/false,
        /*alignment=*/llvm::MaybeAlign(16));
  }
  if (!packed)
    codes =
        arith::BitcastOp::create(b, loc, VectorType::get({bytes}, i8), codes);
  return codes;
}

std::pair<Value, Value> GemvEmitterBase::getRowCodeIndices(Value row,
                                                           Value kc) {
  Value col = spec.scheme.isPacked()
                  ? Value(arith::ShRUIOp::create(b, loc, kc, cIdx(1)))
                  : kc;
  if (spec.preparedWeights)
    return emitPreparedCodeIndices(b, loc, row, col, spec.k);
  return {row, col};
}

void GemvEmitterBase::loadRowScales(Value row, ArrayRef<Value> blocks,
                                    RowChunk &chunk) {
  llvm::append_range(chunk.blocks, blocks);
  // The chunk's blocks are consecutive: one load for all their scales
  // (nvfp4: a 16-bit load where two byte loads would each cost an L1
  // request per row).
  int64_t perLoad = spec.getScaleLoadElements();
  Value scaleVector;
  if (perLoad > 1) {
    auto scalesType = cast<MemRefType>(buffers.scales.getType());
    Type element = scalesType.getElementType();
    scaleVector = vector::LoadOp::create(
        b, loc, VectorType::get({perLoad}, element), buffers.scales,
        ValueRange{row, blocks.front()}, /*nontemporal=*/false,
        /*alignment=*/
        llvm::MaybeAlign(perLoad * element.getIntOrFloatBitWidth() / 8));
    if (spec.warpgroup)
      chunk.scaleVectors.push_back(scaleVector);
  }
  Value lastBlock, lastRaw, lastZeroPoint;
  for (auto [w, block] : llvm::enumerate(blocks)) {
    if (block != lastBlock) {
      lastBlock = block;
      lastRaw = scaleVector
                    ? Value(vector::ExtractOp::create(
                          b, loc, scaleVector,
                          ArrayRef<int64_t>{int64_t(8 * w) /
                                            spec.scheme.getBlockSize()}))
                    : Value(memref::LoadOp::create(b, loc, buffers.scales,
                                                   ValueRange{row, block}));
      if (spec.hasZeroPoints)
        lastZeroPoint = loadRawZeroPoint(row, block);
    }
    chunk.rawScales.push_back(lastRaw);
    chunk.rawZeroPoints.push_back(lastZeroPoint);
  }
}

GemvEmitterBase::RowChunk
GemvEmitterBase::loadRowChunk(Value row, Value kc, ArrayRef<Value> blocks) {
  RowChunk chunk;
  chunk.codes = loadRowCodes(row, kc);
  loadRowScales(row, blocks, chunk);
  return chunk;
}

Value TensorCoreGemvEmitter::toPair(Value bits) {
  return vector::BitCastOp::create(
      b, loc, VectorType::get({2}, act),
      vector::BroadcastOp::create(b, loc, VectorType::get({1}, i32), bits));
}

Value TensorCoreGemvEmitter::splatHalves(Value bits) {
  return toPair(arith::OrIOp::create(
      b, loc, bits, arith::ShLIOp::create(b, loc, bits, cI32(16))));
}

void TensorCoreGemvEmitter::addNvfp4Multipliers(
    ArrayRef<Value> distinct, DenseMap<Value, Value> &multiplier) {
  bool f16 = act.isF16();
  int64_t exponent = f16 ? 14 : 126;
  float fold = std::ldexp(1.0f, exponent - kPackedFp4ResidualExponent);
  auto pairType = VectorType::get({2}, act);
  auto f32Pair = VectorType::get({2}, f32);
  auto broadcastHalf = [&](Value pair, int64_t half) {
    return vector::ShuffleOp::create(b, loc, pair, pair,
                                     ArrayRef<int64_t>{half, half});
  };
  for (size_t i = 0; i < distinct.size(); i += 2) {
    Value first = distinct[i];
    Value second = i + 1 < distinct.size() ? distinct[i + 1] : first;
    Value bytes = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, i8),
        ValueRange{arith::BitcastOp::create(b, loc, i8, first),
                   arith::BitcastOp::create(b, loc, i8, second)});
    // One conversion for two scales where the target has it.
    Value halves = target.emitE4M3x2ToF16x2(b, loc, bytes);
    Value scaled;
    if (halves) {
      Value wide = arith::ExtFOp::create(b, loc, f32Pair, halves);
      scaled = arith::MulFOp::create(
          b, loc, wide,
          vector::BroadcastOp::create(b, loc, f32Pair, cF32(fold)));
    } else {
      Value lo = emitScaleToF32(b, loc, spec.scheme, first);
      Value hi = emitScaleToF32(b, loc, spec.scheme, second);
      scaled = arith::MulFOp::create(
          b, loc,
          vector::FromElementsOp::create(b, loc, f32Pair, ValueRange{lo, hi}),
          vector::BroadcastOp::create(b, loc, f32Pair, cF32(fold)));
    }
    // Exact: s * 2^(E - 7) keeps the e4m3 significand and stays in range.
    Value packed = arith::TruncFOp::create(b, loc, pairType, scaled);
    multiplier[first] = broadcastHalf(packed, 0);
    if (second != first)
      multiplier[second] = broadcastHalf(packed, 1);
  }
}

SmallVector<SmallVector<TensorCoreGemvEmitter::WordFactors>>
TensorCoreGemvEmitter::packedFactors(ArrayRef<RowChunk> chunks,
                                     bool mxfp4OneMultiply) {
  SchemeKind kind = spec.scheme.getKind();
  SmallVector<Value> distinct = distinctScales(chunks);
  DenseMap<Value, Value> multiplier, lastMultiplier;
  // mxfp4's two-step product: 2^E first, for the code's own value.
  Value codeValue;
  if (kind == SchemeKind::mxfp4 && !mxfp4OneMultiply)
    codeValue = arith::ConstantOp::create(
        b, loc,
        SplatElementsAttr::get(
            VectorType::get({2}, act),
            b.getFloatAttr(act, std::ldexp(1.0, act.isF16() ? 14 : 126))));
  if (kind == SchemeKind::nvfp4) {
    addNvfp4Multipliers(distinct, multiplier);
  } else if (mxfp4OneMultiply) {
    // One factor 2^(e - 127 + E), a normal number for the step's scales
    // (allMxfp4OneMultiply).
    Mxfp4OneMultiply range = getMxfp4OneMultiply(act.isF16());
    for (Value raw : distinct) {
      Value e = scaleByte(raw);
      if (range.lowestE > 0)
        e = arith::MaxUIOp::create(b, loc, e, cI32(range.lowestE));
      multiplier[raw] = splatHalves(arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, e, cI32(range.exponentBias)),
          cI32(range.significandBits)));
    }
  } else if (kind == SchemeKind::mxfp4 && act.isF16()) {
    // f16 2^a and 2^b with a + b = e - 127 clamped to [-28, 17] (below,
    // every code rounds to zero; above, every nonzero code overflows),
    // a = clamp(e - 127, -14, 13): code * 2^a is exact (no overflow, no
    // bits below 2^-24) and the product by 2^b rounds once. NaN for 0xFF.
    for (Value raw : distinct) {
      Value e = scaleByte(raw);
      auto clamp = [&](Value v, int64_t lo, int64_t hi) {
        return arith::MinSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, v, cI32(lo)), cI32(hi));
      };
      Value total = clamp(arith::SubIOp::create(b, loc, e, cI32(127)), -28, 17);
      Value first = clamp(total, -14, 13);
      Value second = arith::SubIOp::create(b, loc, total, first);
      auto powerOfTwo = [&](Value exponent) {
        return arith::ShLIOp::create(
            b, loc, arith::AddIOp::create(b, loc, exponent, cI32(15)),
            cI32(10));
      };
      Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e,
                                          cI32(0xFF));
      multiplier[raw] = splatHalves(arith::SelectOp::create(
          b, loc, isNaN, cI32(0x7E00), powerOfTwo(first)));
      lastMultiplier[raw] = splatHalves(powerOfTwo(second));
    }
  } else if (kind == SchemeKind::mxfp4) {
    // bf16 2^(e - 127): the top half of the fp32 pattern (exact, its low
    // half is zero).
    for (Value raw : distinct)
      multiplier[raw] = splatHalves(arith::ShRUIOp::create(
          b, loc, emitE8M0ToF32Bits(b, loc, raw), cI32(16)));
  } else {
    // int4: the act-typed scale itself.
    for (Value raw : distinct)
      multiplier[raw] =
          vector::BroadcastOp::create(b, loc, VectorType::get({2}, act), raw);
  }

  SmallVector<SmallVector<WordFactors>> perChunk;
  bool zeroPoints = kind == SchemeKind::int4 && spec.hasZeroPoints;
  int64_t magic = act.isF16() ? 0x6400 : 0x4300;
  bool highNibbles = kind == SchemeKind::int4 && act.isF16();
  Value noZeroPoint, noZeroPointHigh;
  if (kind == SchemeKind::int4 && !spec.hasZeroPoints) {
    noZeroPoint = splatHalves(cI32(magic | 8));
    if (highNibbles)
      noZeroPointHigh = splatHalves(cI32(kNegative64F16 | 8 << 4));
  }
  for (const RowChunk &chunk : chunks) {
    SmallVector<WordFactors> words;
    Value lastZeroPoint, lastBlock, offset = noZeroPoint,
                                    highOffset = noZeroPointHigh;
    for (int64_t w = 0, e = chunk.rawScales.size(); w < e; ++w) {
      if (zeroPoints && (chunk.rawZeroPoints[w] != lastZeroPoint ||
                         chunk.blocks[w] != lastBlock)) {
        lastZeroPoint = chunk.rawZeroPoints[w];
        lastBlock = chunk.blocks[w];
        // The block's u4 zero point under the magic bias: bias + zp.
        Value zeroPoint =
            emitZeroPointNibble(b, loc, lastZeroPoint, toI32(lastBlock));
        offset =
            splatHalves(arith::OrIOp::create(b, loc, zeroPoint, cI32(magic)));
        // -(64 + zp): f16 64 has a significand step of 1/16.
        if (highNibbles)
          highOffset = splatHalves(arith::OrIOp::create(
              b, loc, arith::ShLIOp::create(b, loc, zeroPoint, cI32(4)),
              cI32(kNegative64F16)));
      }
      words.push_back({multiplier.lookup(chunk.rawScales[w]), offset, codeValue,
                       lastMultiplier.lookup(chunk.rawScales[w]), highOffset});
    }
    perChunk.push_back(words);
  }
  return perChunk;
}

SmallVector<Value>
TensorCoreGemvEmitter::decodePacked(const RowChunk &chunk,
                                    ArrayRef<WordFactors> factors,
                                    int64_t firstWord, int64_t numWords) {
  bool f16 = act.isF16();
  SchemeKind kind = spec.scheme.getKind();
  auto pairType = VectorType::get({2}, act);
  Value words = vector::BitCastOp::create(
      b, loc, VectorType::get({kLaneK / 8}, i32), chunk.codes);
  SmallVector<Value> pairs(4 * numWords);
  int64_t endWord = firstWord + numWords;
  // One set of factors per word, or (chunks in the warpgroup's K order,
  // whose pairs come from 16 different words of the row) per pair.
  bool perPair = factors.size() == 4 * static_cast<size_t>(kLaneK / 8);
  auto factorOf = [&](int64_t w, int64_t j) -> const WordFactors & {
    return factors[perPair ? 4 * w + j : w];
  };
  if (kind == SchemeKind::int4) {
    Value nibbles = cI32(0x000F000F);
    Value magic = cI32(f16 ? 0x64006400 : 0x43004300);
    // f16's 10 significand bits hold a nibble at bits 4-7 too: 1024 + 16q,
    // which times 1/16 minus (64 + zp) is q - zp, exact fused or not (both
    // steps are), so a word takes one shift (by 8) instead of three.
    Value sixteenth =
        f16 ? Value(arith::ConstantOp::create(
                  b, loc,
                  SplatElementsAttr::get(pairType, b.getF16FloatAttr(0.0625))))
            : Value();
    for (int64_t w = firstWord; w < endWord; ++w) {
      Value x = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w});
      Value upper =
          f16 ? Value(arith::ShRUIOp::create(b, loc, x, cI32(8))) : Value();
      for (int64_t j = 0; j < 4; ++j) {
        // Nibbles j and j + 4 under the magic bias of each 16-bit half.
        bool high = f16 && j % 2 == 1;
        Value v = f16 ? (j < 2 ? x : upper)
                  : j == 0
                      ? x
                      : Value(arith::ShRUIOp::create(b, loc, x, cI32(4 * j)));
        Value mask = high ? cI32(0x00F000F0) : nibbles;
        Value biased = toPair(arith::OrIOp::create(
            b, loc, arith::AndIOp::create(b, loc, v, mask), magic));
        const WordFactors &factor = factorOf(w, j);
        Value centered =
            high ? Value(vector::FMAOp::create(b, loc, biased, sixteenth,
                                               factor.highOffset))
                 : Value(arith::SubFOp::create(b, loc, biased, factor.offset));
        pairs[4 * (w - firstWord) + j] =
            arith::MulFOp::create(b, loc, centered, factor.multiplier);
      }
    }
    return pairs;
  }

  // The bit placement of PackedFp4Placement.h: two selects per word, then
  // each pair one mask and at most one shift.
  PackedFp4Placement placement = getPackedFp4Placement(f16);
  Value pairMask = cI32(placement.pairMask);
  auto shifted = [&](Value x, int shift) -> Value {
    if (shift == 0)
      return x;
    if (shift > 0)
      return arith::ShLIOp::create(b, loc, x, cI32(shift));
    return arith::ShRUIOp::create(b, loc, x, cI32(-shift));
  };
  for (int64_t w = firstWord; w < endWord; ++w) {
    Value x = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w});
    Value selected[2];
    for (int i = 0; i < 2; ++i) {
      Value ifSet = shifted(x, placement.selectShift[i][0]);
      Value ifClear = shifted(x, placement.selectShift[i][1]);
      selected[i] =
          target.emitBitSelect(b, loc, ifSet, ifClear, placement.selectMask);
    }
    for (int64_t j = 0; j < 4; ++j) {
      Value bits =
          shifted(selected[placement.pairSource[j]], placement.pairShift[j]);
      Value pair = toPair(arith::AndIOp::create(b, loc, bits, pairMask));
      const WordFactors &factor = factorOf(w, j);
      if (factor.codeValue)
        pair = arith::MulFOp::create(b, loc, pair, factor.codeValue);
      pair = arith::MulFOp::create(b, loc, pair, factor.multiplier);
      if (factor.lastMultiplier)
        pair = arith::MulFOp::create(b, loc, pair, factor.lastMultiplier);
      pairs[4 * (w - firstWord) + j] = pair;
    }
  }
  return pairs;
}

SmallVector<Value>
GemvEmitterBase::decodeWordsThroughF32(const RowChunk &chunk) {
  // The reference's element value (docs/numerics.md), rounded once to the
  // activation type: the product then equals a GEMM on the dequantized W.
  Value values = emitCodesToF32(b, loc, spec.scheme.getElementFormat(),
                                spec.decode, chunk.codes, kLaneK);
  auto wordType = VectorType::get({8}, f32);
  bool isInt4 = spec.scheme.getKind() == SchemeKind::int4;
  SmallVector<Value> words;
  Value lastRaw, scale, zeroPoint;
  for (int64_t w = 0; w < kLaneK / 8; ++w) {
    if (chunk.rawScales[w] != lastRaw) {
      lastRaw = chunk.rawScales[w];
      scale = emitScaleToF32(b, loc, spec.scheme, lastRaw);
      if (isInt4)
        zeroPoint = spec.hasZeroPoints
                        ? emitZeroPointToF32(b, loc, chunk.rawZeroPoints[w],
                                             toI32(chunk.blocks[w]))
                        : cF32(8.0f);
    }
    Value word = sliceOf(values, 8 * w, 8);
    if (isInt4)
      word = arith::SubFOp::create(
          b, loc, word,
          vector::BroadcastOp::create(b, loc, wordType, zeroPoint));
    Value product = arith::MulFOp::create(
        b, loc, word, vector::BroadcastOp::create(b, loc, wordType, scale));
    if (globalScale)
      product = arith::MulFOp::create(
          b, loc, product,
          vector::BroadcastOp::create(b, loc, wordType, globalScale));
    words.push_back(
        arith::TruncFOp::create(b, loc, VectorType::get({8}, act), product));
  }
  return words;
}

GemvEmitterBase::LaunchPosition
GemvEmitterBase::getLaunchPosition(int64_t lanes) {
  LaunchPosition at;
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  at.lane = arith::RemUIOp::create(b, loc, thread, cIdx(lanes));
  at.warp = arith::DivUIOp::create(b, loc, thread, cIdx(lanes));
  at.numN = memref::DimOp::create(b, loc, buffers.weights, 0);
  at.numM = memref::DimOp::create(b, loc, buffers.a, 0);
  at.lastN = arith::SubIOp::create(b, loc, at.numN, cIdx(1));
  at.lastM = arith::SubIOp::create(b, loc, at.numM, cIdx(1));
  at.block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  return at;
}

SmallVector<Value> GemvEmitterBase::loadActivationWords(Value row, Value kc) {
  auto actWord = VectorType::get({8}, act);
  SmallVector<Value> words;
  for (int64_t w = 0; w < kLaneK / 8; ++w)
    words.push_back(vector::LoadOp::create(
        b, loc, actWord, buffers.a,
        ValueRange{row, arith::AddIOp::create(b, loc, kc, cIdx(8 * w))},
        /*nontemporal=*/false, /*alignment=*/llvm::MaybeAlign(16)));
  return words;
}

SmallVector<Value>
TensorCoreGemvEmitter::decodeThroughF32(const RowChunk &chunk) {
  SmallVector<Value> pairs;
  for (Value word : decodeWordsThroughF32(chunk))
    for (int64_t j = 0; j < 4; ++j)
      pairs.push_back(sliceOf(word, 2 * j, 2));
  return pairs;
}

SmallVector<Value>
TensorCoreGemvEmitter::decodeRowChunk(const RowChunk &chunk,
                                      ArrayRef<WordFactors> factors) {
  return spec.usesPackedDecode() ? decodePacked(chunk, factors)
                                 : decodeThroughF32(chunk);
}

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

Value TensorCoreGemvEmitter::allMxfp4OneMultiply(ArrayRef<RowChunk> chunks) {
  Mxfp4OneMultiply range = getMxfp4OneMultiply(act.isF16());
  // Every distinct scale of every chunk: one left out would let its words
  // take a factor that is not a normal number.
  Value inRange;
  for (Value raw : distinctScales(chunks)) {
    Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                       scaleByte(raw), cI32(range.maxE));
    inRange =
        inRange ? Value(arith::AndIOp::create(b, loc, inRange, fits)) : fits;
  }
  return target.emitWarpAll(b, loc, inRange);
}

void TensorCoreGemvEmitter::computeStep(const StepLoads &loads,
                                        MutableArrayRef<Value> acc) {
  if (!spec.usesPackedDecode()) {
    computeStepWith(
        loads, SmallVector<SmallVector<WordFactors>>(loads.chunks.size()), acc);
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
    computeStepWith(loads, packedFactors(loads.chunks), acc);
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
        pinned.push_back(target.emitPinnedCopy(
            b, loc,
            vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w}),
            fast ? 0 : 1));
      chunk.codes = vector::BitCastOp::create(
          b, loc, chunk.codes.getType(),
          vector::FromElementsOp::create(b, loc, wordsType, pinned));
    }
    computeStepWith(armLoads, packedFactors(armLoads.chunks, fast), armAcc);
    // And its own copy of the sums, which keeps LLVM from sinking the
    // arms' matrix instructions below the branch, away from their decode.
    for (Value &sum : armAcc)
      sum = arith::BitcastOp::create(
          b, loc, f32,
          target.emitPinnedCopy(b, loc,
                                arith::BitcastOp::create(b, loc, i32, sum),
                                fast ? 0 : 1));
    scf::YieldOp::create(b, loc, armAcc);
  }
  llvm::copy(branch.getResults(), acc.begin());
}

void TensorCoreGemvEmitter::computeStepWith(
    const StepLoads &loads, ArrayRef<SmallVector<WordFactors>> factors,
    MutableArrayRef<Value> acc) {
  // A half step (halfSteps) carries half of the tiles' rows.
  int64_t mmaTiles = loads.chunks.size() / 2, groups = spec.getRowGroups();
  if (loads.staged) {
    computeStepByWord(loads, factors, acc);
    return;
  }
  SmallVector<SmallVector<Value>> weightPairs;
  for (auto [chunk, chunkFactors] : llvm::zip(loads.chunks, factors))
    weightPairs.push_back(decodeRowChunk(chunk, chunkFactors));
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
        SmallVector<Value> result = target.emitWarpMma16x8x16(
            b, loc, aOperand, bOperand, ArrayRef<Value>(acc).slice(base, 4));
        llvm::copy(result, acc.begin() + base);
      }
    }
  }
}

std::pair<Value, Value>
GemvEmitterBase::getActivationChunk(Value firstStep, Value slice, Value chunk,
                                    Value firstM, Value row, Value lastM) {
  Value k = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc,
                            arith::AddIOp::create(b, loc, firstStep, slice),
                            cIdx(kWarpStepK)),
      arith::MulIOp::create(b, loc, chunk, cIdx(8)));
  Value m = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, firstM, row), lastM);
  return {m, k};
}

void GemvEmitterBase::stageActivations(Value firstStep, Value firstM,
                                       Value lastM, StagedSwizzle swizzle) {
  // The previous step's reads are done before the tile is overwritten.
  gpu::BarrierOp::create(b, loc);
  copyActivations(firstStep, firstM, lastM, cIdx(0), /*async=*/false, swizzle);
  gpu::BarrierOp::create(b, loc);
}

Value GemvEmitterBase::getStagedOffset(Value slice, Value row, Value chunk,
                                       StagedSwizzle swizzle) {
  Value rowInTile = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, slice, cIdx(spec.maxM)), row);
  return arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, rowInTile, cIdx(kStagedRowChunks)),
          swizzle(row, chunk)),
      cIdx(8));
}

void GemvEmitterBase::copyActivations(Value firstStep, Value firstM,
                                      Value lastM, Value tileBase, bool async,
                                      StagedSwizzle swizzle) {
  int64_t threads = spec.getThreads(target.getWarpSize());
  int64_t tileChunks = spec.maxM * kStagedRowChunks;
  int64_t chunks = spec.splitK * tileChunks;
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  auto actWord = VectorType::get({8}, act);
  SmallVector<std::pair<Value, Value>> words; // (value, staged offset)
  for (int64_t first = 0; first < chunks; first += threads) {
    Value linear = arith::AddIOp::create(b, loc, thread, cIdx(first));
    // A last round with fewer chunks than threads (64-lane wavefronts can
    // outnumber a small tile's chunks): the threads past the end copy the
    // last chunk again, the same bytes to the same place.
    if (first + threads > chunks)
      linear = arith::MinUIOp::create(b, loc, linear, cIdx(chunks - 1));
    Value slice = arith::DivUIOp::create(b, loc, linear, cIdx(tileChunks));
    Value inSlice = arith::RemUIOp::create(b, loc, linear, cIdx(tileChunks));
    Value row = arith::DivUIOp::create(b, loc, inSlice, cIdx(kStagedRowChunks));
    Value chunk =
        arith::RemUIOp::create(b, loc, inSlice, cIdx(kStagedRowChunks));
    auto [m, k] =
        getActivationChunk(firstStep, slice, chunk, firstM, row, lastM);
    Value offset = arith::AddIOp::create(
        b, loc, getStagedOffset(slice, row, chunk, swizzle), tileBase);
    if (async) {
      target.emitAsyncCopy16(b, loc, buffers.stagedActivations,
                             ValueRange{offset}, buffers.a, ValueRange{m, k},
                             /*elements=*/8);
      continue;
    }
    Value value =
        vector::LoadOp::create(b, loc, actWord, buffers.a, ValueRange{m, k},
                               /*nontemporal=*/false,
                               /*alignment=*/llvm::MaybeAlign(16));
    words.push_back({value, offset});
  }
  // Every load of the copy is issued before the first store waits for one.
  for (auto [value, offset] : words)
    vector::StoreOp::create(b, loc, value, buffers.stagedActivations,
                            ValueRange{offset}, /*nontemporal=*/false,
                            /*alignment=*/llvm::MaybeAlign(16));
}

SmallVector<Value> TensorCoreGemvEmitter::flattenStep(const StepLoads &loads) {
  SmallVector<Value> values;
  for (const RowChunk &chunk : loads.chunks)
    if (chunk.codes)
      values.push_back(chunk.codes);
  for (const RowChunk &chunk : loads.chunks) {
    llvm::append_range(values, chunk.scaleVectors);
    for (auto [w, raw] : llvm::enumerate(chunk.rawScales)) {
      if (w > 0 && raw == chunk.rawScales[w - 1])
        continue;
      if (chunk.scaleVectors.empty())
        values.push_back(raw);
      if (Value zeroPoint = chunk.rawZeroPoints[w])
        values.push_back(zeroPoint);
    }
  }
  return values;
}

TensorCoreGemvEmitter::StepLoads
TensorCoreGemvEmitter::unflattenStep(const StepLoads &shape, ValueRange values,
                                     ArrayRef<Value> blocks) {
  StepLoads loads;
  auto next = values.begin();
  for (size_t c = 0; c < shape.chunks.size(); ++c) {
    RowChunk carried;
    if (shape.chunks[c].codes)
      carried.codes = *next++;
    carried.blocks.assign(blocks.begin(), blocks.end());
    loads.chunks.push_back(carried);
  }
  // A chunk's words repeat their block's scale (loadRowChunk), which the
  // decode recognises by identity: repeat the carried one alike. Scales
  // carried as whole loads are taken out of them here, word w's at element
  // (w % 4) * 8 / block of part w / 4.
  int64_t bs = spec.scheme.getBlockSize();
  for (auto [chunk, carried] : llvm::zip(shape.chunks, loads.chunks)) {
    for (size_t v = 0; v < chunk.scaleVectors.size(); ++v)
      carried.scaleVectors.push_back(*next++);
    for (auto [w, raw] : llvm::enumerate(chunk.rawScales)) {
      if (w > 0 && raw == chunk.rawScales[w - 1]) {
        carried.rawScales.push_back(carried.rawScales.back());
        carried.rawZeroPoints.push_back(carried.rawZeroPoints.back());
        continue;
      }
      carried.rawScales.push_back(
          chunk.scaleVectors.empty()
              ? *next++
              : Value(vector::ExtractOp::create(
                    b, loc, carried.scaleVectors[w / 4],
                    ArrayRef<int64_t>{int64_t(8 * (w % 4)) / bs})));
      carried.rawZeroPoints.push_back(chunk.rawZeroPoints[w] ? *next++
                                                             : Value());
    }
  }
  assert(next == values.end() && "every carried value is used");
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

SmallVector<SmallVector<Value>> TensorCoreGemvEmitter::decodeWord(
    const StepLoads &loads, ArrayRef<SmallVector<WordFactors>> factors,
    ArrayRef<SmallVector<Value>> wholeChunks, int64_t w) {
  SmallVector<SmallVector<Value>> pairs; // [chunk][4 pairs of w]
  for (auto [c, chunk] : llvm::enumerate(loads.chunks))
    pairs.push_back(spec.usesPackedDecode()
                        ? decodePacked(chunk, factors[c], w, 1)
                        : SmallVector<Value>(
                              ArrayRef<Value>(wholeChunks[c]).slice(4 * w, 4)));
  return pairs;
}

void TensorCoreGemvEmitter::computeStepByWord(
    const StepLoads &loads, ArrayRef<SmallVector<WordFactors>> factors,
    MutableArrayRef<Value> acc) {
  if (spec.warpgroup) {
    computeStepWarpgroup(loads, factors, acc);
    return;
  }
  int64_t mmaTiles = loads.chunks.size() / 2, groups = spec.getRowGroups();
  SmallVector<SmallVector<Value>> wholeChunks = decodeWholeChunks(loads);
  auto actWord = VectorType::get({8}, act);
  for (int64_t w = 0; w < kLaneK / 8; ++w) {
    SmallVector<SmallVector<Value>> weightPairs =
        decodeWord(loads, factors, wholeChunks, w);
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
          SmallVector<Value> result = target.emitWarpMma16x8x16(
              b, loc, aOperand, bOperand, ArrayRef<Value>(acc).slice(base, 4));
          llvm::copy(result, acc.begin() + base);
        }
      }
    }
  }
}

Value TensorCoreGemvEmitter::exchangeQuadCodes(Value codes) {
  // Lane t holds words 4t .. 4t + 3 of the row's 16 (8 K elements each) and
  // needs byte t of every word: K elements 8G + 2t and 8G + 2t + 1 of word
  // G, the instruction's K order. It sends lane t ^ r the bytes t ^ r of its
  // words, ordered (0, 2, 1, 3), in register r (both selectors depend on t),
  // and register r comes back from lane t ^ r with words 4 (t ^ r) ..
  // 4 (t ^ r) + 3.
  auto wordsType = VectorType::get({4}, i32);
  Value words = vector::BitCastOp::create(b, loc, wordsType, codes);
  auto word = [&](int64_t i) {
    return Value(
        vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{i}));
  };
  Value sent[4];
  for (int64_t half = 0; half < 2; ++half) {
    Value low = BytePermOp::create(b, loc, i32, word(0), word(2),
                                   exchangeSelectors[half]);
    Value high = BytePermOp::create(b, loc, i32, word(1), word(3),
                                    exchangeSelectors[half]);
    sent[2 * half] = BytePermOp::create(b, loc, i32, low, high, cI32(0x5410));
    sent[2 * half + 1] =
        BytePermOp::create(b, loc, i32, low, high, cI32(0x7632));
  }
  Value received[4] = {sent[0]};
  for (int64_t r = 1; r < 4; ++r)
    received[r] = gpu::ShuffleOp::create(b, loc, sent[r], cI32(r),
                                         cI32(kMmaLanes), gpu::ShuffleMode::XOR)
                      .getShuffleResult();
  // Register q ^ t holds words 4q .. 4q + 3: two swaps on t's bits put
  // them at q.
  auto swapPairs = [&](Value swap, int64_t distance) {
    Value before[4];
    llvm::copy(received, before);
    for (int64_t q = 0; q < 4; ++q)
      received[q] = arith::SelectOp::create(b, loc, swap, before[q ^ distance],
                                            before[q]);
  };
  swapPairs(quadLaneOdd, 1);
  swapPairs(quadLaneHigh, 2);
  // Nibbles (lo0, hi0, lo2, hi2, lo1, hi1, lo3, hi3) of bytes (0, 2, 1, 3)
  // into a word of the checkpoint's form, nibbles j and j + 4 the pair of
  // word 4q + j (decodePacked): swap nibbles 1 and 4, 3 and 6.
  SmallVector<Value> exchanged;
  for (Value x : received) {
    Value delta = arith::AndIOp::create(
        b, loc,
        arith::XOrIOp::create(b, loc, x,
                              arith::ShRUIOp::create(b, loc, x, cI32(12))),
        cI32(0x0000F0F0));
    exchanged.push_back(arith::XOrIOp::create(
        b, loc, x,
        arith::XOrIOp::create(b, loc, delta,
                              arith::ShLIOp::create(b, loc, delta, cI32(12)))));
  }
  return vector::BitCastOp::create(
      b, loc, codes.getType(),
      vector::FromElementsOp::create(b, loc, wordsType, exchanged));
}

SmallVector<Value> TensorCoreGemvEmitter::warpgroupBlocks(Value stepFirstK) {
  SmallVector<Value> blocks;
  for (int64_t c = 0; c < kWarpStepK / kLaneK; ++c)
    llvm::append_range(blocks, wordBlocks(arith::AddIOp::create(
                                   b, loc, stepFirstK, cIdx(kLaneK * c))));
  return blocks;
}

TensorCoreGemvEmitter::StepLoads
TensorCoreGemvEmitter::loadWarpgroupScales(Value stepFirstK,
                                           ArrayRef<Value> weightRows) {
  StepLoads loads;
  SmallVector<Value> blocks = warpgroupBlocks(stepFirstK);
  for (Value row : weightRows) {
    RowChunk chunk;
    for (int64_t c = 0; c < kWarpStepK / kLaneK; ++c)
      loadRowScales(row,
                    ArrayRef<Value>(blocks).slice(c * kLaneK / 8, kLaneK / 8),
                    chunk);
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
    target.emitAsyncCopy16(b, loc, buffers.stagedCodes,
                           ValueRange{getStagedCodeOffset(slot, i, rows)},
                           buffers.weights, ValueRange{codeRow, codeCol},
                           /*elements=*/16);
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
    target.emitAsyncCopy16(b, loc, buffers.stagedActivations,
                           ValueRange{offset}, buffers.a, ValueRange{m, k},
                           /*elements=*/8);
  }
}

void TensorCoreGemvEmitter::computeStepWarpgroup(
    const StepLoads &loads, ArrayRef<SmallVector<WordFactors>> factors,
    MutableArrayRef<Value> acc) {
  int64_t mmaTiles = loads.chunks.size() / 2, groups = spec.getRowGroups();
  // Every A fragment of the step first: the fence then orders them all
  // before the step's instructions.
  // Each row's 16 pairs in the instruction's K order: pair G holds K
  // elements 8G + 2t, 8G + 2t + 1, and instruction s takes pairs 2s and
  // 2s + 1 (its K positions 2t + {0, 1} and 2t + {8, 9}).
  SmallVector<SmallVector<Value>> pairs;
  for (auto [chunk, chunkFactors] : llvm::zip(loads.chunks, factors)) {
    RowChunk exchanged = chunk;
    exchanged.codes = exchangeQuadCodes(chunk.codes);
    pairs.push_back(decodePacked(exchanged, chunkFactors));
  }
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
  SmallVector<Value> fenced = target.emitWarpgroupFence(b, loc, operands);
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
      SmallVector<Value> tile = target.emitWarpgroupMma(
          b, loc, ArrayRef<Value>(fenced).slice(4 * (s * mmaTiles + i), 4),
          instruction, ArrayRef<Value>(sums).slice(i * tileSums, tileSums));
      llvm::copy(tile, sums.begin() + i * tileSums);
    }
  }
  target.emitWarpgroupCommit(b, loc);
  llvm::copy(sums, acc.begin());
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

void TensorCoreGemvEmitter::emit() {
  int64_t colTiles = spec.colTiles, groups = spec.getRowGroups();
  int64_t mmaTiles = getMmaTiles();
  bool wholeLines = spec.wholeLines;
  auto [lane, warp, block, numN, numM, lastN, lastM] =
      getLaunchPosition(kMmaLanes);
  // The fused GEMM: the warp's K slice and weight tile, and the block's
  // first activation row (GemvKernelSpec::mTiled).
  Value kWarp = warp, nWarp, tile = block, firstM, blockTile;
  if (spec.mTiled) {
    firstM = arith::MulIOp::create(b, loc, block, cIdx(spec.maxM));
    tile = blockTile = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    if (spec.warpsN > 1) {
      kWarp = arith::DivUIOp::create(b, loc, warp, cIdx(spec.warpsN));
      nWarp = arith::RemUIOp::create(b, loc, warp, cIdx(spec.warpsN));
      tile = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, tile, cIdx(spec.warpsN)),
          nWarp);
    }
  }
  Value g = arith::DivUIOp::create(b, loc, lane, cIdx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, cIdx(4));
  // Whole lines: lane g takes row g % 4 of each 4-row quarter, K half g / 4.
  Value rowInQuarter =
      wholeLines ? Value(arith::RemUIOp::create(b, loc, g, cIdx(4))) : Value();
  laneRow = wholeLines ? rowInQuarter : g;
  if (spec.warpgroup) {
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
    // exchangeQuadCodes's selectors: bytes d and 4 + d (d = t ^ 2h, then
    // t ^ (2h + 1)) of the words (0, 2) or (1, 3) of lane t.
    Value quadLane = toI32(t);
    auto selectorPart = [&](int64_t flip) {
      Value d = arith::XOrIOp::create(b, loc, quadLane, cI32(flip));
      return arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, d, cI32(0x11)), cI32(0x40));
    };
    for (int64_t half = 0; half < 2; ++half)
      exchangeSelectors.push_back(arith::OrIOp::create(
          b, loc, selectorPart(2 * half),
          arith::ShLIOp::create(b, loc, selectorPart(2 * half + 1), cI32(8))));
    auto bitOfLane = [&](int64_t bit) {
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(b, loc, quadLane, cI32(bit)), cI32(0));
    };
    quadLaneOdd = bitOfLane(1);
    quadLaneHigh = bitOfLane(2);
  } else if (spec.mTiled) {
    // Lane (g, t) reads chunk 4t + w of row g (+ 8 per group) of its K
    // slice's tile, at chunk 4t + (w ^ s), s = 2 (t / 2) + g % 2: the eight
    // lanes of each quarter warp then hit eight distinct 16-byte bank
    // groups (stageActivations writes the same permutation).
    Value swizzle = arith::OrIOp::create(
        b, loc,
        arith::ShLIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, t, cIdx(1)), cIdx(1)),
        arith::AndIOp::create(b, loc, g, cIdx(1)));
    Value rowBase = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, kWarp, cIdx(spec.maxM)), g),
        cIdx(kStagedRowChunks));
    for (int64_t w = 0; w < kLaneK / 8; ++w) {
      Value chunk = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, t, cIdx(4)),
          arith::XOrIOp::create(b, loc, swizzle, cIdx(w)));
      stagedWordOffsets.push_back(arith::MulIOp::create(
          b, loc, arith::AddIOp::create(b, loc, rowBase, chunk), cIdx(8)));
    }
  }
  if (spec.preparedWeights)
    preparedLane = arith::SubIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, laneRow, cIdx(4 * kPreparedPieceBytes)),
        arith::MulIOp::create(
            b, loc, t,
            cIdx(kPreparedBytesPerK * kLaneK - kPreparedPieceBytes)));
  Value blockFirst = arith::MulIOp::create(b, loc, tile, cIdx(16 * colTiles));
  Value firstRow = arith::AddIOp::create(b, loc, blockFirst, laneRow);
  // The weight-row offset of matrix tile i's top (h = 0) or bottom rows.
  auto rowOffset = [&](int64_t i, int64_t h) {
    return wholeLines ? 16 * (i / 2) + 8 * (i % 2) + 4 * h : 16 * i + 8 * h;
  };

  // Rows past N and activation rows past M read row N-1 / M-1 instead of
  // branching; their results are never stored. Only the last block can have
  // such rows: the others take every row at a constant distance from the
  // first, which the loads fold into their address (no per-row address
  // arithmetic in the loop).
  auto weightRowsOf = [&](bool clamp) {
    SmallVector<Value> rows; // [matrix tile][top, bottom]
    for (int64_t i = 0; i < mmaTiles; ++i)
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
                arith::SubIOp::create(b, loc, numN, cIdx(kPreparedTileRows)));
            row = arith::AddIOp::create(
                b, loc, tile,
                arith::AddIOp::create(b, loc, laneRow, cIdx(inTile)));
          }
          preparedRows[row] = {tile, inTile / 8, inTile % 8};
          rows.push_back(row);
          continue;
        }
        rows.push_back(clamp ? Value(arith::MinUIOp::create(b, loc, row, lastN))
                             : row);
      }
    return rows;
  };
  int64_t rowsPerGroup = getGemvRowsPerGroup(wholeLines);
  Value firstActivationRow =
      firstM ? Value(arith::AddIOp::create(b, loc, firstM, laneRow)) : laneRow;
  SmallVector<Value> activationRows;
  for (int64_t r = 0; r < groups; ++r)
    activationRows.push_back(
        arith::MinUIOp::create(b, loc,
                               arith::AddIOp::create(b, loc, firstActivationRow,
                                                     cIdx(rowsPerGroup * r)),
                               lastM));

  // The packed codes are read once per block: loads that bypass L1 leave it
  // to the activations and scales, which the block's warps and its
  // neighbours read again (nvfp4 17408 x 5120 about 6 % faster on the H200).
  // A row's 128-byte line holds two K steps, which two warps of the block
  // read at about the same time, so the first miss fetches the whole line
  // (1-3 % faster on every timed layer). fp8 loads 32-byte chunks and keeps
  // plain loads (not measured). Figures: bench/README.md, "Measurements
  // behind the compiler's choices".
  if (spec.scheme.isPacked() && target.hasStreamingLoad()) {
    auto metadata =
        memref::ExtractStridedMetadataOp::create(b, loc, buffers.weights);
    codesBase = arith::AddIOp::create(
        b, loc,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffers.weights),
        metadata.getOffset());
    codesRowStride = metadata.getStrides()[0];
  }
  Value epilogueFactor;
  if (buffers.globalScale) {
    Value global = loadGlobalScale();
    if (spec.usesPackedDecode())
      epilogueFactor = arith::MulFOp::create(
          b, loc, global, cF32(std::ldexp(1.0f, kPackedFp4ResidualExponent)));
    else
      globalScale = global;
  }

  int64_t accumulators = mmaTiles * groups * 4;
  SmallVector<Value> zeros(accumulators, cF32(0.0f));
  int64_t warpStepK = wholeLines ? 2 * kWarpStepK : kWarpStepK;
  Value lanesK = arith::MulIOp::create(b, loc, t, cIdx(kLaneK));
  if (wholeLines)
    lanesK = arith::AddIOp::create(
        b, loc, lanesK,
        arith::MulIOp::create(b, loc,
                              arith::DivUIOp::create(b, loc, g, cIdx(4)),
                              cIdx(kWarpStepK)));
  auto stepK = [&](Value step) {
    return Value(arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, step, cIdx(warpStepK)), lanesK));
  };
  // The fused GEMM's pipelines: the warp's K step in loop iteration
  // `iteration` (split_k K slices per iteration).
  auto stepOf = [&](Value iteration) {
    return arith::AddIOp::create(
        b, loc, kWarp,
        arith::MulIOp::create(b, loc, iteration, cIdx(spec.splitK)));
  };
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
  auto emitPipelinedLoop = [&](ArrayRef<Value> weightRows) {
    int64_t iterations = spec.k / warpStepK / spec.splitK;
    int64_t stages = spec.stages;
    int64_t tileElements = spec.splitK * spec.maxM * kWarpStepK;
    Value lastIteration = cIdx(iterations - 1);
    auto copyIteration = [&](Value iteration) {
      Value clamped = arith::MinUIOp::create(b, loc, iteration, lastIteration);
      Value slot = arith::RemUIOp::create(b, loc, iteration, cIdx(stages));
      copyActivations(
          arith::MulIOp::create(b, loc, clamped, cIdx(spec.splitK)), firstM,
          lastM, arith::MulIOp::create(b, loc, slot, cIdx(tileElements)),
          /*async=*/true,
          [&](Value row, Value chunk) { return warpStagedChunk(row, chunk); });
      target.emitAsyncCommit(b, loc);
    };
    for (int64_t i = 0; i + 1 < stages; ++i)
      copyIteration(cIdx(i));
    StepLoads first = loadStep(stepK(kWarp), weightRows, {});
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
      target.emitAsyncWait(b, loc, stages - 2);
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
    target.emitAsyncWait(b, loc, 0);
    return SmallVector<Value>(loop.getResults().take_front(accumulators));
  };
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
  auto emitWarpgroupLoop = [&](ArrayRef<Value> weightRows) {
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
      copyWarpgroupTile(
          arith::MulIOp::create(b, loc, clamped, cIdx(spec.splitK)), firstM,
          lastM, arith::MulIOp::create(b, loc, slot, cIdx(tileElements)));
      copyWarpgroupCodes(stepK(stepOf(clamped)), weightRows, slot);
      target.emitAsyncCommit(b, loc);
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
      target.emitAsyncWait(b, loc, ahead - 1);
      target.emitAsyncProxyFence(b, loc);
      gpu::BarrierOp::create(b, loc);
      // The codes are read back before the next copies are started, whose
      // address arithmetic then hides the reads' latency (the copies write
      // workgroup memory, which the reads cannot be moved across).
      StepLoads loads =
          unflattenStep(first, own, warpgroupBlocks(firstKOf(iteration)));
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
      acc = target.emitWarpgroupWait(b, loc, 1, acc);
      return flattenStep(later);
    };
    SmallVector<Value> init(zeros);
    SmallVector<Value> firstFlat = flattenStep(first);
    int64_t stepValues = firstFlat.size();
    llvm::append_range(init, firstFlat);
    llvm::append_range(init, flattenStep(loadsOf(clampedAfter(cIdx(0), 1))));
    // Two iterations per trip, each on its own set of loads: the loads two
    // iterations ahead land in registers no other value has to be moved
    // out of first (a move would wait for them).
    int64_t pairs = iterations / 2;
    auto loop =
        scf::ForOp::create(b, loc, cIdx(0), cIdx(2 * pairs), cIdx(2), init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value iteration = loop.getInductionVar();
      ValueRange args = loop.getRegionIterArgs();
      SmallVector<Value> acc(args.begin(), args.begin() + accumulators);
      SmallVector<Value> even =
          emitIteration(iteration, args.slice(accumulators, stepValues), acc);
      SmallVector<Value> odd =
          emitIteration(arith::AddIOp::create(b, loc, iteration, cIdx(1)),
                        args.slice(accumulators + stepValues, stepValues), acc);
      SmallVector<Value> yielded(acc);
      llvm::append_range(yielded, even);
      llvm::append_range(yielded, odd);
      scf::YieldOp::create(b, loc, yielded);
    }
    SmallVector<Value> sums(loop.getResults().take_front(accumulators));
    // An odd count leaves the last iteration, on the first set.
    if (iterations % 2)
      emitIteration(cIdx(iterations - 1),
                    loop.getResults().slice(accumulators, stepValues), sums);
    sums = target.emitWarpgroupWait(b, loc, 0, sums);
    // The copies past the last iteration land before the memory is reused.
    target.emitAsyncWait(b, loc, 0);
    return sums;
  };
  auto emitLoop = [&](ArrayRef<Value> weightRows) {
    if (spec.warpgroup)
      return emitWarpgroupLoop(weightRows);
    if (spec.mTiled && spec.stages > 1)
      return emitPipelinedLoop(weightRows);
    auto loop = scf::ForOp::create(b, loc, kWarp, cIdx(spec.k / warpStepK),
                                   cIdx(spec.splitK), zeros);
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
          lastM,
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
  };
  SmallVector<Value> sums;
  if (spec.wholeBlocksOnly) {
    sums = emitLoop(weightRowsOf(/*clamp=*/false));
  } else {
    // The fused GEMM's loop holds barriers: every warp of a block takes the
    // same side, the one of the block's last row.
    Value lastRowEnd =
        spec.mTiled
            ? (Value)arith::MulIOp::create(
                  b, loc, arith::AddIOp::create(b, loc, blockTile, cIdx(1)),
                  cIdx(spec.getRowsPerBlock()))
            : (Value)arith::AddIOp::create(b, loc, blockFirst,
                                           cIdx(16 * colTiles));
    Value wholeBlock = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                             lastRowEnd, numN);
    auto rowsInside = scf::IfOp::create(
        b, loc, SmallVector<Type>(accumulators, f32), wholeBlock,
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rowsInside.thenBlock());
    scf::YieldOp::create(b, loc, emitLoop(weightRowsOf(/*clamp=*/false)));
    b.setInsertionPointToStart(rowsInside.elseBlock());
    scf::YieldOp::create(b, loc, emitLoop(weightRowsOf(/*clamp=*/true)));
    sums.assign(rowsInside.getResults().begin(), rowsInside.getResults().end());
  }
  if (wholeLines) {
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

  // Split-K: every warp parks its partial sums, the first warp of each
  // weight tile adds them up in order.
  Value isFirstWarp =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kWarp, cIdx(0));
  // The slot of the warp of K slice `other` on this warp's weight tile.
  auto warpOfSlice = [&](int64_t other) -> Value {
    if (!nWarp)
      return cIdx(other);
    return arith::AddIOp::create(b, loc, cIdx(other * spec.warpsN), nWarp);
  };
  std::optional<OpBuilder::InsertionGuard> epilogueGuard;
  if (spec.splitK > 1) {
    // The sums reuse the staged activations' memory: every warp's last
    // reads come first.
    if (spec.mTiled)
      gpu::BarrierOp::create(b, loc);
    auto quad = VectorType::get({4}, f32);
    auto slot = [&](Value warpIndex, int64_t group) {
      Value groupBase = arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, warpIndex, cIdx(mmaTiles * groups)),
              cIdx(group)),
          cIdx(kMmaLanes * 4));
      return arith::AddIOp::create(
          b, loc, groupBase, arith::MulIOp::create(b, loc, lane, cIdx(4)));
    };
    for (int64_t group = 0; group < mmaTiles * groups; ++group) {
      Value packedSums = vector::FromElementsOp::create(
          b, loc, quad, ArrayRef<Value>(sums).slice(4 * group, 4));
      vector::StoreOp::create(b, loc, packedSums, buffers.partials,
                              ValueRange{slot(warp, group)});
    }
    gpu::BarrierOp::create(b, loc);
    auto onlyFirst = scf::IfOp::create(b, loc, isFirstWarp, false);
    epilogueGuard.emplace(b);
    b.setInsertionPointToStart(onlyFirst.thenBlock());
    for (int64_t group = 0; group < mmaTiles * groups; ++group) {
      Value total = vector::FromElementsOp::create(
          b, loc, quad, ArrayRef<Value>(sums).slice(4 * group, 4));
      for (int64_t other = 1; other < spec.splitK; ++other)
        total = arith::AddFOp::create(
            b, loc, total,
            vector::LoadOp::create(
                b, loc, quad, buffers.partials,
                ValueRange{slot(warpOfSlice(other), group)}));
      for (int64_t i = 0; i < 4; ++i)
        sums[4 * group + i] =
            vector::ExtractOp::create(b, loc, total, ArrayRef<int64_t>{i});
    }
  }

  Value pairCol = arith::MulIOp::create(b, loc, t, cIdx(2));
  Value firstPairCol =
      firstM ? Value(arith::AddIOp::create(b, loc, firstM, pairCol)) : pairCol;
  // Whole lines: lanes g < 4, t < 2 hold the sums (columns n < 4).
  Value owner;
  if (wholeLines) {
    Value lowRow =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, g, cIdx(4));
    Value lowColumn =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t, cIdx(2));
    owner = arith::AndIOp::create(b, loc, lowRow, lowColumn);
  }
  for (int64_t i = 0; i < mmaTiles; ++i)
    for (int64_t r = 0; r < groups; ++r)
      for (int64_t e = 0; e < 4; ++e) {
        Value n =
            arith::AddIOp::create(b, loc, firstRow, cIdx(rowOffset(i, e / 2)));
        Value m = arith::AddIOp::create(b, loc, firstPairCol,
                                        cIdx(rowsPerGroup * r + e % 2));
        emitStore(sums[(i * groups + r) * 4 + e], epilogueFactor, m, n, numM,
                  numN, owner);
      }
}

//===----------------------------------------------------------------------===//
// Wavefront matrix-core GEMV (16x16x16, 64 lanes)
//===----------------------------------------------------------------------===//

/// The matrix-core GEMV for targets with TargetInfo::emitWaveMma16x16x16. A
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
  Value kWave = warp, nWave = cIdx(0), tile = block, firstM = cIdx(0);
  if (spec.mTiled) {
    firstM = arith::MulIOp::create(b, loc, block, cIdx(spec.maxM));
    kWave = arith::DivUIOp::create(b, loc, warp, cIdx(spec.warpsN));
    nWave = arith::RemUIOp::create(b, loc, warp, cIdx(spec.warpsN));
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
          sum = target.emitWaveMma16x16x16(
              b, loc, sliceOf(weights[i / 2], 4 * (i % 2), 4),
              sliceOf(activationWords[g][i / 2], 4 * (i % 2), 4), sum);
        }
    }
    scf::YieldOp::create(b, loc, acc);
  }
  SmallVector<Value> sums(loop.getResults());

  Value column = r;
  std::optional<OpBuilder::InsertionGuard> epilogueGuard;
  if (spec.splitK > 1) {
    // Every wavefront parks its live partial sums, the first of each weight
    // tile's K slices adds them. The fused GEMM's partial sums overlay its
    // staged tile, which the other wavefronts may still be reading.
    if (spec.mTiled)
      gpu::BarrierOp::create(b, loc);
    Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       column, cIdx(liveColumns));
    Value laneSlot = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, q, cIdx(liveColumns)), column);
    auto slot = [&](Value kSlice, int64_t group) {
      Value wave = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, kSlice, cIdx(spec.warpsN)),
          nWave);
      Value base = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, wave, cIdx(colTiles * groups)),
          cIdx(group));
      return arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, base, cIdx(4 * liveColumns)),
              laneSlot),
          cIdx(4));
    };
    auto park = scf::IfOp::create(b, loc, live, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(park.thenBlock());
      for (int64_t group = 0; group < colTiles * groups; ++group)
        vector::StoreOp::create(b, loc, sums[group], buffers.partials,
                                ValueRange{slot(kWave, group)});
    }
    gpu::BarrierOp::create(b, loc);
    Value isFirstSlice =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kWave, cIdx(0));
    auto onlyFirst = scf::IfOp::create(
        b, loc, arith::AndIOp::create(b, loc, isFirstSlice, live), false);
    epilogueGuard.emplace(b);
    b.setInsertionPointToStart(onlyFirst.thenBlock());
    for (int64_t group = 0; group < colTiles * groups; ++group)
      for (int64_t other = 1; other < spec.splitK; ++other)
        sums[group] = arith::AddFOp::create(
            b, loc, sums[group],
            vector::LoadOp::create(b, loc, quad, buffers.partials,
                                   ValueRange{slot(cIdx(other), group)}));
  }

  Value firstD = arith::MulIOp::create(b, loc, q, cIdx(4));
  for (int64_t c = 0; c < colTiles; ++c)
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t i = 0; i < 4; ++i) {
        Value n = arith::AddIOp::create(
            b, loc, firstRow,
            arith::AddIOp::create(b, loc, firstD, cIdx(16 * c + i)));
        Value m = arith::AddIOp::create(
            b, loc, firstM,
            arith::AddIOp::create(b, loc, column, cIdx(16 * g)));
        Value sum = vector::ExtractOp::create(b, loc, sums[c * groups + g],
                                              ArrayRef<int64_t>{i});
        emitStore(sum, Value(), m, n, numM, numN);
      }
}

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
    Value codes = vector::LoadOp::create(
        b, loc, VectorType::get({1}, weightsType.getElementType()),
        buffers.weights, ValueRange{row, item});
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
  for (int64_t m = 0; m < spec.maxM; ++m)
    emitStore(sums[m], Value(), cIdx(m), n, numM, numN);
}

} // namespace

void mlir::qmat::emitGemvKernelBody(OpBuilder &builder, Location loc,
                                    const GemvKernelSpec &spec,
                                    const GemvBuffers &buffers,
                                    const TargetInfo &target) {
  if (spec.tensorCore && target.hasWaveMma16x16x16())
    WaveMmaGemvEmitter(builder, loc, spec, buffers, target).emit();
  else if (spec.tensorCore)
    TensorCoreGemvEmitter(builder, loc, spec, buffers, target).emit();
  else
    ScalarGemvEmitter(builder, loc, spec, buffers, target).emit();
}
