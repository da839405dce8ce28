//===- TileOps.cpp - the tile ops' verifiers ------------------------------===//

#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::qmat;

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
  Type expected =
      kind == SchemeKind::nvfp4   ? Type(Float8E4M3FNType::get(getContext()))
      : kind == SchemeKind::mxfp4 ? Type(Float8E8M0FNUType::get(getContext()))
                                  : act;
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
