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
  // carried as whole loads are taken out of them here: each load covers as
  // many consecutive words (4 for a 32-element part, 16 for a whole step),
  // word w's scale at element 8 (w % words) / block of load w / words.
  int64_t bs = spec.scheme.getBlockSize();
  for (auto [chunk, carried] : llvm::zip(shape, loads)) {
    for (size_t v = 0; v < chunk.scaleVectors.size(); ++v)
      carried.scaleVectors.push_back(*next++);
    int64_t words = chunk.scaleVectors.empty()
                        ? 1
                        : chunk.rawScales.size() / chunk.scaleVectors.size();
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
                    b, loc, carried.scaleVectors[w / words],
                    ArrayRef<int64_t>{int64_t(8 * (w % words)) / bs})));
      carried.rawZeroPoints.push_back(chunk.rawZeroPoints[w] ? *next++
                                                             : Value());
    }
  }
  assert(next == values.end() && "every carried value is used");
  return loads;
}
Value GemvEmitterBase::exchangeQuadCodes(Value codes) {
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
  // word 4q + j (PackedDecoder::decode): swap nibbles 1 and 4, 3 and 6.
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

SmallVector<Value> GemvEmitterBase::stepBlocks(Value stepFirstK) {
  SmallVector<Value> blocks;
  for (int64_t c = 0; c < kWarpStepK / kLaneK; ++c)
    llvm::append_range(blocks, wordBlocks(arith::AddIOp::create(
                                   b, loc, stepFirstK, cIdx(kLaneK * c))));
  return blocks;
}

void GemvEmitterBase::setUpQuadExchange(Value t) {
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
}

void GemvEmitterBase::loadStepScales(Value row, ArrayRef<Value> blocks,
                                     RowChunk &chunk, bool oneLoad) {
  // One load of the step's scales where they are several elements of at
  // most 16 bytes (a row's K / block scales start at a multiple of the
  // step's bytes, K being a multiple of 128) and no zero points come with
  // them.
  auto scales = cast<MemRefType>(buffers.scales.getType());
  Type element = scales.getElementType();
  int64_t bs = spec.scheme.getBlockSize();
  int64_t elements = kWarpStepK / bs,
          bytes = elements * element.getIntOrFloatBitWidth() / 8;
  if (oneLoad && !spec.hasZeroPoints && kWarpStepK % bs == 0 && elements > 1 &&
      bytes <= 16) {
    llvm::append_range(chunk.blocks, blocks);
    Value vector =
        loadCached(VectorType::get({elements}, element), buffers.scales,
                   ValueRange{row, blocks.front()}, bytes);
    chunk.scaleVectors.push_back(vector);
    for (int64_t w = 0; w < kWarpStepK / 8; ++w) {
      chunk.rawScales.push_back(
          w > 0 && 8 * w / bs == 8 * (w - 1) / bs
              ? chunk.rawScales.back()
              : Value(vector::ExtractOp::create(
                    b, loc, vector, ArrayRef<int64_t>{8 * w / bs})));
      chunk.rawZeroPoints.push_back(Value());
    }
    return;
  }
  for (int64_t c = 0; c < kWarpStepK / kLaneK; ++c)
    loadRowScales(row, blocks.slice(c * kLaneK / 8, kLaneK / 8), chunk);
}

SmallVector<Value> GemvEmitterBase::emitPairedLoop(int64_t count, int64_t sums,
                                                   int64_t setValues,
                                                   ValueRange init,
                                                   PairedIteration iteration) {
  auto loop =
      scf::ForOp::create(b, loc, cIdx(0), cIdx(count / 2 * 2), cIdx(2), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value first = loop.getInductionVar();
    ValueRange args = loop.getRegionIterArgs();
    SmallVector<Value> acc(args.take_front(sums));
    SmallVector<Value> even =
        iteration(first, args.slice(sums, setValues), acc);
    SmallVector<Value> odd =
        iteration(arith::AddIOp::create(b, loc, first, cIdx(1)),
                  args.slice(sums + setValues, setValues), acc);
    SmallVector<Value> yielded(acc);
    llvm::append_range(yielded, even);
    llvm::append_range(yielded, odd);
    scf::YieldOp::create(b, loc, yielded);
  }
  SmallVector<Value> acc(loop.getResults().take_front(sums));
  if (count % 2)
    iteration(cIdx(count - 1), loop.getResults().slice(sums, setValues), acc);
  return acc;
}
