//===- DequantKernelBuilder.cpp - One thread's dequantization -------------===//
//
// Semantics (docs/numerics.md): w = rne(decode(code) * scale [* global])
// computed in fp32 left to right, or rne((q - zp) * scale) for int4. The
// decoded code is exact in f16 for every format, so decoding through f16 and
// widening to fp32 changes no bit. A magic-bias decode yields code * 2^-14; the
// factor 2^14 is restored by a power-of-two multiply that is exact in the
// scale's range.
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/QMatToGPU/DequantKernelBuilder.h"
#include "qmat/Dialect/QMat/IR/PreparedWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::qmat;

DequantKernelSpec DequantKernelSpec::get(DequantizeOp op,
                                         DecodeMethod defaultDecode) {
  DequantKernelSpec spec;
  spec.scheme = op.getScheme();
  spec.k = op.getScratch().getType().getDimSize(1);
  spec.actType = op.getScratch().getType().getElementType();
  spec.kernel = op.getKernel().value_or(DequantKernel::scalar);
  spec.decode = op.getDecode().value_or(defaultDecode);
  spec.hasZeroPoints = static_cast<bool>(op.getZeroPoints());
  spec.preparedWeights = op.getPreparedWeights();
  return spec;
}

int64_t DequantKernelSpec::getElementsPerItem() const {
  if (kernel == DequantKernel::vec8)
    return 8;
  return scheme.isPacked() ? 2 : 1;
}

std::string DequantKernelSpec::getKernelName() const {
  std::string act = actType.isF16() ? "f16" : "bf16";
  return llvm::formatv(
             "dequant_{0}_bs{1}_k{2}_{3}_{4}_{5}{6}_u{7}{8}{9}",
             stringifySchemeKind(scheme.getKind()), scheme.getBlockSize(), k,
             act, stringifyDequantKernel(kernel), stringifyDecodeMethod(decode),
             hasZeroPoints ? "_zp" : "", itemsPerThread, persistent ? "_p" : "",
             preparedWeights ? "_prepared" : "")
      .str();
}

std::pair<Value, Value>
mlir::qmat::emitPreparedCodeIndices(OpBuilder &b, Location loc, Value row,
                                    Value byte, int64_t k) {
  auto index = [&](int64_t v) {
    return Value(arith::ConstantIndexOp::create(b, loc, v));
  };
  auto div = [&](Value x, int64_t d) {
    return Value(arith::DivUIOp::create(b, loc, x, index(d)));
  };
  auto rem = [&](Value x, int64_t d) {
    return Value(arith::RemUIOp::create(b, loc, x, index(d)));
  };
  auto mul = [&](Value x, int64_t f) {
    return Value(arith::MulIOp::create(b, loc, x, index(f)));
  };
  auto add = [&](Value x, Value y) {
    return Value(arith::AddIOp::create(b, loc, x, y));
  };
  // Within tile row / 16 (16 rows of K / 2 bytes): step byte / 64 at
  // 1024 each, half h at 512, piece (byte % 64) / 16 of row g at
  // 16 (4g + piece), then byte % 16.
  Value inTile = rem(row, kPreparedTileRows);
  Value inStep = rem(byte, kPreparedStepBytes);
  Value within =
      add(add(mul(div(byte, kPreparedStepBytes),
                  kPreparedTileRows * kPreparedStepBytes),
              mul(div(inTile, 8), 8 * kPreparedStepBytes)),
          add(mul(add(mul(rem(inTile, 8), 4), div(inStep, kPreparedPieceBytes)),
                  kPreparedPieceBytes),
              rem(byte, kPreparedPieceBytes)));
  int64_t rowBytes = k / 2;
  return {add(mul(div(row, kPreparedTileRows), kPreparedTileRows),
              div(within, rowBytes)),
          rem(within, rowBytes)};
}

namespace {

class WorkItemEmitter {
public:
  WorkItemEmitter(OpBuilder &builder, Location loc,
                  const DequantKernelSpec &spec, const DequantBuffers &buffers)
      : b(builder), loc(loc), spec(spec), buffers(buffers), f32(b.getF32Type()),
        i32(b.getI32Type()), i8(b.getI8Type()) {}

  void emit(Value row, ArrayRef<Value> items);
  void emitRowLoop(Value rowStart, Value rowStep, Value rows,
                   ArrayRef<Value> items);

private:
  Value constIndex(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value constI32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  }
  Value constF32(float v) {
    return arith::ConstantFloatOp::create(b, loc, cast<FloatType>(f32),
                                          APFloat(v));
  }

  /// What one item reads, before any arithmetic on it.
  struct LoadedItem {
    Value item, codes;
    SmallVector<Value> blocks, rawScales, rawZeroPoints;
  };
  LoadedItem load(Value row, Value item);
  /// The row-dependent part of load(): codes and raw scales of `row` for
  /// an item whose block indices are already known.
  void loadRowInto(Value row, LoadedItem &slot);
  void computeAndStore(Value row, const LoadedItem &loaded);

  Value loadRawScale(Value row, Value block);
  Value loadRawZeroPoint(Value row, Value block);
  /// Per-element scale-block indices (i32) of the item's elements.
  SmallVector<Value> computeBlockIndices(Value itemI32);
  Value loadCodes(Value row, Value item, int64_t numElements);
  Value roundToActivation(Value product);

  OpBuilder &b;
  Location loc;
  const DequantKernelSpec &spec;
  const DequantBuffers &buffers;
  Type f32, i32, i8;
};

Value WorkItemEmitter::loadRawScale(Value row, Value block) {
  Value col = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), block);
  auto scales = cast<MemRefType>(buffers.scales.getType());
  return LoadTileOp::create(b, loc, scales.getElementType(),
                            CachePolicy::cached, buffers.scales,
                            ValueRange{row, col});
}

Value WorkItemEmitter::loadRawZeroPoint(Value row, Value block) {
  // Zero points are u4 packed two per byte, low nibble = even block.
  Value col = arith::ShRUIOp::create(b, loc, block, constI32(1));
  col = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), col);
  return LoadTileOp::create(b, loc, b.getI8Type(), CachePolicy::cached,
                            buffers.zeroPoints, ValueRange{row, col});
}

SmallVector<Value> WorkItemEmitter::computeBlockIndices(Value itemI32) {
  int64_t perItem = spec.getElementsPerItem();
  int64_t bs = spec.scheme.getBlockSize();
  // One scale for the whole item: a single division by a constant, which
  // the backend turns into a multiply-high.
  if (bs % perItem == 0) {
    Value block =
        arith::DivUIOp::create(b, loc, itemI32, constI32(bs / perItem));
    return SmallVector<Value>(perItem, block);
  }
  // Several scale blocks meet inside the item. vec8 has an even block, so
  // each pair of elements shares a block: step the index a pair at a time
  // instead of dividing per element.
  int64_t step = spec.kernel == DequantKernel::vec8 ? 2 : 1;
  Value k0 = arith::MulIOp::create(b, loc, itemI32, constI32(perItem));
  Value block = arith::DivUIOp::create(b, loc, k0, constI32(bs));
  Value rem = arith::RemUIOp::create(b, loc, k0, constI32(bs));
  SmallVector<Value> blocks;
  for (int64_t e = 0; e < perItem; e += step) {
    if (e > 0) {
      rem = arith::AddIOp::create(b, loc, rem, constI32(step));
      Value carry = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          rem, constI32(bs));
      rem = arith::SelectOp::create(
          b, loc, carry, arith::SubIOp::create(b, loc, rem, constI32(bs)), rem);
      block = arith::AddIOp::create(b, loc, block,
                                    arith::ExtUIOp::create(b, loc, i32, carry));
    }
    for (int64_t j = 0; j < step; ++j)
      blocks.push_back(block);
  }
  return blocks;
}

Value WorkItemEmitter::loadCodes(Value row, Value item, int64_t numElements) {
  bool packed = spec.scheme.isPacked();
  int64_t numBytes = packed ? numElements / 2 : numElements;
  Value col = arith::MulIOp::create(b, loc, item, constIndex(numBytes));
  auto weightsType = cast<MemRefType>(buffers.weights.getType());
  auto loadType = VectorType::get({numBytes}, weightsType.getElementType());
  // Prepared codes: an item's bytes lie within one 16-byte piece
  // (PreparedWeights.h).
  auto [codeRow, codeCol] =
      spec.preparedWeights ? emitPreparedCodeIndices(b, loc, row, col, spec.k)
                           : std::pair<Value, Value>(row, col);
  Value codes =
      LoadTileOp::create(b, loc, loadType, CachePolicy::cached, buffers.weights,
                         ValueRange{codeRow, codeCol}, numBytes);
  if (!packed)
    codes = arith::BitcastOp::create(b, loc, VectorType::get({numBytes}, i8),
                                     codes);
  return codes;
}

Value WorkItemEmitter::roundToActivation(Value product) {
  auto vecType = cast<VectorType>(product.getType());
  auto actVec = VectorType::get(vecType.getShape(), spec.actType);
  Value rounded = arith::TruncFOp::create(b, loc, actVec, product);
  if (!spec.canonicalizeNaN)
    return rounded;
  // Every NaN becomes the one canonical pattern, whatever the conversion
  // instruction of the target does with payloads.
  const llvm::fltSemantics &sem =
      cast<FloatType>(spec.actType).getFloatSemantics();
  APFloat nan(sem, APInt(16, 0x7FFF));
  Value nanVec = arith::ConstantOp::create(b, loc, actVec,
                                           DenseElementsAttr::get(actVec, nan));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                      product, product);
  return arith::SelectOp::create(b, loc, isNaN, nanVec, rounded);
}

WorkItemEmitter::LoadedItem WorkItemEmitter::load(Value row, Value item) {
  LoadedItem loaded;
  loaded.item = item;
  Value itemI32 = arith::IndexCastUIOp::create(b, loc, i32, item);
  loaded.blocks = computeBlockIndices(itemI32);
  loadRowInto(row, loaded);
  return loaded;
}

void WorkItemEmitter::loadRowInto(Value row, LoadedItem &slot) {
  slot.codes = loadCodes(row, slot.item, spec.getElementsPerItem());
  slot.rawScales.clear();
  slot.rawZeroPoints.clear();
  // Each distinct block is read once; repeated indices reuse the load.
  Value lastBlock;
  for (Value block : slot.blocks) {
    if (block == lastBlock)
      continue;
    lastBlock = block;
    slot.rawScales.push_back(loadRawScale(row, block));
    if (spec.hasZeroPoints)
      slot.rawZeroPoints.push_back(loadRawZeroPoint(row, block));
  }
}

void WorkItemEmitter::computeAndStore(Value row, const LoadedItem &loaded) {
  int64_t perItem = spec.getElementsPerItem();
  Value values = emitCodesToF32(b, loc, spec.scheme.getElementFormat(),
                                spec.decode, loaded.codes, perItem);
  bool isInt4 = spec.scheme.getKind() == SchemeKind::int4;
  SmallVector<Value> scales, zeroPoints;
  Value lastBlock;
  size_t distinct = 0;
  for (Value block : loaded.blocks) {
    if (block != lastBlock) {
      lastBlock = block;
      scales.push_back(
          emitScaleToF32(b, loc, spec.scheme, loaded.rawScales[distinct]));
      if (isInt4)
        zeroPoints.push_back(
            spec.hasZeroPoints
                ? emitZeroPointToF32(b, loc, loaded.rawZeroPoints[distinct],
                                     block)
                : constF32(8.0f));
      ++distinct;
    } else {
      scales.push_back(scales.back());
      if (isInt4)
        zeroPoints.push_back(zeroPoints.back());
    }
  }
  auto vecType = VectorType::get({perItem}, f32);
  Value scaleVec = vector::FromElementsOp::create(b, loc, vecType, scales);
  Value product;
  if (isInt4) {
    Value zpVec = vector::FromElementsOp::create(b, loc, vecType, zeroPoints);
    Value centered = arith::SubFOp::create(b, loc, values, zpVec);
    product = arith::MulFOp::create(b, loc, centered, scaleVec);
  } else {
    product = arith::MulFOp::create(b, loc, values, scaleVec);
  }
  if (buffers.globalScale) {
    Value global =
        vector::BroadcastOp::create(b, loc, vecType, buffers.globalScale);
    product = arith::MulFOp::create(b, loc, product, global);
  }
  Value result = roundToActivation(product);
  Value k0 = arith::MulIOp::create(b, loc, loaded.item, constIndex(perItem));
  int64_t storeBytes = perItem * 2;
  vector::StoreOp::create(b, loc, result, buffers.scratch, ValueRange{row, k0},
                          /*nontemporal=*/false,
                          /*alignment=*/llvm::MaybeAlign(storeBytes));
}

void WorkItemEmitter::emitRowLoop(Value rowStart, Value rowStep, Value rows,
                                  ArrayRef<Value> items) {
  // Block indices depend on the item only: computed once, outside the loop.
  SmallVector<LoadedItem> slots;
  for (Value item : items) {
    LoadedItem slot;
    slot.item = item;
    slot.blocks =
        computeBlockIndices(arith::IndexCastUIOp::create(b, loc, i32, item));
    slots.push_back(slot);
  }
  auto flatten = [](ArrayRef<LoadedItem> loaded) {
    SmallVector<Value> flat;
    for (const LoadedItem &l : loaded) {
      flat.push_back(l.codes);
      flat.append(l.rawScales.begin(), l.rawScales.end());
      flat.append(l.rawZeroPoints.begin(), l.rawZeroPoints.end());
    }
    return flat;
  };
  auto unflatten = [&](ValueRange flat) {
    SmallVector<LoadedItem> loaded = slots;
    size_t i = 0;
    for (LoadedItem &l : loaded) {
      l.codes = flat[i++];
      for (Value &v : l.rawScales)
        v = flat[i++];
      for (Value &v : l.rawZeroPoints)
        v = flat[i++];
    }
    return loaded;
  };

  // Software pipeline: the next row's loads are issued before this row's
  // arithmetic and stores, so that their latency overlaps it. The last
  // iteration re-reads its own row rather than branching.
  Value lastRow = arith::SubIOp::create(b, loc, rows, constIndex(1));
  Value first = arith::MinUIOp::create(b, loc, rowStart, lastRow);
  for (LoadedItem &slot : slots)
    loadRowInto(first, slot);
  auto loop =
      scf::ForOp::create(b, loc, rowStart, rows, rowStep, flatten(slots));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value row = loop.getInductionVar();
  Value next = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, row, rowStep), lastRow);
  SmallVector<LoadedItem> current = unflatten(loop.getRegionIterArgs());
  SmallVector<LoadedItem> upcoming = slots;
  for (LoadedItem &slot : upcoming)
    loadRowInto(next, slot);
  for (const LoadedItem &item : current)
    computeAndStore(row, item);
  auto yielded = flatten(upcoming);
  if (loop.getBody()->mightHaveTerminator())
    loop.getBody()->getTerminator()->erase();
  b.setInsertionPointToEnd(loop.getBody());
  scf::YieldOp::create(b, loc, yielded);
}

void WorkItemEmitter::emit(Value row, ArrayRef<Value> items) {
  SmallVector<LoadedItem> loaded;
  for (Value item : items)
    loaded.push_back(load(row, item));
  for (const LoadedItem &item : loaded)
    computeAndStore(row, item);
}

} // namespace

Value mlir::qmat::emitGlobalScaleLoad(OpBuilder &builder, Location loc,
                                      Value memref) {
  return memref::LoadOp::create(builder, loc, memref, ValueRange{});
}

std::pair<Value, memref::ExtractStridedMetadataOp>
mlir::qmat::emitBufferAddress(OpBuilder &builder, Location loc, Value memref) {
  auto metadata =
      memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  Value address = arith::AddIOp::create(
      builder, loc,
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref),
      metadata.getOffset());
  return {address, metadata};
}

void mlir::qmat::emitDequantRowLoop(OpBuilder &builder, Location loc,
                                    const DequantKernelSpec &spec,
                                    const DequantBuffers &buffers,
                                    Value rowStart, Value rowStep, Value rows,
                                    ArrayRef<Value> items) {
  WorkItemEmitter(builder, loc, spec, buffers)
      .emitRowLoop(rowStart, rowStep, rows, items);
}

void mlir::qmat::emitDequantWorkItems(OpBuilder &builder, Location loc,
                                      const DequantKernelSpec &spec,
                                      const DequantBuffers &buffers, Value row,
                                      ArrayRef<Value> items) {
  WorkItemEmitter(builder, loc, spec, buffers).emit(row, items);
}

//===----------------------------------------------------------------------===//
// Element semantics shared with the GEMV kernels
//===----------------------------------------------------------------------===//

namespace {
/// A magic-bias e2m1 decode to fp32 yields code * 2^-126 (docs/numerics.md: the
/// bias must come back exactly; see emitCodesToF32()).
constexpr int64_t kMagicBiasF32Exponent = 126;
} // namespace

Value mlir::qmat::emitScaleToF32(OpBuilder &b, Location loc, SchemeAttr scheme,
                                 Value raw) {
  Type i8 = b.getI8Type(), f32 = b.getF32Type();
  switch (scheme.getKind()) {
  case SchemeKind::nvfp4: {
    // Decoding the e4m3 scale is the same exact decode as the fp8 codes.
    Value byte = arith::BitcastOp::create(b, loc, i8, raw);
    Value vec =
        vector::BroadcastOp::create(b, loc, VectorType::get({1}, i8), byte);
    Value decoded =
        DecodeOp::create(b, loc, VectorType::get({1}, f32), ElementFormat::e4m3,
                         vec, 0, DecodeMethodAttr());
    return vector::ExtractOp::create(b, loc, decoded, ArrayRef<int64_t>{0});
  }
  case SchemeKind::mxfp4:
    return arith::BitcastOp::create(b, loc, f32,
                                    emitE8M0ToF32Bits(b, loc, raw));
  case SchemeKind::fp8:
    return raw;
  case SchemeKind::int4:
    return arith::ExtFOp::create(b, loc, f32, raw);
  }
  llvm_unreachable("unknown scheme");
}

Value mlir::qmat::emitE8M0ToF32Bits(OpBuilder &b, Location loc, Value raw) {
  // 2^(e-127): the exponent field for e >= 1, the subnormal 2^-127 for
  // e == 0, NaN for 0xFF.
  Type i32 = b.getI32Type();
  auto constI32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  Value byte = arith::BitcastOp::create(b, loc, b.getI8Type(), raw);
  Value e = arith::ExtUIOp::create(b, loc, i32, byte);
  Value normal = arith::ShLIOp::create(b, loc, e, constI32(23));
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e, constI32(0));
  Value isNaN =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e, constI32(255));
  Value bits =
      arith::SelectOp::create(b, loc, isZero, constI32(0x00400000), normal);
  return arith::SelectOp::create(b, loc, isNaN, constI32(0x7FC00000), bits);
}

Value mlir::qmat::emitZeroPointNibble(OpBuilder &b, Location loc, Value byte,
                                      Value block) {
  Type i32 = b.getI32Type();
  auto constI32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  Value word = arith::ExtUIOp::create(b, loc, i32, byte);
  Value shift = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, block, constI32(1)), constI32(2));
  return arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, word, shift), constI32(15));
}

Value mlir::qmat::emitZeroPointToF32(OpBuilder &b, Location loc, Value byte,
                                     Value block) {
  return arith::UIToFPOp::create(b, loc, b.getF32Type(),
                                 emitZeroPointNibble(b, loc, byte, block));
}

Value mlir::qmat::emitCodesToF32(OpBuilder &b, Location loc,
                                 ElementFormat format, DecodeMethod decode,
                                 Value codes, int64_t numElements) {
  Type f32 = b.getF32Type();
  bool magicFp4 =
      decode == DecodeMethod::magic_bias && format == ElementFormat::e2m1;
  int64_t exponentBias = magicFp4 ? kMagicBiasF32Exponent : 0;
  auto method = DecodeMethodAttr::get(b.getContext(), decode);
  auto vecType = VectorType::get({numElements}, f32);
  Value decoded =
      DecodeOp::create(b, loc, vecType, format, codes, exponentBias, method);
  if (exponentBias == 0)
    return decoded;
  // code * 2^-126 times 2^126 is the code again, exactly: restoring it
  // first keeps every later product the reference's (folding 2^126 into
  // a scale would overflow fp32).
  Value bias = vector::BroadcastOp::create(
      b, loc, vecType,
      arith::ConstantFloatOp::create(
          b, loc, cast<FloatType>(f32),
          APFloat(std::ldexp(1.0f, kMagicBiasF32Exponent))));
  return arith::MulFOp::create(b, loc, decoded, bias);
}
