//===- DequantKernelBuilder.h - One thread's dequantization -----*- C++ -*-===//
//
// The body of a dequantization kernel, written once and placed either in a
// gpu.func (one work item per thread) or in host loops (one work item per
// iteration), so that the CPU runs exactly the arithmetic the GPU runs.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_CONVERSION_QMATTOGPU_DEQUANTKERNELBUILDER_H
#define QMAT_CONVERSION_QMATTOGPU_DEQUANTKERNELBUILDER_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::qmat {

/// What a dequantization kernel is specialised on.
struct DequantKernelSpec {
  SchemeAttr scheme;
  int64_t k = 0;
  Type actType;
  DequantKernel kernel = DequantKernel::scalar;
  DecodeMethod decode = DecodeMethod::arith;
  bool hasZeroPoints = false;
  /// Whether the rounding must map every NaN to 0x7FFF itself; false where
  /// the target's conversion instruction already does (TargetInfo).
  bool canonicalizeNaN = true;
  /// Work items one thread handles, `threads` apart so that each store
  /// instruction stays contiguous across the warp.
  int64_t itemsPerThread = 1;
  /// Whether a block loops over rows (blockIdx.x, stepping by gridDim.x)
  /// with the next row's loads in flight, instead of owning one row.
  bool persistent = false;
  /// The codes are in the prepared layout (PreparedWeights.h).
  bool preparedWeights = false;

  /// The spec of `op`; `defaultDecode` applies when the op names none.
  static DequantKernelSpec get(DequantizeOp op, DecodeMethod defaultDecode);

  /// K elements one work item produces: 8 (vec8), 2 (scalar, packed) or 1.
  int64_t getElementsPerItem() const;
  /// Work items in one row of W.
  int64_t getItemsPerRow() const { return k / getElementsPerItem(); }
  /// A symbol name that spells out the specialisation.
  std::string getKernelName() const;
};

/// Where byte `byte` of code row `row` sits in the prepared layout of a
/// layer with reduction length `k` (getPreparedCodeOffset), as (row, byte)
/// indices into the [N, K / 2] codes; shared by the dequantization and the
/// GEMV kernels.
std::pair<Value, Value> emitPreparedCodeIndices(OpBuilder &builder,
                                                Location loc, Value row,
                                                Value byte, int64_t k);

/// The dequantize operands a work item reads and writes.
struct DequantBuffers {
  Value weights, scales, zeroPoints, scratch;
  /// The global scale, already loaded (fp32), or null.
  Value globalScale;
};

/// The fp32 value of one raw block-scale element of `scheme` (e4m3 byte,
/// e8m0 byte, f32 or the activation type), exactly.
Value emitScaleToF32(OpBuilder &builder, Location loc, SchemeAttr scheme,
                     Value raw);
/// The fp32 bit pattern (i32) of an e8m0 scale element, 2^(e-127), NaN for
/// 0xFF. Its low 16 bits are zero: the top half is the bf16 pattern.
Value emitE8M0ToF32Bits(OpBuilder &builder, Location loc, Value raw);
/// The u4 zero point (i32, 0..15) of block `block` (i32) inside its packed
/// byte (low nibble = even block).
Value emitZeroPointNibble(OpBuilder &builder, Location loc, Value byte,
                          Value block);
/// emitZeroPointNibble as an fp32 value.
Value emitZeroPointToF32(OpBuilder &builder, Location loc, Value byte,
                         Value block);
/// `numElements` codes of `format` (vector<Bxi8>) as exact fp32 values,
/// through the decode rewrite `decode`.
Value emitCodesToF32(OpBuilder &builder, Location loc, ElementFormat format,
                     DecodeMethod decode, Value codes, int64_t numElements);

/// Loads the nvfp4 global scale once, so that it lives in a register for
/// every element a thread produces.
Value emitGlobalScaleLoad(OpBuilder &builder, Location loc, Value memref);

/// The global address of `memref`'s first element (index: its aligned
/// pointer plus its offset), and the metadata it was read from (whose
/// strides address the other elements).
std::pair<Value, memref::ExtractStridedMetadataOp>
emitBufferAddress(OpBuilder &builder, Location loc, Value memref);

/// Emits the work of items `items` (indices) of row `row` (an index): all
/// loads first, so that they are in flight together, then the arithmetic
/// and stores.
void emitDequantWorkItems(OpBuilder &builder, Location loc,
                          const DequantKernelSpec &spec,
                          const DequantBuffers &buffers, Value row,
                          ArrayRef<Value> items);

/// A persistent kernel's body: rows rowStart, rowStart + rowStep, ... below
/// `rows`, each row's loads issued one iteration ahead.
void emitDequantRowLoop(OpBuilder &builder, Location loc,
                        const DequantKernelSpec &spec,
                        const DequantBuffers &buffers, Value rowStart,
                        Value rowStep, Value rows, ArrayRef<Value> items);

} // namespace mlir::qmat

#endif // QMAT_CONVERSION_QMATTOGPU_DEQUANTKERNELBUILDER_H
