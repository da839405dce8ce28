//===- AOTFrontEnd.cpp - Fuzz qmat-aot's front end ------------------------===//
//
// A verified module of qmat input (and an optional options line, see
// FuzzCommon.h, read into qmat-aot's options): plans, lowering, the launch
// parameters read back, then the launcher header and source, the manifest
// and the summary, all to memory. The GPU binaries are not serialized (no
// ptxas): BundleOptions::serialize is off.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "qmat/AOT/Bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::qmat::GpuPipelineOptions pipeline;
  if (!qmat_fuzz::parseOptions(text, pipeline))
    return 0;
  mlir::qmat::BundleOptions options;
  // The options line names one target; qmat-aot's --target takes a list, and
  // a comma in the line's target splits it the same way.
  options.targets.clear();
  llvm::SmallVector<llvm::StringRef> targets;
  llvm::StringRef(pipeline.target).split(targets, ',');
  for (llvm::StringRef t : targets)
    options.targets.push_back(t.str());
  options.scratchCapMiB = pipeline.scratchCapMiB;
  options.gemvMaxM = pipeline.gemvMaxM;
  options.fusedMaxM = pipeline.fusedMaxM;
  options.fusedVariants.assign(pipeline.fusedVariants.begin(),
                               pipeline.fusedVariants.end());
  options.gemvSplitK.assign(pipeline.gemvSplitK.begin(),
                            pipeline.gemvSplitK.end());
  options.gemvColTiles.assign(pipeline.gemvColTiles.begin(),
                              pipeline.gemvColTiles.end());
  options.preparedWeights = pipeline.preparedWeights;
  options.serialize = false;

  qmat_fuzz::FuzzContext fuzz;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      qmat_fuzz::parseModule(fuzz.context, text);
  if (!module || !qmat_fuzz::holdsOnlyQMatInput(*module))
    return -1;
  mlir::FailureOr<std::vector<mlir::qmat::Bundle>> bundles =
      mlir::qmat::compileBundles(*module, options);
  if (mlir::failed(bundles))
    return 0;
  for (const mlir::qmat::Bundle &bundle : *bundles) {
    std::string out;
    llvm::raw_string_ostream os(out);
    mlir::qmat::emitLauncherHeader(bundle, os);
    mlir::qmat::emitLauncherSource(bundle, os);
    mlir::qmat::emitManifest(bundle, os);
    mlir::qmat::emitSummary(bundle, os);
  }
  return 0;
}
