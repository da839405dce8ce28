//===- SpecializedGemmEmitter.cpp - The fused GEMM's specialized form -----===//
//
// qmat.fused_gemm's `specialized` form (docs/design.md, "The specialized
// warpgroup form"): the block's first col_tiles warpgroups only multiply,
// warpgroup c the 64 weight rows of column tile c by the m_tile activation
// rows, which they share; its last warpgroup only decodes, the weights of
// every column tile. Stage s of the workgroup memory holds
// one 64-element K step: the activations of the block's m_tile rows, which
// one decoding thread loads as a tile through A's tensor map, and the
// weights of its 64 x col_tiles rows, which the decoders decode and store
// there, both K-major as the warpgroup instruction reads them with the
// 128-byte swizzle: a row's 64 elements are its 128 bytes, and 16-byte
// chunk G of row r sits at chunk G ^ (r % 8), so that the instruction's
// reads of 8 rows, like the stores of 8 lanes, meet 8 distinct bank groups
// (without the swizzle, the 8 rows of a core matrix meet those of its K
// neighbour in the same banks); the tensor map lays the activations out
// so. Two barrier objects per stage pass it between the roles: `full`
// completes once the tile's bytes have landed and every decoder has
// stored, `empty` once the instructions that read it are done.
//
// With `weights_as_b` the operands swap: warpgroup g multiplies tokens
// 64g .. 64g + 63 (its A tile of the staged activations) by all the
// block's 16 x col_tiles weight rows (its B tile, the instruction's N), so
// that a block's rows need not be a multiple of 64.
//
// With `multicast` the blocks of a cluster (neighbours along the grid's y
// dimension: the same M tile, the next weight rows) share the activations:
// block r of the cluster loads rows r x m_tile / multicast .. of each
// stage's tile and the copy lands in every block of the cluster, counting
// towards each block's `full`; each multiplying warpgroup releases a stage
// at the `empty` of every block of the cluster, so that a block refills a
// stage only once the whole cluster is done with it.
//
// With `k_slices` the blocks of a cluster along the grid's z dimension
// split the K steps: block z walks its slice's with the same pipeline, and
// after the loop every thread of the block (the decoders with zero sums)
// takes part in qmat.reduce_k_slices, after which the first block's
// multiplying warps store the totals.
//
// A decoding thread takes one weight row of each 64 rows of the block and
// 32 K elements of each stage: lanes 8q .. 8q + 7 of a warp take 8
// consecutive rows and one K half.
//
//===----------------------------------------------------------------------===//

#include "SpecializedGemmEmitter.h"

#include <cmath>

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

Value SpecializedGemmEmitter::descriptor(Value offset) {
  // Start address / 16 (bits 0-13), the leading offset (16-29; unused by a
  // K-major swizzled tile whose K fits one atom: 1), the 8-row atoms'
  // distance / 16 (32-45), the 128-byte swizzle (62-63: 1). The atoms are
  // 1024-byte aligned (the dynamic memory's alignment, every stage and tile
  // a multiple of 1024 bytes), so the base offset (49-51) is 0.
  Type i64 = b.getI64Type();
  Value address = arith::AddIOp::create(
      b, loc, sharedBase, arith::IndexCastUIOp::create(b, loc, i64, offset));
  return arith::AddIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, address,
                             arith::ConstantIntOp::create(b, loc, i64, 4)),
      arith::ConstantIntOp::create(
          b, loc, i64,
          (int64_t(1) << 16) | ((kAtomBytes / 16) << 32) | (int64_t(1) << 62)));
}

SmallVector<Value> SpecializedGemmEmitter::multiply(Value consumer) {
  int64_t stages = spec.stages;
  bool weightsAsB = spec.weightsAsB;
  int64_t weightsFirstByte = stages * activationElements() * 2;
  SmallVector<Value> zeros(tileSums(), cF32(0.0f));
  // The consumer's own tile: its 64 weight rows, or its 64 tokens.
  Value ownBytes =
      arith::MulIOp::create(b, loc, consumer, cIdx(kTileRows * kRowBytes));
  sharedBase = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, buffers.stagedActivations));
  auto loop =
      scf::ForOp::create(b, loc, cIdx(0), cIdx(iterations()), cIdx(1), zeros);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value iteration = loop.getInductionVar();
    Value stage = arith::RemUIOp::create(b, loc, iteration, cIdx(stages));
    MBarrierWaitOp::create(
        b, loc, buffers.stageBarriers, barrier(stage, /*empty=*/false),
        parity(arith::DivUIOp::create(b, loc, iteration, cIdx(stages))));
    SmallVector<Value> sums(
        WarpgroupFenceOp::create(b, loc, loop.getRegionIterArgs()).getFenced());
    // Instruction kk of a stage reads K elements 16kk .. 16kk + 15 of both
    // tiles: 32 bytes further into each row (the swizzle applies to the
    // address the instruction forms).
    Value activations =
        arith::MulIOp::create(b, loc, stage, cIdx(activationElements() * 2));
    Value weights = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, stage, cIdx(weightElements() * 2)),
        cIdx(weightsFirstByte));
    if (weightsAsB)
      activations = arith::AddIOp::create(b, loc, activations, ownBytes);
    else
      weights = arith::AddIOp::create(b, loc, weights, ownBytes);
    for (int64_t kk = 0; kk < kStageGroups / 2; ++kk) {
      Value activationDesc =
          descriptor(arith::AddIOp::create(b, loc, activations, cIdx(32 * kk)));
      Value weightDesc =
          descriptor(arith::AddIOp::create(b, loc, weights, cIdx(32 * kk)));
      auto mma =
          weightsAsB
              ? WarpgroupMmaSharedOp::create(b, loc, activationDesc, weightDesc,
                                             sums, TypeAttr::get(act))
              : WarpgroupMmaSharedOp::create(b, loc, weightDesc, activationDesc,
                                             sums, TypeAttr::get(act));
      llvm::copy(mma.getSums(), sums.begin());
    }
    WarpgroupCommitOp::create(b, loc);
    // The previous iteration's instructions are done: its stage is free,
    // where a decoder will wait for it (iterations 0 .. last - stages).
    sums = llvm::to_vector(
        ValueRange(WarpgroupWaitOp::create(b, loc, 1, sums).getReady()));
    int64_t lastRelease = iterations() - stages;
    if (lastRelease >= 1) {
      Value released = arith::AndIOp::create(
          b, loc, compare(arith::CmpIPredicate::uge, iteration, 1),
          compare(arith::CmpIPredicate::ule, iteration, lastRelease));
      emitIf(released, [&] {
        Value previous = arith::RemUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, iteration, cIdx(stages - 1)),
            cIdx(stages));
        releaseStage(previous, consumer);
      });
    }
    scf::YieldOp::create(b, loc, sums);
  }
  return llvm::to_vector(ValueRange(
      WarpgroupWaitOp::create(b, loc, 0, loop.getResults()).getReady()));
}

void SpecializedGemmEmitter::storeSums(Value consumer, ArrayRef<Value> sums) {
  bool weightsAsB = spec.weightsAsB;

  // Warp w of the warpgroup holds rows 16w + g (+ 8) of its A tile and, per
  // 8 columns j, columns 8j + 2t (+ 1): rows are weight rows and columns
  // tokens, or with the weights as B rows are tokens and columns the
  // block's weight rows.
  Value lane = position.lane, warp = position.warp;
  if (multiplyingGroups() > 1)
    warp = arith::RemUIOp::create(b, loc, warp, cIdx(kWarpgroupThreads / 32));
  Value g = arith::DivUIOp::create(b, loc, lane, cIdx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, cIdx(4));
  SmallVector<int64_t> rowOffsets, columnOffsets;
  for (int64_t j = 0; j < tileSums() / 4; ++j)
    for (int64_t e = 0; e < 4; ++e) {
      columnOffsets.push_back(8 * j + e % 2);
      rowOffsets.push_back(8 * (e / 2));
    }
  Value ownFirst = arith::MulIOp::create(b, loc, consumer, cIdx(kTileRows));
  Value warpRow = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, cIdx(16)), g);
  Value column = arith::MulIOp::create(b, loc, t, cIdx(2));
  Value factor;
  if (buffers.globalScale)
    factor = arith::MulFOp::create(
        b, loc, loadGlobalScale(),
        cF32(std::ldexp(1.0f, kPackedFp4ResidualExponent)));
  if (weightsAsB)
    storeTile(
        sums, factor,
        arith::AddIOp::create(b, loc, firstM,
                              arith::AddIOp::create(b, loc, ownFirst, warpRow)),
        arith::AddIOp::create(b, loc, blockFirst, column), rowOffsets,
        columnOffsets, position.numM, position.numN);
  else
    storeTile(sums, factor, arith::AddIOp::create(b, loc, firstM, column),
              arith::AddIOp::create(
                  b, loc, arith::AddIOp::create(b, loc, blockFirst, ownFirst),
                  warpRow),
              columnOffsets, rowOffsets, position.numM, position.numN);
}

void SpecializedGemmEmitter::releaseStage(Value stage, Value consumer) {
  Value empty = barrier(stage, /*empty=*/true);
  if (spec.multicast == 1) {
    MBarrierArriveOp::create(b, loc, buffers.stageBarriers, empty,
                             IntegerAttr());
    return;
  }
  // The warpgroup's instructions that read the stage are done for each of
  // its threads once wait_group returns, so one arrival per warpgroup and
  // block says so.
  Value groupThread = arith::SubIOp::create(
      b, loc, thread,
      arith::MulIOp::create(b, loc, consumer, cIdx(kWarpgroupThreads)));
  emitIf(compare(arith::CmpIPredicate::ult, groupThread, spec.multicast), [&] {
    MBarrierArriveClusterOp::create(b, loc, buffers.stageBarriers, empty,
                                    groupThread);
  });
}

void SpecializedGemmEmitter::loadActivations(Value iteration) {
  Value stage = arith::RemUIOp::create(b, loc, iteration, cIdx(spec.stages));
  Value full = barrier(stage, /*empty=*/false);
  // The stage's `full` waits for the whole tile, whichever block of the
  // cluster brings each share in.
  MBarrierArriveOp::create(b, loc, buffers.stageBarriers, full,
                           b.getI64IntegerAttr(activationElements() * 2));
  Value first = firstM,
        offset =
            arith::MulIOp::create(b, loc, stage, cIdx(activationElements()));
  IntegerAttr mask;
  if (spec.multicast > 1) {
    Value share = arith::MulIOp::create(b, loc, rank, cIdx(sliceRows()));
    first = arith::AddIOp::create(b, loc, first, share);
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, share, cIdx(kSpecializedStageK)));
    mask = b.getI64IntegerAttr((int64_t(1) << spec.multicast) - 1);
  }
  TensorLoadOp::create(
      b, loc, buffers.activationMap,
      arith::MulIOp::create(b, loc, kIteration(iteration),
                            cIdx(kSpecializedStageK)),
      first, b.getDenseI64ArrayAttr({kSpecializedStageK, sliceRows()}),
      buffers.stagedActivations, offset, buffers.stageBarriers, full, mask);
}

SmallVector<GemvEmitterBase::RowChunk>
SpecializedGemmEmitter::loadChunks(Value iteration) {
  Value kc = laneK(iteration);
  SmallVector<Value> blocks = wordBlocks(kc);
  SmallVector<RowChunk> chunks;
  for (Value row : rows) {
    if (tripScaleElements()) {
      RowChunk chunk;
      chunk.codes = loadRowCodes(row, kc);
      chunks.push_back(chunk);
    } else {
      chunks.push_back(loadRowChunk(row, kc, blocks));
    }
  }
  return chunks;
}

int64_t SpecializedGemmEmitter::tripScaleElements() const {
  int64_t bs = spec.scheme.getBlockSize();
  int64_t tripK = tripIterations() * kSpecializedStageK;
  auto scales = cast<MemRefType>(buffers.scales.getType());
  int64_t elementBytes = scales.getElementTypeBitWidth() / 8;
  // The last trip loads from iterations - trip on (emitDecode), which needs
  // one whole trip.
  if (spec.hasZeroPoints || tripK % bs || kLaneK % bs ||
      tripK / bs * elementBytes > 16 || iterations() < tripIterations())
    return 0;
  return tripK / bs;
}

SmallVector<Value> SpecializedGemmEmitter::loadTripScales(Value tripStart) {
  int64_t bs = spec.scheme.getBlockSize();
  auto scales = cast<MemRefType>(buffers.scales.getType());
  Type element = scales.getElementType();
  int64_t elements = tripScaleElements();
  int64_t bytes = elements * element.getIntOrFloatBitWidth() / 8;
  // A row's scales start at a multiple of the largest power of 2 dividing
  // its bytes; the trip's at a multiple of the trip's bytes after that (12
  // with three decoding groups: of 4).
  int64_t rowBytes = spec.k / bs * element.getIntOrFloatBitWidth() / 8;
  int64_t alignment = std::min(bytes & -bytes, rowBytes & -rowBytes);
  Value block = arith::DivUIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, kIteration(tripStart),
                            cIdx(kSpecializedStageK)),
      cIdx(bs));
  SmallVector<Value> vectors;
  for (Value row : rows)
    vectors.push_back(loadCached(VectorType::get({elements}, element),
                                 buffers.scales, ValueRange{row, block},
                                 alignment));
  return vectors;
}

void SpecializedGemmEmitter::takeTripScales(RowChunk &chunk, Value vector,
                                            Value place, int64_t places,
                                            int64_t j) {
  // Word w of the chunk of iteration r of the loaded ones, K half h, has
  // their element (64 r + 32 h + 8 w) / block, r = place + places x j: the
  // place and half are dynamic, so each chunk selects among its static
  // candidates.
  int64_t bs = spec.scheme.getBlockSize();
  auto firstElement = [&](int64_t g, int64_t h) {
    return (kSpecializedStageK * (g + places * j) + kLaneK * h) / bs;
  };
  Value upper =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, half, cIdx(0));
  SmallVector<Value> isPlace(places);
  for (int64_t g = 1; g < places; ++g)
    isPlace[g] =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, place, cIdx(g));
  // The candidate of each (place, half), built from its static key and
  // selected by both where the keys differ: place 0's unless the place is
  // one whose keys are not place 0's.
  auto select = [&](function_ref<int64_t(int64_t, int64_t)> key,
                    function_ref<Value(int64_t)> make) {
    auto byHalf = [&](int64_t g) -> Value {
      if (key(g, 1) == key(g, 0))
        return make(key(g, 0));
      return arith::SelectOp::create(b, loc, upper, make(key(g, 1)),
                                     make(key(g, 0)));
    };
    Value chosen = byHalf(0);
    for (int64_t g = 1; g < places; ++g)
      if (key(g, 0) != key(0, 0) || key(g, 1) != key(0, 1))
        chosen = arith::SelectOp::create(b, loc, isPlace[g], byHalf(g), chosen);
    return chosen;
  };
  // Word w's scale is element firstElement + 8 w / block of the trip's.
  std::function<Value(int64_t)> rawAt;
  auto vectorType = cast<VectorType>(vector.getType());
  int64_t elements = vectorType.getNumElements();
  Value shifted;
  // rawAt's lambdas outlive the branch that builds them: what they capture
  // is declared here.
  Type i32 = b.getI32Type();
  if (vectorType.getElementTypeBitWidth() == 8 && elements % 4 == 0) {
    // Byte scales: a chunk's (at most 4, aligned to their count) lie in one
    // 32-bit word of the vector; select that word, then shift it by the
    // chunk's place in it, so that each scale is one byte of a register
    // (two nvfp4 scales in its low 16 bits, one conversion) instead of a
    // selection per byte.
    Value words = vector::BitCastOp::create(
        b, loc, VectorType::get({elements / 4}, i32), vector);
    Value word =
        select([&](int64_t g, int64_t h) { return firstElement(g, h) / 4; },
               [&](int64_t index) -> Value {
                 return vector::ExtractOp::create(b, loc, words,
                                                  ArrayRef<int64_t>{index});
               });
    Value shift = select(
        [&](int64_t g, int64_t h) { return 8 * (firstElement(g, h) % 4); },
        [&](int64_t bits) -> Value {
          return arith::ConstantIntOp::create(b, loc, i32, bits);
        });
    shifted = arith::ShRUIOp::create(b, loc, word, shift);
    rawAt = [&](int64_t local) -> Value {
      Value byte = arith::TruncIOp::create(
          b, loc, b.getI8Type(),
          local ? arith::ShRUIOp::create(
                      b, loc, shifted,
                      arith::ConstantIntOp::create(b, loc, i32, 8 * local))
                : shifted);
      return arith::BitcastOp::create(b, loc, vectorType.getElementType(),
                                      byte);
    };
  } else {
    rawAt = [&](int64_t local) {
      return select(
          [&](int64_t g, int64_t h) { return firstElement(g, h) + local; },
          [&](int64_t element) -> Value {
            return vector::ExtractOp::create(b, loc, vector,
                                             ArrayRef<int64_t>{element});
          });
    };
  }
  int64_t lastLocal = -1;
  Value raw;
  for (int64_t w = 0; w < kLaneK / 8; ++w) {
    int64_t local = 8 * w / bs;
    if (local != lastLocal) {
      lastLocal = local;
      raw = rawAt(local);
    }
    chunk.rawScales.push_back(raw);
    chunk.rawZeroPoints.push_back(Value());
  }
}

void SpecializedGemmEmitter::storeDecoded(const RowChunk &chunk, int64_t c,
                                          Value stage) {
  SmallVector<Value> zeroPoints, blocks;
  if (spec.hasZeroPoints) {
    zeroPoints = chunk.rawZeroPoints;
    blocks = chunk.blocks;
  }
  auto tileType = VectorType::get({1, DecodeTileOp::kPairsPerRow, 2}, act);
  Value tile = DecodeTileOp::create(b, loc, tileType, spec.scheme,
                                    ValueRange{chunk.codes}, chunk.rawScales,
                                    zeroPoints, blocks, IntegerAttr(),
                                    /*oneMultiply=*/false)
                   .getPairs();
  auto pair = [&](int64_t p) {
    return vector::ExtractOp::create(b, loc, tile, ArrayRef<int64_t>{0, p})
        .getResult();
  };
  Value stageBase = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, stage, cIdx(weightElements())),
      cIdx(c * kTileRows * kSpecializedStageK));
  // Pair 4w + j holds K elements 8w + j and 8w + j + 4: two shuffles bring
  // the word's 8 elements into K order, the order the instruction reads.
  for (int64_t w = 0; w < DecodeTileOp::kWordsPerRow; ++w) {
    Value low = vector::ShuffleOp::create(b, loc, pair(4 * w), pair(4 * w + 1),
                                          ArrayRef<int64_t>{0, 2, 1, 3});
    Value high =
        vector::ShuffleOp::create(b, loc, pair(4 * w + 2), pair(4 * w + 3),
                                  ArrayRef<int64_t>{0, 2, 1, 3});
    Value word = vector::ShuffleOp::create(
        b, loc, low, high, ArrayRef<int64_t>{0, 1, 4, 5, 2, 3, 6, 7});
    Value offset = arith::AddIOp::create(b, loc, stageBase, wordStores[w]);
    vector::StoreOp::create(b, loc, word, buffers.decodedWeights,
                            ValueRange{offset}, /*nontemporal=*/false,
                            /*alignment=*/llvm::MaybeAlign(16));
  }
}

// A decoder's iteration i: it decodes and stores the codes of iteration i
// into its stage, loads the codes and scales of iteration i + distance and
// arrives at the stage's `full`; then it waits until the instructions of
// iteration i + ahead - stages are done (their stage is the one iteration
// i + ahead fills) and the first decoder starts the tensor load of
// iteration i + ahead's activations. `ahead` = stages - 2: the
// instructions of one stage run while the next is decoded. The wait comes
// after the arrival, so that the round trip through the multiplying warps
// (their wait for the stage, their instructions, their wait for the
// previous ones) is not on the decoders' path. The loop takes `distance`
// iterations per trip, each on its own set of loads, issued after that set
// is decoded: a load lands in the registers it replaces, so no loaded value
// is moved at the loop's end (a move would wait for the load in the
// iteration that issued it).
void SpecializedGemmEmitter::emitDecodeIteration(
    Value decoder, Value iteration, ValueRange own, ArrayRef<RowChunk> shape,
    SmallVector<Value> &next, ValueRange tripScales, Value place,
    int64_t places, int64_t j) {
  int64_t stages = spec.stages, ahead = stages - 2;
  int64_t last = iterations() - 1;
  Value stage = arith::RemUIOp::create(b, loc, iteration, cIdx(stages));
  Value kc = laneK(iteration);
  SmallVector<RowChunk> chunks = unflattenChunks(shape, own, wordBlocks(kc));
  for (auto [chunk, vector] : llvm::zip(chunks, tripScales))
    takeTripScales(chunk, vector, place, places, j);
  for (auto [c, chunk] : llvm::enumerate(chunks)) {
    if (lastPassLive && int64_t(c) + 1 == decodePasses())
      emitIf(lastPassLive, [&] { storeDecoded(chunk, c, stage); });
    else
      storeDecoded(chunk, c, stage);
  }
  next = flattenChunks(loadChunks(arith::MinUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, iteration,
                            cIdx(codeDistance() * spec.decoderGroups)),
      cIdx(last))));
  AsyncProxyFenceOp::create(b, loc);
  MBarrierArriveOp::create(b, loc, buffers.stageBarriers,
                           barrier(stage, /*empty=*/false), IntegerAttr());
  Value fill = arith::AddIOp::create(b, loc, iteration, cIdx(ahead));
  emitIf(compare(arith::CmpIPredicate::ule, fill, last), [&] {
    // Iteration fill - stages released the stage: its round's phase.
    emitIf(compare(arith::CmpIPredicate::uge, fill, stages), [&] {
      Value round = arith::DivUIOp::create(b, loc, fill, cIdx(stages));
      MBarrierWaitOp::create(
          b, loc, buffers.stageBarriers,
          barrier(arith::RemUIOp::create(b, loc, fill, cIdx(stages)),
                  /*empty=*/true),
          parity(arith::SubIOp::create(b, loc, round, cIdx(1))));
    });
    emitIf(compare(arith::CmpIPredicate::eq, decoder, 0),
           [&] { loadActivations(fill); });
  });
}

void SpecializedGemmEmitter::emitDecode() {
  int64_t ahead = spec.stages - 2;
  int64_t last = iterations() - 1;
  int64_t groups = spec.decoderGroups;
  Value decoder = arith::SubIOp::create(
      b, loc, thread, cIdx(kWarpgroupThreads * multiplyingGroups()));
  emitIf(compare(arith::CmpIPredicate::eq, decoder, 0), [&] {
    for (int64_t i = 0; i < ahead && i <= last; ++i)
      loadActivations(cIdx(i));
  });
  // Decoding warpgroup g takes iterations g, g + groups, ...; its first
  // thread starts the tensor loads of the iterations it fills.
  Value group = cIdx(0);
  if (groups > 1) {
    group = arith::DivUIOp::create(b, loc, decoder, cIdx(kWarpgroupThreads));
    decoder = arith::RemUIOp::create(b, loc, decoder, cIdx(kWarpgroupThreads));
  }
  auto nth = [&](Value start, int64_t i) -> Value {
    return i ? Value(arith::AddIOp::create(b, loc, start, cIdx(i * groups)))
             : start;
  };
  // The loads of the group's first `distance` iterations, one set each.
  int64_t distance = codeDistance();
  // A group past the block's last iteration (K of fewer steps than groups)
  // loads the last one's and runs no trip.
  SmallVector<RowChunk> first =
      loadChunks(groups > iterations()
                     ? Value(arith::MinUIOp::create(b, loc, group, cIdx(last)))
                     : group);
  SmallVector<Value> init = flattenChunks(first);
  int64_t setValues = init.size();
  for (int64_t i = 1; i < distance; ++i)
    llvm::append_range(init, flattenChunks(loadChunks(nth(group, i))));
  // The first trip's scales, where they come per trip; each trip loads the
  // next one's first (the last trip reloads its own).
  bool perTrip = tripScaleElements() != 0;
  if (perTrip)
    llvm::append_range(init, loadTripScales(cIdx(0)));
  int64_t trip = tripIterations();
  auto loop =
      scf::ForOp::create(b, loc, group, cIdx(iterations()), cIdx(trip), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value iteration = loop.getInductionVar();
  ValueRange args = loop.getRegionIterArgs();
  SmallVector<Value> nextTrip;
  ValueRange tripScales;
  // Where each iteration's scales are among those loaded: iteration
  // group + groups x i of the trip.
  Value place = group;
  int64_t places = groups;
  if (perTrip) {
    tripScales = args.take_back(rows.size());
    Value start = arith::SubIOp::create(b, loc, iteration, group);
    Value lastStart = cIdx(iterations() - trip);
    nextTrip = loadTripScales(arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, start, cIdx(trip)), lastStart));
    // A trip that does not divide the iterations (three groups, one
    // iteration each) leaves a last trip of fewer; its scales were loaded
    // from iterations - trip on, so that they end at the row's last, and
    // its iterations' places count from there.
    if (iterations() % trip) {
      assert(distance == 1 && "a code distance above 1 divides the count");
      place = arith::SubIOp::create(
          b, loc, iteration, arith::MinUIOp::create(b, loc, start, lastStart));
      places = trip;
    }
  }
  SmallVector<Value> yielded;
  for (int64_t i = 0; i < distance; ++i) {
    SmallVector<Value> next;
    emitDecodeIteration(decoder, nth(iteration, i),
                        args.slice(i * setValues, setValues), first, next,
                        tripScales, place, places, i);
    llvm::append_range(yielded, next);
  }
  llvm::append_range(yielded, nextTrip);
  scf::YieldOp::create(b, loc, yielded);
}

void SpecializedGemmEmitter::emit() {
  position = getLaunchPosition(32);
  thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The first thread sets up the barrier objects: `full` counts every
  // decoder (none with the weights in registers) and the announcement of
  // the tile's bytes, `empty` every
  // multiplying thread (with `multicast`, every multiplying warpgroup of
  // the cluster).
  int64_t multipliers = kWarpgroupThreads * multiplyingGroups();
  bool cluster = spec.multicast > 1;
  int64_t releases =
      cluster ? multiplyingGroups() * spec.multicast : multipliers;
  emitIf(compare(arith::CmpIPredicate::eq, thread, 0), [&] {
    for (int64_t s = 0; s < spec.stages; ++s) {
      MBarrierInitOp::create(b, loc, buffers.stageBarriers, cIdx(s),
                             spec.registerWeights ? 1 : kWarpgroupThreads + 1);
      MBarrierInitOp::create(b, loc, buffers.stageBarriers,
                             cIdx(spec.stages + s), releases);
    }
    // The tensor loads (the asynchronous proxy) complete bytes on them,
    // and with `multicast` the cluster's other blocks arrive at them.
    AsyncProxyFenceOp::create(b, loc);
    if (cluster)
      MBarrierInitFenceOp::create(b, loc);
  });
  if (spec.kSlices > 1) {
    slice = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    sliceFirst = arith::MulIOp::create(b, loc, slice, cIdx(iterations()));
  }
  if (cluster) {
    rank = arith::RemUIOp::create(
        b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::y),
        cIdx(spec.multicast));
    ClusterBarrierOp::create(b, loc);
  } else {
    gpu::BarrierOp::create(b, loc);
  }
  // The last M tile ends at row M where M holds a whole tile: a tensor load
  // that zero-fills rows past the matrix's edge costs time per row (one
  // 256-row tile at M = 192 took 1.19-1.51x its M = 256 time on the H100;
  // FusedGemmPolicy.h, kSpecializedEdgeFraction). The rows it shares
  // with the tile before are stored twice with the same bits (the same
  // instructions over the same K order). M - m_tile wraps where M holds
  // less than one tile, whose only block starts at row 0.
  firstM = arith::MinUIOp::create(
      b, loc, arith::MulIOp::create(b, loc, position.block, cIdx(spec.maxM)),
      arith::SubIOp::create(b, loc, position.numM, cIdx(spec.maxM)));
  Value tile = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  blockFirst =
      arith::MulIOp::create(b, loc, tile, cIdx(spec.getRowsPerBlock()));
  Value multiplies = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           thread, cIdx(multipliers));
  auto consumer = [&]() -> Value {
    return multiplyingGroups() > 1
               ? Value(arith::DivUIOp::create(b, loc, thread,
                                              cIdx(kWarpgroupThreads)))
               : cIdx(0);
  };
  // With k_slices the roles hand the multiplying lanes' sums (zeros for the
  // decoders, which take part in the exchange's barriers) to the
  // exchange across the cluster, after which the first block stores them.
  bool sliced = spec.kSlices > 1;
  auto quad = VectorType::get({4}, f32);
  SmallVector<Type> quads(sliced ? tileSums() / 4 : 0, quad);
  // With the weights in registers every warpgroup multiplies.
  if (spec.registerWeights) {
    Value own = consumer();
    storeSums(own, multiplyFromRegisters(own));
    return;
  }
  auto roles = scf::IfOp::create(b, loc, quads, multiplies, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(roles.thenBlock());
    Value own = consumer();
    SmallVector<Value> sums =
        spec.registerWeights ? multiplyFromRegisters(own) : multiply(own);
    if (sliced)
      scf::YieldOp::create(b, loc, packQuads(sums));
    else
      storeSums(own, sums);
  }
  if (sliced) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(roles);
    auto reduce = ReduceKSlicesOp::create(
        b, loc, TypeRange(quads), roles.getResults(), buffers.partials, slice,
        thread, spec.kSlices, spec.getThreads(32));
    SmallVector<Value> totals(tileSums());
    unpackQuads(reduce.getTotals(), totals);
    emitIf(arith::AndIOp::create(b, loc, multiplies,
                                 compare(arith::CmpIPredicate::eq, slice, 0)),
           [&] { storeSums(consumer(), totals); });
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(roles.elseBlock());
  // Decoder warp d (of 4) takes rows 16d .. 16d + 15 of each 64 rows:
  // lane l row 16d + l % 8 + 8 ((l / 8) % 2), K half l / 16.
  Value lane = position.lane;
  Value decoderWarp =
      arith::SubIOp::create(b, loc, position.warp, cIdx(multipliers / 32));
  if (spec.decoderGroups > 1)
    decoderWarp = arith::RemUIOp::create(b, loc, decoderWarp,
                                         cIdx(kWarpgroupThreads / 32));
  Value localRow = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, decoderWarp, cIdx(16)),
      arith::AddIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, lane, cIdx(kCoreRows)),
          arith::MulIOp::create(
              b, loc,
              arith::RemUIOp::create(
                  b, loc, arith::DivUIOp::create(b, loc, lane, cIdx(8)),
                  cIdx(2)),
              cIdx(kCoreRows))));
  half = arith::DivUIOp::create(b, loc, lane, cIdx(16));
  Value firstRow = arith::AddIOp::create(b, loc, blockFirst, localRow);
  for (int64_t c = 0; c < decodePasses(); ++c)
    rows.push_back(arith::MinUIOp::create(
        b, loc,
        c ? arith::AddIOp::create(b, loc, firstRow, cIdx(c * kTileRows))
          : firstRow,
        position.lastN));
  // A partial last pass: the warps whose 16 rows lie past the block's.
  int64_t lastPassRows =
      spec.getRowsPerBlock() - kTileRows * (decodePasses() - 1);
  if (lastPassRows < kTileRows)
    lastPassLive = compare(arith::CmpIPredicate::ult, decoderWarp,
                           lastPassRows / kCoreRows / 2);
  // Word w of the thread's K half is chunk 4 half + w of its row in column
  // tile 0 (storeDecoded adds the tile's place).
  for (int64_t w = 0; w < DecodeTileOp::kWordsPerRow; ++w)
    wordStores.push_back(swizzledChunk(
        localRow,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, half, cIdx(4)), cIdx(w))));
  emitDecode();
  if (sliced)
    scf::YieldOp::create(
        b, loc,
        SmallVector<Value>(
            quads.size(),
            arith::ConstantOp::create(
                b, loc,
                DenseElementsAttr::get(quad, b.getFloatAttr(f32, 0.0)))));
  // No block of a cluster leaves while another may still address its
  // workgroup memory.
  if (cluster) {
    b.setInsertionPointAfter(roles);
    ClusterBarrierOp::create(b, loc);
  }
}

void mlir::qmat::gemv::emitSpecializedFusedGemm(OpBuilder &b, Location loc,
                                                const GemvKernelSpec &spec,
                                                const GemvBuffers &buffers,
                                                const TargetInfo &target) {
  SpecializedGemmEmitter(b, loc, spec, buffers, target).emit();
}
