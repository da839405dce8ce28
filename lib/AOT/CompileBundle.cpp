//===- CompileBundle.cpp - Compile layers for every target ----------------===//

#include "Ptxas.h"
#include "qmat/AOT/Bundle.h"
#include "qmat/AOT/Targets.h"
#include "qmat/Pipelines/Pipelines.h"
#include "qmat/Target/TargetInfo.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

#include <chrono>
#include <future>
#include <map>

using namespace mlir;
using namespace mlir::qmat;

std::optional<int64_t> mlir::qmat::computeScratchBytes(int64_t tileRows,
                                                       int64_t k) {
  if (tileRows <= 0 || k <= 0)
    return std::nullopt;
  std::optional<int64_t> bytes = llvm::checkedMul<int64_t>(tileRows, k);
  if (bytes)
    bytes = llvm::checkedMul<int64_t>(*bytes, 2);
  if (!bytes || *bytes > kMaxScratchBytes)
    return std::nullopt;
  return llvm::alignTo(*bytes, 256);
}

int64_t mlir::qmat::getScratchBytes(const Layer &layer) {
  return computeScratchBytes(layer.plan.getTileRows(), layer.k).value_or(0);
}

std::string mlir::qmat::getLayerSymbol(StringRef name) {
  std::string symbol;
  if (name.empty() || llvm::isDigit(name.front()))
    symbol = "_";
  for (char c : name)
    symbol += llvm::isAlnum(c) || c == '_' ? c : '_';
  return symbol;
}

namespace {

/// The layers of `module`: one qmat.matmul per function, every operand a
/// function argument (the launcher passes them straight through).
FailureOr<std::vector<Layer>> collectLayers(ModuleOp planned,
                                            const BundleOptions &options,
                                            bool slicedDefaults) {
  std::vector<Layer> layers;
  bool failedAny = false;
  // A matmul outside a function has no entry point to become.
  planned.walk([&](MatmulOp op) {
    if (!op->getParentOfType<func::FuncOp>()) {
      op.emitOpError() << "qmat-aot needs each qmat.matmul inside a func.func "
                          "(one launcher entry per layer)";
      failedAny = true;
    }
  });
  // The C symbol of each layer, and the layer it came from.
  std::map<std::string, std::string> symbols;
  planned.walk([&](func::FuncOp func) {
    SmallVector<MatmulOp> matmuls;
    func.walk([&](MatmulOp op) { matmuls.push_back(op); });
    if (matmuls.empty())
      return;
    if (matmuls.size() != 1) {
      func.emitError() << "qmat-aot needs one qmat.matmul per function (one "
                          "launcher entry per layer), found "
                       << matmuls.size();
      failedAny = true;
      return;
    }
    MatmulOp op = matmuls.front();
    // The lowering dispatches on M around the matmul it finds there; one
    // under control flow would lose its small-M path.
    if (op->getParentOp() != func) {
      op.emitOpError() << "qmat-aot needs each qmat.matmul directly in the "
                          "body of its function, not inside '"
                       << op->getParentOp()->getName() << "'";
      failedAny = true;
      return;
    }
    for (Value operand : op->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner()->getParentOp() != func) {
        op.emitOpError() << "operands must be arguments of the enclosing "
                            "function for qmat-aot to pass them through";
        failedAny = true;
        return;
      }
    }
    Layer layer;
    layer.name = func.getSymName().str();
    // The manifest (JSON) and the launcher's messages carry the name as
    // written.
    if (!llvm::json::isUTF8(layer.name)) {
      func.emitError() << "a layer's name must be valid UTF-8 (the manifest "
                          "carries it as written)";
      failedAny = true;
      return;
    }
    layer.symbol = getLayerSymbol(layer.name);
    auto [it, inserted] = symbols.try_emplace(layer.symbol, layer.name);
    if (!inserted) {
      func.emitError() << "layers '" << it->second << "' and '" << layer.name
                       << "' both become the C name '" << layer.symbol << "'";
      failedAny = true;
      return;
    }
    layer.scheme = op.getScheme().getKind();
    layer.blockSize = op.getScheme().getBlockSize();
    layer.n = op.getN();
    layer.k = op.getK();
    layer.bf16 = op.getActType().isBF16();
    layer.hasBias = static_cast<bool>(op.getBias());
    layer.hasZeroPoints = static_cast<bool>(op.getZeroPoints());
    layer.plan = *op.getPlan();
    if (!computeScratchBytes(layer.plan.getTileRows(), layer.k)) {
      op.emitOpError() << "the scratch of tile_rows = "
                       << layer.plan.getTileRows() << " rows of K = " << layer.k
                       << " elements exceeds 2^40 bytes";
      failedAny = true;
      return;
    }
    for (const GemvVariant &v :
         getGemvVariants(op, options.gemvSplitK, options.gemvColTiles,
                         options.allGemvVariants))
      layer.gemvVariants.push_back(v);
    std::string error;
    FailureOr<SmallVector<FusedGemmVariant>> fused = getFusedGemmVariants(
        layer.plan, layer.scheme, layer.n, layer.k, options.fusedVariants,
        options.fusedWarpgroupVariants, options.fusedSpecializedVariants,
        options.fusedSpecializedBVariants, error, options.fusedSlicedVariants,
        slicedDefaults, options.fusedMulticastVariants,
        options.fusedSpecializedSlicedVariants, options.fusedRegisterVariants,
        options.fusedDecoderVariants);
    if (failed(fused)) {
      op.emitOpError() << error;
      failedAny = true;
      return;
    }
    layer.fusedVariants.assign(fused->begin(), fused->end());
    layers.push_back(layer);
  });
  if (failedAny)
    return failure();
  return layers;
}

int64_t constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return -1;
}

/// The case of the variant switch on the `indexAttr` argument that
/// `launch` sits in, or -1 (in no such switch; the switch's default region
/// repeats a case: -2).
int64_t variantCaseOf(gpu::LaunchFuncOp launch, StringRef indexAttr) {
  auto sw = launch->getParentOfType<scf::IndexSwitchOp>();
  if (!sw)
    return -1;
  auto index = dyn_cast<BlockArgument>(sw.getArg());
  auto func = launch->getParentOfType<func::FuncOp>();
  if (!index || !func || index.getOwner() != &func.getBody().front() ||
      !func.getArgAttr(index.getArgNumber(), indexAttr))
    return -1;
  for (auto [i, region] : llvm::enumerate(sw.getCaseRegions()))
    if (region.isAncestor(launch->getParentRegion()))
      return static_cast<int64_t>(i);
  return -2;
}

/// Reads back, per layer function, the kernel launches the lowering
/// emitted: the prefill dequantization and each GEMV variant.
LogicalResult collectLaunches(ModuleOp lowered,
                              const std::vector<Layer> &layers,
                              TargetBinary &binary) {
  for (const Layer &layer : layers) {
    auto func = lowered.lookupSymbol<func::FuncOp>(layer.name);
    gpu::LaunchFuncOp launch;
    std::vector<GemvLaunch> gemv(layer.gemvVariants.size());
    std::vector<FusedLaunch> fused(layer.fusedVariants.size());
    if (func)
      func.walk([&](gpu::LaunchFuncOp op) {
        int64_t fusedCase = variantCaseOf(op, "qmat.fused_variant");
        if (fusedCase >= 0 && fusedCase < static_cast<int64_t>(fused.size())) {
          FusedLaunch &info = fused[fusedCase];
          info.symbol = op.getKernelName().str();
          info.threads = constantIndex(op.getBlockSizeX());
          if (Value dynamic = op.getDynamicSharedMemorySize()) {
            auto bytes = dynamic.getDefiningOp<arith::ConstantIntOp>();
            info.dynamicSharedBytes = bytes ? bytes.value() : -1;
          }
          if (auto tiles =
                  op.getGridSizeX().getDefiningOp<arith::CeilDivUIOp>())
            info.mTile = constantIndex(tiles.getRhs());
          // Whole clusters (multicast) round the blocks up to a multiple.
          Value rows = op.getGridSizeY();
          if (auto whole = rows.getDefiningOp<arith::MulIOp>())
            if (auto clusters =
                    whole.getLhs().getDefiningOp<arith::CeilDivUIOp>())
              rows = clusters.getLhs();
          if (auto blocks = rows.getDefiningOp<arith::CeilDivUIOp>())
            info.rowsPerBlock = constantIndex(blocks.getRhs());
          return;
        }
        if (fusedCase != -1)
          return;
        int64_t variant = variantCaseOf(op, "qmat.gemv_variant");
        if (variant == -1) {
          launch = op;
          return;
        }
        if (variant < 0 || variant >= static_cast<int64_t>(gemv.size()))
          return;
        GemvLaunch &info = gemv[variant];
        info.symbol = op.getKernelName().str();
        info.config = op->getAttrOfType<KernelConfigAttr>(
            KernelConfigAttr::getLaunchAttrName());
        info.threads = constantIndex(op.getBlockSizeX());
        if (auto blocks = op.getGridSizeX().getDefiningOp<arith::CeilDivUIOp>())
          info.rowsPerBlock = constantIndex(blocks.getRhs());
      });
    if (!launch)
      return lowered.emitError()
             << "no kernel launch found for layer @" << layer.name;
    for (const GemvLaunch &info : gemv)
      if (info.symbol.empty() || info.threads <= 0 || info.rowsPerBlock <= 0 ||
          !info.config)
        return lowered.emitError()
               << "layer @" << layer.name
               << ": a GEMV variant has no launch with constant block size, "
                  "rows per block and a kernel config";
    for (const FusedLaunch &info : fused)
      if (info.symbol.empty() || info.threads <= 0 || info.rowsPerBlock <= 0 ||
          info.mTile <= 0 || info.dynamicSharedBytes < 0)
        return lowered.emitError()
               << "layer @" << layer.name
               << ": a fused GEMM variant has no launch with constant block "
                  "size, rows per block, M tile and workgroup memory";
    binary.gemvLaunches.push_back(std::move(gemv));
    binary.fusedLaunches.push_back(std::move(fused));
    auto constant = constantIndex;
    KernelLaunch info;
    info.symbol = launch.getKernelName().str();
    info.threads = constant(launch.getBlockSizeX());
    info.gridY = constant(launch.getGridSizeY());
    if (info.threads <= 0 || info.gridY <= 0)
      return launch.emitOpError()
             << "qmat-aot expects constant block and grid-y sizes";
    binary.launches.push_back(info);
  }
  return success();
}

} // namespace

namespace {

/// Points every gpu.module of `module` at `target` for serialization: the
/// kernels were built by the code generator of its kernel class, whose
/// #nvvm.target names that class.
void retargetGpuModules(ModuleOp module, const NvidiaTarget &target) {
  MLIRContext *context = module.getContext();
  auto attr =
      NVVM::NVVMTargetAttr::get(context, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                target.name, target.ptxFeature);
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    gpuModule.setTargetsAttr(ArrayAttr::get(context, {attr}));
  });
}

/// One line of progress, when asked for.
void report(const BundleOptions &options, const Twine &line) {
  if (options.progress)
    *options.progress << "qmat-aot: " << line << "\n";
}

/// The gpu.binary object of `lowered`'s kernels in `format` ("isa": PTX,
/// each kernel compiled on its own thread and the PTX joined; "bin": the
/// vendor's ELF).
FailureOr<std::string> serializeKernels(
    ModuleOp lowered, StringRef format, const std::string &toolkit,
    llvm::function_ref<LogicalResult(PassManager &, ModuleOp)> runPipeline) {
  OwningOpRef<ModuleOp> serialized = cast<ModuleOp>(lowered->clone());
  PassManager binaryPm(lowered.getContext());
  if (format == "isa") {
    binaryPm.addPass(createQMatSerializeKernelsToPtx({toolkit}));
  } else {
    GpuModuleToBinaryPassOptions binaryOptions;
    binaryOptions.compilationTarget = format.str();
    binaryOptions.toolkitPath = toolkit;
    binaryPm.addPass(createGpuModuleToBinaryPass(binaryOptions));
  }
  if (failed(runPipeline(binaryPm, *serialized)))
    return failure();
  auto gpuBinary = serialized->lookupSymbol<gpu::BinaryOp>("qmat_kernels");
  if (!gpuBinary || gpuBinary.getObjects().size() != 1)
    return lowered.emitError()
           << "qmat-aot: expected one gpu.binary @qmat_kernels object";
  auto object = cast<gpu::ObjectAttr>(gpuBinary.getObjects()[0]);
  return object.getObject().getValue().str();
}

/// The optimization level the kernels' NVVM target asks of ptxas.
int getKernelOptLevel(ModuleOp lowered) {
  int level = 3;
  lowered.walk([&](gpu::GPUModuleOp gpuModule) {
    if (ArrayAttr targets = gpuModule.getTargetsAttr())
      for (Attribute target : targets)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
          level = nvvm.getO();
  });
  return level;
}

std::string describeLayer(const Layer &layer) {
  LayerPaths paths = getLayerPaths(layer);
  std::string text =
      llvm::formatv("{0}/{1} {2} x {3}: ", stringifySchemeKind(layer.scheme),
                    layer.blockSize, layer.n, layer.k);
  auto add = [&](const char *name, const LayerPath &path) {
    if (!path.range.empty())
      text +=
          llvm::formatv("{0} for M {1} ({2}), ", name, path.range, path.detail);
  };
  add("GEMV", paths.gemv);
  add("fused GEMM", paths.fused);
  add("dequantize + GEMM", paths.dequant);
  text.resize(text.size() - 2);
  return text;
}

/// BundleOptions::detailedProgress: each kernel of every layer on `binary`.
void reportKernels(const BundleOptions &options, const std::string &step,
                   const Bundle &bundle, const TargetBinary &binary) {
  if (!options.progress || !options.detailedProgress)
    return;
  for (auto [i, layer] : llvm::enumerate(bundle.layers)) {
    std::string prefix = step + ": layer " + layer.name + ": ";
    for (auto [variant, launch] :
         llvm::zip(layer.gemvVariants, binary.gemvLaunches[i]))
      report(options,
             prefix + llvm::formatv("GEMV M <= {0}, split-K {1}, {2} column "
                                    "tiles: {3} ({4} threads, {5} rows per "
                                    "block)",
                                    variant.maxM, variant.splitK,
                                    variant.colTiles, launch.symbol,
                                    launch.threads, launch.rowsPerBlock)
                          .str());
    for (auto [variant, launch] :
         llvm::zip(layer.fusedVariants, binary.fusedLaunches[i]))
      report(options,
             prefix +
                 llvm::formatv(
                     "fused GEMM M tile {0}, {1} warps over N, "
                     "split-K {2}, {3} column tiles, {4} stages{5}{10}: "
                     "{6} ({7} threads, {8} rows per block, {9} "
                     "bytes of dynamic workgroup memory)",
                     variant.mTile, variant.warpsN, variant.splitK,
                     variant.colTiles, variant.stages,
                     variant.specialized && variant.multicast > 1
                         ? ", specialized warpgroup, activations "
                           "shared by a cluster of " +
                               std::to_string(variant.multicast) + " blocks"
                     : variant.registerWeights
                         ? ", specialized warpgroup, weights in registers"
                     : variant.specialized ? ", specialized warpgroup"
                     : variant.warpgroup   ? ", warpgroup"
                     : variant.kSlices > 1
                         ? ", K split across a cluster of " +
                               std::to_string(variant.kSlices) + " blocks"
                         : std::string(),
                     launch.symbol, launch.threads, launch.rowsPerBlock,
                     launch.dynamicSharedBytes,
                     variant.decoders
                         ? ", " + std::to_string(variant.decoders) +
                               " decoding warpgroups"
                         : std::string())
                     .str());
    const KernelLaunch &dequant = binary.launches[i];
    if (!dequant.symbol.empty())
      report(options, prefix + llvm::formatv("dequantize: {0} ({1} threads)",
                                             dequant.symbol, dequant.threads)
                                   .str());
  }
}

/// BundleOptions::detailedProgress: the seconds since `start`, and resets
/// it.
void reportStage(const BundleOptions &options, const std::string &step,
                 StringRef stage,
                 std::chrono::steady_clock::time_point &start) {
  auto now = std::chrono::steady_clock::now();
  if (options.progress && options.detailedProgress)
    report(options,
           step +
               llvm::formatv(": {0} in {1:F2} s", stage,
                             std::chrono::duration<double>(now - start).count())
                   .str());
  start = now;
}

/// Whether `target`'s kernels have the warpgroup matrix instruction (an
/// unknown name: no; compiling it reports it).
std::unique_ptr<TargetInfo> getKernelClassInfo(StringRef target) {
  const NvidiaTarget *nvidia = lookupNvidiaTarget(target);
  std::string error;
  return lookupTargetInfo(nvidia ? stringifyChip(nvidia->kernelClass) : target,
                          error);
}

bool hasWarpgroupMma(const std::string &target) {
  std::unique_ptr<TargetInfo> info = getKernelClassInfo(target);
  return info && info->hasWarpgroupMma();
}

bool hasBlockClusters(const std::string &target) {
  std::unique_ptr<TargetInfo> info = getKernelClassInfo(target);
  return info && info->hasBlockClusters();
}

/// Whether two targets' plans of a layer give the launcher the same table:
/// the M ranges, the scratch tiles and every compiled variant in order.
bool sameLauncherTable(const Layer &a, const Layer &b) {
  auto gemv = [](const GemvVariant &v) {
    return std::make_tuple(v.maxM, v.splitK, v.colTiles, v.tensorCore,
                           v.wholeLines);
  };
  auto fused = [](const FusedGemmVariant &v) {
    return std::make_tuple(v.mTile, v.warpsN, v.splitK, v.colTiles, v.stages,
                           v.warpgroup, v.specialized);
  };
  return a.plan.getGemvMaxM() == b.plan.getGemvMaxM() &&
         a.plan.getFusedMaxM() == b.plan.getFusedMaxM() &&
         a.plan.getTileRows() == b.plan.getTileRows() &&
         a.plan.getPreparedWeights() == b.plan.getPreparedWeights() &&
         llvm::equal(llvm::map_range(a.gemvVariants, gemv),
                     llvm::map_range(b.gemvVariants, gemv)) &&
         llvm::equal(llvm::map_range(a.fusedVariants, fused),
                     llvm::map_range(b.fusedVariants, fused));
}

} // namespace

FailureOr<Bundle> mlir::qmat::compileBundle(ModuleOp module,
                                            const BundleOptions &options) {
  Bundle bundle;
  bundle.prefix = options.prefix;
  for (auto [i, target] : llvm::enumerate(options.targets))
    if (llvm::is_contained(ArrayRef(options.targets).take_front(i), target))
      return module.emitError()
             << "qmat-aot: target '" << target << "' is listed twice";
  auto runPipeline = [&](PassManager &pm, ModuleOp op) -> LogicalResult {
    if (options.configurePassManager &&
        failed(options.configurePassManager(pm)))
      return failure();
    return pm.run(op);
  };
  // One launcher table serves every target of a bundle: where only some
  // targets would run the fused GEMM further by default (their specialized
  // tilings), all keep the range of the others.
  int64_t fusedMaxM = options.fusedMaxM;
  if (fusedMaxM < 0 && llvm::any_of(options.targets, hasWarpgroupMma) &&
      !llvm::all_of(options.targets, hasWarpgroupMma)) {
    fusedMaxM = kWarpFusedMaxM;
    report(options, llvm::formatv("fused GEMM up to M = {0} on every target: "
                                  "one launcher table serves them, and not "
                                  "all have the specialized warpgroup form "
                                  "(a bundle of sm_90a alone runs it to M = "
                                  "{1})",
                                  kWarpFusedMaxM, kSpecializedFusedMaxM)
                        .str());
  }
  // Likewise the default K-sliced tilings: only where every target has
  // thread-block clusters.
  bool slicedDefaults = llvm::all_of(options.targets, hasBlockClusters);
  if (!slicedDefaults && llvm::any_of(options.targets, hasBlockClusters))
    report(options, "no default K-sliced fused GEMM tilings: one launcher "
                    "table serves every target, and not all have "
                    "thread-block clusters");
  // The ptxas runs still going, in target order (NVIDIA targets only).
  std::vector<std::future<PtxasResult>> assembling;
  for (auto [targetIndex, target] : llvm::enumerate(options.targets)) {
    std::string error = checkTargetName(target);
    if (!error.empty())
      return module.emitError() << "qmat-aot: " << error;
    const NvidiaTarget *nvidia = lookupNvidiaTarget(target);
    Vendor vendor = nvidia ? Vendor::cuda : Vendor::hip;
    if (bundle.targets.empty())
      bundle.vendor = vendor;
    else if (vendor != bundle.vendor)
      return module.emitError() << "qmat-aot: one bundle cannot mix NVIDIA "
                                   "and AMD targets ('"
                                << target << "')";
    TargetBinary binary;
    binary.chip = target;
    binary.kernelClass =
        nvidia ? stringifyChip(nvidia->kernelClass).str() : target;
    if (nvidia) {
      binary.computeCapability = nvidia->computeCapability;
      binary.archSpecific = nvidia->archSpecific;
    }
    std::string step = llvm::formatv("[{0}/{1}] {2}", targetIndex + 1,
                                     options.targets.size(), target)
                           .str();
    if (binary.kernelClass != target)
      report(options, step + ": " + binary.kernelClass + "-class kernels");

    GpuPipelineOptions pipeline;
    pipeline.target = binary.kernelClass;
    pipeline.gemvMaxM = options.gemvMaxM;
    pipeline.fusedMaxM = fusedMaxM;
    pipeline.fusedVariants = ArrayRef<int64_t>(options.fusedVariants);
    pipeline.fusedWarpgroupVariants =
        ArrayRef<int64_t>(options.fusedWarpgroupVariants);
    pipeline.fusedSpecializedVariants =
        ArrayRef<int64_t>(options.fusedSpecializedVariants);
    pipeline.fusedSpecializedBVariants =
        ArrayRef<int64_t>(options.fusedSpecializedBVariants);
    pipeline.fusedSlicedVariants =
        ArrayRef<int64_t>(options.fusedSlicedVariants);
    pipeline.fusedMulticastVariants =
        ArrayRef<int64_t>(options.fusedMulticastVariants);
    pipeline.fusedSpecializedSlicedVariants =
        ArrayRef<int64_t>(options.fusedSpecializedSlicedVariants);
    pipeline.fusedRegisterVariants =
        ArrayRef<int64_t>(options.fusedRegisterVariants);
    pipeline.fusedDecoderVariants =
        ArrayRef<int64_t>(options.fusedDecoderVariants);
    pipeline.scratchCapMiB = options.scratchCapMiB;
    pipeline.preparedWeights = options.preparedWeights;
    pipeline.gemvSplitK = ArrayRef<int64_t>(options.gemvSplitK);
    pipeline.gemvColTiles = ArrayRef<int64_t>(options.gemvColTiles);
    pipeline.allGemvVariants = options.allGemvVariants;
    pipeline.noSlicedDefaults = !slicedDefaults;

    auto stageStart = std::chrono::steady_clock::now();
    // Plans first: the lowering consumes the matmuls they sit on.
    OwningOpRef<ModuleOp> lowered = cast<ModuleOp>(module->clone());
    PassManager planPm(module.getContext());
    buildStrategyPipeline(planPm, pipeline);
    if (failed(runPipeline(planPm, *lowered)))
      return failure();
    FailureOr<std::vector<Layer>> layers =
        collectLayers(*lowered, options, slicedDefaults);
    if (failed(layers))
      return failure();
    if (layers->empty())
      return module.emitError() << "qmat-aot: the module holds no qmat.matmul "
                                   "layer";
    if (bundle.layers.empty())
      bundle.layers = *layers;
    for (auto [first, layer] : llvm::zip(bundle.layers, *layers)) {
      if (sameLauncherTable(first, layer))
        continue;
      Operation *at = lowered->lookupSymbol(layer.name);
      return (at ? at : module.getOperation())->emitError()
             << "qmat-aot: one launcher table serves a bundle's targets, but "
             << "layer '" << layer.name << "' takes " << describeLayer(first)
             << " on " << options.targets.front() << " and "
             << describeLayer(layer) << " on " << target
             << ": build them as separate bundles";
    }
    for (const Layer &layer : *layers)
      report(options,
             step + ": layer " + layer.name + ": " + describeLayer(layer));
    reportStage(options, step, "strategy", stageStart);

    // Lower once; serialize that module once per requested format.
    PassManager lowerPm(module.getContext());
    buildPlannedToLLVMPipeline(lowerPm, pipeline);
    if (failed(runPipeline(lowerPm, *lowered)))
      return failure();
    if (failed(collectLaunches(*lowered, bundle.layers, binary)))
      return failure();
    reportKernels(options, step, bundle, binary);
    reportStage(options, step, "kernels lowered", stageStart);
    if (nvidia)
      retargetGpuModules(*lowered, *nvidia);

    if (options.serialize) {
      // NVIDIA: PTX once, then ptxas in the background (assemblePtx) while
      // the next target is lowered; AMD: the hsaco through upstream's pass.
      std::string ofLayers = " of " + std::to_string(bundle.layers.size()) +
                             " layer" + (bundle.layers.size() == 1 ? "" : "s");
      report(options, step + (nvidia ? ": PTX" : ": hsaco") + ofLayers);
      std::string toolkit =
          nvidia ? options.cudaToolkitPath : options.rocmToolkitPath;
      std::string lookupError;
      if (toolkit.empty())
        if (auto info = lookupTargetInfo(binary.kernelClass, lookupError))
          toolkit = info->getBinaryToolkitPath();
      FailureOr<std::string> object = serializeKernels(
          *lowered, nvidia ? "isa" : "bin", toolkit, runPipeline);
      if (failed(object))
        return failure();
      reportStage(options, step, nvidia ? "PTX" : "hsaco", stageStart);
      if (nvidia) {
        if (options.emitPtx)
          binary.ptx = *object;
        std::string chip = binary.chip;
        int optLevel = getKernelOptLevel(*lowered);
        report(options, step + ": cubin" + ofLayers + " (ptxas)");
        assembling.push_back(
            std::async(std::launch::async, [ptx = std::move(*object), chip,
                                            optLevel, toolkit] {
              auto start = std::chrono::steady_clock::now();
              PtxasResult result = assemblePtx(ptx, chip, optLevel, toolkit);
              result.seconds = std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - start)
                                   .count();
              return result;
            }));
      } else {
        binary.cubin = std::move(*object);
      }
    }
    bundle.targets.push_back(std::move(binary));
  }
  if (bundle.vendor == Vendor::cuda && options.serialize)
    for (auto [i, binary, result] :
         llvm::enumerate(bundle.targets, assembling)) {
      PtxasResult assembled = result.get();
      if (!assembled.error.empty())
        return module.emitError()
               << "qmat-aot: " << binary.chip << ": " << assembled.error;
      if (options.detailedProgress)
        report(options,
               llvm::formatv("[{0}/{1}] {2}: cubin (ptxas) in {3:F2} s", i + 1,
                             bundle.targets.size(), binary.chip,
                             assembled.seconds));
      binary.cubin = std::move(assembled.cubin);
    }
  return bundle;
}

StringRef mlir::qmat::getBinaryExtension(const Bundle &bundle) {
  return bundle.vendor == Vendor::cuda ? "cubin" : "hsaco";
}

FailureOr<std::vector<Bundle>>
mlir::qmat::compileBundles(ModuleOp module, const BundleOptions &options) {
  std::vector<std::string> vendorTargets[2];
  for (const std::string &target : options.targets) {
    // An unknown name goes with the NVIDIA group: compiling it reports it.
    std::optional<Chip> chip = symbolizeChip(target);
    vendorTargets[!lookupNvidiaTarget(target) && chip && !isNVIDIAChip(*chip)
                      ? 1
                      : 0]
        .push_back(target);
  }
  bool mixed = !vendorTargets[0].empty() && !vendorTargets[1].empty();
  std::vector<Bundle> bundles;
  for (int v = 0; v < 2; ++v) {
    if (vendorTargets[v].empty())
      continue;
    BundleOptions vendorOptions = options;
    vendorOptions.targets = vendorTargets[v];
    if (mixed && v == 1)
      vendorOptions.prefix += "_hip";
    FailureOr<Bundle> bundle = compileBundle(module, vendorOptions);
    if (failed(bundle))
      return failure();
    bundles.push_back(std::move(*bundle));
  }
  return bundles;
}
