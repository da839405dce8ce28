//===- qmat-opt.cpp - qmat optimizer driver -------------------------------===//
//
// mlir-opt with the qmat dialect, passes and named pipelines registered, so
// that every pass and pipeline stage can be run and lit-tested on its own.
// An input nested deeper than the parser can recurse is refused first
// (qmat/Support/InputNesting.h). QMAT_LOG=info logs the strategy passes'
// decisions to stderr, debug also every pass as it starts
// (qmat/Pipelines/DecisionLog.h).
//
//===----------------------------------------------------------------------===//

#include "qmat/InitAll.h"
#include "qmat/Pipelines/DecisionLog.h"
#include "qmat/Support/InputNesting.h"
#include "qmat/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  mlir::qmat::registerAllPassesAndPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module bodies to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::qmat::registerAllDialects(registry);

  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "qmat-opt (qmat " QMAT_VERSION ", " QMAT_GIT_DESCRIBE ")\n";
  });
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "qmat optimizer driver: block-quantized matmul compiler\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  mlir::qmat::LogLevel level =
      mlir::qmat::getLogLevel("qmat-opt", mlir::qmat::LogLevel::off);
  if (level != mlir::qmat::LogLevel::off) {
    mlir::MlirOptMainConfig passes = config;
    config.setPassPipelineSetupFn([passes, level](mlir::PassManager &pm) {
      if (mlir::failed(passes.setupPassPipeline(pm)))
        return mlir::failure();
      mlir::qmat::addDecisionLog(pm, level, "qmat-opt", llvm::errs());
      return mlir::success();
    });
  }
  // Listings read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (const char *deep = mlir::qmat::findExcessiveNesting(input->getBuffer())) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(deep),
                           llvm::SourceMgr::DK_Error,
                           mlir::qmat::getExcessiveNestingMessage());
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
