//===- Pipelines.cpp - Named qmat pipelines -------------------------------===//

#include "qmat/Pipelines/Pipelines.h"
#include "qmat/Conversion/Passes.h"
#include "qmat/Target/TargetInfo.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// Fails the pipeline with `message`: the options it was built from are
/// wrong in a way the upstream passes would accept silently
/// (gpu-module-to-binary takes any format string; the host lowering would
/// build a GPU target's instructions into host code).
struct RejectPipelineOptionsPass
    : PassWrapper<RejectPipelineOptionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RejectPipelineOptionsPass)
  explicit RejectPipelineOptionsPass(std::string message)
      : message(std::move(message)) {}
  StringRef getArgument() const override {
    return "qmat-reject-pipeline-options";
  }
  void runOnOperation() override {
    getOperation().emitError() << message;
    signalPassFailure();
  }
  std::string message;
};

/// Adds a RejectPipelineOptionsPass when `format` is not one
/// gpu-module-to-binary knows.
void checkBinaryFormat(OpPassManager &pm, StringRef format) {
  if (format != "isa" && format != "bin" && format != "fatbin")
    pm.addPass(std::make_unique<RejectPipelineOptionsPass>(
        ("unknown format '" + format + "' (expected isa, bin or fatbin)")
            .str()));
}

} // namespace

/// qmat.dequantize ops to gpu.func kernels lowered to the target's LLVM
/// dialect flavour, stopping before serialization.
static void addKernelLowering(OpPassManager &pm,
                              const GpuPipelineOptions &options);

static void addBinaryPass(OpPassManager &pm,
                          const GpuPipelineOptions &options) {
  std::string error, toolkit;
  std::unique_ptr<TargetInfo> info = lookupTargetInfo(options.target, error);
  if (info)
    toolkit = info->getBinaryToolkitPath();
  // NVIDIA PTX: each kernel compiled on its own thread.
  std::optional<Chip> chip = info ? info->getChip() : std::nullopt;
  if (options.format == "isa" && chip && isNVIDIAChip(*chip)) {
    pm.addPass(createQMatSerializeKernelsToPtx({toolkit}));
    return;
  }
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::qmat::buildStrategyPipeline(OpPassManager &pm,
                                       const GpuPipelineOptions &options) {
  QMatSelectStrategyOptions select;
  select.target = options.target;
  select.gemvMaxM = options.gemvMaxM;
  select.fusedMaxM = options.fusedMaxM;
  select.scratchCapMiB = options.scratchCapMiB;
  select.forceDequant = options.forceDequant;
  select.forceDecode = options.forceDecode;
  select.preparedWeights = options.preparedWeights;
  pm.addPass(createQMatSelectStrategy(select));
}

void mlir::qmat::buildPlannedToLLVMPipeline(OpPassManager &pm,
                                            const GpuPipelineOptions &options) {
  QMatExpandGemvOptions gemv;
  gemv.splitK.assign(options.gemvSplitK.begin(), options.gemvSplitK.end());
  gemv.colTiles.assign(options.gemvColTiles.begin(),
                       options.gemvColTiles.end());
  gemv.allGemvVariants = options.allGemvVariants;
  gemv.fusedVariants.assign(options.fusedVariants.begin(),
                            options.fusedVariants.end());
  gemv.fusedWarpgroupVariants.assign(options.fusedWarpgroupVariants.begin(),
                                     options.fusedWarpgroupVariants.end());
  gemv.fusedSpecializedVariants.assign(options.fusedSpecializedVariants.begin(),
                                       options.fusedSpecializedVariants.end());
  gemv.fusedSpecializedBVariants.assign(
      options.fusedSpecializedBVariants.begin(),
      options.fusedSpecializedBVariants.end());
  gemv.fusedSlicedVariants.assign(options.fusedSlicedVariants.begin(),
                                  options.fusedSlicedVariants.end());
  gemv.noSlicedDefaults = options.noSlicedDefaults;
  gemv.fusedMulticastVariants.assign(options.fusedMulticastVariants.begin(),
                                     options.fusedMulticastVariants.end());
  gemv.fusedSpecializedSlicedVariants.assign(
      options.fusedSpecializedSlicedVariants.begin(),
      options.fusedSpecializedSlicedVariants.end());
  gemv.fusedRegisterVariants.assign(options.fusedRegisterVariants.begin(),
                                    options.fusedRegisterVariants.end());
  gemv.fusedDecoderVariants.assign(options.fusedDecoderVariants.begin(),
                                   options.fusedDecoderVariants.end());
  pm.addNestedPass<func::FuncOp>(createQMatExpandGemv(gemv));
  pm.addNestedPass<func::FuncOp>(createQMatExpandPrefill());
  QMatVectorizeDequantOptions vectorize;
  vectorize.force = options.forceDequant;
  pm.addPass(createQMatVectorizeDequant(vectorize));
  addKernelLowering(pm, options);
}

void mlir::qmat::buildGpuPipeline(OpPassManager &pm,
                                  const GpuPipelineOptions &options) {
  checkBinaryFormat(pm, options.format);
  buildStrategyPipeline(pm, options);
  buildPlannedToLLVMPipeline(pm, options);
  addBinaryPass(pm, options);
}

void mlir::qmat::buildKernelPipeline(OpPassManager &pm,
                                     const GpuPipelineOptions &options) {
  checkBinaryFormat(pm, options.format);
  addKernelLowering(pm, options);
  addBinaryPass(pm, options);
}

static void addKernelLowering(OpPassManager &pm,
                              const GpuPipelineOptions &options) {
  QMatLowerDequantToGPUOptions lower;
  lower.target = options.target;
  lower.threadsPerBlock = options.threadsPerBlock;
  lower.itemsPerThread = options.itemsPerThread;
  lower.occupancyHints = options.occupancyHints;
  lower.persistentBlocks = options.persistentBlocks;
  pm.addPass(createQMatLowerDequantToGPU(lower));
  QMatConfigureKernelsOptions configure;
  configure.target = options.target;
  pm.addPass(createQMatConfigureKernels(configure));
  QMatLowerGemvToGPUOptions gemv;
  gemv.target = options.target;
  pm.addPass(createQMatLowerGemvToGPU(gemv));
  // The decode was chosen per dequantize op (the plan, or the op itself)
  // and is part of the kernel's name: forcing it again here would make the
  // name lie.
  QMatRewriteDecodeOptions decode;
  decode.target = options.target;
  // Per kernel: the pass manager then rewrites the kernels in parallel.
  OpPassManager &kernelPm = pm.nest<gpu::GPUModuleOp>().nest<gpu::GPUFuncOp>();
  QMatExpandLoadTileOptions loads;
  loads.target = options.target;
  kernelPm.addPass(createQMatExpandLoadTile(loads));
  QMatExpandDecodeTileOptions tiles;
  tiles.target = options.target;
  kernelPm.addPass(createQMatExpandDecodeTile(tiles));
  kernelPm.addPass(createQMatExpandReduceSplitK());
  kernelPm.addPass(createQMatExpandStoreTile());
  kernelPm.addPass(createQMatRewriteDecode(decode));
  QMatLowerToTargetOptions toTarget;
  toTarget.target = options.target;
  kernelPm.addPass(createQMatLowerToTarget(toTarget));

  std::string error;
  // The target-specific tail. An unknown target is diagnosed by the first
  // qmat pass, which fails the pipeline before it gets here.
  if (auto info = lookupTargetInfo(options.target, error))
    info->buildGpuModuleToLLVMPipeline(pm);
  pm.nest<gpu::GPUModuleOp>().addPass(createQMatExternDynamicSharedMemory());
  pm.nest<gpu::GPUModuleOp>().addPass(createQMatTensorMapParams());
}

void mlir::qmat::buildHostDequantPipeline(OpPassManager &pm,
                                          const HostPipelineOptions &options) {
  // An unknown name is diagnosed by the first qmat pass that looks it up; a
  // GPU target must be refused here, before its instructions reach host
  // code.
  std::string error;
  if (auto info = lookupTargetInfo(options.target, error);
      info && info->getChip())
    pm.addPass(std::make_unique<RejectPipelineOptionsPass>(
        "qmat-host-dequant runs on the host: target '" + options.target +
        "' is a GPU (expected host or host-amdgcn)"));
  pm.addNestedPass<func::FuncOp>(createQMatLowerDequantToLoops());
  QMatExpandLoadTileOptions loads;
  loads.target = options.target;
  pm.addPass(createQMatExpandLoadTile(loads));
  QMatExpandDecodeTileOptions tiles;
  tiles.target = options.target;
  pm.addPass(createQMatExpandDecodeTile(tiles));
  QMatRewriteDecodeOptions decode;
  decode.target = options.target;
  pm.addPass(createQMatRewriteDecode(decode));
  QMatLowerToTargetOptions toTarget;
  toTarget.target = options.target;
  pm.addPass(createQMatLowerToTarget(toTarget));
  pm.addPass(createCanonicalizerPass());
  // libgcc has no fp32 -> bf16 routine; the expansion is the same IEEE
  // round-to-nearest-even in integer arithmetic.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::qmat::registerPipelines() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "qmat-to-gpu-binary",
      "Compile qmat.matmul layers into a gpu.binary of dequant kernels plus "
      "the host-side tile loop, launches and GEMM calls",
      buildGpuPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "qmat-kernels-to-gpu-binary",
      "The kernel half of qmat-to-gpu-binary: qmat.dequantize ops (kernel and "
      "decode already chosen) to gpu.func kernels and a gpu.binary",
      buildKernelPipeline);
  PassPipelineRegistration<HostPipelineOptions>(
      "qmat-host-dequant",
      "Lower qmat.dequantize to host loops running the GPU kernels' exact "
      "arithmetic, then to the LLVM dialect",
      buildHostDequantPipeline);
}
