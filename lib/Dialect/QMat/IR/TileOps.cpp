//===- TileOps.cpp - the tile ops' verifiers ------------------------------===//

#include "qmat/Dialect/QMat/IR/QMatOps.h"

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
