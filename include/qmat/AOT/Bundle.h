//===- Bundle.h - Ahead-of-time kernel bundles ------------------*- C++ -*-===//
//
// qmat-aot turns a module of qmat.matmul layers into what a deployment
// links: GPU binaries per target, a C-ABI launcher that embeds them, and a
// manifest. The layer description comes from the planned IR (#qmat.plan) and
// the kernel launch parameters from the lowered IR, so the launcher repeats
// exactly what the compiler decided.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_AOT_BUNDLE_H
#define QMAT_AOT_BUNDLE_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"
#include "qmat/Transforms/GemvVariants.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace mlir::qmat {

/// The dequantization kernel one layer launches on one target.
struct KernelLaunch {
  std::string symbol;
  int64_t threads = 0;
  int64_t gridY = 0;
};

/// One compiled decode-GEMV variant of a layer on one target.
struct GemvLaunch {
  std::string symbol;
  int64_t threads = 0;
  /// Weight rows per block: the grid is ceil(N / rowsPerBlock).
  int64_t rowsPerBlock = 0;
  /// How the kernel was built (qmat-configure-kernels).
  KernelConfigAttr config;
};

/// One compiled fused dequant-GEMM variant of a layer on one target: the
/// grid is (ceil(M / mTile), ceil(N / rowsPerBlock)).
struct FusedLaunch {
  std::string symbol;
  int64_t threads = 0;
  int64_t rowsPerBlock = 0;
  int64_t mTile = 0;
  /// Bytes of dynamic workgroup memory each block is launched with (the
  /// warpgroup form's stages); 0 for static memory only.
  int64_t dynamicSharedBytes = 0;
};

/// The GPU runtime a bundle's launcher is written against: one bundle per
/// vendor, so that each links only its own runtime.
enum class Vendor { cuda, hip };

/// One compiled target of a bundle.
struct TargetBinary {
  std::string chip;          // "sm_90a", "gfx942"
  int computeCapability = 0; // 90 (NVIDIA only)
  bool archSpecific = false; // sm_90a-style (NVIDIA only)
  /// The qmat chip whose code generator built the kernels ("sm_90" for
  /// sm_100; the chip itself on AMD).
  std::string kernelClass;
  std::string cubin;                  // ELF bytes: cubin or hsaco
  std::string ptx;                    // empty unless --emit=ptx
  std::vector<KernelLaunch> launches; // one per layer, in layer order
  /// Per layer, its GEMV variants in Layer::gemvVariants order.
  std::vector<std::vector<GemvLaunch>> gemvLaunches;
  /// Per layer, its fused variants in Layer::fusedVariants order.
  std::vector<std::vector<FusedLaunch>> fusedLaunches;
};

/// One linear layer as the launcher sees it.
struct Layer {
  /// The function's name, as written (the manifest and LayerDesc keep it).
  std::string name;
  /// `name` as a C identifier (getLayerSymbol): the entry points'
  /// <prefix>_<symbol>_run, ...
  std::string symbol;
  SchemeKind scheme;
  int64_t blockSize = 0, n = 0, k = 0;
  bool bf16 = false, hasBias = false, hasZeroPoints = false;
  PlanAttr plan;
  /// The small-M variants (empty: every M takes the prefill path).
  std::vector<GemvVariant> gemvVariants;
  /// The fused dequant-GEMM variants (empty: M above the GEMV takes the
  /// prefill path).
  std::vector<FusedGemmVariant> fusedVariants;
};

struct Bundle {
  std::string prefix;
  Vendor vendor = Vendor::cuda;
  std::vector<Layer> layers;
  std::vector<TargetBinary> targets;
};

struct BundleOptions {
  std::vector<std::string> targets = {"sm_90"};
  int64_t scratchCapMiB = 256;
  int64_t gemvMaxM = 8;
  /// Largest M of the fused dequant-GEMM (0: none; -1: the target's
  /// default) and its tilings (empty: the default set).
  int64_t fusedMaxM = -1;
  std::vector<int64_t> fusedVariants;
  /// Warpgroup tilings, (m_tile, split_k) pairs (empty: none).
  std::vector<int64_t> fusedWarpgroupVariants;
  /// (m_tile, col_tiles) pairs of the specialized warpgroup form, and of
  /// its form with the weights as the instruction's B operand.
  std::vector<int64_t> fusedSpecializedVariants, fusedSpecializedBVariants;
  /// Warp tilings whose K is split across a cluster's blocks, as (m_tile,
  /// warps_n, split_k, col_tiles, stages, k_slices) sextuples.
  std::vector<int64_t> fusedSlicedVariants;
  /// Specialized tilings whose clusters share the activations, as (m_tile,
  /// col_tiles, weights_as_b, multicast) quadruples.
  std::vector<int64_t> fusedMulticastVariants;
  /// Specialized tilings whose K is split across a cluster's blocks, as
  /// (m_tile, col_tiles, k_slices) triples.
  std::vector<int64_t> fusedSpecializedSlicedVariants;
  /// Specialized tilings with the decoded weights in the multiplying warps'
  /// registers, as (m_tile, col_tiles) pairs.
  std::vector<int64_t> fusedRegisterVariants;
  /// Specialized tilings with a decoding warpgroup count of their own, as
  /// (m_tile, col_tiles, weights_as_b, decoders) quadruples.
  std::vector<int64_t> fusedDecoderVariants;
  /// Split-K factors and column tiles of the GEMV variants (empty: all).
  std::vector<int64_t> gemvSplitK, gemvColTiles;
  /// Every GEMV variant of those lists, not only those the launcher's
  /// policy can choose for each layer.
  bool allGemvVariants = false;
  bool emitPtx = false;
  /// The prepared code layout for every layer that can take it
  /// (qmat-select-strategy's prepared-weights).
  bool preparedWeights = false;
  std::string prefix = "qmat";
  /// Serialize each target's kernels (ptxas or the AMD linker). Off, the
  /// bundle is complete but for its binaries (TargetBinary::cubin and ptx
  /// stay empty): the front end alone, as the fuzz targets run it.
  bool serialize = true;
  /// The toolkits gpu-module-to-binary takes ptxas (<cuda>/bin/ptxas) and
  /// ld.lld (<rocm>/llvm/bin/ld.lld) from; empty: the target's default.
  std::string cudaToolkitPath, rocmToolkitPath;
  /// Where a line per target and layer reports progress; none when null.
  llvm::raw_ostream *progress = nullptr;
  /// With progress: also a line per compiled kernel (its variant, symbol
  /// and launch shape) and the wall time of each target's stages.
  bool detailedProgress = false;
  /// Called on every pass manager before it runs (the tool's debugging
  /// options: IR printing, timing); a failure stops the compilation.
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

/// Compiles `module` (not modified) for every target. Diagnostics go to the
/// module's context; failure() when any layer or target cannot be compiled.
/// All targets must be of one vendor.
FailureOr<Bundle> compileBundle(ModuleOp module, const BundleOptions &options);

/// One bundle per vendor among the targets, NVIDIA first. With both
/// vendors, the AMD bundle's prefix is `<prefix>_hip` so that the two
/// launchers can link into one program.
FailureOr<std::vector<Bundle>> compileBundles(ModuleOp module,
                                              const BundleOptions &options);

/// The file extension of a target's binary: "cubin" or "hsaco".
StringRef getBinaryExtension(const Bundle &bundle);

/// The cuBLASLt / hipBLASLt workspace the launcher reserves after the
/// scratch.
constexpr int64_t kGemmWorkspaceBytes = 32 << 20;
/// The largest scratch a layer may need: 1 TiB, beyond any device's memory.
constexpr int64_t kMaxScratchBytes = int64_t(1) << 40;
/// Bytes of scratch for `tileRows` rows of K activation elements, rounded
/// up to 256 so that the GEMM workspace after it stays aligned; none when
/// that is not positive or exceeds kMaxScratchBytes.
std::optional<int64_t> computeScratchBytes(int64_t tileRows, int64_t k);
/// computeScratchBytes of a layer of the bundle (compileBundle checked it).
int64_t getScratchBytes(const Layer &layer);

/// A layer name as a C identifier: every character outside [A-Za-z0-9_]
/// becomes '_', and a leading digit gets a '_' prefix
/// ("layers.0.q_proj" -> "layers_0_q_proj").
std::string getLayerSymbol(StringRef name);

void emitLauncherHeader(const Bundle &bundle, llvm::raw_ostream &os);
void emitLauncherSource(const Bundle &bundle, llvm::raw_ostream &os);
void emitManifest(const Bundle &bundle, llvm::raw_ostream &os);
/// What qmat-aot prints: per layer the M range of each path, its workspace,
/// and each target's dequantize kernel; then each target's binary.
void emitSummary(const Bundle &bundle, llvm::raw_ostream &os);

/// The M range one path of a layer takes ("1-8", "129+"; empty: no such
/// path) and what it compiled ("mma x21", "x6", "1 tile of 6144 rows").
struct LayerPath {
  std::string range, detail;
};
struct LayerPaths {
  LayerPath gemv, fused, dequant;
};
LayerPaths getLayerPaths(const Layer &layer);

} // namespace mlir::qmat

#endif // QMAT_AOT_BUNDLE_H
