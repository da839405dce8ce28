//===- QMatOps.cpp - qmat operation verifiers -----------------------------===//
//
// Every verifier message names the rule that was broken, so that a user who
// wrote a malformed layer can fix it from the diagnostic alone.
//
//===----------------------------------------------------------------------===//

#include "qmat/Dialect/QMat/IR/QMatOps.h"
#include "qmat/Dialect/QMat/IR/FusedGemm.h"
#include "qmat/Dialect/QMat/IR/GemvLayouts.h"
#include "qmat/Dialect/QMat/IR/MatrixOpsFormat.h"
#include "qmat/Dialect/QMat/IR/PreparedWeights.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// Prints a shape as "[32, ?]".
std::string formatShape(ArrayRef<int64_t> shape) {
  std::string result = "[";
  llvm::raw_string_ostream os(result);
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      os << "?";
    else
      os << dim;
  });
  os << "]";
  return result;
}

bool isActivationType(Type type) { return type.isF16() || type.isBF16(); }

/// Two extents agree when either is dynamic or both are equal.
bool extentsAgree(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) || lhs == rhs;
}

bool shapeMatches(MemRefType type, ArrayRef<int64_t> expected) {
  if (type.getRank() != static_cast<int64_t>(expected.size()))
    return false;
  for (auto [actual, want] : llvm::zip(type.getShape(), expected))
    if (!extentsAgree(actual, want))
      return false;
  return true;
}

/// ceil(value / divisor) for value >= 0 and divisor > 0, without the
/// overflow of (value + divisor - 1) / divisor.
int64_t ceilDivOrDynamic(int64_t value, int64_t divisor) {
  if (ShapedType::isDynamic(value))
    return ShapedType::kDynamic;
  return value / divisor + (value % divisor != 0);
}

/// The largest N and K: the kernels index a row's elements and the grid's
/// rows with 32-bit values, and a grid has at most 2^31 - 1 blocks in x.
constexpr int64_t kMaxExtent = (int64_t(1) << 31) - 1;
/// The largest weight buffer (N rows of K/2 or K bytes): 1 TiB, beyond any
/// device's memory, keeps every byte offset far from overflow.
constexpr int64_t kMaxWeightBytes = int64_t(1) << 40;

/// N (where static) and K positive and within what the kernels can index.
LogicalResult verifyExtents(Operation *op, int64_t n, int64_t k) {
  if (k <= 0)
    return op->emitOpError() << "K must be positive, got " << k;
  if (k > kMaxExtent)
    return op->emitOpError()
           << "K must be at most 2^31 - 1 = " << kMaxExtent << ", got " << k;
  if (ShapedType::isDynamic(n))
    return success();
  if (n <= 0)
    return op->emitOpError() << "N must be positive, got " << n;
  if (n > kMaxExtent)
    return op->emitOpError()
           << "N must be at most 2^31 - 1 = " << kMaxExtent << ", got " << n;
  return success();
}

/// What a quantized-weight op knows about its problem before the weights are
/// checked: N (possibly dynamic for a tiled dequantization), a static K and
/// the activation type.
struct ProblemShape {
  int64_t n;
  int64_t k;
  Type act;
};

/// Checks the weight, scale, global-scale and zero-point operands against the
/// scheme (docs/numerics.md). Shared by matmul, gemv and dequantize.
LogicalResult verifyQuantizedWeight(Operation *op, SchemeAttr scheme,
                                    Value weights, Value scales,
                                    Value globalScale, Value zeroPoints,
                                    const ProblemShape &problem) {
  SchemeKind kind = scheme.getKind();
  StringRef kindName = stringifySchemeKind(kind);
  int64_t n = problem.n, k = problem.k;
  auto weightsType = cast<MemRefType>(weights.getType());
  if (failed(verifyExtents(op, n, k)))
    return failure();

  if (scheme.isPacked()) {
    if (k % 2 != 0)
      return op->emitOpError() << "K must be even for " << kindName
                               << " (two 4-bit codes per byte), got K = " << k;
    if (weightsType.getRank() != 2 ||
        !weightsType.getElementType().isInteger(8))
      return op->emitOpError()
             << "packed " << kindName
             << " weights must be a rank-2 memref of i8 [N, K/2], got "
             << weightsType;
    if (!extentsAgree(weightsType.getDimSize(1), k / 2))
      return op->emitOpError()
             << "packed weights must be [N, K/2] with K/2 = " << k / 2
             << ", got " << formatShape(weightsType.getShape());
  } else {
    if (weightsType.getRank() != 2 ||
        !isa<Float8E4M3FNType>(weightsType.getElementType()))
      return op->emitOpError()
             << "fp8 weights must be a rank-2 memref of f8E4M3FN [N, K], got "
             << weightsType;
    if (!extentsAgree(weightsType.getDimSize(1), k))
      return op->emitOpError()
             << "fp8 weights must be [N, K] with K = " << k << ", got "
             << formatShape(weightsType.getShape());
  }
  if (!extentsAgree(weightsType.getDimSize(0), n))
    return op->emitOpError() << "N disagrees between operands: weights have "
                             << weightsType.getDimSize(0)
                             << " rows, the output has " << n << " columns";
  if (ShapedType::isDynamic(n)) {
    n = weightsType.getDimSize(0);
    if (failed(verifyExtents(op, n, k)))
      return failure();
  }
  // N, K < 2^31: the product cannot overflow.
  int64_t weightBytes =
      ShapedType::isDynamic(n) ? 0 : n * (scheme.isPacked() ? k / 2 : k);
  if (weightBytes > kMaxWeightBytes)
    return op->emitOpError()
           << "the weights must be at most 2^40 bytes (N * "
           << (scheme.isPacked() ? "K/2" : "K") << "), got " << weightBytes;

  auto scalesType = cast<MemRefType>(scales.getType());
  int64_t numBlocks = scheme.getNumBlocks(k);
  SmallVector<int64_t> scaleShape = {n, numBlocks};
  if (!shapeMatches(scalesType, scaleShape))
    return op->emitOpError() << "scales must have shape [N, ceil(K/bs)] = "
                             << formatShape(scaleShape) << ", got "
                             << formatShape(scalesType.getShape());
  Type scaleElement = scalesType.getElementType();
  switch (kind) {
  case SchemeKind::nvfp4:
    if (!isa<Float8E4M3FNType>(scaleElement))
      return op->emitOpError()
             << "nvfp4 scales must have element type f8E4M3FN, got "
             << scaleElement;
    break;
  case SchemeKind::mxfp4:
    if (!isa<Float8E8M0FNUType>(scaleElement))
      return op->emitOpError()
             << "mxfp4 scales must have element type f8E8M0FNU, got "
             << scaleElement;
    break;
  case SchemeKind::fp8:
    if (!scaleElement.isF32())
      return op->emitOpError()
             << "fp8 scales must have element type f32, got " << scaleElement;
    break;
  case SchemeKind::int4:
    if (scaleElement != problem.act)
      return op->emitOpError() << "int4 scales must have the activation type "
                               << problem.act << ", got " << scaleElement;
    break;
  }

  if (kind == SchemeKind::nvfp4 && !globalScale)
    return op->emitOpError()
           << "nvfp4 requires a global_scale operand (weight_scale_2)";
  if (kind != SchemeKind::nvfp4 && globalScale)
    return op->emitOpError()
           << "global_scale is only allowed for nvfp4, not " << kindName;
  if (globalScale) {
    auto type = cast<MemRefType>(globalScale.getType());
    if (type.getRank() != 0 || !type.getElementType().isF32())
      return op->emitOpError()
             << "global_scale must be memref<f32>, got " << type;
  }

  if (zeroPoints) {
    if (kind != SchemeKind::int4)
      return op->emitOpError()
             << "zero_points are only allowed for int4, not " << kindName;
    auto type = cast<MemRefType>(zeroPoints.getType());
    SmallVector<int64_t> zpShape = {n, ceilDivOrDynamic(numBlocks, 2)};
    if (!type.getElementType().isInteger(8) || !shapeMatches(type, zpShape))
      return op->emitOpError()
             << "zero_points must be packed u4 i8 [N, ceil(ceil(K/bs)/2)] = "
             << formatShape(zpShape) << ", got " << type;
  }
  return success();
}

/// Checks A [M, K] and Y [M, N]: f16/bf16, the same type, M dynamic, K and N
/// static. Returns the problem shape on success.
FailureOr<ProblemShape> verifyActivations(Operation *op, Value a, Value y,
                                          bool allowDynamicN = false) {
  auto aType = cast<MemRefType>(a.getType());
  auto yType = cast<MemRefType>(y.getType());
  if (aType.getRank() != 2)
    return op->emitOpError()
           << "A must be a rank-2 memref [M, K], got " << aType;
  if (yType.getRank() != 2)
    return op->emitOpError()
           << "Y must be a rank-2 memref [M, N], got " << yType;
  Type act = aType.getElementType();
  if (!isActivationType(act))
    return op->emitOpError()
           << "activation element type must be f16 or bf16, got " << act;
  if (yType.getElementType() != act)
    return op->emitOpError() << "A and Y must have the same element type, got "
                             << act << " and " << yType.getElementType();
  if (!aType.isDynamicDim(0) || !yType.isDynamicDim(0))
    return op->emitOpError()
           << "M (dim 0 of A and Y) must be dynamic: kernels are specialised "
              "on N and K, M is a run-time argument";
  if (aType.isDynamicDim(1))
    return op->emitOpError() << "K (dim 1 of A) must be static";
  if (yType.isDynamicDim(1) && !allowDynamicN)
    return op->emitOpError() << "N (dim 1 of Y) must be static";
  return ProblemShape{yType.getDimSize(1), aType.getDimSize(1), act};
}

LogicalResult verifyBias(Operation *op, Value bias, const ProblemShape &p) {
  if (!bias)
    return success();
  auto type = cast<MemRefType>(bias.getType());
  if (type.getRank() != 1 || !extentsAgree(type.getDimSize(0), p.n) ||
      type.getElementType() != p.act)
    return op->emitOpError()
           << "bias must be [N] = [" << p.n << "] of the activation type "
           << p.act << ", got " << type;
  return success();
}

/// The launcher passes the user's buffers as bare pointers and indexes them
/// densely: a layout with an offset or other strides would be ignored.
LogicalResult verifyDenseOperand(Operation *op, StringRef name, Value value) {
  if (!value)
    return success();
  auto type = cast<MemRefType>(value.getType());
  if (type.getLayout().isIdentity())
    return success();
  return op->emitOpError() << "operand '" << name
                           << "' must be a dense row-major memref (identity "
                              "layout), got "
                           << type;
}

} // namespace

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  std::pair<StringRef, Value> operands[] = {{"a", getA()},
                                            {"weights", getWeights()},
                                            {"scales", getScales()},
                                            {"global_scale", getGlobalScale()},
                                            {"zero_points", getZeroPoints()},
                                            {"bias", getBias()},
                                            {"y", getY()}};
  for (auto [name, value] : operands)
    if (failed(verifyDenseOperand(*this, name, value)))
      return failure();
  FailureOr<ProblemShape> problem = verifyActivations(*this, getA(), getY());
  if (failed(problem))
    return failure();
  if (failed(verifyQuantizedWeight(*this, getScheme(), getWeights(),
                                   getScales(), getGlobalScale(),
                                   getZeroPoints(), *problem)))
    return failure();
  return verifyBias(*this, getBias(), *problem);
}

int64_t MatmulOp::getN() { return getY().getType().getDimSize(1); }
int64_t MatmulOp::getK() { return getA().getType().getDimSize(1); }
Type MatmulOp::getActType() { return getA().getType().getElementType(); }

//===----------------------------------------------------------------------===//
// GemvOp
//===----------------------------------------------------------------------===//

/// The prepared layout's rule (PreparedWeights.h): packed 4-bit codes, K a
/// multiple of 128 and N (where static) of 16.
static LogicalResult verifyPreparedWeights(Operation *op, SchemeAttr scheme,
                                           Value weights, int64_t k) {
  int64_t n = cast<MemRefType>(weights.getType()).getDimSize(0);
  if (canPrepareWeights(scheme.isPacked(), ShapedType::isDynamic(n) ? -1 : n,
                        k))
    return success();
  return op->emitOpError() << "prepared_weights needs packed 4-bit codes, K % "
                           << 2 * kPreparedStepBytes << " == 0 and N % "
                           << kPreparedTileRows << " == 0, got "
                           << stringifySchemeKind(scheme.getKind())
                           << ", K = " << k << ", N = "
                           << (ShapedType::isDynamic(n) ? std::string("?")
                                                        : std::to_string(n));
}

/// The rules of a #qmat.kernel_config that involve its op (the attribute
/// checks its own): an op's own decode is the config's, and whole_blocks
/// needs a static N that is a multiple of the rows one block produces
/// (the kernel then has no partial-block branch).
static LogicalResult verifyConfigOfOp(Operation *op, KernelConfigAttr config,
                                      std::optional<DecodeMethod> decode,
                                      Value weights, int64_t rowsPerBlock) {
  if (decode && *decode != config.getDecode())
    return op->emitOpError() << "decode = " << stringifyDecodeMethod(*decode)
                             << " but its config decodes with "
                             << stringifyDecodeMethod(config.getDecode());
  int64_t n = cast<MemRefType>(weights.getType()).getDimSize(0);
  if (config.getWholeBlocks() &&
      (ShapedType::isDynamic(n) || n % rowsPerBlock != 0))
    return op->emitOpError()
           << "config whole_blocks needs N to be a multiple of the "
           << rowsPerBlock << " rows a block produces, got N = "
           << (ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n));
  return success();
}

LogicalResult GemvOp::verify() {
  FailureOr<ProblemShape> problem = verifyActivations(*this, getA(), getY());
  if (failed(problem))
    return failure();
  if (failed(verifyQuantizedWeight(*this, getScheme(), getWeights(),
                                   getScales(), getGlobalScale(),
                                   getZeroPoints(), *problem)) ||
      failed(verifyBias(*this, getBias(), *problem)))
    return failure();
  if (getMaxM() < 1 || getMaxM() > 64)
    return emitOpError() << "max_m must be in [1, 64], got " << getMaxM();
  if (!llvm::is_contained(getSplitKChoices(), getSplitK())) {
    InFlightDiagnostic diag = emitOpError() << "split_k must be one of ";
    llvm::interleaveComma(getSplitKChoices(), diag);
    return diag << ", got " << getSplitK();
  }
  if (!llvm::is_contained(getColTileChoices(), getColTiles())) {
    InFlightDiagnostic diag = emitOpError() << "col_tiles must be one of ";
    llvm::interleaveComma(getColTileChoices(), diag);
    return diag << ", got " << getColTiles();
  }
  KernelConfigAttr config = getConfigAttr();
  if (config && (config.getMatrix() == MatrixOp::scalar) == getTensorCore())
    return emitOpError() << "config matrix = "
                         << stringifyMatrixOp(config.getMatrix()) << " but "
                         << (getTensorCore() ? "tensor_core is set"
                                             : "tensor_core is not set");
  if (config && config.getMatrix() == MatrixOp::wgmma_64xnx16)
    return emitOpError() << "config matrix = wgmma_64xnx16 is the fused "
                            "GEMM's warpgroup instruction, not a GEMV's";
  if (getTensorCore()) {
    // Without a config the whole-line layout (maxM <= 4, at most 2 column
    // tiles) may be chosen later; it takes more memory than the 16-row one.
    bool wholeLines = config ? config.getWholeLines()
                             : getMaxM() <= kWholeLineGemvMaxM &&
                                   getColTiles() <= kWholeLineGemvMaxColTiles;
    int64_t shared =
        std::max(getPartialSumBytes(getSplitK(), getColTiles(), getMaxM()),
                 wholeLines ? getPartialSumBytes(getSplitK(), getColTiles(),
                                                 getMaxM(), true)
                            : 0);
    if (shared > kMaxSharedBytes)
      return emitOpError() << "split_k = " << getSplitK()
                           << ", col_tiles = " << getColTiles()
                           << " and max_m = " << getMaxM() << " need " << shared
                           << " bytes of shared memory for the split-K sums, "
                              "more than the "
                           << kMaxSharedBytes << " (48 KiB) a block may take";
    if (!getScheme().isTensorCoreGemvLegal(problem->k))
      return emitOpError() << "tensor_core needs K % 128 == 0 and a block "
                              "size that is a multiple of 8, got K = "
                           << problem->k
                           << ", block = " << getScheme().getBlockSize();
  } else if (getSplitK() != 1 || getColTiles() != 1) {
    return emitOpError() << "the scalar GEMV (no tensor_core) takes one warp "
                            "per row: split_k and col_tiles must be 1";
  }
  if (getPreparedWeights()) {
    if (!getTensorCore())
      return emitOpError()
             << "prepared_weights is read by the tensor-core GEMV only";
    if (failed(verifyPreparedWeights(*this, getScheme(), getWeights(),
                                     problem->k)))
      return failure();
  }
  if (!config)
    return success();
  SchemeKind kind = getScheme().getKind();
  if (config.getWholeLines() &&
      !isWholeLineGemv(kind, getTensorCore(), config.getDecode(), problem->k,
                       getMaxM(), getColTiles()))
    return emitOpError()
           << "config whole_lines needs nvfp4 or mxfp4 codes decoded by "
              "magic_bias, K % 256 == 0, max_m <= "
           << kWholeLineGemvMaxM
           << " and col_tiles <= " << kWholeLineGemvMaxColTiles;
  if (config.getHalfSteps() &&
      !isHalfStepGemv(kind, config.getDecode(), getActType().isBF16(),
                      getColTiles(), config.getWholeLines()))
    return emitOpError() << "config half_steps needs nvfp4 or mxfp4 codes "
                            "decoded by magic_bias, bf16 activations and "
                            "col_tiles = 4";
  return verifyConfigOfOp(*this, config, getDecode(), getWeights(),
                          16 * getColTiles());
}

int64_t GemvOp::getK() { return getA().getType().getDimSize(1); }
Type GemvOp::getActType() { return getA().getType().getElementType(); }

ArrayRef<int64_t> GemvOp::getSplitKChoices() {
  static const int64_t values[] = {1, 2, 3, 4, 8, 16};
  return values;
}

ArrayRef<int64_t> GemvOp::getColTileChoices() {
  static const int64_t values[] = {1, 2, 4};
  return values;
}

int64_t GemvOp::getPartialSumBytes(int64_t splitK, int64_t colTiles,
                                   int64_t maxM, bool wholeLines) {
  if (splitK == 1)
    return 0;
  int64_t rows = getGemvRowsPerGroup(wholeLines);
  int64_t mmaTiles =
      getGemvMmaTilesPerColTile(wholeLines) * ((maxM + rows - 1) / rows);
  int64_t lanes = 32, sumsPerLane = 4;
  return splitK * colTiles * mmaTiles * lanes * sumsPerLane * 4;
}

//===----------------------------------------------------------------------===//
// FusedGemmOp
//===----------------------------------------------------------------------===//

/// `diag` << "<name> must be one of a, b, c, got <value>".
static LogicalResult emitNotAmong(Operation *op, StringRef name,
                                  ArrayRef<int64_t> choices, int64_t value) {
  InFlightDiagnostic diag = op->emitOpError() << name << " must be one of ";
  llvm::interleaveComma(choices, diag);
  return diag << ", got " << value;
}

LogicalResult FusedGemmOp::verify() {
  FailureOr<ProblemShape> problem = verifyActivations(*this, getA(), getY());
  if (failed(problem))
    return failure();
  if (failed(verifyQuantizedWeight(*this, getScheme(), getWeights(),
                                   getScales(), getGlobalScale(),
                                   getZeroPoints(), *problem)) ||
      failed(verifyBias(*this, getBias(), *problem)))
    return failure();
  if (!getScheme().isTensorCoreGemvLegal(problem->k))
    return emitOpError() << "the fused GEMM needs K % 128 == 0 and a block "
                            "size that is a multiple of 8, got K = "
                         << problem->k
                         << ", block = " << getScheme().getBlockSize();
  int64_t mTile = getMTile(), warpsN = getWarpsN(), splitK = getSplitK(),
          colTiles = getColTiles(), stages = getStages();
  if (getSpecialized() && !getWeightsAsB()
          ? !llvm::is_contained(getSpecializedMTileChoices(), mTile)
          : !llvm::is_contained(getMTileChoices(), mTile) &&
                !(getSpecialized() && mTile == kMaxSpecializedMTile))
    return emitNotAmong(*this, "m_tile",
                        getSpecialized() && !getWeightsAsB()
                            ? getSpecializedMTileChoices()
                            : getMTileChoices(),
                        mTile);
  if (!llvm::is_contained(getWarpsNChoices(), warpsN))
    return emitNotAmong(*this, "warps_n", getWarpsNChoices(), warpsN);
  if (!llvm::is_contained(getSplitKChoices(), splitK))
    return emitNotAmong(*this, "split_k", getSplitKChoices(), splitK);
  if (!getWeightsAsB() &&
      !llvm::is_contained(GemvOp::getColTileChoices(), colTiles))
    return emitNotAmong(*this, "col_tiles", GemvOp::getColTileChoices(),
                        colTiles);
  if (!llvm::is_contained(getStagesChoices(), stages))
    return emitNotAmong(*this, "stages", getStagesChoices(), stages);
  if (stages > 4 && !getSpecialized())
    return emitOpError() << "stages = 5 is a form of the specialized tiling "
                            "(three decoding warpgroups each a stage ahead), "
                            "got stages = "
                         << stages << " without specialized";
  if (getWeightsAsB() && !getSpecialized())
    return emitOpError() << "weights_as_b is a form of the specialized "
                            "tiling (specialized is not set)";
  int64_t multicast = getMulticast();
  if (!llvm::is_contained(getMulticastChoices(), multicast))
    return emitNotAmong(*this, "multicast", getMulticastChoices(), multicast);
  if (multicast > 1 && !getSpecialized())
    return emitOpError() << "multicast > 1 is a form of the specialized "
                            "tiling (specialized is not set)";
  // Each block loads whole 8-row swizzle atoms of the stage.
  if (!isWholeMulticastShare(mTile, multicast))
    return emitOpError() << "multicast = " << multicast
                         << " gives each block of the cluster m_tile / "
                            "multicast activation rows, whole 8-row atoms: "
                            "m_tile must be a multiple of "
                         << 8 * multicast << ", got " << mTile;
  if (getWeightsInRegisters() && !getSpecialized())
    return emitOpError() << "weights_in_registers is a form of the "
                            "specialized tiling (specialized is not set)";
  if (getDecoders() && (!getSpecialized() || getWeightsInRegisters()))
    return emitOpError() << "decoders is a form of the specialized tiling "
                            "with the decoded weights in workgroup memory "
                            "(specialized without weights_in_registers)";
  if (getSpecialized()) {
    if (failed(getWeightsInRegisters() ? verifyRegisterTiling()
                                       : verifySpecializedTiling()))
      return failure();
  } else if (getWarpgroup() && !isWarpgroupTiling(warpsN, colTiles, stages))
    return emitOpError()
           << "warpgroup needs warps_n = 4 or 8, col_tiles = 1 or 2 and "
              "stages = 3 or 4 (whole warpgroups, one 64-row instruction "
              "per column tile, a staged tile for the instructions in "
              "flight besides the one being copied and the one being "
              "decoded), got warps_n = "
           << warpsN << ", col_tiles = " << colTiles << ", stages = " << stages;
  if (32 * warpsN * splitK > kMaxFusedBlockThreads)
    return emitOpError() << "warps_n x split_k x 32 threads must be at most "
                         << kMaxFusedBlockThreads << ", got "
                         << 32 * warpsN * splitK;
  if (!getSpecialized() && colTiles * mTile / 2 > kMaxFusedAccumulators)
    return emitOpError() << "col_tiles x m_tile / 2 accumulators per lane "
                            "must be at most "
                         << kMaxFusedAccumulators << ", got "
                         << colTiles * mTile / 2;
  bool warpgroup = getWarpgroup();
  int64_t kSlices = getKSlices();
  if (!llvm::is_contained(getKSliceChoices(), kSlices))
    return emitNotAmong(*this, "k_slices", getKSliceChoices(), kSlices);
  if (kSlices > 1 && warpgroup && !getSpecialized())
    return emitOpError() << "k_slices > 1 is a form of the warp and "
                            "specialized tilings, got k_slices = "
                         << kSlices << " with warpgroup";
  int64_t shared = getWorkgroupBytes(mTile, warpsN, splitK, colTiles, stages,
                                     warpgroup, kSlices);
  if (!getSpecialized() && shared > getMaxWorkgroupBytes(warpgroup))
    return emitOpError() << (warpgroup ? "the staged activations and codes "
                                       : "the staged activations ")
                         << "and split-K sums need " << shared
                         << " bytes of workgroup memory, more than the "
                         << getMaxWorkgroupBytes(warpgroup)
                         << " a block of this form may have";
  if ((problem->k / 128) % splitK != 0)
    return emitOpError() << "split_k must divide the K/128 = "
                         << problem->k / 128 << " steps, got " << splitK;
  if ((problem->k / 128) % (splitK * kSlices) != 0)
    return emitOpError() << "split_k x k_slices must divide the K/128 = "
                         << problem->k / 128 << " steps, got " << splitK
                         << " x " << kSlices;
  if (getPreparedWeights() &&
      failed(
          verifyPreparedWeights(*this, getScheme(), getWeights(), problem->k)))
    return failure();
  KernelConfigAttr config = getConfigAttr();
  if (!config)
    return success();
  MatrixOp matrix = config.getMatrix();
  if (matrix == MatrixOp::scalar)
    return emitOpError() << "config matrix must be mma_16x8x16, "
                            "mfma_16x16x16 or wgmma_64xnx16 for the fused "
                            "GEMM, got "
                         << stringifyMatrixOp(matrix);
  if (getSpecialized() && matrix != MatrixOp::wgmma_64xnx16)
    return emitOpError() << "specialized needs config matrix = wgmma_64xnx16 "
                            "(its warps multiply through the warpgroup "
                            "instruction only), got "
                         << stringifyMatrixOp(matrix);
  if (matrix == MatrixOp::wgmma_64xnx16 && !getWarpgroup())
    return emitOpError() << "config matrix = wgmma_64xnx16 needs the "
                            "warpgroup tiling (warpgroup is not set)";
  if (matrix == MatrixOp::wgmma_64xnx16 &&
      (config.getDecode() != DecodeMethod::magic_bias ||
       getScheme().getKind() == SchemeKind::fp8))
    return emitOpError() << "config matrix = wgmma_64xnx16 needs a packed "
                            "decode (nvfp4, mxfp4 or int4 with decode = "
                            "magic_bias), got "
                         << stringifySchemeKind(getScheme().getKind())
                         << " with decode = "
                         << stringifyDecodeMethod(config.getDecode());
  if (config.getWholeLines() || config.getHalfSteps())
    return emitOpError() << "config whole_lines and half_steps are GEMV "
                            "layouts; the fused GEMM takes neither";
  return verifyConfigOfOp(*this, config, getDecode(), getWeights(),
                          16 * colTiles * warpsN);
}

int64_t FusedGemmOp::getK() { return getA().getType().getDimSize(1); }
Type FusedGemmOp::getActType() { return getA().getType().getElementType(); }

ArrayRef<int64_t> FusedGemmOp::getMTileChoices() {
  static const int64_t values[] = {16, 32, 64, 128};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getSpecializedMTileChoices() {
  // 192: M = 129 to 192 in one pass over the weights, where two 128-row
  // tiles take two and a 256-row one zero-fills up to 127 rows.
  static const int64_t values[] = {16, 32, 64, 128, 192, kMaxSpecializedMTile};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getWarpsNChoices() {
  static const int64_t values[] = {1, 2, 4, 8};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getSplitKChoices() {
  static const int64_t values[] = {1, 2, 4};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getStagesChoices() {
  static const int64_t values[] = {1, 2, 3, 4, 5};
  return values;
}

bool FusedGemmOp::isWarpgroupTiling(int64_t warpsN, int64_t colTiles,
                                    int64_t stages) {
  return (warpsN == 4 || warpsN == 8) && (colTiles == 1 || colTiles == 2) &&
         stages >= 3 && stages <= 4;
}

int64_t FusedGemmOp::getWarpgroupStages(int64_t mTile, int64_t warpsN,
                                        int64_t splitK, int64_t colTiles) {
  for (int64_t stages = 4; stages >= 3; --stages)
    if (getWorkgroupBytes(mTile, warpsN, splitK, colTiles, stages,
                          /*warpgroup=*/true) <=
        getMaxWorkgroupBytes(/*warpgroup=*/true))
      return stages;
  return 0;
}

int64_t FusedGemmOp::getStagedActivationBytes(int64_t mTile, int64_t splitK) {
  int64_t stepK = 128, actBytes = 2;
  return splitK * mTile * stepK * actBytes;
}

int64_t FusedGemmOp::getStagedCodeBytes(int64_t warpsN, int64_t splitK,
                                        int64_t colTiles) {
  int64_t lanes = 32, bytesPerLaneRow = 16;
  return warpsN * splitK * lanes * 2 * colTiles * bytesPerLaneRow;
}

int64_t FusedGemmOp::getKSliceBytes(int64_t mTile, int64_t warpsN,
                                    int64_t splitK, int64_t colTiles) {
  int64_t lanes = 32, sumsPerLane = 4;
  return splitK * warpsN * colTiles * (mTile / 8) * lanes * sumsPerLane * 4;
}

ArrayRef<int64_t> FusedGemmOp::getMulticastChoices() {
  static const int64_t values[] = {1, 2, 4};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getKSliceChoices() {
  static const int64_t values[] = {1, 2, 4, 8};
  return values;
}

int64_t FusedGemmOp::getWorkgroupBytes(int64_t mTile, int64_t warpsN,
                                       int64_t splitK, int64_t colTiles,
                                       int64_t stages, bool warpgroup,
                                       int64_t kSlices) {
  // The split-K sums and the K slices' take the same place per thread.
  int64_t partials = splitK == 1 && kSlices == 1
                         ? 0
                         : getKSliceBytes(mTile, warpsN, splitK, colTiles);
  int64_t stage = getStagedActivationBytes(mTile, splitK);
  if (warpgroup)
    stage += getStagedCodeBytes(warpsN, splitK, colTiles);
  return std::max(partials, stages * stage);
}

int64_t FusedGemmOp::getMaxWorkgroupBytes(bool warpgroup) {
  return warpgroup ? kMaxWarpgroupSharedBytes : kMaxFusedSharedBytes;
}

LogicalResult FusedGemmOp::verifySpecializedTiling() {
  int64_t mTile = getMTile(), colTiles = getColTiles(), stages = getStages();
  if (!getWarpgroup())
    return emitOpError() << "specialized is a form of the warpgroup tiling "
                            "(warpgroup is not set)";
  if (getWeightsAsB()) {
    if (getWarpsN() != 1 || getSplitK() != 1 ||
        !isSpecializedTiling(mTile, colTiles, /*weightsAsB=*/true))
      return emitOpError()
             << "weights_as_b needs warps_n = 1, split_k = 1, m_tile = 64 or "
                "128 (a multiplying warpgroup per 64 tokens, 512 threads at "
                "most) and col_tiles 1 to "
             << kMaxSpecializedBColTiles
             << " (the instruction's N, 16 rows per column tile), got "
                "warps_n = "
             << getWarpsN() << ", split_k = " << getSplitK()
             << ", m_tile = " << mTile << ", col_tiles = " << colTiles;
  } else if (getWarpsN() != 4 || getSplitK() != 1 ||
             (colTiles != 1 && colTiles != 2))
    return emitOpError() << "specialized needs warps_n = 4, split_k = 1 and "
                            "col_tiles = 1 or 2 (one multiplying warpgroup "
                            "per 64-row column tile), got "
                            "warps_n = "
                         << getWarpsN() << ", split_k = " << getSplitK()
                         << ", col_tiles = " << colTiles;
  if (stages < 3)
    return emitOpError() << "specialized needs stages = 3, 4 or 5 (a stage "
                            "being multiplied, one being decoded, one "
                            "being copied), got "
                         << stages;
  int64_t decoders = getDecoderGroups();
  if (decoders < 1 || decoders > kMaxSpecializedDecoders)
    return emitOpError() << "decoders must be 1 to " << kMaxSpecializedDecoders
                         << " (decoding warpgroups beside the multiplying "
                            "ones), got "
                         << decoders;
  int64_t threads =
      getSpecializedThreads(mTile, colTiles, getWeightsAsB(), decoders);
  if (threads > kMaxFusedBlockThreads)
    return emitOpError() << "specialized with " << decoders
                         << " decoding warpgroups needs " << threads
                         << " threads, more than the " << kMaxFusedBlockThreads
                         << " a block may take";
  // Each decoding warpgroup waits for the stage it fills stages - 2
  // iterations ahead; the wait covers its stores into that stage only where
  // the iteration is its own.
  if ((stages - 2) % decoders)
    return emitOpError() << "specialized with " << decoders
                         << " decoding warpgroups needs stages - 2 to be a "
                            "multiple of them (each waits for the stage it "
                            "fills, which it decodes next), got stages = "
                         << stages;
  if (getPreparedWeights())
    return emitOpError() << "specialized reads the codes in the checkpoint's "
                            "layout; prepared_weights is not taken";
  int64_t kSlices = getKSlices();
  if (kSlices == 1)
    return success();
  if (getWeightsAsB() || getMulticast() != 1)
    return emitOpError() << "k_slices > 1 with specialized needs the weights "
                            "as A and multicast = 1 (the slices' cluster is "
                            "along z), got weights_as_b = "
                         << getWeightsAsB()
                         << ", multicast = " << getMulticast();
  int64_t rows = getSpecializedRows(colTiles, /*weightsAsB=*/false);
  // Every thread's sums, the decoders' too (they take part in the
  // exchange's barriers).
  int64_t parked =
      mTile / 2 * 4 * getSpecializedThreads(mTile, colTiles, false, decoders);
  int64_t staged = stages * getSpecializedStageBytes(mTile, rows);
  if (parked > staged)
    return emitOpError() << "k_slices > 1 parks every thread's m_tile / 2 "
                            "sums in the stages' workgroup memory: "
                         << parked << " bytes, more than the " << staged
                         << " of " << stages << " stages";
  return success();
}

LogicalResult FusedGemmOp::verifyRegisterTiling() {
  int64_t mTile = getMTile(), colTiles = getColTiles(), stages = getStages();
  if (!getWarpgroup())
    return emitOpError() << "specialized is a form of the warpgroup tiling "
                            "(warpgroup is not set)";
  if (getWeightsAsB() || getMulticast() != 1 || getKSlices() != 1)
    return emitOpError() << "weights_in_registers needs the weights as A, "
                            "multicast = 1 and k_slices = 1, got "
                            "weights_as_b = "
                         << getWeightsAsB()
                         << ", multicast = " << getMulticast()
                         << ", k_slices = " << getKSlices();
  if (getWarpsN() != 4 || getSplitK() != 1 ||
      !isRegisterTiling(mTile, colTiles))
    return emitOpError() << "weights_in_registers needs warps_n = 4, split_k "
                            "= 1, m_tile = 64 or 128 (each multiplying lane "
                            "holds m_tile / 2 sums and two K steps' A "
                            "fragments) and col_tiles = 1 or 2, got warps_n = "
                         << getWarpsN() << ", split_k = " << getSplitK()
                         << ", m_tile = " << mTile
                         << ", col_tiles = " << colTiles;
  if (stages < 3 ||
      getRegisterWorkgroupBytes(mTile, stages) > kMaxSpecializedSharedBytes)
    return emitOpError() << "weights_in_registers needs stages = 3 or 4 "
                            "(the K step being multiplied, the one before "
                            "it still in flight, one being loaded) within "
                         << kMaxSpecializedSharedBytes
                         << " bytes of workgroup memory, got " << stages;
  if (getPreparedWeights())
    return emitOpError() << "specialized reads the codes in the checkpoint's "
                            "layout; prepared_weights is not taken";
  return success();
}

int64_t FusedGemmOp::getRegisterStageBytes(int64_t mTile) {
  int64_t stageK = 128, actBytes = 2;
  return mTile * stageK * actBytes;
}

int64_t FusedGemmOp::getRegisterWorkgroupBytes(int64_t mTile, int64_t stages) {
  return stages * (getRegisterStageBytes(mTile) + 2 * kBarrierObjectBytes);
}

int64_t FusedGemmOp::getRegisterStages(int64_t mTile, int64_t colTiles) {
  // One column tile: two blocks per multiprocessor (their registers allow
  // it), each with half its memory.
  int64_t budget = colTiles == 1 ? kMaxSpecializedSharedBytes / 2
                                 : kMaxSpecializedSharedBytes;
  for (int64_t stages = 4; stages >= 3; --stages)
    if (getRegisterWorkgroupBytes(mTile, stages) <= budget)
      return stages;
  return 0;
}

int64_t FusedGemmOp::getSpecializedStageBytes(int64_t mTile, int64_t rows) {
  int64_t actBytes = 2;
  return (rows + mTile) * kSpecializedStageK * actBytes;
}

bool FusedGemmOp::isSpecializedTiling(int64_t mTile, int64_t colTiles,
                                      bool weightsAsB) {
  if (weightsAsB)
    return (mTile == 64 || mTile == 128) && colTiles >= 1 &&
           colTiles <= kMaxSpecializedBColTiles;
  return llvm::is_contained(getSpecializedMTileChoices(), mTile) &&
         (colTiles == 1 || colTiles == 2);
}

int64_t FusedGemmOp::getSpecializedWorkgroupBytes(int64_t mTile, int64_t rows,
                                                  int64_t stages) {
  return stages *
         (getSpecializedStageBytes(mTile, rows) + 2 * kBarrierObjectBytes);
}

int64_t FusedGemmOp::getSpecializedStages(int64_t mTile, int64_t rows,
                                          int64_t decoders) {
  // Each decoding warpgroup fills the stage stages - 2 iterations ahead of
  // its own: 4 stages for one or two, 5 for three.
  for (int64_t stages = 2 + std::max<int64_t>(2, decoders); stages >= 3;
       --stages)
    if ((stages - 2) % decoders == 0 &&
        getSpecializedWorkgroupBytes(mTile, rows, stages) <=
            kMaxSpecializedSharedBytes)
      return stages;
  return 0;
}

int64_t FusedGemmOp::getSpecializedThreads(int64_t mTile, int64_t colTiles,
                                           bool weightsAsB, int64_t decoders) {
  return 128 * (decoders + (weightsAsB ? mTile / 64 : colTiles));
}

int64_t FusedGemmOp::getDecoderGroups() {
  if (std::optional<uint64_t> decoders = getDecoders())
    return *decoders;
  return getSpecializedDecoders(getMTile(), getColTiles(), getWeightsAsB());
}

int64_t FusedGemmOp::getSpecializedDecoders(int64_t mTile, int64_t colTiles,
                                            bool weightsAsB) {
  // Measured on the H100 (bench/README.md, "Weights as B"): with the
  // weights as B a second decoding warpgroup took 0.91 of the time of one
  // in the median (0.72-1.06); with the weights as A, 1.10 for 128 x 1
  // (the default at M = 128) and 0.98 for 256 x 1. It needs the
  // multiplying lanes' accumulators to fit the registers of one more
  // warpgroup: 128 x (m_tile / 64 + 2) threads leave 128 registers a lane
  // at m_tile 128, where 72 accumulators (9 column tiles) fit and 128 do
  // not.
  if (!weightsAsB)
    return 1;
  return mTile <= 64 || 8 * colTiles <= kMaxTwoDecoderAccumulators ? 2 : 1;
}

//===----------------------------------------------------------------------===//
// TensorMapOp
//===----------------------------------------------------------------------===//

LogicalResult TensorMapOp::verify() {
  ArrayRef<int64_t> box = getBox();
  auto source = getSource().getType();
  int64_t elementBytes = source.getElementTypeBitWidth() / 8;
  if (box.size() != 2 || box[1] < 1 || box[1] > 256 ||
      box[0] * elementBytes != 128)
    return emitOpError() << "box must be [128 bytes of columns, 1 to 256 "
                            "rows] (a 128-byte swizzled row per tile row), "
                            "got ["
                         << box << "] of " << source.getElementType();
  if (!source.isDynamicDim(1) && (source.getDimSize(1) * elementBytes) % 16)
    return emitOpError() << "rows must be a multiple of 16 bytes apart, got "
                         << source.getDimSize(1) << " x " << elementBytes
                         << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  auto scratchType = getScratch().getType();
  if (scratchType.getRank() != 2 ||
      !isActivationType(scratchType.getElementType()))
    return emitOpError()
           << "scratch must be a rank-2 memref [N, K] of f16 or bf16, got "
           << scratchType;
  if (scratchType.isDynamicDim(1))
    return emitOpError() << "K (dim 1 of scratch) must be static";
  ProblemShape problem{scratchType.getDimSize(0), scratchType.getDimSize(1),
                       scratchType.getElementType()};
  if (failed(verifyQuantizedWeight(*this, getScheme(), getWeights(),
                                   getScales(), getGlobalScale(),
                                   getZeroPoints(), problem)))
    return failure();
  if (getKernel() == DequantKernel::vec8 && !getScheme().isVec8Legal(problem.k))
    return emitOpError() << "vec8 needs K % 8 == 0 and an even block size, "
                            "got K = "
                         << problem.k
                         << ", block = " << getScheme().getBlockSize();
  if (getPreparedWeights() && failed(verifyPreparedWeights(
                                  *this, getScheme(), getWeights(), problem.k)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::verify() {
  FailureOr<ProblemShape> problem =
      verifyActivations(*this, getA(), getY(), /*allowDynamicN=*/true);
  if (failed(problem) || failed(verifyExtents(*this, problem->n, problem->k)))
    return failure();
  auto bType = getB().getType();
  SmallVector<int64_t> expected = {problem->n, problem->k};
  if (!shapeMatches(bType, expected) || bType.getElementType() != problem->act)
    return emitOpError() << "B must be [N, K] = " << formatShape(expected)
                         << " of the activation type " << problem->act
                         << ", got " << bType;
  return verifyBias(*this, getBias(), *problem);
}

//===----------------------------------------------------------------------===//
// DecodeOp
//===----------------------------------------------------------------------===//

LogicalResult DecodeOp::verify() {
  auto codesType = getCodes().getType();
  auto valuesType = getValues().getType();
  int64_t numCodes = codesType.getNumElements();
  int64_t numValues = valuesType.getNumElements();
  ElementFormat format = getFormat();
  StringRef formatName = stringifyElementFormat(format);
  if (format == ElementFormat::e4m3) {
    if (numValues != numCodes)
      return emitOpError() << "e4m3 decodes one value per code byte: "
                           << numCodes << " bytes need " << numCodes
                           << " values, got " << numValues;
  } else if (numValues != 2 * numCodes) {
    return emitOpError() << formatName
                         << " codes are packed two per byte: " << numCodes
                         << " bytes need " << 2 * numCodes << " values, got "
                         << numValues;
  }

  // The only biases that keep every decoded e2m1 value exact: the three
  // magnitude bits placed directly under the exponent field.
  Type element = valuesType.getElementType();
  int64_t bias = getExponentBias();
  int64_t exactBias = 0;
  if (format == ElementFormat::e2m1)
    exactBias = element.isF16() ? 14 : 126;
  if (bias != 0 && bias != exactBias)
    return emitOpError() << "exponent_bias " << bias << " is not exact for "
                         << formatName << " to " << element << " (allowed: 0"
                         << (exactBias ? ", " + std::to_string(exactBias) : "")
                         << ")";
  if (getMethod() == DecodeMethod::magic_bias &&
      format == ElementFormat::e2m1 && bias == 0)
    return emitOpError() << "magic_bias decoding of e2m1 needs exponent_bias "
                         << exactBias << " for " << element;
  if (getMethod() == DecodeMethod::native && format == ElementFormat::u4)
    return emitOpError() << "native decoding exists only for e2m1 and e4m3, "
                            "not "
                         << formatName;
  return success();
}

#define GET_OP_CLASSES
#include "qmat/QMatOps.cpp.inc"
