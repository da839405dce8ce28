//===- CompileBundle.cpp - Compile layers for every target ----------------===//

#include "qmat/AOT/Bundle.h"
#include "qmat/Pipelines/Pipelines.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::qmat;

int64_t mlir::qmat::getScratchBytes(const Layer &layer) {
  int64_t bytes = layer.plan.getTileRows() * layer.k * 2;
  return (bytes + 255) / 256 * 256;
}

namespace {

/// The layers of `module`: one qmat.matmul per function, every operand a
/// function argument (the launcher passes them straight through).
FailureOr<std::vector<Layer>> collectLayers(ModuleOp planned) {
  std::vector<Layer> layers;
  bool failedAny = false;
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
    layer.scheme = op.getScheme().getKind();
    layer.blockSize = op.getScheme().getBlockSize();
    layer.n = op.getN();
    layer.k = op.getK();
    layer.bf16 = op.getActType().isBF16();
    layer.hasBias = static_cast<bool>(op.getBias());
    layer.hasZeroPoints = static_cast<bool>(op.getZeroPoints());
    layer.plan = *op.getPlan();
    layers.push_back(layer);
  });
  if (failedAny)
    return failure();
  return layers;
}

/// Reads back, per layer function, the kernel launch the lowering emitted.
FailureOr<std::vector<KernelLaunch>>
collectLaunches(ModuleOp lowered, const std::vector<Layer> &layers) {
  std::vector<KernelLaunch> launches;
  for (const Layer &layer : layers) {
    auto func = lowered.lookupSymbol<func::FuncOp>(layer.name);
    gpu::LaunchFuncOp launch;
    if (func)
      func.walk([&](gpu::LaunchFuncOp op) { launch = op; });
    if (!launch)
      return lowered.emitError()
             << "no kernel launch found for layer @" << layer.name;
    auto constant = [](Value v) -> int64_t {
      if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
        return c.value();
      return -1;
    };
    KernelLaunch info;
    info.symbol = launch.getKernelName().str();
    info.threads = constant(launch.getBlockSizeX());
    info.gridY = constant(launch.getGridSizeY());
    if (info.threads <= 0 || info.gridY <= 0)
      return launch.emitOpError()
             << "qmat-aot expects constant block and grid-y sizes";
    launches.push_back(info);
  }
  return launches;
}

} // namespace

FailureOr<Bundle> mlir::qmat::compileBundle(ModuleOp module,
                                            const BundleOptions &options) {
  Bundle bundle;
  bundle.prefix = options.prefix;
  for (const std::string &target : options.targets) {
    // Plans first, on a copy: the lowering consumes the matmuls.
    OwningOpRef<ModuleOp> planned = cast<ModuleOp>(module->clone());
    PassManager planPm(module.getContext());
    QMatSelectStrategyOptions select;
    select.target = target;
    select.gemvMaxM = options.gemvMaxM;
    select.scratchCapMiB = options.scratchCapMiB;
    planPm.addPass(createQMatSelectStrategy(select));
    if (failed(planPm.run(*planned)))
      return failure();
    FailureOr<std::vector<Layer>> layers = collectLayers(*planned);
    if (failed(layers))
      return failure();
    if (layers->empty())
      return module.emitError() << "qmat-aot: the module holds no qmat.matmul "
                                   "layer";
    if (bundle.layers.empty())
      bundle.layers = *layers;

    TargetBinary binary;
    binary.chip = target;
    std::optional<Chip> chip = symbolizeChip(target);
    if (!chip || !TargetAttr::get(module.getContext(), *chip).isNVIDIA())
      return module.emitError() << "qmat-aot: target '" << target
                                << "' has no launcher generator yet";
    binary.computeCapability = std::stoi(target.substr(3));

    for (bool ptx : {false, true}) {
      if (ptx && !options.emitPtx)
        break;
      OwningOpRef<ModuleOp> lowered = cast<ModuleOp>(module->clone());
      PassManager pm(module.getContext());
      GpuPipelineOptions pipeline;
      pipeline.target = target;
      pipeline.gemvMaxM = options.gemvMaxM;
      pipeline.scratchCapMiB = options.scratchCapMiB;
      pipeline.format = ptx ? "isa" : "bin";
      buildGpuPipeline(pm, pipeline);
      if (failed(pm.run(*lowered)))
        return failure();
      auto gpuBinary = lowered->lookupSymbol<gpu::BinaryOp>("qmat_kernels");
      if (!gpuBinary || gpuBinary.getObjects().size() != 1)
        return module.emitError() << "qmat-aot: expected one gpu.binary "
                                     "@qmat_kernels object for "
                                  << target;
      auto object = cast<gpu::ObjectAttr>(gpuBinary.getObjects()[0]);
      if (ptx) {
        binary.ptx = object.getObject().getValue().str();
        continue;
      }
      binary.cubin = object.getObject().getValue().str();
      FailureOr<std::vector<KernelLaunch>> launches =
          collectLaunches(*lowered, bundle.layers);
      if (failed(launches))
        return failure();
      binary.launches = *launches;
    }
    bundle.targets.push_back(std::move(binary));
  }
  return bundle;
}
