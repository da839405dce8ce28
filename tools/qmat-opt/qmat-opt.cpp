//===- qmat-opt.cpp - qmat optimizer driver -------------------------------===//
//
// mlir-opt with the qmat dialect, passes and named pipelines registered, so
// that every pass and pipeline stage can be run and lit-tested on its own.
//
//===----------------------------------------------------------------------===//

#include "qmat/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::qmat::registerAllPassesAndPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module bodies to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::qmat::registerAllDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "qmat optimizer driver: block-quantized matmul compiler\n",
      registry));
}
