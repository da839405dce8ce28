//===- GemvEmitter.cpp - GEMV emitters' shared base -----------------------===//
//
// Loads of a lane's row chunk (codes, scales, zero points as qmat.load_tile;
// the prepared layout's addressing), the decode through fp32, the launch
// position and the fused GEMM's staged activation tile.
//
//===----------------------------------------------------------------------===//

#include "GemvEmitter.h"

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

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
  // Streamed prepared codes: the byte offset from the first code byte, as
  // one sum per row.
  auto [codeRow, codeCol] =
      codesBase && spec.preparedWeights
          ? std::pair<Value, Value>(cIdx(0), getPreparedCodeByte(row, kc))
          : getRowCodeIndices(row, kc);
  Value codes = LoadTileOp::create(
      b, loc, VectorType::get({bytes}, weightsType.getElementType()),
      codesBase ? CachePolicy::streaming : CachePolicy::cached, buffers.weights,
      ValueRange{codeRow, codeCol}, /*alignment=*/16, codesBase);
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
    scaleVector = loadCached(VectorType::get({perLoad}, element),
                             buffers.scales, ValueRange{row, blocks.front()},
                             perLoad * element.getIntOrFloatBitWidth() / 8);
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
                    : loadRawScale(row, block);
      if (spec.hasZeroPoints)
        lastZeroPoint = loadRawZeroPoint(row, block);
    }
    chunk.rawScales.push_back(lastRaw);
    chunk.rawZeroPoints.push_back(lastZeroPoint);
  }
}

SmallVector<Value> GemvEmitterBase::packQuads(ArrayRef<Value> sums) {
  auto quad = VectorType::get({4}, f32);
  SmallVector<Value> packed;
  for (int64_t group = 0; group < int64_t(sums.size()) / 4; ++group)
    packed.push_back(
        vector::FromElementsOp::create(b, loc, quad, sums.slice(4 * group, 4)));
  return packed;
}

void GemvEmitterBase::unpackQuads(ValueRange quads,
                                  MutableArrayRef<Value> sums) {
  for (auto [group, quad] : llvm::enumerate(quads))
    for (int64_t i = 0; i < 4; ++i)
      sums[4 * group + i] =
          vector::ExtractOp::create(b, loc, quad, ArrayRef<int64_t>{i});
}

SmallVector<Value> GemvEmitterBase::reduceSplitK(ArrayRef<Value> sums,
                                                 Value warp, Value laneSlot,
                                                 int64_t laneSlots,
                                                 Value live) {
  // The sums reuse the fused GEMM's staged activations' memory: every
  // warp's last reads come first (`fenced`).
  auto reduce = ReduceSplitKOp::create(b, loc, sums, buffers.partials, warp,
                                       laneSlot, live, spec.splitK, spec.warpsN,
                                       laneSlots, /*fenced=*/spec.mTiled);
  SmallVector<Location> locs(sums.size(), loc);
  Block *epilogue =
      b.createBlock(&reduce.getEpilogue(), {}, TypeRange(sums), locs);
  qmat::YieldOp::create(b, loc);
  b.setInsertionPointToStart(epilogue);
  return SmallVector<Value>(epilogue->getArguments());
}

GemvEmitterBase::RowChunk
GemvEmitterBase::loadRowChunk(Value row, Value kc, ArrayRef<Value> blocks) {
  RowChunk chunk;
  chunk.codes = loadRowCodes(row, kc);
  loadRowScales(row, blocks, chunk);
  return chunk;
}

SmallVector<Value>
GemvEmitterBase::decodeWordsThroughF32(const RowChunk &chunk) {
  // The reference's element value (docs/numerics.md), rounded once to the
  // activation type: the product then equals a GEMM on the dequantized W.
  SmallVector<Value> zeroPoints, blocks;
  if (spec.hasZeroPoints) {
    zeroPoints = chunk.rawZeroPoints;
    blocks = chunk.blocks;
  }
  auto decode = DecodeWordsOp::create(
      b, loc,
      VectorType::get({DecodeWordsOp::kWords, DecodeWordsOp::kWordElements},
                      act),
      spec.scheme, chunk.codes, chunk.rawScales, zeroPoints, blocks,
      globalScale, spec.decode);
  SmallVector<Value> words;
  for (int64_t w = 0; w < DecodeWordsOp::kWords; ++w)
    words.push_back(vector::ExtractOp::create(b, loc, decode.getWords(), w));
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

Value GemvEmitterBase::getRowReadElements(Value firstM, Value row,
                                          Value lastM) {
  Value m = firstM ? Value(arith::AddIOp::create(b, loc, firstM, row)) : row;
  Value inside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, m, lastM);
  return arith::SelectOp::create(b, loc, inside, cIdx(8), cIdx(0));
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
      AsyncCopyOp::create(b, loc, buffers.a, ValueRange{m, k},
                          buffers.stagedActivations, ValueRange{offset},
                          /*elements=*/8,
                          getRowReadElements(firstM, row, lastM));
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

SmallVector<Value> GemvEmitterBase::flattenChunks(ArrayRef<RowChunk> chunks) {
  SmallVector<Value> values;
  for (const RowChunk &chunk : chunks)
    if (chunk.codes)
      values.push_back(chunk.codes);
  for (const RowChunk &chunk : chunks) {
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

SmallVector<GemvEmitterBase::RowChunk>
GemvEmitterBase::unflattenChunks(ArrayRef<RowChunk> shape, ValueRange values,
                                 ArrayRef<Value> blocks) {
  SmallVector<RowChunk> loads;
  auto next = values.begin();
  for (size_t c = 0; c < shape.size(); ++c) {
    RowChunk carried;
    if (shape[c].codes)
      carried.codes = *next++;
    carried.blocks.assign(blocks.begin(), blocks.end());
    loads.push_back(carried);
  }
  // A chunk's words repeat their block's scale (loadRowChunk), which the
  // decode recognises by identity: repeat the carried one alike. Scales
  // carried as whole loads are taken out of them here, word w's at element
  // (w % 4) * 8 / block of part w / 4.
  int64_t bs = spec.scheme.getBlockSize();
  for (auto [chunk, carried] : llvm::zip(shape, loads)) {
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
