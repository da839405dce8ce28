//===- QMatDialect.h - qmat dialect, enums and attributes -------*- C++ -*-===//

#ifndef QMAT_DIALECT_QMAT_IR_QMATDIALECT_H
#define QMAT_DIALECT_QMAT_IR_QMATDIALECT_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "qmat/QMatDialect.h.inc"
#include "qmat/QMatEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "qmat/QMatAttrs.h.inc"

namespace mlir::qmat {
/// Whether `chip` is an NVIDIA GPU (the rest are AMD).
bool isNVIDIAChip(Chip chip);
} // namespace mlir::qmat

#endif // QMAT_DIALECT_QMAT_IR_QMATDIALECT_H
