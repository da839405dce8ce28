//===- QMatOps.h - qmat operations ------------------------------*- C++ -*-===//

#ifndef QMAT_DIALECT_QMAT_IR_QMATOPS_H
#define QMAT_DIALECT_QMAT_IR_QMATOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "qmat/Dialect/QMat/IR/QMatDialect.h"

#define GET_OP_CLASSES
#include "qmat/QMatOps.h.inc"

#endif // QMAT_DIALECT_QMAT_IR_QMATOPS_H
