//===- SerializeKernelsToPtx.cpp - Kernels to PTX, one module each --------===//

#include "PtxMerge.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATSERIALIZEKERNELSTOPTX
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;

namespace {

/// A gpu.module holding `kernel` of `source` and every symbol it references,
/// transitively, in `source`'s order, inside a builtin.module of its own.
OwningOpRef<ModuleOp> extractKernel(gpu::GPUModuleOp source,
                                    SymbolTable &symbols, Operation *kernel) {
  llvm::SetVector<Operation *> needed;
  needed.insert(kernel);
  for (size_t i = 0; i < needed.size(); ++i)
    if (auto uses = SymbolTable::getSymbolUses(needed[i]))
      for (const SymbolTable::SymbolUse &use : *uses)
        if (Operation *symbol = symbols.lookup(
                use.getSymbolRef().getRootReference().getValue()))
          needed.insert(symbol);
  OwningOpRef<ModuleOp> holder = ModuleOp::create(source.getLoc());
  Operation *part = source->cloneWithoutRegions();
  holder->getBody()->push_back(part);
  Block &body = part->getRegion(0).emplaceBlock();
  for (Operation &op : *source.getBody())
    if (needed.contains(&op))
      body.push_back(op.clone());
  return holder;
}

struct QMatSerializeKernelsToPtxPass
    : qmat::impl::QMatSerializeKernelsToPtxBase<QMatSerializeKernelsToPtxPass> {
  using Base::Base;

  /// The PTX of `gpuModule` for `target`: kernel by kernel in parallel and
  /// joined, or the whole module at once.
  std::optional<SmallVector<char, 0>>
  serialize(gpu::GPUModuleOp gpuModule, gpu::TargetAttrInterface target,
            const gpu::TargetOptions &options) {
    SmallVector<Operation *> kernels;
    for (Operation &op : *gpuModule.getBody())
      if (op.hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
        kernels.push_back(&op);
    if (kernels.size() < 2)
      return target.serializeToObject(gpuModule, options);
    SymbolTable symbols(gpuModule);
    SmallVector<OwningOpRef<ModuleOp>> parts;
    for (Operation *kernel : kernels)
      parts.push_back(extractKernel(gpuModule, symbols, kernel));
    std::vector<std::string> ptx(parts.size());
    LogicalResult compiled = failableParallelForEachN(
        &getContext(), 0, parts.size(), [&](size_t i) -> LogicalResult {
          Operation *part = &parts[i]->getBody()->front();
          std::optional<SmallVector<char, 0>> object =
              target.serializeToObject(part, options);
          if (!object)
            return failure();
          ptx[i].assign(object->begin(), object->end());
          return success();
        });
    if (failed(compiled))
      return std::nullopt;
    std::string error;
    std::string merged = qmat::mergePtxModules(ptx, error);
    // Kernels whose modules cannot be joined take the whole module: the
    // same kernels, on one thread.
    if (merged.empty())
      return target.serializeToObject(gpuModule, options);
    return SmallVector<char, 0>(merged.begin(), merged.end());
  }

  void runOnOperation() override {
    gpu::TargetOptions options(toolkitPath, /*librariesToLink=*/{},
                               /*cmdOptions=*/{}, /*elfSection=*/{},
                               gpu::CompilationTarget::Assembly);
    SmallVector<gpu::GPUModuleOp> gpuModules(
        getOperation().getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      ArrayAttr targets = gpuModule.getTargetsAttr();
      auto nvvm = targets && targets.size() == 1
                      ? dyn_cast<NVVM::NVVMTargetAttr>(targets[0])
                      : NVVM::NVVMTargetAttr();
      if (!nvvm) {
        gpuModule.emitError() << "qmat-serialize-kernels-to-ptx needs one "
                                 "#nvvm.target on the gpu.module";
        return signalPassFailure();
      }
      auto target = cast<gpu::TargetAttrInterface>(nvvm);
      std::optional<SmallVector<char, 0>> ptx =
          serialize(gpuModule, target, options);
      if (!ptx) {
        gpuModule.emitError() << "the kernels' PTX could not be generated";
        return signalPassFailure();
      }
      Attribute object = target.createObject(gpuModule, *ptx, options);
      if (!object) {
        gpuModule.emitError() << "no object for the kernels' PTX";
        return signalPassFailure();
      }
      OpBuilder builder(gpuModule);
      gpu::BinaryOp::create(builder, gpuModule.getLoc(), gpuModule.getName(),
                            gpuModule.getOffloadingHandlerAttr(),
                            builder.getArrayAttr({object}));
      gpuModule.erase();
    }
  }
};

} // namespace
