// The vendor-neutral part of every generated launcher: status messages,
// argument validation, the workspace contract, the GEMV variant choice and
// the kernel parameter layout. Written into each launcher after the bundle's
// tables (BundleTables.h) and before the vendor's runtime (LauncherCUDA.h,
// LauncherHIP.h), which defines runChecked.
#ifndef QMAT_AOT_RUNTIME_LAUNCHERCOMMON_H
#define QMAT_AOT_RUNTIME_LAUNCHERCOMMON_H

#include "BundleTables.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

thread_local std::string lastError;

qmat_status fail(qmat_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

/// `call` is a call's source text; messages name just the function.
std::string calledFunction(const char *call) {
  std::string text(call);
  return text.substr(0, text.find('('));
}

/// Kernel parameters: each memref is passed as MLIR's expanded descriptor.
struct Params {
  std::vector<int64_t> slots;  // every field fits 64 bits
  // Seven memrefs of at most seven fields each: pointers() never moves them.
  Params() { slots.reserve(49); }
  void add(std::initializer_list<int64_t> fields) {
    for (int64_t field : fields)
      slots.push_back(field);
  }
  void memref2d(const void *base, int64_t rows, int64_t cols) {
    int64_t p = int64_t(reinterpret_cast<uintptr_t>(base));
    add({p, p, 0, rows, cols, cols, 1});
  }
  void memref1d(const void *base, int64_t size) {
    int64_t p = int64_t(reinterpret_cast<uintptr_t>(base));
    add({p, p, 0, size, 1});
  }
  void memref0d(const void *base) {
    int64_t p = int64_t(reinterpret_cast<uintptr_t>(base));
    add({p, p, 0});
  }
  std::vector<void *> pointers() {
    std::vector<void *> out;
    for (int64_t &slot : slots)
      out.push_back(&slot);
    return out;
  }
};

/// The decode GEMV's parameters: A, W, scales (global, zero points, bias), Y.
Params gemvParams(const LayerDesc &layer, int64_t m, const void *a, const void *weights,
                  const void *scales, const float *globalScale, const void *zeroPoints,
                  const void *bias, void *y) {
  Params params;
  params.memref2d(a, m, layer.k);
  params.memref2d(weights, layer.n, layer.weightCols);
  params.memref2d(scales, layer.n, layer.scaleCols);
  if (layer.needsGlobal)
    params.memref0d(globalScale);
  if (layer.needsZeroPoints)
    params.memref2d(zeroPoints, layer.n, layer.zeroPointCols);
  if (layer.needsBias)
    params.memref1d(bias, layer.n);
  params.memref2d(y, m, layer.n);
  return params;
}

/// The dequantization kernel's parameters for rows [n0, n0 + rows) of W.
Params dequantParams(const LayerDesc &layer, int64_t n0, int64_t rows, const void *weights,
                     const void *scales, const float *globalScale, const void *zeroPoints,
                     void *scratch) {
  Params params;
  params.memref2d(static_cast<const char *>(weights) + n0 * layer.weightCols, rows, layer.weightCols);
  params.memref2d(static_cast<const char *>(scales) + n0 * layer.scaleCols * layer.scaleElementBytes,
                  rows, layer.scaleCols);
  if (layer.needsGlobal)
    params.memref0d(globalScale);
  if (layer.needsZeroPoints)
    params.memref2d(static_cast<const char *>(zeroPoints) + n0 * layer.zeroPointCols, rows,
                    layer.zeroPointCols);
  params.memref2d(scratch, rows, layer.k);
  return params;
}

/// The refusal of an operand that no allocation of the runtime holds
/// (pageable host memory, freed or made-up memory): in the kernel it would
/// fault and lose the context for good.
qmat_status notDeviceMemory(const char *name, const char *runtime, const char *pinnedAllocators) {
  return fail(QMAT_ERROR_INVALID_ARGUMENT,
              std::string(name) + " is not memory the device can read (pageable host memory, " +
                  "or an address no " + runtime + " allocation holds); pass device memory, or " +
                  "host memory from " + pinnedAllocators);
}

bool misaligned(const void *pointer, int alignment) {
  return reinterpret_cast<uintptr_t>(pointer) % uintptr_t(alignment) != 0;
}

/// Whether m rows take the decode GEMV (no workspace needed).
bool takesGemv(const LayerDesc &layer, int64_t m) {
  return layer.gemvCount > 0 && m <= layer.gemvMaxM;
}

/// m_tile = -1 in the fused override: every M above the GEMV dequantizes.
std::atomic<int> overrideMTile{0}, overrideWarpsN{0}, overrideFusedSplitK{0},
    overrideFusedColTiles{0}, overrideFusedStages{0}, overrideFusedKSlices{0},
    overrideFusedMulticast{0};
/// Whether the fused override names a variant with the decoded weights in
/// registers (qmat_policy::kRegisterForm), which the other variants' numbers
/// may repeat.
std::atomic<bool> overrideFusedRegisters{false};

/// Whether m rows take the fused dequant-GEMM (no workspace needed).
bool takesFused(const LayerDesc &layer, int64_t m) {
  return !takesGemv(layer, m) && layer.fusedCount > 0 && m <= layer.fusedMaxM &&
         overrideMTile != -1;
}

/// The path m rows take.
enum class Path { gemv, fused, prefill };
Path pathOf(const LayerDesc &layer, int64_t m) {
  if (takesGemv(layer, m))
    return Path::gemv;
  return takesFused(layer, m) ? Path::fused : Path::prefill;
}

/// The log's destination: a handler set through <prefix>_set_log_handler
/// at its level (logSinkLevel >= 0), or else stderr at QMAT_LOG's level.
std::mutex logSinkMutex;
qmat_log_fn logSink = nullptr;
void *logSinkUser = nullptr;
std::atomic<int> logSinkLevel{-1};

/// QMAT_LOG=info: which binary each device loads, and the first call of
/// each layer on each path and variant (which one and why); debug: every
/// call. Read once.
int environmentLogLevel() {
  static const int level = [] {
    const char *value = std::getenv("QMAT_LOG");
    if (!value || !*value || !std::strcmp(value, "off"))
      return QMAT_LOG_OFF;
    if (!std::strcmp(value, "info"))
      return QMAT_LOG_INFO;
    if (!std::strcmp(value, "debug"))
      return QMAT_LOG_DEBUG;
    std::fprintf(stderr, "qmat %s: QMAT_LOG=%s is not off, info or debug; nothing is logged\n",
                 kBundlePrefix, value);
    return QMAT_LOG_OFF;
  }();
  return level;
}

/// The level lines are logged up to (checked on every call: one atomic load
/// while a handler is set).
int logLevel() {
  int sink = logSinkLevel.load(std::memory_order_acquire);
  return sink >= 0 ? sink : environmentLogLevel();
}

qmat_status setLogHandler(qmat_log_fn handler, int level, void *user) {
  if (handler && (level < QMAT_LOG_OFF || level > QMAT_LOG_DEBUG))
    return fail(QMAT_ERROR_INVALID_ARGUMENT,
                "level must be QMAT_LOG_OFF (0), QMAT_LOG_INFO (1) or QMAT_LOG_DEBUG (2), got " +
                    std::to_string(level));
  std::lock_guard<std::mutex> lock(logSinkMutex);
  logSink = handler;
  logSinkUser = handler ? user : nullptr;
  logSinkLevel.store(handler ? level : -1, std::memory_order_release);
  return QMAT_OK;
}

/// One line at `level` to the handler, on the thread that logs it, or to
/// stderr. Some lines are logged while a context's state is locked: the
/// handler must not call back into the launcher.
void logLine(int level, const std::string &line) {
  qmat_log_fn sink;
  void *user;
  {
    std::lock_guard<std::mutex> lock(logSinkMutex);
    sink = logSink;
    user = logSinkUser;
  }
  if (sink)
    sink(level, line.c_str(), user);
  else
    std::fprintf(stderr, "qmat %s: %s\n", kBundlePrefix, line.c_str());
}

/// The level to log a call of `layer` on `path` with `variant` at: info for
/// the first such call, debug for the others; QMAT_LOG_OFF where the log's
/// level does not reach it.
int callLogLevel(const LayerDesc &layer, Path path, size_t variant) {
  int level = logLevel();
  if (level == QMAT_LOG_OFF)
    return QMAT_LOG_OFF;
  static std::mutex mutex;
  static std::set<std::tuple<const LayerDesc *, int, size_t>> seen;
  bool first;
  {
    std::lock_guard<std::mutex> lock(mutex);
    first = seen.emplace(&layer, int(path), variant).second;
  }
  if (first)
    return QMAT_LOG_INFO;
  return level >= QMAT_LOG_DEBUG ? QMAT_LOG_DEBUG : QMAT_LOG_OFF;
}

void logCall(int level, const LayerDesc &layer, int64_t m, const std::string &what) {
  logLine(level, std::string(layer.name) + ": m = " + std::to_string(m) + " takes " + what);
}

size_t workspaceSize(const LayerDesc &layer, int64_t maxM) {
  if (pathOf(layer, maxM) != Path::prefill)
    return 0;
  return layer.scratchBytes + kGemmWorkspaceBytes;
}

/// Whether `v` is the tiling these numbers name; the register form is named
/// apart, so a register tiling and a workgroup-memory one of equal numbers
/// never match each other.
bool isFusedVariant(const qmat_policy::FusedVariantDesc &v, int mTile,
                    int warpsN, int splitK, int colTiles, int stages,
                    int kSlices, int multicast, bool registers) {
  return v.mTile == mTile && v.warpsN == warpsN && v.splitK == splitK &&
         v.colTiles == colTiles && v.stages == stages && v.kSlices == kSlices &&
         v.multicast == multicast &&
         (v.warpgroup == qmat_policy::kRegisterForm) == registers;
}

qmat_status setFusedOverride(int mTile, int warpsN, int splitK, int colTiles,
                             int stages, int kSlices, int multicast,
                             bool registers = false) {
  if (mTile == -1 || (mTile == 0 && warpsN == 0 && splitK == 0 && colTiles == 0 && stages == 0 &&
                      kSlices <= 1 && multicast <= 1)) {
    overrideMTile = mTile;
    overrideWarpsN = overrideFusedSplitK = overrideFusedColTiles = overrideFusedStages =
        overrideFusedKSlices = overrideFusedMulticast = 0;
    overrideFusedRegisters = false;
    return QMAT_OK;
  }
  bool known = false;
  for (size_t i = 0; i < kNumFusedKernels; ++i)
    known |= isFusedVariant(kFusedVariants[i], mTile, warpsN, splitK, colTiles,
                            stages, kSlices, multicast, registers);
  std::string last = kSlices != 1     ? " and k_slices = " + std::to_string(kSlices)
                     : multicast != 1 ? " and multicast = " + std::to_string(multicast)
                                      : std::string();
  if (!known && registers)
    return fail(QMAT_ERROR_INVALID_ARGUMENT,
                "no compiled fused GEMM variant with the weights in registers "
                "has m_tile = " +
                    std::to_string(mTile) +
                    " and col_tiles = " + std::to_string(colTiles));
  if (!known)
    return fail(QMAT_ERROR_INVALID_ARGUMENT,
                "no compiled fused GEMM variant has m_tile = " + std::to_string(mTile) +
                    ", warps_n = " + std::to_string(warpsN) + ", split_k = " +
                    std::to_string(splitK) + ", col_tiles = " + std::to_string(colTiles) +
                    (last.empty() ? " and stages = " + std::to_string(stages)
                                  : ", stages = " + std::to_string(stages) + last));
  overrideMTile = mTile;
  overrideWarpsN = warpsN;
  overrideFusedSplitK = splitK;
  overrideFusedColTiles = colTiles;
  overrideFusedStages = stages;
  overrideFusedKSlices = kSlices;
  overrideFusedMulticast = multicast;
  overrideFusedRegisters = registers;
  return QMAT_OK;
}

/// (0, 0): the policy chooses. Benchmarks set one variant for every call.
std::atomic<int> overrideSplitK{0}, overrideColTiles{0};

qmat_status setGemvOverride(int splitK, int colTiles) {
  if (splitK == 0 && colTiles == 0) {
    overrideSplitK = 0;
    overrideColTiles = 0;
    return QMAT_OK;
  }
  bool known = false;
  for (size_t i = 0; i < kNumGemvKernels; ++i)
    known |= kGemvVariants[i].splitK == splitK && kGemvVariants[i].colTiles == colTiles;
  if (!known)
    return fail(QMAT_ERROR_INVALID_ARGUMENT,
                "no compiled GEMV variant has split_k = " + std::to_string(splitK) +
                    " and col_tiles = " + std::to_string(colTiles));
  overrideSplitK = splitK;
  overrideColTiles = colTiles;
  return QMAT_OK;
}

/// The resident warps of a layer's `count` variants from `first`, or null
/// where the occupancy of the bundle's kernels is not known.
const int *residentWarpsOf(const std::vector<int> &residentWarps, size_t first, size_t count) {
  return residentWarps.size() >= first + count ? residentWarps.data() + first : nullptr;
}

/// The variant (an index into kGemvVariants) for m rows of `layer` on a
/// device with `multiprocessors` SMs / compute units, each holding
/// residentWarps[v] warps of variant v (the driver's occupancy, every GEMV
/// kernel of the bundle).
qmat_status chooseVariant(const LayerDesc &layer, int multiprocessors,
                          const std::vector<int> &residentWarps, int64_t m, size_t &variant) {
  const qmat_policy::GemvVariantDesc *variants = kGemvVariants + layer.gemvFirst;
  int count = int(layer.gemvCount);
  int splitK = overrideSplitK, colTiles = overrideColTiles;
  int chosen = -1;
  if (splitK != 0) {
    int capacity = 0;
    for (int i = 0; i < count; ++i)
      if (variants[i].maxM >= m && variants[i].splitK == splitK &&
          variants[i].colTiles == colTiles && (capacity == 0 || variants[i].maxM < capacity)) {
        capacity = variants[i].maxM;
        chosen = i;
      }
    if (chosen < 0)
      return fail(QMAT_ERROR_INVALID_ARGUMENT,
                  "the GEMV override (split_k = " + std::to_string(splitK) + ", col_tiles = " +
                      std::to_string(colTiles) + ") has no variant for m = " + std::to_string(m));
  } else {
    chosen = qmat_policy::chooseGemvVariant(
        layer.n, layer.k, m, multiprocessors, variants, count,
        residentWarpsOf(residentWarps, layer.gemvFirst, layer.gemvCount));
    if (chosen < 0)
      return fail(QMAT_ERROR_INVALID_ARGUMENT,
                  "no GEMV variant handles m = " + std::to_string(m));
  }
  variant = layer.gemvFirst + size_t(chosen);
  return QMAT_OK;
}

/// A GEMV variant and how it was chosen, for the log.
std::string describeGemv(size_t variant, int processors, const char *processorName) {
  const qmat_policy::GemvVariantDesc &v = kGemvVariants[variant];
  return std::string("the ") + (v.tensorCore ? "tensor-core" : "scalar") + " GEMV (up to m = " +
         std::to_string(v.maxM) + ", split-K " + std::to_string(v.splitK) + ", " +
         std::to_string(v.colTiles) + " column tile" + (v.colTiles == 1 ? "" : "s") +
         (v.wholeLines ? ", whole lines" : "") + "), " +
         (overrideSplitK != 0 ? std::string("set by the GEMV override")
                              : "chosen by the policy for " + std::to_string(processors) + " " +
                                    processorName);
}

/// The fused variant (an index into kFusedVariants) for m rows of `layer`:
/// the override's where it is set and this layer has it, else the policy's.
qmat_status chooseFused(const LayerDesc &layer, int multiprocessors,
                        const std::vector<int> &residentWarps, int64_t m, size_t &variant) {
  const qmat_policy::FusedVariantDesc *variants = kFusedVariants + layer.fusedFirst;
  int count = int(layer.fusedCount);
  int chosen = -1;
  if (overrideMTile > 0) {
    for (int i = 0; i < count; ++i)
      if (isFusedVariant(variants[i], overrideMTile, overrideWarpsN,
                         overrideFusedSplitK, overrideFusedColTiles,
                         overrideFusedStages, overrideFusedKSlices,
                         overrideFusedMulticast, overrideFusedRegisters))
        chosen = i;
    if (chosen < 0)
      return fail(QMAT_ERROR_INVALID_ARGUMENT,
                  "the fused override has no variant in this layer (its K takes other splits)");
  } else {
    chosen = qmat_policy::chooseFusedVariant(
        layer.n, layer.k, m, multiprocessors, variants, count,
        residentWarpsOf(residentWarps, layer.fusedFirst, layer.fusedCount));
    if (chosen < 0)
      return fail(QMAT_ERROR_INVALID_ARGUMENT,
                  "no fused GEMM variant handles m = " + std::to_string(m));
  }
  variant = layer.fusedFirst + size_t(chosen);
  return QMAT_OK;
}

std::string describeFused(size_t variant, int processors, const char *processorName) {
  const qmat_policy::FusedVariantDesc &v = kFusedVariants[variant];
  return "the fused dequant-GEMM (m_tile " + std::to_string(v.mTile) +
         ", warps_n " + std::to_string(v.warpsN) + ", split_k " +
         std::to_string(v.splitK) + ", col_tiles " +
         std::to_string(v.colTiles) + ", stages " + std::to_string(v.stages) +
         (v.kSlices > 1 ? ", k_slices " + std::to_string(v.kSlices)
                        : std::string()) +
         (v.multicast > 1 ? ", multicast " + std::to_string(v.multicast)
                          : std::string()) +
         (v.warpgroup == qmat_policy::kSpecializedForm ? ", specialized"
          : v.warpgroup == qmat_policy::kRegisterForm
              ? ", specialized, weights in registers"
          : v.warpgroup ? ", warpgroup"
                        : "") +
         "), " +
         (overrideMTile > 0
              ? std::string("set by the fused override")
              : "chosen by the policy for " + std::to_string(processors) + " " +
                    processorName);
}

/// The fused variant's grid for m rows: M tiles along x, blocks of weight
/// rows along y (at most 65535), the K slices of a cluster along z.
qmat_status fusedGrid(const LayerDesc &layer, const GemvKernelDesc &kernel, size_t variant,
                      int64_t m, unsigned &mTiles, unsigned &blocks, unsigned &slices) {
  int64_t tiles = (m + kFusedVariants[variant].mTile - 1) / kFusedVariants[variant].mTile;
  // Whole clusters along N (multicast): the blocks past the last rows
  // bring in their share of the activations and store nothing.
  int64_t cluster = kFusedVariants[variant].multicast;
  int64_t rows = (layer.n + kernel.rowsPerBlock - 1) / kernel.rowsPerBlock;
  rows = (rows + cluster - 1) / cluster * cluster;
  if (rows > 65535)
    return fail(QMAT_ERROR_INVALID_ARGUMENT,
                "the fused GEMM grid needs " + std::to_string(rows) +
                    " blocks along N, more than the 65535 a grid's y dimension holds");
  mTiles = unsigned(tiles);
  blocks = unsigned(rows);
  slices = unsigned(kFusedVariants[variant].kSlices);
  return QMAT_OK;
}

/// The layer's codes (host memory, n rows of weightCols bytes) in the
/// layout its kernels read: the checkpoint's, or with `prepared` the
/// prepared layout of PreparedWeights.h (written into this file above).
qmat_status prepareWeights(const LayerDesc &layer, bool prepared, const void *weights, void *out) {
  if (!weights || !out)
    return fail(QMAT_ERROR_INVALID_ARGUMENT, "weights and prepared must not be null");
  const auto *source = static_cast<const unsigned char *>(weights);
  auto *target = static_cast<unsigned char *>(out);
  size_t rowBytes = size_t(layer.weightCols), rows = size_t(layer.n);
  if (source + rows * rowBytes > target && target + rows * rowBytes > source)
    return fail(QMAT_ERROR_INVALID_ARGUMENT, "weights and prepared must not overlap");
  if (!prepared) {
    std::memcpy(target, source, rows * rowBytes);
    return QMAT_OK;
  }
  int64_t k = 2 * layer.weightCols;
  for (size_t row = 0; row < rows; ++row)
    for (size_t byte = 0; byte < rowBytes; byte += mlir::qmat::kPreparedPieceBytes)
      std::memcpy(target + mlir::qmat::getPreparedCodeOffset(int64_t(row), int64_t(byte), k),
                  source + row * rowBytes + byte, mlir::qmat::kPreparedPieceBytes);
  return QMAT_OK;
}

/// Every check that needs no GPU: m, the operands this layer has and has
/// not, alignment, the workspace. Sets `gemv` to the path m takes.
qmat_status validateArguments(const LayerDesc &layer, int64_t m, const void *a, const void *weights,
                              const void *scales, const float *globalScale, const void *zeroPoints,
                              const void *bias, void *y, void *workspace, size_t workspaceSize,
                              Path &path) {
  const std::string where;
  if (m <= 0)
    return fail(QMAT_ERROR_INVALID_ARGUMENT, where + "m must be positive, got " + std::to_string(m));
  if (m > INT32_MAX)
    return fail(QMAT_ERROR_INVALID_ARGUMENT, where + "m must be at most 2147483647, got " + std::to_string(m));
  path = pathOf(layer, m);
  bool gemv = path == Path::gemv, fused = path == Path::fused;
  struct { const void *pointer; const char *name; bool required; } operands[] = {
      {a, "a", true}, {weights, "weights", true}, {scales, "scales", true},
      {globalScale, "global_scale", layer.needsGlobal}, {zeroPoints, "zero_points", layer.needsZeroPoints},
      {bias, "bias", layer.needsBias}, {y, "y", true}};
  for (const auto &operand : operands) {
    if (operand.required && !operand.pointer)
      return fail(QMAT_ERROR_INVALID_ARGUMENT, where + operand.name + " must not be null");
    if (!operand.required && operand.pointer)
      return fail(QMAT_ERROR_INVALID_ARGUMENT, where + operand.name + " must be null: this layer has none");
  }
  // A misaligned load would fault on the device and lose the context.
  int scaleAlignment = gemv    ? layer.gemvScaleAlignment
                       : fused ? layer.fusedScaleAlignment
                               : int(layer.scaleElementBytes);
  if (misaligned(scales, scaleAlignment))
    return fail(QMAT_ERROR_INVALID_ARGUMENT,
                where + "scales must be " + std::to_string(scaleAlignment) + "-byte aligned" +
                    (gemv ? " for the GEMV (m <= " + std::to_string(layer.gemvMaxM) + ")"
                     : fused ? " for the fused GEMM (m <= " + std::to_string(layer.fusedMaxM) + ")"
                             : ""));
  if (fused) {
    // The fused GEMM reads 16-byte vectors of codes and activations.
    for (auto [pointer, name] : {std::pair{a, "a"}, std::pair{weights, "weights"}})
      if (misaligned(pointer, 16))
        return fail(QMAT_ERROR_INVALID_ARGUMENT, where + name + " must be 16-byte aligned for the fused GEMM (m <= " +
                                                     std::to_string(layer.fusedMaxM) + ")");
  } else if (gemv) {
    // The tensor-core and chunked GEMVs read 16-byte vectors of codes and
    // activations.
    bool tensorCore = kGemvVariants[layer.gemvFirst].tensorCore;
    if (tensorCore || layer.gemvChunkedDot)
      for (auto [pointer, name] : {std::pair{a, "a"}, std::pair{weights, "weights"}})
        if (misaligned(pointer, 16))
          return fail(QMAT_ERROR_INVALID_ARGUMENT, where + name + " must be 16-byte aligned for the " +
                                                       (tensorCore ? "tensor-core" : "chunked") + " GEMV (m <= " +
                                                       std::to_string(layer.gemvMaxM) + ")");
  } else {
    if (!workspace)
      return fail(QMAT_ERROR_INVALID_ARGUMENT, where + "workspace must not be null");
    if (misaligned(weights, layer.weightAlignment))
      return fail(QMAT_ERROR_INVALID_ARGUMENT, where + "weights must be " + std::to_string(layer.weightAlignment) +
                                                   "-byte aligned for the vectorised dequantization");
    if (misaligned(workspace, QMAT_WORKSPACE_ALIGNMENT))
      return fail(QMAT_ERROR_INVALID_ARGUMENT,
                  where + "workspace must be " + std::to_string(QMAT_WORKSPACE_ALIGNMENT) +
                      "-byte aligned");
  }
  // Their elements' own sizes (bf16 / f16, f32).
  const struct {
    const void *pointer;
    const char *name;
    int alignment;
  } elementAligned[] = {{a, "a", 2}, {y, "y", 2}, {bias, "bias", 2}, {globalScale, "global_scale", 4}};
  for (const auto &operand : elementAligned)
    if (misaligned(operand.pointer, operand.alignment))
      return fail(QMAT_ERROR_INVALID_ARGUMENT,
                  where + operand.name + " must be " + std::to_string(operand.alignment) + "-byte aligned");
  size_t needed = ::workspaceSize(layer, m);
  if (workspaceSize < needed)
    return fail(QMAT_ERROR_WORKSPACE_TOO_SMALL, where + "the workspace needs " + std::to_string(needed) +
                                                    " bytes, got " + std::to_string(workspaceSize));
  return QMAT_OK;
}

/// Defined by the vendor runtime that follows.
qmat_status runChecked(const LayerDesc &layer, Stream stream, int64_t m, const void *a,
                       const void *weights, const void *scales, const float *globalScale,
                       const void *zeroPoints, const void *bias, void *y, void *workspace,
                       size_t workspaceSize);

/// A run entry point's type with its stream passed as `void *`, as
/// LauncherABI.h's qmat_run_fn declares it: CUstream and hipStream_t are
/// pointers.
template <class Function> struct AbiRun;
template <class StreamType, class... Args>
struct AbiRun<qmat_status (*)(StreamType, Args...)> {
  static_assert(std::is_pointer<StreamType>::value, "a stream is a pointer");
  using type = qmat_status (*)(void *, Args...);
};
template <class Function> using AbiRunType = typename AbiRun<Function>::type;

/// Held shared by every _run for its whole call and exclusively by _unload:
/// an unload waits for the calls in progress, and no call sees a module
/// being unloaded (a call after it loads the module again).
std::shared_mutex runMutex;

/// Defined by the vendor runtime that follows: unloads every module and
/// library handle.
qmat_status unloadAll();

/// _unload, once no other thread is in _run.
qmat_status unloadWhenIdle() {
  std::unique_lock<std::shared_mutex> idle(runMutex);
  return unloadAll();
}

/// Every failure message starts with the layer's name.
qmat_status runLayer(const LayerDesc &layer, Stream stream, int64_t m, const void *a,
                     const void *weights, const void *scales, const float *globalScale,
                     const void *zeroPoints, const void *bias, void *y, void *workspace,
                     size_t workspaceSize) {
  std::shared_lock<std::shared_mutex> running(runMutex);
  qmat_status status = runChecked(layer, stream, m, a, weights, scales, globalScale, zeroPoints,
                                  bias, y, workspace, workspaceSize);
  if (status != QMAT_OK)
    lastError = std::string(layer.name) + ": " + lastError;
  return status;
}

}  // namespace

#endif // QMAT_AOT_RUNTIME_LAUNCHERCOMMON_H
