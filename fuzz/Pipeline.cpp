//===- Pipeline.cpp - Fuzz strategy selection and the lowering ------------===//
//
// A verified module of qmat input (and an optional options line, see
// FuzzCommon.h): qmat-select-strategy, then the planned matmuls and
// dequantize ops to host loops and gpu.modules in the target's LLVM dialect
// (qmat-to-gpu-binary up to, not including, gpu-module-to-binary: no
// ptxas and no LLVM code generation).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "mlir/Pass/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::qmat::GpuPipelineOptions options;
  if (!qmat_fuzz::parseOptions(text, options))
    return 0;
  qmat_fuzz::FuzzContext fuzz;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      qmat_fuzz::parseModule(fuzz.context, text);
  if (!module || !qmat_fuzz::holdsOnlyQMatInput(*module))
    return -1; // Not kept in the corpus: it never reaches a pass.
  mlir::PassManager pm(&fuzz.context);
  mlir::qmat::buildStrategyPipeline(pm, options);
  mlir::qmat::buildPlannedToLLVMPipeline(pm, options);
  (void)pm.run(*module);
  return 0;
}
