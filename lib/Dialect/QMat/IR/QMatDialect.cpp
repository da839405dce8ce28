//===- QMatDialect.cpp - qmat dialect and attributes ----------------------===//

#include "qmat/Dialect/QMat/IR/QMatDialect.h"
#include "qmat/Dialect/QMat/IR/FusedGemm.h"
#include "qmat/Dialect/QMat/IR/PreparedWeights.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::qmat;

#include "qmat/QMatDialect.cpp.inc"
#include "qmat/QMatEnums.cpp.inc"

/// The plan's optional trailing entries, in this order and each at most
/// once: `, prepared_weights = true` and `, fused_max_m = N`.
static ParseResult parsePlanOptions(AsmParser &parser, bool &preparedWeights,
                                    int64_t &fusedMaxM) {
  preparedWeights = false;
  fusedMaxM = 0;
  bool seenPrepared = false, seenFused = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "prepared_weights" && !seenPrepared && !seenFused) {
      seenPrepared = true;
      StringRef value;
      if (parser.parseKeyword(&value))
        return failure();
      if (value != "true" && value != "false")
        return parser.emitError(loc, "prepared_weights takes true or false");
      preparedWeights = value == "true";
    } else if (key == "fused_max_m" && !seenFused) {
      seenFused = true;
      if (parser.parseInteger(fusedMaxM))
        return failure();
    } else {
      return parser.emitError(loc)
             << "expected prepared_weights or fused_max_m (each at most once, "
                "in that order), got '"
             << key << "'";
    }
  }
  return success();
}

static void printPlanOptions(AsmPrinter &printer, bool preparedWeights,
                             int64_t fusedMaxM) {
  if (preparedWeights)
    printer << ", prepared_weights = true";
  if (fusedMaxM != 0)
    printer << ", fused_max_m = " << fusedMaxM;
}

#define GET_ATTRDEF_CLASSES
#include "qmat/QMatAttrs.cpp.inc"

void QMatDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "qmat/QMatAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "qmat/QMatOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// SchemeAttr
//===----------------------------------------------------------------------===//

LogicalResult SchemeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 SchemeKind kind, int64_t blockSize) {
  if (blockSize <= 0)
    return emitError() << "block size must be positive, got " << blockSize;
  // OCP Microscaling v1.0 fixes the MX block at 32 elements; any other size
  // would not be an MXFP4 checkpoint.
  if (kind == SchemeKind::mxfp4 && blockSize != 32)
    return emitError() << "mxfp4 block size must be 32 (OCP MX), got "
                       << blockSize;
  return success();
}

bool SchemeAttr::isPacked() const { return getKind() != SchemeKind::fp8; }

int64_t SchemeAttr::getNumBlocks(int64_t k) const {
  // Not (k + bs - 1) / bs, which overflows for a large block size; an
  // unverified block size <= 0 gives 0 rather than a division by zero.
  int64_t bs = getBlockSize();
  if (bs <= 0 || k <= 0)
    return 0;
  return k / bs + (k % bs != 0);
}

ElementFormat SchemeAttr::getElementFormat() const {
  switch (getKind()) {
  case SchemeKind::nvfp4:
  case SchemeKind::mxfp4:
    return ElementFormat::e2m1;
  case SchemeKind::fp8:
    return ElementFormat::e4m3;
  case SchemeKind::int4:
    return ElementFormat::u4;
  }
  llvm_unreachable("unknown scheme");
}

int64_t SchemeAttr::getDefaultBlockSize(SchemeKind kind) {
  switch (kind) {
  case SchemeKind::nvfp4:
    return 16;
  case SchemeKind::mxfp4:
  case SchemeKind::int4:
    return 32;
  case SchemeKind::fp8:
    return 128;
  }
  llvm_unreachable("unknown scheme");
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

bool mlir::qmat::isNVIDIAChip(Chip chip) {
  switch (chip) {
  case Chip::gfx942:
  case Chip::gfx950:
    return false;
  default:
    return true;
  }
}

bool TargetAttr::isNVIDIA() const { return isNVIDIAChip(getChip()); }

unsigned TargetAttr::getWarpSize() const { return isNVIDIA() ? 32 : 64; }

StringRef TargetAttr::getChipName() const { return stringifyChip(getChip()); }

//===----------------------------------------------------------------------===//
// PlanAttr
//===----------------------------------------------------------------------===//

LogicalResult PlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               TargetAttr target, int64_t gemvMaxM,
                               DecodePath smallM, DequantKernel dequant,
                               DecodeMethod decode, int64_t scratchCapMiB,
                               int64_t tileRows, bool preparedWeights,
                               int64_t fusedMaxM) {
  if (gemvMaxM < 0 || gemvMaxM > 64)
    return emitError() << "gemv_max_m must be in [0, 64], got " << gemvMaxM;
  if (fusedMaxM != 0 && (fusedMaxM <= gemvMaxM || fusedMaxM > kMaxFusedMaxM))
    return emitError() << "fused_max_m must be 0 (no fused GEMM) or in "
                          "(gemv_max_m, "
                       << kMaxFusedMaxM << "] = (" << gemvMaxM << ", "
                       << kMaxFusedMaxM << "], got " << fusedMaxM;
  if (scratchCapMiB <= 0 || scratchCapMiB > (int64_t(1) << 20))
    return emitError() << "scratch_cap_mib must be in [1, 1048576], got "
                       << scratchCapMiB;
  if (tileRows <= 0)
    return emitError() << "tile_rows must be positive, got " << tileRows;
  if (preparedWeights && tileRows % kPreparedTileRows != 0)
    return emitError() << "prepared_weights needs tile_rows to be a multiple "
                          "of "
                       << kPreparedTileRows << ", got " << tileRows;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult
KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         MatrixOp matrix, DecodeMethod decode, bool wholeLines,
                         bool halfSteps, bool wholeBlocks,
                         int64_t residentThreads) {
  // Both layouts are mappings of the warp's 16x8x16 instruction.
  if ((wholeLines || halfSteps) && matrix != MatrixOp::mma_16x8x16)
    return emitError() << (wholeLines ? "whole_lines" : "half_steps")
                       << " is a layout of the 16x8x16 warp instruction, got "
                          "matrix = "
                       << stringifyMatrixOp(matrix);
  if (wholeLines && halfSteps)
    return emitError() << "whole_lines and half_steps exclude each other (the "
                          "half steps walk the 16-row layout)";
  if (wholeBlocks && matrix == MatrixOp::scalar)
    return emitError() << "whole_blocks is a property of the matrix kernels' "
                          "row blocks, got matrix = scalar";
  // A multiprocessor holds at most 2048 threads; the budget is in whole
  // warps.
  if (residentThreads < 0 || residentThreads > 2048 || residentThreads % 32)
    return emitError() << "resident_threads must be 0 (no register budget) "
                          "or a multiple of 32 in [32, 2048], got "
                       << residentThreads;
  return success();
}
