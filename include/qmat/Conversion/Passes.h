//===- Passes.h - qmat conversion passes ------------------------*- C++ -*-===//

#ifndef QMAT_CONVERSION_PASSES_H
#define QMAT_CONVERSION_PASSES_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::qmat {

#define GEN_PASS_DECL
#include "qmat/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "qmat/Conversion/Passes.h.inc"

} // namespace mlir::qmat

#endif // QMAT_CONVERSION_PASSES_H
