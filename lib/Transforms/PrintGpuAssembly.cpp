//===- PrintGpuAssembly.cpp - Show the PTX / ISA of gpu.binary ops --------===//

#include "qmat/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATPRINTGPUASSEMBLY
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;

namespace {

struct QMatPrintGpuAssemblyPass
    : qmat::impl::QMatPrintGpuAssemblyBase<QMatPrintGpuAssemblyPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::BinaryOp binary) {
      bool printed = false;
      for (Attribute attr : binary.getObjects()) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
          continue;
        printed = true;
        llvm::outs() << "// qmat-gpu-assembly @" << binary.getSymName() << " "
                     << object.getTarget() << "\n"
                     << object.getObject().getValue() << "\n";
      }
      if (!printed)
        binary.emitWarning() << "holds no assembly to print (compile with "
                                "format=isa)";
    });
  }
};

} // namespace
