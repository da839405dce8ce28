// What the launcher runtime knows of a bundle: the descriptor types and the
// tables qmat-aot fills in for each bundle (its layers, kernels, variants and
// binaries). A generated launcher carries this text, then the tables'
// definitions, then the runtime (LauncherCommon.h and LauncherCUDA.h or
// LauncherHIP.h), all in one anonymous namespace so that two bundles in one
// program share no symbol. QMAT_LAUNCHER_HIP selects the HIP runtime's types.
#ifndef QMAT_AOT_RUNTIME_BUNDLETABLES_H
#define QMAT_AOT_RUNTIME_BUNDLETABLES_H

#include "qmat/AOT/FusedGemmPolicy.h"
#include "qmat/AOT/GemvPolicy.h"
#include "qmat/AOT/LauncherABI.h"
#include "qmat/Dialect/QMat/IR/PreparedWeights.h"
#ifndef QMAT_LAUNCHER_HIP
#include "qmat/AOT/BinarySelection.h"
#endif

#ifdef QMAT_LAUNCHER_HIP
#include <hip/hip_runtime_api.h>
#else
#include <cuda.h>
#endif

#include <cstddef>
#include <cstdint>

namespace {

#ifdef QMAT_LAUNCHER_HIP
using Stream = hipStream_t;

struct TargetDesc {
  const char *chip;
  const unsigned char *hsaco;
  size_t hsacoSize;
};
#else
using Stream = CUstream;

struct TargetDesc {
  const char *chip;
  int computeCapability;
  const unsigned char *cubin;
  size_t cubinSize;
  const char *ptx;   // null unless built with --emit=ptx
  bool archSpecific; // sm_90a-style code runs on that chip only
};
#endif

/// A layer's dequantization kernel: its symbol, block size and grid rows.
struct KernelDesc {
  const char *symbol;
  int threads;
  int gridY;
};

/// A GEMV or fused GEMM kernel: its symbol, block size and the rows of W one
/// block covers.
struct GemvKernelDesc {
  const char *symbol;
  int threads;
  int rowsPerBlock;
  /// Bytes of dynamic workgroup memory each block is launched with.
  int dynamicSharedBytes;
};

struct LayerDesc {
  const char *name;
  int64_t n, k;
  int64_t weightCols, scaleCols, scaleElementBytes, zeroPointCols;
  int64_t tileRows;
  size_t scratchBytes;
  int weightAlignment;
  int gemvScaleAlignment; // bytes; the prefill path needs one element
  bool gemvChunkedDot;    // the FMA GEMV loads 16-byte vectors
  bool needsGlobal, needsZeroPoints, needsBias, bf16;
  size_t kernelIndex;
  int64_t gemvMaxM;              // 0: every M takes the prefill path
  size_t gemvFirst, gemvCount;   // into kGemvVariants
  int64_t fusedMaxM;             // M above gemvMaxM up to this: the fused GEMM
  size_t fusedFirst, fusedCount; // into kFusedVariants
  int fusedScaleAlignment;       // bytes
};

/// The bundle's prefix, the start of every log line.
extern const char kBundlePrefix[];
/// The GEMM library's workspace, after the dequantized tile in _run's.
extern const size_t kGemmWorkspaceBytes;

/// The targets compiled, in the order a device's choice indexes them.
extern const size_t kNumTargets;
extern const TargetDesc kTargets[];
#ifndef QMAT_LAUNCHER_HIP
/// What a device may load of each target (BinarySelection.h).
extern const qmat_select::BinaryDesc kBinaries[];
#endif

/// Per target, kNumKernels dequantization kernels (one per layer),
/// kNumGemvKernels GEMV kernels and kNumFusedKernels fused GEMM kernels,
/// in layer order; the variants' descriptions are the same on every target.
extern const size_t kNumKernels, kNumGemvKernels, kNumFusedKernels;
extern const qmat_policy::GemvVariantDesc kGemvVariants[];
extern const qmat_policy::FusedVariantDesc kFusedVariants[];
const KernelDesc *kernelsOf(size_t target);
const GemvKernelDesc *gemvKernelsOf(size_t target);
const GemvKernelDesc *fusedKernelsOf(size_t target);

} // namespace

#endif // QMAT_AOT_RUNTIME_BUNDLETABLES_H
