//===- QMatOps.h - qmat operations ------------------------------*- C++ -*-===//

#ifndef QMAT_DIALECT_QMAT_IR_QMATOPS_H
#define QMAT_DIALECT_QMAT_IR_QMATOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "qmat/Dialect/QMat/IR/QMatDialect.h"

namespace mlir::qmat::OpTrait {
/// The op stands for instructions of the target (QMat_TargetInstruction):
/// qmat-lower-to-target must replace it.
template <typename ConcreteType>
class TargetInstruction
    : public mlir::OpTrait::TraitBase<ConcreteType, TargetInstruction> {};
} // namespace mlir::qmat::OpTrait

#define GET_OP_CLASSES
#include "qmat/QMatOps.h.inc"

#endif // QMAT_DIALECT_QMAT_IR_QMATOPS_H
