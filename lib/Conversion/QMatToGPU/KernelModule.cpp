//===- KernelModule.cpp - The gpu.module every qmat kernel lives in -------===//

#include "qmat/Conversion/QMatToGPU/KernelModule.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {
constexpr StringLiteral kKernelModuleName = "qmat_kernels";
} // namespace

gpu::GPUModuleOp mlir::qmat::getOrCreateKernelModule(ModuleOp module,
                                                     const TargetInfo &info) {
  // Launches resolve kernels in their closest module, which may be nested.
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Attribute target = info.getGpuModuleTarget(module.getContext());
  ArrayAttr targets = target ? b.getArrayAttr({target}) : ArrayAttr();
  return gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName,
                                  targets);
}

Type mlir::qmat::getKernelArgType(Type type, bool dynamicCols) {
  auto memref = cast<MemRefType>(type);
  int64_t dyn = ShapedType::kDynamic;
  if (memref.getRank() == 1)
    return MemRefType::get({dyn}, memref.getElementType(),
                           StridedLayoutAttr::get(type.getContext(), dyn, {1}),
                           memref.getMemorySpace());
  if (memref.getRank() != 2)
    return type;
  int64_t cols = dynamicCols ? dyn : memref.getDimSize(1);
  auto layout = StridedLayoutAttr::get(type.getContext(), dyn, {cols, 1});
  return MemRefType::get({dyn, cols}, memref.getElementType(), layout,
                         memref.getMemorySpace());
}

std::string mlir::qmat::findKernel(gpu::GPUModuleOp kernels, StringRef base,
                                   FunctionType type,
                                   gpu::GPUFuncOp &existing) {
  // Identical layers share one kernel; a different memref layout (a tile
  // view) needs its own signature.
  std::string name = base.str();
  existing = nullptr;
  for (unsigned suffix = 1;; ++suffix) {
    auto found = kernels.lookupSymbol<gpu::GPUFuncOp>(name);
    if (!found)
      return name;
    if (found.getFunctionType() == type) {
      existing = found;
      return name;
    }
    name = (base + "_" + Twine(suffix)).str();
  }
}

FailureOr<SmallVector<Type>>
mlir::qmat::castToKernelArgs(OpBuilder &builder, Operation *op,
                             MutableArrayRef<Value> args,
                             ArrayRef<unsigned> dynamicCols) {
  SmallVector<Type> types;
  for (auto [index, arg] : llvm::enumerate(args)) {
    Type kernelType =
        getKernelArgType(arg.getType(), llvm::is_contained(dynamicCols, index));
    if (!memref::CastOp::areCastCompatible(arg.getType(), kernelType))
      return op->emitOpError()
             << "operand of type " << arg.getType()
             << " is not a row-contiguous view the kernels take";
    if (kernelType != arg.getType())
      arg = memref::CastOp::create(builder, op->getLoc(), kernelType, arg);
    types.push_back(kernelType);
  }
  return types;
}
