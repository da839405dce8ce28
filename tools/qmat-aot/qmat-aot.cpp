//===- qmat-aot.cpp - Ahead-of-time kernel bundles ------------------------===//
//
// qmat-aot model.mlir --target=sm_90[,sm_100][,gfx942] -o outdir/
// writes outdir/<prefix>.h, <prefix>.cpp (launcher with the GPU binaries
// embedded), <prefix>.manifest.json, and prints a summary of what runs.
// One bundle per vendor: NVIDIA targets get a CUDA launcher, AMD targets a
// HIP one (named <prefix>_hip when both are requested).
//
//===----------------------------------------------------------------------===//

#include "qmat/AOT/Bundle.h"
#include "qmat/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::qmat;

namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::Required);
static cl::opt<std::string> outputDir("o", cl::desc("Output directory"),
                                      cl::value_desc("dir"), cl::Required);
static cl::list<std::string>
    targets("target",
            cl::desc("Targets, comma separated (sm_80, sm_89, sm_90, "
                     "sm_100, sm_120, gfx942, gfx950)"),
            cl::CommaSeparated);
static cl::opt<int64_t> scratchCapMiB("scratch-cap-mib",
                                      cl::desc("Scratch cap in MiB"),
                                      cl::init(256));
static cl::opt<int64_t> gemvMaxM("gemv-max-m",
                                 cl::desc("Largest M for the decode path (an "
                                          "error when no compiled GEMV variant "
                                          "holds that many rows)"),
                                 cl::init(8));
static cl::opt<int64_t> fusedMaxM(
    "fused-max-m",
    cl::desc("Largest M for the fused dequant-GEMM: M above the GEMV up to "
             "this runs without scratch (0: none, every such M "
             "dequantizes for the vendor GEMM; -1: the target's default)"),
    cl::init(-1));
static cl::list<int64_t> fusedVariants(
    "fused-variants", cl::CommaSeparated,
    cl::desc("Fused GEMM tilings compiled, as (m_tile, warps_n, split_k, "
             "col_tiles) quadruples (default: the built-in set)"));
static cl::list<int64_t>
    gemvSplitK("gemv-split-k", cl::CommaSeparated,
               cl::desc("Split-K factors of the compiled GEMV variants "
                        "(default 1,2,4,8,16, and 3 for whole-line kernels)"));
static cl::list<int64_t>
    gemvColTiles("gemv-col-tiles", cl::CommaSeparated,
                 cl::desc("Column tiles of the compiled GEMV variants "
                          "(default 1,2,4)"));
static cl::opt<bool> preparedWeights(
    "prepared-weights",
    cl::desc("Take the prepared code layout (each layer's "
             "<layer>_prepare_weights writes it) for every layer of packed "
             "4-bit codes with K % 128 == 0 and N % 16 == 0"),
    cl::init(false));
static cl::opt<std::string>
    emit("emit", cl::desc("Also embed: ptx (forward compat.)"), cl::init(""));
static cl::opt<std::string> prefix("prefix",
                                   cl::desc("C symbol prefix and file name"),
                                   cl::init("qmat"));

static bool isIdentifier(StringRef s) {
  if (s.empty() || llvm::isDigit(s[0]))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

static LogicalResult writeFile(StringRef path,
                               function_ref<void(llvm::raw_ostream &)> body) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "qmat-aot: " << error << "\n";
    return failure();
  }
  body(file->os());
  file->keep();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "qmat ahead-of-time bundle generator\n");

  if (!isIdentifier(prefix)) {
    llvm::errs() << "qmat-aot: --prefix must be a C identifier, got '" << prefix
                 << "'\n";
    return 1;
  }
  std::vector<std::string> targetList(targets.begin(), targets.end());
  for (auto [i, target] : llvm::enumerate(targetList))
    if (llvm::is_contained(ArrayRef(targetList).take_front(i), target)) {
      llvm::errs() << "qmat-aot: target '" << target << "' is listed twice\n";
      return 1;
    }
  if (emit != "" && emit != "ptx") {
    llvm::errs() << "qmat-aot: --emit takes 'ptx', got '" << emit << "'\n";
    return 1;
  }

  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  qmat::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "qmat-aot: " << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  BundleOptions options;
  if (!targets.empty())
    options.targets.assign(targets.begin(), targets.end());
  options.scratchCapMiB = scratchCapMiB;
  options.gemvMaxM = gemvMaxM;
  options.fusedMaxM = fusedMaxM;
  options.fusedVariants.assign(fusedVariants.begin(), fusedVariants.end());
  options.gemvSplitK.assign(gemvSplitK.begin(), gemvSplitK.end());
  options.gemvColTiles.assign(gemvColTiles.begin(), gemvColTiles.end());
  options.emitPtx = emit == "ptx";
  options.preparedWeights = preparedWeights;
  options.prefix = prefix;
  FailureOr<std::vector<Bundle>> bundles = compileBundles(*module, options);
  if (failed(bundles))
    return 1;
  if (bundles->empty() || bundles->front().layers.empty()) {
    llvm::errs() << "qmat-aot: " << inputFile
                 << " holds no qmat.matmul layer\n";
    return 1;
  }

  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir)) {
    llvm::errs() << "qmat-aot: cannot create " << outputDir << ": "
                 << ec.message() << "\n";
    return 1;
  }
  for (const Bundle &bundle : *bundles) {
    std::string base = outputDir + "/" + bundle.prefix;
    if (failed(writeFile(
            base + ".h",
            [&](llvm::raw_ostream &os) { emitLauncherHeader(bundle, os); })) ||
        failed(writeFile(
            base + ".cpp",
            [&](llvm::raw_ostream &os) { emitLauncherSource(bundle, os); })) ||
        failed(writeFile(base + ".manifest.json", [&](llvm::raw_ostream &os) {
          emitManifest(bundle, os);
        })))
      return 1;
    for (const TargetBinary &t : bundle.targets) {
      if (failed(writeFile(base + "." + t.chip + "." +
                               getBinaryExtension(bundle).str(),
                           [&](llvm::raw_ostream &os) { os << t.cubin; })))
        return 1;
      if (!t.ptx.empty() &&
          failed(writeFile(base + "." + t.chip + ".ptx",
                           [&](llvm::raw_ostream &os) { os << t.ptx; })))
        return 1;
    }
    emitSummary(bundle, llvm::outs());
  }
  return 0;
}
