// The HIP part of a generated launcher (HIP module API + hipBLASLt), after
// LauncherCommon.h. hipBLASLt is opened with dlopen on the first prefill
// call: the launcher then builds against Debian's HIP headers alone (no
// hipBLASLt headers or library at build time), and a deployment that only
// ever runs the decode GEMV needs no hipBLASLt. The few hipBLASLt types and
// values used are declared here from its public C API (hipblaslt.h and
// hipblas-common.h, ROCm 6.0 and later; ROCm 5 used other compute-type
// values).
#ifndef QMAT_AOT_RUNTIME_LAUNCHERHIP_H
#define QMAT_AOT_RUNTIME_LAUNCHERHIP_H

#include "LauncherCommon.h"

#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

namespace hipblaslt {
typedef int Status;  // hipblasStatus_t; HIPBLAS_STATUS_SUCCESS = 0
typedef void *Handle;
typedef void *MatmulDesc;
typedef void *MatrixLayout;
typedef void *MatmulPreference;
struct MatmulAlgo {
  uint8_t data[16];
  size_t maxWorkspaceBytes;
};
struct HeuristicResult {
  MatmulAlgo algo;
  size_t workspaceSize;
  Status state;
  float wavesCount;
  int reserved[4];
};
constexpr Status kSuccess = 0;
constexpr int kComputeF32 = 2;       // HIPBLAS_COMPUTE_32F
constexpr int kR32F = 0, kR16F = 2, kR16BF = 14;  // hipDataType
constexpr int32_t kOpN = 111, kOpT = 112;          // hipblasOperation_t
constexpr int kDescTransA = 0, kDescTransB = 1, kDescEpilogue = 2, kDescBiasPointer = 3;
constexpr uint32_t kEpilogueBias = 4;  // HIPBLASLT_EPILOGUE_BIAS
constexpr int kPrefMaxWorkspaceBytes = 1;

/// The entry points, resolved once.
struct Api {
  Status (*create)(Handle *);
  Status (*destroy)(Handle);
  Status (*matmulDescCreate)(MatmulDesc *, int, int);
  Status (*matmulDescDestroy)(MatmulDesc);
  Status (*matmulDescSetAttribute)(MatmulDesc, int, const void *, size_t);
  Status (*matrixLayoutCreate)(MatrixLayout *, int, uint64_t, uint64_t, int64_t);
  Status (*matrixLayoutDestroy)(MatrixLayout);
  Status (*preferenceCreate)(MatmulPreference *);
  Status (*preferenceDestroy)(MatmulPreference);
  Status (*preferenceSetAttribute)(MatmulPreference, int, const void *, size_t);
  Status (*algoGetHeuristic)(Handle, MatmulDesc, MatrixLayout, MatrixLayout, MatrixLayout,
                             MatrixLayout, MatmulPreference, int, HeuristicResult *, int *);
  Status (*matmul)(Handle, MatmulDesc, const void *, const void *, MatrixLayout, const void *,
                   MatrixLayout, const void *, const void *, MatrixLayout, void *, MatrixLayout,
                   const MatmulAlgo *, void *, size_t, hipStream_t);
};
}  // namespace hipblaslt

qmat_status hipFailure(hipError_t result, const char *call) {
  std::string function = calledFunction(call);
  const char *name = hipGetErrorName(result);
  const char *text = hipGetErrorString(result);
  return fail(QMAT_ERROR_HIP, function + " failed with " + (name ? name : "HIP error") + " (" +
                                  std::to_string(int(result)) + ")" +
                                  (text ? std::string(": ") + text : ""));
}

qmat_status hipblasltFailure(hipblaslt::Status status, const char *call) {
  std::string function = calledFunction(call);
  return fail(QMAT_ERROR_HIPBLASLT,
              function + " failed with hipBLASLt status " + std::to_string(int(status)));
}

#define QMAT_HIP(call)                                                         \
  do {                                                                         \
    hipError_t qmatResult_ = (call);                                           \
    if (qmatResult_ != hipSuccess)                                             \
      return hipFailure(qmatResult_, #call);                                   \
  } while (0)

/// hipBLASLt, opened on first use; every process shares one.
std::mutex apiMutex;
const hipblaslt::Api *api = nullptr;

qmat_status loadHipblaslt(const hipblaslt::Api *&out) {
  std::lock_guard<std::mutex> lock(apiMutex);
  if (api) {
    out = api;
    return QMAT_OK;
  }
  void *library = nullptr;
  std::string tried;
  for (const char *name : {"libhipblaslt.so.1", "libhipblaslt.so.0", "libhipblaslt.so"}) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library)
      break;
    const char *error = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (error ? error : name);
  }
  if (!library)
    return fail(QMAT_ERROR_HIPBLASLT, "cannot load hipBLASLt for the prefill GEMM: " + tried);
  static hipblaslt::Api loaded;
  struct { void *slot; const char *symbol; } entries[] = {
      {&loaded.create, "hipblasLtCreate"},
      {&loaded.destroy, "hipblasLtDestroy"},
      {&loaded.matmulDescCreate, "hipblasLtMatmulDescCreate"},
      {&loaded.matmulDescDestroy, "hipblasLtMatmulDescDestroy"},
      {&loaded.matmulDescSetAttribute, "hipblasLtMatmulDescSetAttribute"},
      {&loaded.matrixLayoutCreate, "hipblasLtMatrixLayoutCreate"},
      {&loaded.matrixLayoutDestroy, "hipblasLtMatrixLayoutDestroy"},
      {&loaded.preferenceCreate, "hipblasLtMatmulPreferenceCreate"},
      {&loaded.preferenceDestroy, "hipblasLtMatmulPreferenceDestroy"},
      {&loaded.preferenceSetAttribute, "hipblasLtMatmulPreferenceSetAttribute"},
      {&loaded.algoGetHeuristic, "hipblasLtMatmulAlgoGetHeuristic"},
      {&loaded.matmul, "hipblasLtMatmul"}};
  for (const auto &entry : entries) {
    void *symbol = dlsym(library, entry.symbol);
    if (!symbol) {
      dlclose(library);
      return fail(QMAT_ERROR_HIPBLASLT,
                  std::string("hipBLASLt has no symbol ") + entry.symbol);
    }
    std::memcpy(entry.slot, &symbol, sizeof symbol);
  }
  api = &loaded;
  out = api;
  return QMAT_OK;
}

/// Modules are loaded lazily, once per HIP device, under one lock.
struct DeviceState {
  const KernelDesc *kernels = nullptr;
  const GemvKernelDesc *gemvKernels = nullptr, *fusedKernels = nullptr;
  hipModule_t module = nullptr;
  std::vector<hipFunction_t> functions, gemvFunctions, fusedFunctions;
  /// Read once: the dispatch policies count waves per compute unit, of as
  /// many wavefronts of each GEMV and fused kernel as one holds.
  int multiprocessors = 0;
  std::vector<int> gemvResidentWarps, fusedResidentWarps;
  /// The device dereferences pageable host memory itself (xnack+ with
  /// HMM): any address may be valid, and none is refused.
  bool pageableAccess = false;
  hipblaslt::Handle lt = nullptr;
  std::map<std::tuple<const void *, int64_t, int64_t>, hipblaslt::MatmulAlgo> algorithms;
};
std::mutex stateMutex;
std::map<int, DeviceState> states;

/// The stream's device is the current one: HIP launches a stream's work on
/// the device it was created on, and the caller makes that current (HIP 5
/// has no hipStreamGetDevice).
qmat_status loadState(DeviceState *&state) {
  int device = 0;
  QMAT_HIP(hipGetDevice(&device));
  std::lock_guard<std::mutex> lock(stateMutex);
  auto found = states.find(device);
  if (found != states.end()) {
    state = &found->second;
    return QMAT_OK;
  }
  hipDeviceProp_t properties;
  QMAT_HIP(hipGetDeviceProperties(&properties, device));
  // "gfx942:sramecc+:xnack-": the chip is what precedes the features.
  std::string arch(properties.gcnArchName);
  arch = arch.substr(0, arch.find(':'));
  const TargetDesc *target = nullptr;
  size_t index = 0;
  std::string available;
  for (size_t i = 0; i < kNumTargets; ++i) {
    available += (i ? ", " : "") + std::string(kTargets[i].chip);
    if (arch == kTargets[i].chip) {
      target = &kTargets[i];
      index = i;
    }
  }
  if (!target)
    return fail(QMAT_ERROR_UNSUPPORTED_DEVICE, "device " + std::to_string(device) + " (" + arch +
                                                   ") has no binary in this bundle (built for: " +
                                                   available + ")");
  DeviceState fresh;
  fresh.kernels = kernelsOf(index);
  fresh.gemvKernels = gemvKernelsOf(index);
  fresh.fusedKernels = fusedKernelsOf(index);
  fresh.multiprocessors = properties.multiProcessorCount;
  int pageable = 0;
  QMAT_HIP(hipDeviceGetAttribute(&pageable, hipDeviceAttributePageableMemoryAccess, device));
  fresh.pageableAccess = pageable != 0;
  if (logLevel() >= QMAT_LOG_INFO)
    logLine(QMAT_LOG_INFO, "device " + std::to_string(device) + " (" + arch + ", " +
            std::to_string(fresh.multiprocessors) + " compute units) loads the " +
            std::string(target->chip) + " hsaco");
  QMAT_HIP(hipModuleLoadData(&fresh.module, target->hsaco));
  for (size_t i = 0; i < kNumKernels; ++i) {
    hipFunction_t function;
    hipError_t result = hipModuleGetFunction(&function, fresh.module, fresh.kernels[i].symbol);
    if (result != hipSuccess) {
      // The lookup's failure is the one to report.
      (void)hipModuleUnload(fresh.module);
      return hipFailure(result, "hipModuleGetFunction");
    }
    fresh.functions.push_back(function);
  }
  // Each variant kernel, and (for the policies) how many of its wavefronts
  // one compute unit holds.
  int waveSize = properties.warpSize > 0 ? properties.warpSize : 64;
  auto loadVariants = [&](const GemvKernelDesc *descs, size_t count,
                          std::vector<hipFunction_t> &functions,
                          std::vector<int> &residentWarps) -> qmat_status {
    for (size_t i = 0; i < count; ++i) {
      hipFunction_t function;
      QMAT_HIP(hipModuleGetFunction(&function, fresh.module, descs[i].symbol));
      functions.push_back(function);
      int blocks = 0;
      QMAT_HIP(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
          &blocks, function, int(descs[i].threads), size_t(descs[i].dynamicSharedBytes)));
      residentWarps.push_back(blocks * int(descs[i].threads) / waveSize);
    }
    return QMAT_OK;
  };
  for (qmat_status s :
       {loadVariants(fresh.gemvKernels, kNumGemvKernels, fresh.gemvFunctions,
                     fresh.gemvResidentWarps),
        loadVariants(fresh.fusedKernels, kNumFusedKernels, fresh.fusedFunctions,
                     fresh.fusedResidentWarps)})
    if (s != QMAT_OK) {
      // The lookup's or the query's failure is the one to report.
      (void)hipModuleUnload(fresh.module);
      return s;
    }
  state = &states.emplace(device, fresh).first->second;
  return QMAT_OK;
}

/// Y[:, n0:n0+rows] = A · W_tileᵀ (+ bias[n0:n0+rows]), as on CUDA:
/// row-major [M, N] is column-major [N, M] to the BLAS.
qmat_status gemm(const LayerDesc &layer, DeviceState &state, hipStream_t stream, int64_t m,
                 int64_t rows, const void *a, const void *scratch, const void *bias, void *y,
                 void *gemmWorkspace) {
  const hipblaslt::Api *lt = nullptr;
  if (qmat_status s = loadHipblaslt(lt))
    return s;
  {
    std::lock_guard<std::mutex> lock(stateMutex);
    if (!state.lt) {
      hipblaslt::Status created = lt->create(&state.lt);
      if (created != hipblaslt::kSuccess) {
        state.lt = nullptr;
        return hipblasltFailure(created, "hipblasLtCreate");
      }
    }
  }
  int type = layer.bf16 ? hipblaslt::kR16BF : hipblaslt::kR16F;
  hipblaslt::MatmulDesc op = nullptr;
  hipblaslt::MatrixLayout wLayout = nullptr, aLayout = nullptr, yLayout = nullptr;
  hipblaslt::MatmulPreference preference = nullptr;
  qmat_status status = QMAT_OK;
  auto check = [&](hipblaslt::Status s, const char *call) {
    if (status == QMAT_OK && s != hipblaslt::kSuccess)
      status = hipblasltFailure(s, call);
    return status == QMAT_OK;
  };
  int32_t transposed = hipblaslt::kOpT, plain = hipblaslt::kOpN;
  uint64_t workspaceBytes = kGemmWorkspaceBytes;
  if (check(lt->matmulDescCreate(&op, hipblaslt::kComputeF32, hipblaslt::kR32F), "hipblasLtMatmulDescCreate") &&
      check(lt->matmulDescSetAttribute(op, hipblaslt::kDescTransA, &transposed, sizeof transposed), "set TRANSA") &&
      check(lt->matmulDescSetAttribute(op, hipblaslt::kDescTransB, &plain, sizeof plain), "set TRANSB") &&
      check(lt->matrixLayoutCreate(&wLayout, type, layer.k, rows, layer.k), "hipblasLtMatrixLayoutCreate(W)") &&
      check(lt->matrixLayoutCreate(&aLayout, type, layer.k, m, layer.k), "hipblasLtMatrixLayoutCreate(A)") &&
      check(lt->matrixLayoutCreate(&yLayout, type, rows, m, layer.n), "hipblasLtMatrixLayoutCreate(Y)") &&
      check(lt->preferenceCreate(&preference), "hipblasLtMatmulPreferenceCreate") &&
      check(lt->preferenceSetAttribute(preference, hipblaslt::kPrefMaxWorkspaceBytes, &workspaceBytes,
                                       sizeof workspaceBytes),
            "set MAX_WORKSPACE_BYTES")) {
    if (bias) {
      uint32_t epilogue = hipblaslt::kEpilogueBias;
      check(lt->matmulDescSetAttribute(op, hipblaslt::kDescEpilogue, &epilogue, sizeof epilogue), "set EPILOGUE");
      check(lt->matmulDescSetAttribute(op, hipblaslt::kDescBiasPointer, &bias, sizeof bias), "set BIAS_POINTER");
    }
    auto key = std::make_tuple(static_cast<const void *>(&layer), m, rows);
    hipblaslt::MatmulAlgo algorithm = {};
    bool known = false;
    {
      std::lock_guard<std::mutex> lock(stateMutex);
      auto cached = state.algorithms.find(key);
      if (cached != state.algorithms.end()) {
        algorithm = cached->second;
        known = true;
      }
    }
    if (!known && status == QMAT_OK) {
      hipblaslt::HeuristicResult heuristic = {};
      int found = 0;
      if (check(lt->algoGetHeuristic(state.lt, op, wLayout, aLayout, yLayout, yLayout, preference, 1,
                                     &heuristic, &found),
                "hipblasLtMatmulAlgoGetHeuristic")) {
        if (found == 0) {
          status = fail(QMAT_ERROR_HIPBLASLT, "hipblasLtMatmulAlgoGetHeuristic found no algorithm");
        } else {
          algorithm = heuristic.algo;
          known = true;
          std::lock_guard<std::mutex> lock(stateMutex);
          state.algorithms.emplace(key, algorithm);
        }
      }
    }
    if (known && status == QMAT_OK) {
      float one = 1.0f, zero = 0.0f;
      check(lt->matmul(state.lt, op, &one, scratch, wLayout, a, aLayout, &zero, y, yLayout, y,
                       yLayout, &algorithm, gemmWorkspace, kGemmWorkspaceBytes, stream),
            "hipblasLtMatmul");
    }
  }
  if (preference) lt->preferenceDestroy(preference);
  if (yLayout) lt->matrixLayoutDestroy(yLayout);
  if (aLayout) lt->matrixLayoutDestroy(aLayout);
  if (wLayout) lt->matrixLayoutDestroy(wLayout);
  if (op) lt->matmulDescDestroy(op);
  return status;
}

qmat_status unloadAll() {
  std::lock_guard<std::mutex> lock(stateMutex);
  qmat_status status = QMAT_OK;
  int current = 0;
  bool restore = hipGetDevice(&current) == hipSuccess;
  for (auto &entry : states) {
    hipError_t selected = hipSetDevice(entry.first);
    if (selected != hipSuccess && status == QMAT_OK)
      status = hipFailure(selected, "hipSetDevice");
    if (entry.second.lt && api) api->destroy(entry.second.lt);
    hipError_t result = hipModuleUnload(entry.second.module);
    if (result != hipSuccess && status == QMAT_OK)
      status = hipFailure(result, "hipModuleUnload");
  }
  if (restore)
    (void)hipSetDevice(current);  // best effort: the unloads' status wins
  states.clear();
  return status;
}

/// Refuses an operand no HIP allocation holds, naming it (notDeviceMemory).
/// HIP 6 reports such an address as hipMemoryTypeUnregistered, HIP 5 as
/// hipErrorInvalidValue.
qmat_status checkDevicePointers(const DeviceState &state,
                                std::initializer_list<std::pair<const void *, const char *>> operands) {
  if (state.pageableAccess)
    return QMAT_OK;
  for (const auto &[pointer, name] : operands) {
    if (!pointer)
      continue;
    hipPointerAttribute_t attributes;
    hipError_t result = hipPointerGetAttributes(&attributes, pointer);
#if HIP_VERSION_MAJOR >= 6
    if (result == hipSuccess && attributes.type == hipMemoryTypeUnregistered)
      result = hipErrorInvalidValue;
#endif
    if (result == hipErrorInvalidValue) {
      (void)hipGetLastError(); // the failed query leaves no error behind
      return notDeviceMemory(name, "HIP", "hipHostMalloc or hipHostRegister");
    }
    if (result != hipSuccess)
      return hipFailure(result, "hipPointerGetAttributes");
  }
  return QMAT_OK;
}

qmat_status runChecked(const LayerDesc &layer, hipStream_t stream, int64_t m, const void *a,
                       const void *weights, const void *scales, const float *globalScale,
                       const void *zeroPoints, const void *bias, void *y, void *workspace,
                       size_t workspaceSize) {
  Path path = Path::prefill;
  if (qmat_status s = validateArguments(layer, m, a, weights, scales, globalScale, zeroPoints, bias,
                                        y, workspace, workspaceSize, path))
    return s;
  DeviceState *state = nullptr;
  if (qmat_status s = loadState(state))
    return s;
  if (qmat_status s = checkDevicePointers(
          *state, {{a, "a"}, {weights, "weights"}, {scales, "scales"},
                   {globalScale, "global_scale"}, {zeroPoints, "zero_points"}, {bias, "bias"},
                   {y, "y"}, {path == Path::prefill ? workspace : nullptr, "workspace"}}))
    return s;
  if (path == Path::gemv) {
    size_t variant = 0;
    if (qmat_status s = chooseVariant(layer, state->multiprocessors, state->gemvResidentWarps, m,
                                      variant))
      return s;
    if (int level = callLogLevel(layer, Path::gemv, variant))
      logCall(level, layer, m, describeGemv(variant, state->multiprocessors, "compute units"));
    const GemvKernelDesc &kernel = state->gemvKernels[variant];
    Params params = gemvParams(layer, m, a, weights, scales, globalScale, zeroPoints, bias, y);
    std::vector<void *> pointers = params.pointers();
    unsigned blocks = unsigned((layer.n + kernel.rowsPerBlock - 1) / kernel.rowsPerBlock);
    QMAT_HIP(hipModuleLaunchKernel(state->gemvFunctions[variant], blocks, 1, 1,
                                   unsigned(kernel.threads), 1, 1, 0, stream, pointers.data(),
                                   nullptr));
    return QMAT_OK;
  }
  if (path == Path::fused) {
    size_t variant = 0;
    if (qmat_status s = chooseFused(layer, state->multiprocessors, state->fusedResidentWarps, m,
                                    variant))
      return s;
    if (int level = callLogLevel(layer, Path::fused, variant))
      logCall(level, layer, m, describeFused(variant, state->multiprocessors, "compute units"));
    const GemvKernelDesc &kernel = state->fusedKernels[variant];
    unsigned mTiles = 0, blocks = 0, slices = 1;
    if (qmat_status s = fusedGrid(layer, kernel, variant, m, mTiles, blocks, slices))
      return s;
    Params params = gemvParams(layer, m, a, weights, scales, globalScale, zeroPoints, bias, y);
    std::vector<void *> pointers = params.pointers();
    QMAT_HIP(hipModuleLaunchKernel(state->fusedFunctions[variant], mTiles, blocks, slices,
                                   unsigned(kernel.threads), 1, 1,
                                   unsigned(kernel.dynamicSharedBytes), stream, pointers.data(),
                                   nullptr));
    return QMAT_OK;
  }
  if (int level = callLogLevel(layer, Path::prefill, 0))
    logCall(level, layer, m,
            "the dequantize kernel " + std::string(state->kernels[layer.kernelIndex].symbol) +
                " in tiles of " + std::to_string(layer.tileRows) + " rows, each followed by a "
                "hipBLASLt GEMM");
  char *scratch = static_cast<char *>(workspace);
  void *gemmWorkspace = scratch + layer.scratchBytes;
  const KernelDesc &kernel = state->kernels[layer.kernelIndex];
  hipFunction_t function = state->functions[layer.kernelIndex];
  for (int64_t n0 = 0; n0 < layer.n; n0 += layer.tileRows) {
    int64_t rows = std::min(layer.tileRows, layer.n - n0);
    Params params = dequantParams(layer, n0, rows, weights, scales, globalScale, zeroPoints, scratch);
    std::vector<void *> pointers = params.pointers();
    QMAT_HIP(hipModuleLaunchKernel(function, unsigned(rows), unsigned(kernel.gridY), 1,
                                   unsigned(kernel.threads), 1, 1, 0, stream, pointers.data(),
                                   nullptr));
    const void *biasTile = bias ? static_cast<const char *>(bias) + n0 * 2 : nullptr;
    if (qmat_status s = gemm(layer, *state, stream, m, rows, a, scratch, biasTile,
                             static_cast<char *>(y) + n0 * 2, gemmWorkspace))
      return s;
  }
  return QMAT_OK;
}

}  // namespace

#endif // QMAT_AOT_RUNTIME_LAUNCHERHIP_H
