//===- qmat-aot.cpp - Ahead-of-time kernel bundles ------------------------===//
//
// qmat-aot model.mlir --target=sm_90[,sm_100a][,gfx942] -o outdir/
// writes outdir/<prefix>.h, <prefix>.cpp (launcher with the GPU binaries
// embedded), <prefix>.manifest.json, and prints a summary of what runs.
// One bundle per vendor: NVIDIA targets get a CUDA launcher, AMD targets a
// HIP one (named <prefix>_hip when both are requested).
//
//===----------------------------------------------------------------------===//

#include "qmat/AOT/Bundle.h"
#include "qmat/AOT/Targets.h"
#include "qmat/Dialect/QMat/IR/FusedGemm.h"
#include "qmat/InitAll.h"
#include "qmat/Pipelines/DecisionLog.h"
#include "qmat/Support/InputNesting.h"
#include "qmat/Target/TargetInfo.h"
#include "qmat/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::qmat;

namespace cl = llvm::cl;

namespace {

cl::OptionCategory qmatCategory("qmat-aot options");

enum class EmitKind { none, ptx };

// cl::desc keeps a reference: the text lives as long as the option.
const std::string targetHelp =
    "GPU targets, comma separated, each once (default sm_90): " +
    getTargetNameList() +
    ". A cubin runs on devices of its major version and a minor at or above "
    "its own, an sm_XYa one on X.Y only";

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.mlir>"),
                               cl::Required, cl::cat(qmatCategory));
cl::opt<std::string> outputDir("o", cl::desc("Output directory"),
                               cl::value_desc("dir"), cl::Required,
                               cl::cat(qmatCategory));
cl::list<std::string> targets("target", cl::CommaSeparated,
                              cl::value_desc("target,..."),
                              cl::desc(targetHelp), cl::cat(qmatCategory));
cl::opt<EmitKind> emit(
    "emit", cl::desc("Also embed (default: nothing more)"),
    cl::values(clEnumValN(EmitKind::ptx, "ptx",
                          "each target's PTX, which the driver compiles for "
                          "a device no cubin runs on")),
    cl::init(EmitKind::none), cl::cat(qmatCategory));
cl::opt<std::string>
    prefix("prefix",
           cl::desc("C symbol prefix and file name, a C identifier (default "
                    "qmat)"),
           cl::value_desc("name"), cl::init("qmat"), cl::cat(qmatCategory));
cl::opt<int64_t>
    scratchCapMiB("scratch-cap-mib",
                  cl::desc("Cap on a layer's dequantized scratch in MiB, in "
                           "[1, 1048576] (default 256)"),
                  cl::value_desc("MiB"), cl::init(256), cl::cat(qmatCategory));
cl::opt<int64_t>
    gemvMaxM("gemv-max-m",
             cl::desc("Largest M for the decode GEMV, in [0, 64] (default 8; "
                      "0: none; an error when no compiled GEMV variant holds "
                      "that many rows)"),
             cl::value_desc("rows"), cl::init(8), cl::cat(qmatCategory));
cl::opt<int64_t> fusedMaxM(
    "fused-max-m",
    cl::desc("Largest M for the fused dequant-GEMM, in [-1, 2147483647] "
             "(default -1: the target's default, 256 on sm_90a for the "
             "packed schemes without prepared weights, else 128; 0: none, "
             "every M above the GEMV dequantizes for the vendor GEMM)"),
    cl::value_desc("rows"), cl::init(-1), cl::cat(qmatCategory));
cl::list<int64_t> fusedVariants(
    "fused-variants", cl::CommaSeparated, cl::value_desc("m,w,s,c,p,..."),
    cl::desc("Fused GEMM tilings compiled, as (m_tile, warps_n, split_k, "
             "col_tiles, stages) quintuples of positive integers (default: "
             "the built-in set)"),
    cl::cat(qmatCategory));
cl::list<int64_t> fusedWarpgroupVariants(
    "fused-warpgroup-variants", cl::CommaSeparated,
    cl::value_desc("m,w,s,c,..."),
    cl::desc("Fused GEMM tilings compiled with the warpgroup matrix "
             "instruction where a target has it (sm_90a), as (m_tile, "
             "warps_n, split_k, col_tiles) quadruples (stages: the most of "
             "3-4 whose activations and codes fit in 112 KB; default none)"),
    cl::cat(qmatCategory));
cl::list<int64_t> fusedSpecializedVariants(
    "fused-specialized-variants", cl::CommaSeparated, cl::value_desc("m,c,..."),
    cl::desc(
        "Fused GEMM tilings of the specialized warpgroup form "
        "(col_tiles warpgroups multiply, one decodes into workgroup "
        "memory; sm_90a), as (m_tile, col_tiles) pairs (stages: the "
        "most of 3-4 that fit in 227 KB; default 128,1,256,1 on sm_90a "
        "where fused-max-m > 128, and 256,2 where it is 512 or more; "
        "else none; a list of either specialized form replaces both defaults)"),
    cl::cat(qmatCategory));
cl::list<int64_t> fusedSpecializedBVariants(
    "fused-specialized-b-variants", cl::CommaSeparated,
    cl::value_desc("m,c,..."),
    cl::desc("Fused GEMM tilings of the specialized form with the weights "
             "as the warpgroup instruction's B operand (a warpgroup "
             "multiplies per 64 tokens, 16 x col_tiles weight rows per "
             "block; sm_90a), as (m_tile, col_tiles) pairs (default 64,9,128,9 "
             "with the other specialized defaults; else none)"),
    cl::cat(qmatCategory));
cl::list<int64_t> fusedSlicedVariants(
    "fused-sliced-variants", cl::CommaSeparated,
    cl::value_desc("m,w,s,c,p,k,..."),
    cl::desc("Fused GEMM warp tilings whose K range is split across the "
             "blocks of a thread-block cluster (sm_90 on), as (m_tile, "
             "warps_n, split_k, col_tiles, stages, k_slices) sextuples "
             "(default none)"),
    cl::cat(qmatCategory));
cl::list<int64_t> fusedMulticastVariants(
    "fused-multicast-variants", cl::CommaSeparated,
    cl::value_desc("m,c,b,x,..."),
    cl::desc("Fused GEMM tilings of the specialized form whose clusters of "
             "x blocks along N share each stage's activations through the "
             "tensor copy's multicast (sm_90a), as (m_tile, col_tiles, "
             "weights_as_b, multicast) quadruples (default none)"),
    cl::cat(qmatCategory));
cl::list<int64_t> fusedSpecializedSlicedVariants(
    "fused-specialized-sliced-variants", cl::CommaSeparated,
    cl::value_desc("m,c,k,..."),
    cl::desc("Fused GEMM tilings of the specialized form whose K range is "
             "split across the k blocks of a thread-block cluster (sm_90a), "
             "as (m_tile, col_tiles, k_slices) triples (default 128,1,2 with "
             "the other specialized defaults where N is under 160 x 64 rows "
             "and K at least 256 x 64; else none)"),
    cl::cat(qmatCategory));
cl::list<int64_t> fusedRegisterVariants(
    "fused-register-variants", cl::CommaSeparated, cl::value_desc("m,c,..."),
    cl::desc("Fused GEMM tilings of the specialized form with the decoded "
             "weights in the multiplying warps' registers (sm_90a), as "
             "(m_tile, col_tiles) pairs (default none)"),
    cl::cat(qmatCategory));
cl::list<int64_t> fusedDecoderVariants(
    "fused-decoder-variants", cl::CommaSeparated, cl::value_desc("m,c,b,d,..."),
    cl::desc("Fused GEMM tilings of the specialized form with d decoding "
             "warpgroups (1 to 3) in place of the tiling's default "
             "(sm_90a), as (m_tile, col_tiles, weights_as_b, decoders) "
             "quadruples (default none)"),
    cl::cat(qmatCategory));
cl::list<int64_t> gemvSplitK(
    "gemv-split-k", cl::CommaSeparated, cl::value_desc("k,..."),
    cl::desc("Split-K factors of the compiled GEMV variants, of 1, 2, 3, 4, "
             "8, 16 (default 1,2,4,8,16, and 3 for whole-line kernels)"),
    cl::cat(qmatCategory));
cl::list<int64_t> gemvColTiles(
    "gemv-col-tiles", cl::CommaSeparated, cl::value_desc("c,..."),
    cl::desc("Column tiles of the compiled GEMV variants, of 1, 2, 4 "
             "(default 1,2,4)"),
    cl::cat(qmatCategory));
cl::opt<bool> allGemvVariants(
    "all-gemv-variants",
    cl::desc("Compile every GEMV variant of the split-K and column-tile "
             "lists, not only those the launcher's policy can choose for "
             "each layer's N and K (to time each; default off)"),
    cl::init(false), cl::cat(qmatCategory));
cl::opt<bool> preparedWeights(
    "prepared-weights",
    cl::desc("Take the prepared code layout (each layer's "
             "<layer>_prepare_weights writes it) for every layer of packed "
             "4-bit codes with K % 128 == 0 and N % 16 == 0 (default off)"),
    cl::init(false), cl::cat(qmatCategory));
cl::opt<std::string> cudaRoot(
    "cuda-root",
    cl::desc("CUDA toolkit whose bin/ptxas builds NVIDIA targets (default: "
             "$CUDA_ROOT, else ptxas on PATH, else " QMAT_DEFAULT_CUDA_PATH
             ")"),
    cl::value_desc("dir"), cl::cat(qmatCategory));
cl::opt<std::string> rocmRoot(
    "rocm-root",
    cl::desc("Toolkit whose llvm/bin/ld.lld links AMD targets (default: "
             "the build's own, LLVM 22's ld.lld)"),
    cl::value_desc("dir"), cl::cat(qmatCategory));
cl::opt<bool> quiet("quiet",
                    cl::desc("No progress lines on stderr, whatever QMAT_LOG "
                             "says (default off)"),
                    cl::init(false), cl::cat(qmatCategory));

/// What QMAT_LOG asks of the progress lines: none (off), a line per target
/// and layer (info, and the default), those and a line per kernel with the
/// stages' times (debug: true).
std::optional<bool> getProgressDetail() {
  switch (getLogLevel("qmat-aot", LogLevel::info)) {
  case LogLevel::off:
    return std::nullopt;
  case LogLevel::info:
    return false;
  case LogLevel::debug:
    return true;
  }
  llvm_unreachable("unknown log level");
}

/// `option`'s value is outside [min, max]: reports it, naming the option.
bool outOfRange(cl::Option &option, int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max)
    return false;
  return option.error("must be in [" + Twine(min) + ", " + Twine(max) +
                      "], got " + Twine(value));
}

/// Whether a tiling list is not made of `size`-tuples of positive 32-bit
/// integers (`tuples` names them; the number at `flagAt` of each may be 0 or
/// 1), and reports it.
bool badTilings(cl::list<int64_t> &option, size_t size, StringRef tuples,
                size_t flagAt = SIZE_MAX) {
  for (auto [i, value] : llvm::enumerate(option))
    if (i % size == flagAt ? outOfRange(option, value, 0, 1)
                           : outOfRange(option, value, 1, INT32_MAX))
      return true;
  if (option.size() % size != 0)
    return option.error("takes " + tuples + ", got " + Twine(option.size()) +
                        " values");
  return false;
}

/// Whether some value of `option` is not among `choices` (and reports it).
bool notAmong(cl::list<int64_t> &option, ArrayRef<int64_t> choices) {
  for (int64_t value : option)
    if (!llvm::is_contained(choices, value)) {
      std::string list;
      for (int64_t c : choices)
        list += (list.empty() ? "" : ", ") + std::to_string(c);
      return option.error("takes " + list + ", got " + Twine(value));
    }
  return false;
}

/// The checks of option values that need no input: each bad value is
/// reported naming its option, before anything is read or compiled.
/// (LLVM's parser already refused what is not an integer.)
bool hasBadOption() {
  for (const std::string &target : targets) {
    std::string error = checkTargetName(target);
    if (!error.empty())
      return targets.error(error);
  }
  std::vector<std::string> names(targets.begin(), targets.end());
  for (auto [i, target] : llvm::enumerate(names))
    if (llvm::is_contained(ArrayRef(names).take_front(i), target))
      return targets.error("'" + target + "' is listed twice");
  if (prefix.empty() || llvm::isDigit(prefix[0]) ||
      !llvm::all_of(prefix,
                    [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return prefix.error("must be a C identifier, got '" + prefix + "'");
  if (outOfRange(scratchCapMiB, scratchCapMiB, 1, int64_t(1) << 20) ||
      outOfRange(gemvMaxM, gemvMaxM, 0, 64) ||
      outOfRange(fusedMaxM, fusedMaxM, -1, kMaxFusedMaxM))
    return true;
  if (badTilings(fusedVariants, 5,
                 "quintuples (m_tile, warps_n, split_k, col_tiles, stages)") ||
      badTilings(fusedWarpgroupVariants, 4,
                 "quadruples (m_tile, warps_n, split_k, col_tiles)") ||
      badTilings(fusedSpecializedVariants, 2, "pairs (m_tile, col_tiles)") ||
      badTilings(fusedSpecializedBVariants, 2, "pairs (m_tile, col_tiles)") ||
      badTilings(fusedSlicedVariants, 6,
                 "sextuples (m_tile, warps_n, split_k, col_tiles, stages, "
                 "k_slices)") ||
      badTilings(fusedMulticastVariants, 4,
                 "quadruples (m_tile, col_tiles, weights_as_b, multicast)",
                 /*flagAt=*/2) ||
      badTilings(fusedSpecializedSlicedVariants, 3,
                 "triples (m_tile, col_tiles, k_slices)") ||
      badTilings(fusedRegisterVariants, 2, "pairs (m_tile, col_tiles)") ||
      badTilings(fusedDecoderVariants, 4,
                 "quadruples (m_tile, col_tiles, weights_as_b, decoders)",
                 /*flagAt=*/2))
    return true;
  return notAmong(gemvSplitK, {1, 2, 3, 4, 8, 16}) ||
         notAmong(gemvColTiles, {1, 2, 4});
}

LogicalResult writeFile(StringRef path,
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

/// The CUDA toolkit whose ptxas builds the NVIDIA targets: --cuda-root or
/// $CUDA_ROOT where given (and then only there), else the one holding the
/// ptxas on PATH, else the configured default. Reports and fails when it
/// has none, naming where it looked and what to set.
FailureOr<std::string> findCudaToolkit() {
  auto hasPtxas = [](StringRef root) {
    SmallString<256> path(root);
    llvm::sys::path::append(path, "bin", "ptxas");
    return llvm::sys::fs::can_execute(path);
  };
  std::optional<std::string> env = llvm::sys::Process::GetEnv("CUDA_ROOT");
  StringRef given = !cudaRoot.empty() ? StringRef(cudaRoot)
                    : env             ? StringRef(*env)
                                      : StringRef();
  if (!given.empty()) {
    if (hasPtxas(given))
      return given.str();
    llvm::errs() << "qmat-aot: no ptxas in "
                 << (!cudaRoot.empty() ? "--cuda-root=" : "CUDA_ROOT=") << given
                 << " (looked for " << given
                 << "/bin/ptxas); NVIDIA targets need the CUDA toolkit's "
                    "ptxas: point "
                 << (!cudaRoot.empty() ? "--cuda-root" : "CUDA_ROOT")
                 << " at the toolkit's directory\n";
    return failure();
  }
  if (llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName("ptxas"))
    return llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas))
        .str();
  if (hasPtxas(QMAT_DEFAULT_CUDA_PATH))
    return std::string(QMAT_DEFAULT_CUDA_PATH);
  llvm::errs() << "qmat-aot: ptxas not found (looked on PATH and in "
               << QMAT_DEFAULT_CUDA_PATH
               << "/bin); NVIDIA targets need the CUDA toolkit's ptxas: pass "
                  "--cuda-root=<dir> or set CUDA_ROOT to the toolkit's "
                  "directory\n";
  return failure();
}

/// The toolkit whose llvm/bin/ld.lld links the AMD targets.
FailureOr<std::string> findRocmToolkit(StringRef chip) {
  std::string root = rocmRoot;
  if (root.empty()) {
    std::string error;
    if (auto info = lookupTargetInfo(chip, error))
      root = info->getBinaryToolkitPath();
  }
  SmallString<256> path(root);
  llvm::sys::path::append(path, "llvm", "bin", "ld.lld");
  if (llvm::sys::fs::can_execute(path))
    return root;
  llvm::errs() << "qmat-aot: no ld.lld at " << path
               << "; AMD targets link their hsaco with it: pass "
                  "--rocm-root=<dir> (a ROCm install, or a directory holding "
                  "llvm/bin/ld.lld)\n";
  return failure();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // MLIR's debugging options, as in qmat-opt (--help-hidden lists them).
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "qmat-aot (qmat " QMAT_VERSION ", " QMAT_GIT_DESCRIBE ")\n";
  });
  // --help lists qmat-aot's options; LLVM's and MLIR's stay in
  // --help-hidden (cl::HideUnrelatedOptions would drop them from it too).
  for (auto &[name, option] : cl::getRegisteredOptions()) {
    bool generic = name.starts_with("help") || name == "version";
    if (!generic && !llvm::is_contained(option->Categories, &qmatCategory) &&
        option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
  cl::ParseCommandLineOptions(
      argc, argv,
      "qmat ahead-of-time bundle generator\n\n"
      "Compiles every qmat.matmul layer of a module into GPU binaries and a "
      "C launcher.\nMLIR's debugging options (--mlir-print-ir-after-all, "
      "--mlir-print-ir-after-failure,\n--mlir-timing, ...) are listed by "
      "--help-hidden.\n");

  if (hasBadOption())
    return 1;
  std::vector<std::string> targetList(targets.begin(), targets.end());
  if (targetList.empty())
    targetList = BundleOptions().targets;

  BundleOptions options;
  options.targets = targetList;
  if (llvm::any_of(targetList, [](const std::string &t) {
        return lookupNvidiaTarget(t) != nullptr;
      })) {
    FailureOr<std::string> cuda = findCudaToolkit();
    if (failed(cuda))
      return 1;
    options.cudaToolkitPath = *cuda;
  }
  for (const std::string &target : targetList) {
    if (lookupNvidiaTarget(target))
      continue;
    FailureOr<std::string> rocm = findRocmToolkit(target);
    if (failed(rocm))
      return 1;
    options.rocmToolkitPath = *rocm;
    break;
  }

  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  qmat::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A diagnostic names its location and says what is wrong; the module it
  // sits in (the whole model, possibly lowered) is printed only when asked
  // for with --mlir-print-op-on-diagnostic.
  if (!cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic") ||
      cl::getRegisteredOptions()
              .lookup("mlir-print-op-on-diagnostic")
              ->getNumOccurrences() == 0)
    context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "qmat-aot: " << error << "\n";
    return 1;
  }
  if (const char *deep = findExcessiveNesting(input->getBuffer())) {
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(deep),
                           llvm::SourceMgr::DK_Error,
                           getExcessiveNestingMessage());
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope timingScope = timing.getRootScope();

  options.scratchCapMiB = scratchCapMiB;
  options.gemvMaxM = gemvMaxM;
  options.fusedMaxM = fusedMaxM;
  options.fusedVariants.assign(fusedVariants.begin(), fusedVariants.end());
  options.fusedWarpgroupVariants.assign(fusedWarpgroupVariants.begin(),
                                        fusedWarpgroupVariants.end());
  options.fusedSpecializedVariants.assign(fusedSpecializedVariants.begin(),
                                          fusedSpecializedVariants.end());
  options.fusedSpecializedBVariants.assign(fusedSpecializedBVariants.begin(),
                                           fusedSpecializedBVariants.end());
  options.fusedSlicedVariants.assign(fusedSlicedVariants.begin(),
                                     fusedSlicedVariants.end());
  options.fusedMulticastVariants.assign(fusedMulticastVariants.begin(),
                                        fusedMulticastVariants.end());
  options.fusedSpecializedSlicedVariants.assign(
      fusedSpecializedSlicedVariants.begin(),
      fusedSpecializedSlicedVariants.end());
  options.fusedRegisterVariants.assign(fusedRegisterVariants.begin(),
                                       fusedRegisterVariants.end());
  options.fusedDecoderVariants.assign(fusedDecoderVariants.begin(),
                                      fusedDecoderVariants.end());
  options.gemvSplitK.assign(gemvSplitK.begin(), gemvSplitK.end());
  options.gemvColTiles.assign(gemvColTiles.begin(), gemvColTiles.end());
  options.allGemvVariants = allGemvVariants;
  options.emitPtx = emit == EmitKind::ptx;
  options.preparedWeights = preparedWeights;
  options.prefix = prefix;
  if (std::optional<bool> detailed = getProgressDetail(); detailed && !quiet) {
    options.progress = &llvm::errs();
    options.detailedProgress = *detailed;
  }
  options.configurePassManager = [&](PassManager &pm) -> LogicalResult {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    if (timing.isEnabled())
      pm.enableTiming(timingScope);
    return success();
  };
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
