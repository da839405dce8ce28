//===- KernelModule.h - The gpu.module every qmat kernel lives in -*- C++
//-*-===//

#ifndef QMAT_CONVERSION_QMATTOGPU_KERNELMODULE_H
#define QMAT_CONVERSION_QMATTOGPU_KERNELMODULE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::qmat {

class TargetInfo;

/// The @qmat_kernels gpu.module of `module` (created with the target's
/// serialization attribute if missing); marks `module` as a container.
gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module,
                                         const TargetInfo &info);

/// The kernel parameter type of an operand: a [rows, C] memref becomes
/// [?, C] with a dynamic offset, a [N] memref [?] with a dynamic offset, so
/// that one kernel serves every layer with the same K and every N tile.
/// `dynamicCols` also makes C (and its stride) dynamic.
Type getKernelArgType(Type type, bool dynamicCols = false);

/// A kernel named `base` with `type`: the existing one when a kernel of that
/// name and signature exists (returned through `existing`), else a fresh
/// unique name to create it under.
std::string findKernel(gpu::GPUModuleOp kernels, StringRef base,
                       FunctionType type, gpu::GPUFuncOp &existing);

/// Casts each of `args` to its kernel parameter type in place (dim 1 dynamic
/// for the indices in `dynamicCols`) and returns the types; emits an error on
/// `op` for an operand that is not a row-contiguous view.
FailureOr<SmallVector<Type>>
castToKernelArgs(OpBuilder &builder, Operation *op, MutableArrayRef<Value> args,
                 ArrayRef<unsigned> dynamicCols = {});

} // namespace mlir::qmat

#endif // QMAT_CONVERSION_QMATTOGPU_KERNELMODULE_H
