//===- TileOps.cpp - the tile ops' verifiers ------------------------------===//

#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::qmat;

/// The element type of `kind`'s scales memref where the activations are
/// `act`.
static Type getRawScaleType(SchemeKind kind, Type act) {
  MLIRContext *context = act.getContext();
  switch (kind) {
  case SchemeKind::nvfp4:
    return Float8E4M3FNType::get(context);
  case SchemeKind::mxfp4:
    return Float8E8M0FNUType::get(context);
  case SchemeKind::fp8:
    return Float32Type::get(context);
  case SchemeKind::int4:
    return act;
  }
  llvm_unreachable("unknown scheme");
}

//===----------------------------------------------------------------------===//
// decode_tile
//===----------------------------------------------------------------------===//

LogicalResult DecodeTileOp::verify() {
  SchemeAttr scheme = getScheme();
  SchemeKind kind = scheme.getKind();
  if (!scheme.isPacked())
    return emitOpError() << "decodes packed 4-bit codes (nvfp4, mxfp4, int4), "
                            "got "
                         << stringifySchemeKind(kind);
  if (scheme.getBlockSize() % 8)
    return emitOpError() << "needs one scale per 8-element word: the block "
                            "size must be a multiple of 8, got "
                         << scheme.getBlockSize();
  int64_t rows = getCodes().size();
  if (rows == 0)
    return emitOpError() << "expects the codes of at least one row";
  int64_t scales = getScales().size();
  if (scales != kWordsPerRow * rows && scales != kPairsPerRow * rows)
    return emitOpError() << "expects " << kWordsPerRow
                         << " scales per row (one per 8-element word) or "
                         << kPairsPerRow << " (one per pair), got " << scales
                         << " for " << rows << " rows";
  if (!llvm::all_equal(getScales().getTypes()))
    return emitOpError() << "expects every scale of one type";

  auto pairsType = getPairs().getType();
  Type act = pairsType.getElementType();
  Type scale = getScales().front().getType();
  Type expected = getRawScaleType(kind, act);
  if (scale != expected)
    return emitOpError() << stringifySchemeKind(kind) << " scales must be "
                         << expected << ", got " << scale;

  if (!getZeroPoints().empty() && kind != SchemeKind::int4)
    return emitOpError() << "zero points are for int4 only";
  if (!getZeroPoints().empty() &&
      static_cast<int64_t>(getZeroPoints().size()) != scales)
    return emitOpError() << "expects one zero-point byte per scale (" << scales
                         << "), got " << getZeroPoints().size();
  int64_t blocks = getBlocks().size(), perRow = scales / rows;
  if (getZeroPoints().empty() ? blocks != 0 : blocks != perRow)
    return emitOpError() << "expects " << perRow
                         << " scale blocks (one per scale of a row) with zero "
                            "points and none without, got "
                         << blocks;
  if (getOneMultiply() && kind != SchemeKind::mxfp4)
    return emitOpError() << "one_multiply is for mxfp4 only";

  int64_t pairs = (getWord() ? 1 : kWordsPerRow) * kPairsPerWord;
  if (pairsType.getShape() != ArrayRef<int64_t>{rows, pairs, 2})
    return emitOpError() << "expects a result of shape " << rows << "x" << pairs
                         << "x2 (rows x pairs x 2), got " << pairsType;
  return success();
}

//===----------------------------------------------------------------------===//
// decode_words
//===----------------------------------------------------------------------===//

LogicalResult DecodeWordsOp::verify() {
  SchemeAttr scheme = getScheme();
  SchemeKind kind = scheme.getKind();
  int64_t elements = kWords * kWordElements;
  int64_t bytes = scheme.isPacked() ? elements / 2 : elements;
  int64_t codes = getCodes().getType().getNumElements();
  if (codes != bytes)
    return emitOpError() << "expects " << bytes << " code bytes for "
                         << elements << " " << stringifySchemeKind(kind)
                         << " elements, got " << codes;
  if (getScales().size() != kWords)
    return emitOpError() << "expects one scale per word (" << kWords
                         << "), got " << getScales().size();
  if (!llvm::all_equal(getScales().getTypes()))
    return emitOpError() << "expects every scale of one type";
  VectorType wordsType = getWords().getType();
  if (wordsType.getShape() != ArrayRef<int64_t>{kWords, kWordElements})
    return emitOpError() << "expects a result of shape " << kWords << "x"
                         << kWordElements << " (words x elements), got "
                         << wordsType;
  Type scale = getScales().front().getType();
  Type expected = getRawScaleType(kind, wordsType.getElementType());
  if (scale != expected)
    return emitOpError() << stringifySchemeKind(kind) << " scales must be "
                         << expected << ", got " << scale;
  if (!getZeroPoints().empty() && kind != SchemeKind::int4)
    return emitOpError() << "zero points are for int4 only";
  if (getZeroPoints().size() != getBlocks().size() ||
      (!getZeroPoints().empty() && getZeroPoints().size() != kWords))
    return emitOpError() << "expects one zero-point byte and one scale block "
                            "per word ("
                         << kWords << ") or neither, got "
                         << getZeroPoints().size() << " and "
                         << getBlocks().size();
  if (getGlobalScale() && kind != SchemeKind::nvfp4)
    return emitOpError() << "a global scale is for nvfp4 only";
  if (getMethod() == DecodeMethod::native && kind == SchemeKind::int4)
    return emitOpError() << "native decoding exists only for e2m1 and e4m3, "
                            "not u4";
  return success();
}

//===----------------------------------------------------------------------===//
// load_tile
//===----------------------------------------------------------------------===//

LogicalResult LoadTileOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  int64_t rank = source.getRank();
  if (static_cast<int64_t>(getIndices().size()) != rank)
    return emitOpError() << "expects one index per dimension of the source ("
                         << rank << "), got " << getIndices().size();
  Type element = getResult().getType();
  if (auto vector = dyn_cast<VectorType>(element)) {
    if (vector.getRank() != 1 || vector.isScalable())
      return emitOpError() << "expects a scalar or a fixed 1-D vector result, "
                              "got "
                           << vector;
    element = vector.getElementType();
  }
  if (element != source.getElementType())
    return emitOpError() << "expects the source's element type ("
                         << source.getElementType() << "), got " << element;
  if (getBase() && getCache() != CachePolicy::streaming)
    return emitOpError() << "takes a base address only for a streaming load";
  return success();
}

//===----------------------------------------------------------------------===//
// store_tile
//===----------------------------------------------------------------------===//

LogicalResult StoreTileOp::verify() {
  int64_t sums = getSums().size();
  if (sums == 0)
    return emitOpError() << "expects at least one sum";
  if (static_cast<int64_t>(getMOffsets().size()) != sums ||
      static_cast<int64_t>(getNOffsets().size()) != sums)
    return emitOpError() << "expects one m and one n offset per sum (" << sums
                         << "), got " << getMOffsets().size() << " and "
                         << getNOffsets().size();
  for (ArrayRef<int64_t> offsets : {getMOffsets(), getNOffsets()})
    if (llvm::any_of(offsets, [](int64_t o) { return o < 0; }))
      return emitOpError() << "expects offsets of at least 0";
  if (getBias() &&
      getBias().getType().getElementType() != getY().getType().getElementType())
    return emitOpError() << "expects the bias of y's element type ("
                         << getY().getType().getElementType() << "), got "
                         << getBias().getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// reduce_split_k
//===----------------------------------------------------------------------===//

LogicalResult ReduceKSlicesOp::verify() {
  int64_t sums = getSums().size();
  if (sums == 0)
    return emitOpError() << "expects at least one sum";
  if (getTotals().size() != getSums().size())
    return emitOpError() << "expects one total per sum (" << sums << "), got "
                         << getTotals().size();
  // A cluster has at most 16 blocks, a block at most 1024 threads; the
  // expansion unrolls over the slices and the sums.
  if (getSlices() > 16 || getThreads() > 1024)
    return emitOpError() << "expects at most 16 slices and 1024 threads, got "
                         << getSlices() << " and " << getThreads();
  MemRefType partials = getPartials().getType();
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(partials))
    return emitOpError() << "parks the sums in workgroup memory, got "
                         << partials;
  int64_t needed = 4 * sums * int64_t(getThreads());
  if (partials.hasStaticShape() && partials.getNumElements() < needed)
    return emitOpError() << "needs " << needed << " elements of partials ("
                         << sums << " sums x " << getThreads()
                         << " threads x 4), got " << partials.getNumElements();
  return success();
}

LogicalResult ReduceSplitKOp::verify() {
  int64_t sums = getSums().size();
  if (sums == 0)
    return emitOpError() << "expects at least one sum";
  // A block has at most 1024 threads, hence at most 1024 warps; the
  // expansion unrolls over the slices.
  if (getSlices() > 1024 || getColumns() > 1024 ||
      getSlices() * getColumns() > 1024)
    return emitOpError() << "expects at most 1024 warps (slices x columns), "
                            "got "
                         << getSlices() << " x " << getColumns();
  MemRefType partials = getPartials().getType();
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(partials))
    return emitOpError() << "parks the sums in workgroup memory, got "
                         << partials;
  // The attributes are verified positive; their product may overflow.
  std::optional<int64_t> needed = int64_t(4);
  for (uint64_t factor :
       {getSlices(), getColumns(), getLaneSlots(), static_cast<uint64_t>(sums)})
    if (needed)
      needed = llvm::checkedMul<int64_t>(*needed, static_cast<int64_t>(factor));
  if (partials.hasStaticShape() &&
      (!needed || partials.getNumElements() < *needed)) {
    InFlightDiagnostic diag = emitOpError() << "needs ";
    if (needed)
      diag << *needed;
    else
      diag << "more than 2^63";
    return diag << " elements of partials (" << getSlices() << " slices x "
                << getColumns() << " columns x " << sums << " sums x "
                << getLaneSlots() << " lane slots x 4), got "
                << partials.getNumElements();
  }
  Block &epilogue = getEpilogue().front();
  if (!llvm::equal(epilogue.getArgumentTypes(), getSums().getTypes()))
    return emitOpError() << "expects the epilogue to take one argument per "
                            "sum, of its type ("
                         << sums << "), got " << epilogue.getNumArguments();
  return success();
}
