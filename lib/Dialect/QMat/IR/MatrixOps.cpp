//===- MatrixOps.cpp - the matrix ops' verifiers and types ----------------===//

#include "qmat/Dialect/QMat/IR/MatrixOpsFormat.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// A list's type, printed once: every operand of a verified list has it.
/// An empty list (only in an op that failed its verifier) prints `none`.
void printListType(OpAsmPrinter &printer, TypeRange types, bool first) {
  if (!first)
    printer << ", ";
  if (types.empty())
    printer << "none";
  else
    printer << types.front();
}

ParseResult parseListType(OpAsmParser &parser, UnresolvedOperands operands,
                          SmallVectorImpl<Type> &types, bool first) {
  Type type;
  if ((!first && parser.parseComma()) || parser.parseType(type))
    return failure();
  types.assign(operands.size(), type);
  return success();
}

} // namespace

ParseResult mlir::qmat::parseRepeatedType(OpAsmParser &parser,
                                          UnresolvedOperands first,
                                          SmallVectorImpl<Type> &firstTypes) {
  return parseListType(parser, first, firstTypes, /*first=*/true);
}

ParseResult mlir::qmat::parseRepeatedType(OpAsmParser &parser,
                                          UnresolvedOperands first,
                                          SmallVectorImpl<Type> &firstTypes,
                                          UnresolvedOperands second,
                                          SmallVectorImpl<Type> &secondTypes) {
  return failure(parseRepeatedType(parser, first, firstTypes) ||
                 parseListType(parser, second, secondTypes, false));
}

ParseResult mlir::qmat::parseRepeatedType(OpAsmParser &parser,
                                          UnresolvedOperands first,
                                          SmallVectorImpl<Type> &firstTypes,
                                          UnresolvedOperands second,
                                          SmallVectorImpl<Type> &secondTypes,
                                          UnresolvedOperands third,
                                          SmallVectorImpl<Type> &thirdTypes) {
  return failure(
      parseRepeatedType(parser, first, firstTypes, second, secondTypes) ||
      parseListType(parser, third, thirdTypes, false));
}

void mlir::qmat::printRepeatedType(OpAsmPrinter &printer, Operation *,
                                   OperandRange, TypeRange firstTypes) {
  printListType(printer, firstTypes, /*first=*/true);
}

void mlir::qmat::printRepeatedType(OpAsmPrinter &printer, Operation *op,
                                   OperandRange first, TypeRange firstTypes,
                                   OperandRange, TypeRange secondTypes) {
  printRepeatedType(printer, op, first, firstTypes);
  printListType(printer, secondTypes, false);
}

void mlir::qmat::printRepeatedType(OpAsmPrinter &printer, Operation *op,
                                   OperandRange first, TypeRange firstTypes,
                                   OperandRange second, TypeRange secondTypes,
                                   OperandRange, TypeRange thirdTypes) {
  printRepeatedType(printer, op, first, firstTypes, second, secondTypes);
  printListType(printer, thirdTypes, false);
}

//===----------------------------------------------------------------------===//
// warp_mma
//===----------------------------------------------------------------------===//

LogicalResult WarpMmaOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getAcc().getTypes());
  return success();
}

LogicalResult WarpMmaOp::verify() {
  if (getA().size() != 4 || getB().size() != 2 || getAcc().size() != 4)
    return emitOpError() << "m16n8k16 takes 4 A pairs, 2 B pairs and 4 sums "
                            "per lane, got "
                         << getA().size() << ", " << getB().size() << " and "
                         << getAcc().size();
  SmallVector<Type> pairs(getA().getTypes());
  llvm::append_range(pairs, getB().getTypes());
  if (!llvm::all_equal(pairs))
    return emitOpError() << "A and B pairs must have one type, got "
                         << getA().front().getType() << " and "
                         << getB().front().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// warpgroup_mma, warpgroup_fence, warpgroup_wait
//===----------------------------------------------------------------------===//

LogicalResult WarpgroupMmaOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location>,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getAcc().getTypes());
  return success();
}

/// The warpgroup instruction's N: 2 x `sums` per lane, a multiple of 8
/// from 8 to 256.
static LogicalResult verifyWarpgroupN(Operation *op, size_t sums) {
  int64_t n = 2 * static_cast<int64_t>(sums);
  if (n < 8 || n > 256 || n % 8)
    return op->emitOpError() << "N = 2 x sums per lane must be a multiple of "
                                "8 from 8 to 256, got "
                             << n;
  return success();
}

LogicalResult WarpgroupMmaOp::verify() {
  if (getA().size() != 4)
    return emitOpError() << "takes 4 A pairs per lane, got " << getA().size();
  if (!llvm::all_equal(getA().getTypes()))
    return emitOpError() << "A pairs must have one type";
  return verifyWarpgroupN(*this, getAcc().size());
}

LogicalResult
WarpgroupMmaSharedOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getAcc().getTypes());
  return success();
}

LogicalResult WarpgroupMmaSharedOp::verify() {
  return verifyWarpgroupN(*this, getAcc().size());
}

LogicalResult WarpgroupFenceOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location>,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getValues().getTypes());
  return success();
}

LogicalResult WarpgroupWaitOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location>,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getSums().getTypes());
  return success();
}

//===----------------------------------------------------------------------===//
// async_copy
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyOp::verify() {
  auto src = cast<MemRefType>(getSrc().getType());
  auto dst = cast<MemRefType>(getDst().getType());
  if (static_cast<int64_t>(getSrcIndices().size()) != src.getRank() ||
      static_cast<int64_t>(getDstIndices().size()) != dst.getRank())
    return emitOpError() << "needs one index per dimension: " << src.getRank()
                         << " for the source and " << dst.getRank()
                         << " for the destination, got "
                         << getSrcIndices().size() << " and "
                         << getDstIndices().size();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "copies between memrefs of one element type, got "
                         << src.getElementType() << " and "
                         << dst.getElementType();
  if (!src.getElementType().isIntOrFloat())
    return emitOpError() << "copies integer or float elements, got "
                         << src.getElementType();
  uint64_t bits = src.getElementType().getIntOrFloatBitWidth();
  if (getElements() > 128 || getElements() * bits != 128)
    return emitOpError() << "copies 16 bytes: " << getElements() << " x "
                         << bits << "-bit elements is not";
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(dst))
    return emitOpError() << "copies into workgroup memory, got " << dst;
  return success();
}

//===----------------------------------------------------------------------===//
// mbarrier_init, mbarrier_arrive, mbarrier_wait, tensor_load
//===----------------------------------------------------------------------===//

/// A barrier object's arrival and byte counts are 20-bit fields.
constexpr int64_t kMaxBarrierCount = (int64_t(1) << 20) - 1;

/// The rule every op on barrier objects shares.
static LogicalResult verifyBarriers(Operation *op, Value barriers) {
  auto type = cast<MemRefType>(barriers.getType());
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type))
    return op->emitOpError()
           << "barrier objects live in workgroup memory, got " << type;
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  if (getCount() < 1 || getCount() > kMaxBarrierCount)
    return emitOpError() << "count must be from 1 to " << kMaxBarrierCount
                         << " arrivals, got " << getCount();
  return verifyBarriers(*this, getBarriers());
}

LogicalResult MBarrierArriveOp::verify() {
  if (std::optional<int64_t> bytes = getExpect();
      bytes && (*bytes < 1 || *bytes > kMaxBarrierCount))
    return emitOpError() << "expect must be from 1 to " << kMaxBarrierCount
                         << " bytes, got " << *bytes;
  return verifyBarriers(*this, getBarriers());
}

LogicalResult MBarrierArriveClusterOp::verify() {
  return verifyBarriers(*this, getBarriers());
}

LogicalResult LoadClusterPeerOp::verify() {
  MemRefType source = getSource().getType();
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(source))
    return emitOpError() << "reads another block's workgroup memory, got "
                         << source;
  return success();
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyBarriers(*this, getBarriers());
}

LogicalResult TensorLoadOp::verify() {
  ArrayRef<int64_t> box = getBox();
  if (box.size() != 2 || llvm::any_of(box, [](int64_t extent) {
        return extent < 1 || extent > 256;
      }))
    return emitOpError() << "box must be two extents from 1 to 256 (inner "
                            "first), got ["
                         << box << "]";
  auto dst = cast<MemRefType>(getDst().getType());
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(dst))
    return emitOpError() << "loads into workgroup memory, got " << dst;
  if (!dst.getElementType().isIntOrFloat())
    return emitOpError() << "loads integer or float elements, got "
                         << dst.getElementType();
  // A cluster holds at most 16 blocks (the instruction's 16-bit mask).
  if (std::optional<int64_t> mask = getMulticast();
      mask && (*mask < 1 || *mask > 0xFFFF))
    return emitOpError() << "multicast must be a mask of 1 to 16 cluster "
                            "ranks (1 to 65535), got "
                         << *mask;
  if (!dst.isDynamicDim(0) && dst.getDimSize(0) < box[0] * box[1])
    return emitOpError() << "the box of " << box[0] * box[1]
                         << " elements does not fit dst " << dst;
  return verifyBarriers(*this, getBarriers());
}
