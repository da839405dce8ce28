//===- Passes.h - qmat transformation passes --------------------*- C++ -*-===//

#ifndef QMAT_TRANSFORMS_PASSES_H
#define QMAT_TRANSFORMS_PASSES_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::qmat {

class TargetInfo;

#define GEN_PASS_DECL
#include "qmat/Transforms/Passes.h.inc"

/// Expands qmat.decode into the exact sequence of `method` (or of the
/// target's default when the op names none and `forced` is unset).
void populateDecodeRewritePatterns(RewritePatternSet &patterns,
                                   const TargetInfo &target,
                                   std::optional<DecodeMethod> forced);

#define GEN_PASS_REGISTRATION
#include "qmat/Transforms/Passes.h.inc"

} // namespace mlir::qmat

#endif // QMAT_TRANSFORMS_PASSES_H
