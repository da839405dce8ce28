//===- TensorCorePackedDecode.cpp - Codes to A fragments ------------------===//
//
// The tensor-core emitter's decodes: the packed 4-bit codes of a step as one
// qmat.decode_tile (expanded by qmat-expand-decode-tile, TileDecode.cpp),
// the mxfp4 warp vote that picks its one-multiply arm, and the decode of
// the other formats through fp32.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreGemvEmitter.h"
#include "qmat/Conversion/QMatToGPU/PackedFp4Placement.h"

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

SmallVector<SmallVector<Value>>
TensorCoreGemvEmitter::decodeTile(const StepLoads &loads, bool oneMultiply,
                                  std::optional<int64_t> word) {
  SmallVector<Value> codes, scales, zeroPoints, blocks;
  for (const RowChunk &chunk : loads.chunks) {
    codes.push_back(chunk.codes);
    llvm::append_range(scales, chunk.rawScales);
    if (spec.hasZeroPoints)
      llvm::append_range(zeroPoints, chunk.rawZeroPoints);
    // Every chunk of a step reads the scale blocks of the same K range.
    assert(chunk.blocks == loads.chunks.front().blocks);
  }
  if (spec.hasZeroPoints)
    blocks = loads.chunks.front().blocks;
  int64_t rows = codes.size();
  int64_t pairs =
      (word ? 1 : DecodeTileOp::kWordsPerRow) * DecodeTileOp::kPairsPerWord;
  auto tileType = VectorType::get({rows, pairs, 2}, act);
  auto tile = DecodeTileOp::create(
      b, loc, tileType, spec.scheme, codes, scales, zeroPoints, blocks,
      word ? b.getI64IntegerAttr(*word) : IntegerAttr(), oneMultiply);
  SmallVector<SmallVector<Value>> decoded(rows);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t p = 0; p < pairs; ++p)
      decoded[r].push_back(vector::ExtractOp::create(b, loc, tile.getPairs(),
                                                     ArrayRef<int64_t>{r, p}));
  return decoded;
}

SmallVector<Value>
TensorCoreGemvEmitter::decodeThroughF32(const RowChunk &chunk) {
  SmallVector<Value> pairs;
  for (Value word : decodeWordsThroughF32(chunk))
    for (int64_t j = 0; j < 4; ++j)
      pairs.push_back(sliceOf(word, 2 * j, 2));
  return pairs;
}

Value TensorCoreGemvEmitter::allMxfp4OneMultiply(ArrayRef<RowChunk> chunks) {
  Mxfp4OneMultiply range = getMxfp4OneMultiply(act.isF16());
  // Every distinct scale of every chunk: one left out would let its words
  // take a factor that is not a normal number.
  Value inRange;
  for (Value raw : getDistinctScales(rowScales(chunks))) {
    Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                       scaleByte(raw), cI32(range.maxE));
    inRange =
        inRange ? Value(arith::AndIOp::create(b, loc, inRange, fits)) : fits;
  }
  return target.emitWarpAll(b, loc, inRange);
}
