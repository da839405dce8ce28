//===- MatrixOpsFormat.h - the matrix ops' type lists -----------*- C++ -*-===//
//
// The matrix ops take lists of values of one type (four A pairs, N/2 sums):
// their assembly names each list's type once.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_DIALECT_QMAT_IR_MATRIXOPSFORMAT_H
#define QMAT_DIALECT_QMAT_IR_MATRIXOPSFORMAT_H

#include "mlir/IR/OpImplementation.h"

namespace mlir::qmat {

using UnresolvedOperands = ArrayRef<OpAsmParser::UnresolvedOperand>;

/// `type (, type)*`: one type per list, given to each of its operands.
ParseResult parseRepeatedType(OpAsmParser &parser, UnresolvedOperands first,
                              SmallVectorImpl<Type> &firstTypes);
ParseResult parseRepeatedType(OpAsmParser &parser, UnresolvedOperands first,
                              SmallVectorImpl<Type> &firstTypes,
                              UnresolvedOperands second,
                              SmallVectorImpl<Type> &secondTypes);
ParseResult parseRepeatedType(OpAsmParser &parser, UnresolvedOperands first,
                              SmallVectorImpl<Type> &firstTypes,
                              UnresolvedOperands second,
                              SmallVectorImpl<Type> &secondTypes,
                              UnresolvedOperands third,
                              SmallVectorImpl<Type> &thirdTypes);

void printRepeatedType(OpAsmPrinter &printer, Operation *op, OperandRange first,
                       TypeRange firstTypes);
void printRepeatedType(OpAsmPrinter &printer, Operation *op, OperandRange first,
                       TypeRange firstTypes, OperandRange second,
                       TypeRange secondTypes);
void printRepeatedType(OpAsmPrinter &printer, Operation *op, OperandRange first,
                       TypeRange firstTypes, OperandRange second,
                       TypeRange secondTypes, OperandRange third,
                       TypeRange thirdTypes);

} // namespace mlir::qmat

#endif // QMAT_DIALECT_QMAT_IR_MATRIXOPSFORMAT_H
