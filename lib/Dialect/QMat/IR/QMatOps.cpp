//===- QMatOps.cpp - qmat operation verifiers -----------------------------===//
//
// Every verifier message names the rule that was broken, so that a user who
// wrote a malformed layer can fix it from the diagnostic alone. The fused
// GEMM's tiling rules are in FusedGemmOp.cpp; the operand rules the ops
// share are declared in OperandRules.h.
//
//===----------------------------------------------------------------------===//

#include "qmat/Dialect/QMat/IR/QMatOps.h"
#include "OperandRules.h"
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
using namespace mlir::qmat::detail;

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

} // namespace

LogicalResult mlir::qmat::detail::verifyQuantizedWeight(
    Operation *op, SchemeAttr scheme, Value weights, Value scales,
    Value globalScale, Value zeroPoints, const ProblemShape &problem) {
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

FailureOr<ProblemShape>
mlir::qmat::detail::verifyActivations(Operation *op, Value a, Value y,
                                      bool allowDynamicN) {
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

LogicalResult mlir::qmat::detail::verifyBias(Operation *op, Value bias,
                                             const ProblemShape &p) {
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

namespace {

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
  return failure(failed(verifyMatmulOperands(*this)));
}

int64_t MatmulOp::getN() { return getY().getType().getDimSize(1); }
int64_t MatmulOp::getK() { return getA().getType().getDimSize(1); }
Type MatmulOp::getActType() { return getA().getType().getElementType(); }

//===----------------------------------------------------------------------===//
// GemvOp
//===----------------------------------------------------------------------===//

LogicalResult mlir::qmat::detail::verifyPreparedWeights(Operation *op,
                                                        SchemeAttr scheme,
                                                        Value weights,
                                                        int64_t k) {
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

LogicalResult
mlir::qmat::detail::verifyConfigOfOp(Operation *op, KernelConfigAttr config,
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
  FailureOr<ProblemShape> problem = verifyMatmulOperands(*this);
  if (failed(problem))
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
