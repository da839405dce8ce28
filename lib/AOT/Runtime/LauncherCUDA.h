// The CUDA part of a generated launcher (driver API + cuBLASLt), after
// LauncherCommon.h.
#ifndef QMAT_AOT_RUNTIME_LAUNCHERCUDA_H
#define QMAT_AOT_RUNTIME_LAUNCHERCUDA_H

#include "LauncherCommon.h"

#include <cublasLt.h>
#include <cuda.h>
#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace {

qmat_status cudaFailure(CUresult result, const char *call) {
  std::string function = calledFunction(call);
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  return fail(QMAT_ERROR_CUDA, function + " failed with " +
                                   (name ? name : "CUDA error") + " (" +
                                   std::to_string(int(result)) + ")" +
                                   (text ? std::string(": ") + text : ""));
}

qmat_status cublasFailure(cublasStatus_t status, const char *call) {
  std::string function = calledFunction(call);
  return fail(QMAT_ERROR_CUBLAS, function + " failed with cuBLAS status " +
                                     std::to_string(int(status)));
}

#define QMAT_CU(call)                                                          \
  do {                                                                         \
    CUresult qmatResult_ = (call);                                             \
    if (qmatResult_ != CUDA_SUCCESS)                                           \
      return cudaFailure(qmatResult_, #call);                                  \
  } while (0)

/// Modules are loaded lazily, once per CUDA context, under one lock.
struct ContextState {
  const KernelDesc *kernels = nullptr;
  const GemvKernelDesc *gemvKernels = nullptr, *fusedKernels = nullptr;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions, gemvFunctions, fusedFunctions;
  /// Read once: the GEMV dispatch policy counts waves per multiprocessor,
  /// of as many warps of each GEMV kernel as one holds.
  int multiprocessors = 0;
  std::vector<int> gemvResidentWarps, fusedResidentWarps;
  /// The device dereferences pageable host memory itself (HMM, ATS): any
  /// pointer may then be passed.
  bool pageableAccess = false;
  /// Created on the first prefill call (ensureLt): a program that runs only
  /// the GEMV and the fused GEMM never initializes cuBLASLt.
  cublasLtHandle_t lt = nullptr;
  /// cuBLASLt's algorithm choice per (layer, m, tile rows): asking the
  /// heuristic on every call costs host time the GPU may wait for.
  /// Keyed on the layer, m, the tile's rows and the operands' alignments.
  std::map<std::tuple<const void *, int64_t, int64_t, uint32_t, uint32_t, uint32_t>,
           cublasLtMatmulAlgo_t>
      algorithms;
};
std::mutex stateMutex;
std::map<CUcontext, ContextState> states;

/// Makes the stream's context current for the duration of a call.
class ScopedContext {
public:
  explicit ScopedContext(CUcontext context) : pushed(cuCtxPushCurrent(context) == CUDA_SUCCESS) {}
  ~ScopedContext() {
    CUcontext ignored;
    if (pushed)
      cuCtxPopCurrent(&ignored);
  }
  bool ok() const { return pushed; }

private:
  bool pushed;
};

qmat_status contextOf(CUstream stream, CUcontext &context) {
  context = nullptr;
  if (stream)
    QMAT_CU(cuStreamGetCtx(stream, &context));
  else
    QMAT_CU(cuCtxGetCurrent(&context));
  if (!context)
    return fail(QMAT_ERROR_CUDA, "no CUDA context is current and the stream is the default stream");
  return QMAT_OK;
}

/// The binary a device of `capability` (10 * major + minor) loads, by the
/// rule of BinarySelection.h (written into this file above).
qmat_select::Selection selectBinary(int capability) {
  return qmat_select::selectBinary(capability, kBinaries, int(kNumTargets));
}

std::string unsupportedDevice(int major, int minor) {
  std::string built;
  for (size_t i = 0; i < kNumTargets; ++i)
    built += (i ? ", " : "") + std::string(kTargets[i].chip) +
             (kTargets[i].ptx ? " (cubin, PTX)" : " (cubin)");
  return "device of compute capability " + std::to_string(major) + "." +
         std::to_string(minor) + " has no binary in this bundle (built for: " + built +
         "); a cubin runs on devices of its major version and a minor at or above its own, "
         "an sm_XYa one on X.Y only, PTX (qmat-aot --emit=ptx) on X.Y and every later device";
}

qmat_status selectedBinary(int major, int minor, const char **chip, int *fromPtx) {
  if (!chip)
    return fail(QMAT_ERROR_INVALID_ARGUMENT, "target must not be null");
  *chip = nullptr;
  if (fromPtx)
    *fromPtx = 0;
  if (major < 0 || major > 99 || minor < 0 || minor > 9)
    return fail(QMAT_ERROR_INVALID_ARGUMENT,
                "a compute capability has a major version in [0, 99] and a minor in [0, 9], "
                "got " + std::to_string(major) + "." + std::to_string(minor));
  qmat_select::Selection selection = selectBinary(major * 10 + minor);
  if (selection.index < 0)
    return fail(QMAT_ERROR_UNSUPPORTED_DEVICE, unsupportedDevice(major, minor));
  *chip = kTargets[selection.index].chip;
  if (fromPtx)
    *fromPtx = selection.kind == qmat_select::BinaryKind::ptx;
  return QMAT_OK;
}

qmat_status loadState(CUcontext context, ContextState *&state) {
  std::lock_guard<std::mutex> lock(stateMutex);
  auto found = states.find(context);
  if (found != states.end()) {
    state = &found->second;
    return QMAT_OK;
  }
  ScopedContext scope(context);
  if (!scope.ok())
    return fail(QMAT_ERROR_CUDA, "cuCtxPushCurrent failed for the stream's context");
  CUdevice device;
  QMAT_CU(cuCtxGetDevice(&device));
  int major = 0, minor = 0;
  QMAT_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  QMAT_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  int capability = major * 10 + minor;
  qmat_select::Selection selection = selectBinary(capability);
  if (selection.index < 0)
    return fail(QMAT_ERROR_UNSUPPORTED_DEVICE, unsupportedDevice(major, minor));
  const TargetDesc *target = &kTargets[selection.index];
  const KernelDesc *kernels = kernelsOf(selection.index);
  const GemvKernelDesc *gemvKernels = gemvKernelsOf(selection.index);
  const GemvKernelDesc *fusedKernels = fusedKernelsOf(selection.index);
  bool fromPtx = selection.kind == qmat_select::BinaryKind::ptx;
  ContextState fresh;
  fresh.kernels = kernels;
  fresh.gemvKernels = gemvKernels;
  fresh.fusedKernels = fusedKernels;
  QMAT_CU(cuDeviceGetAttribute(&fresh.multiprocessors,
                               CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  int pageable = 0;
  QMAT_CU(cuDeviceGetAttribute(&pageable, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, device));
  fresh.pageableAccess = pageable != 0;
  if (logLevel() >= QMAT_LOG_INFO)
    logLine(QMAT_LOG_INFO, "device " + std::to_string(int(device)) + " (compute capability " +
            std::to_string(major) + "." + std::to_string(minor) + ", " +
            std::to_string(fresh.multiprocessors) + " multiprocessors) " +
            (fromPtx ? "compiles the " + std::string(target->chip) +
                           " PTX: no cubin of this bundle runs there"
                     : "loads the " + std::string(target->chip) + " cubin"));
  QMAT_CU(cuModuleLoadData(&fresh.module,
                           fromPtx ? static_cast<const void *>(target->ptx)
                                   : static_cast<const void *>(target->cubin)));
  for (size_t i = 0; i < kNumKernels; ++i) {
    CUfunction function;
    CUresult result = cuModuleGetFunction(&function, fresh.module, kernels[i].symbol);
    if (result != CUDA_SUCCESS) {
      cuModuleUnload(fresh.module);
      return cudaFailure(result, "cuModuleGetFunction");
    }
    fresh.functions.push_back(function);
  }
  // Each variant kernel, and (for the policies) how many of its warps one
  // SM holds; a fused variant whose blocks form clusters (k_slices) is
  // placed a cluster at a time, which the per-block count does not
  // describe: 0 there (the policy then asks none).
  auto loadVariants = [&](const GemvKernelDesc *descs, size_t count,
                          std::vector<CUfunction> &functions, std::vector<int> *residentWarps,
                          const qmat_policy::FusedVariantDesc *fused) -> qmat_status {
    for (size_t i = 0; i < count; ++i) {
      CUfunction function;
      QMAT_CU(cuModuleGetFunction(&function, fresh.module, descs[i].symbol));
      // Above 48 KB, dynamic workgroup memory needs the function's opt-in.
      if (descs[i].dynamicSharedBytes > 48 * 1024)
        QMAT_CU(cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   descs[i].dynamicSharedBytes));
      functions.push_back(function);
      if (!residentWarps)
        continue;
      if (fused && (fused[i].kSlices > 1 || fused[i].multicast > 1)) {
        residentWarps->push_back(0);
        continue;
      }
      int blocks = 0;
      QMAT_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(
          &blocks, function, descs[i].threads, size_t(descs[i].dynamicSharedBytes)));
      residentWarps->push_back(blocks * descs[i].threads / 32);
    }
    return QMAT_OK;
  };
  for (qmat_status s :
       {loadVariants(gemvKernels, kNumGemvKernels, fresh.gemvFunctions, &fresh.gemvResidentWarps,
                     nullptr),
        loadVariants(fusedKernels, kNumFusedKernels, fresh.fusedFunctions,
                     &fresh.fusedResidentWarps, kFusedVariants)})
    if (s != QMAT_OK) {
      cuModuleUnload(fresh.module);
      return s;
    }
  state = &states.emplace(context, fresh).first->second;
  return QMAT_OK;
}

/// The context's cuBLASLt handle, created on first use (under the lock, in
/// the current context).
qmat_status ensureLt(ContextState &state) {
  std::lock_guard<std::mutex> lock(stateMutex);
  if (state.lt)
    return QMAT_OK;
  cublasStatus_t status = cublasLtCreate(&state.lt);
  if (status != CUBLAS_STATUS_SUCCESS) {
    state.lt = nullptr;
    return cublasFailure(status, "cublasLtCreate");
  }
  if (logLevel() >= QMAT_LOG_INFO)
    logLine(QMAT_LOG_INFO, "cuBLASLt initialized for the dequantize + GEMM path");
  return QMAT_OK;
}

/// Refuses, while the context is still healthy, an operand no CUDA
/// allocation holds, naming it (notDeviceMemory).
qmat_status checkDevicePointers(const ContextState &state,
                                std::initializer_list<std::pair<const void *, const char *>> operands) {
  if (state.pageableAccess)
    return QMAT_OK;
  for (const auto &[pointer, name] : operands) {
    if (!pointer)
      continue;
    unsigned type = 0;
    CUresult result = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            reinterpret_cast<CUdeviceptr>(pointer));
    if (result == CUDA_ERROR_INVALID_VALUE)
      return notDeviceMemory(name, "CUDA", "cuMemHostAlloc or cuMemHostRegister");
    if (result != CUDA_SUCCESS)
      return cudaFailure(result, "cuPointerGetAttribute");
  }
  return QMAT_OK;
}

/// The largest power of two up to 256 that divides `pointer`'s address.
uint32_t addressAlignment(const void *pointer) {
  uint32_t alignment = 256;
  while (alignment > 1 && misaligned(pointer, int(alignment)))
    alignment /= 2;
  return alignment;
}

/// Y[:, n0:n0+rows] = A · W_tileᵀ (+ bias[n0:n0+rows]). Row-major [M, N] is
/// column-major [N, M] to cuBLAS, so the tile is Y + n0 with ld = N. The
/// heuristic is told each operand's alignment (a 2-byte aligned A or Y is
/// valid input, which the algorithms it picks for 16-byte ones refuse), and
/// its choice is kept per alignment.
qmat_status gemm(const LayerDesc &layer, ContextState &state, CUstream stream, int64_t m,
                 int64_t rows, const void *a, const void *scratch, const void *bias,
                 void *y, void *gemmWorkspace) {
  cudaDataType_t type = layer.bf16 ? CUDA_R_16BF : CUDA_R_16F;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t wLayout = nullptr, aLayout = nullptr, yLayout = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  qmat_status status = QMAT_OK;
  auto check = [&](cublasStatus_t s, const char *call) {
    if (status == QMAT_OK && s != CUBLAS_STATUS_SUCCESS)
      status = cublasFailure(s, call);
    return status == QMAT_OK;
  };
  cublasOperation_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
  uint64_t workspaceBytes = kGemmWorkspaceBytes;
  // cuBLAS's A is the weight tile, B the activations, C and D the output.
  uint32_t alignW = addressAlignment(scratch), alignA = addressAlignment(a),
           alignY = addressAlignment(y);
  if (check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate") &&
      check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof transposed), "set TRANSA") &&
      check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof plain), "set TRANSB") &&
      check(cublasLtMatrixLayoutCreate(&wLayout, type, layer.k, rows, layer.k), "cublasLtMatrixLayoutCreate(W)") &&
      check(cublasLtMatrixLayoutCreate(&aLayout, type, layer.k, m, layer.k), "cublasLtMatrixLayoutCreate(A)") &&
      check(cublasLtMatrixLayoutCreate(&yLayout, type, rows, m, layer.n), "cublasLtMatrixLayoutCreate(Y)") &&
      check(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate") &&
      check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &workspaceBytes, sizeof workspaceBytes),
            "set MAX_WORKSPACE_BYTES") &&
      check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                                 &alignW, sizeof alignW),
            "set MIN_ALIGNMENT_A_BYTES") &&
      check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                                 &alignA, sizeof alignA),
            "set MIN_ALIGNMENT_B_BYTES") &&
      check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                                                 &alignY, sizeof alignY),
            "set MIN_ALIGNMENT_C_BYTES") &&
      check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                                                 &alignY, sizeof alignY),
            "set MIN_ALIGNMENT_D_BYTES")) {
    if (bias) {
      cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
      check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), "set EPILOGUE");
      check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), "set BIAS_POINTER");
    }
    auto key = std::make_tuple(static_cast<const void *>(&layer), m, rows, alignW, alignA, alignY);
    cublasLtMatmulAlgo_t algorithm;
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
      cublasLtMatmulHeuristicResult_t heuristic = {};
      int found = 0;
      if (check(cublasLtMatmulAlgoGetHeuristic(state.lt, op, wLayout, aLayout, yLayout, yLayout,
                                               preference, 1, &heuristic, &found),
                "cublasLtMatmulAlgoGetHeuristic")) {
        if (found == 0) {
          status = cublasFailure(CUBLAS_STATUS_NOT_SUPPORTED,
                                 "cublasLtMatmulAlgoGetHeuristic (no algorithm)");
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
      check(cublasLtMatmul(state.lt, op, &one, scratch, wLayout, a, aLayout, &zero, y, yLayout, y,
                           yLayout, &algorithm, gemmWorkspace, kGemmWorkspaceBytes,
                           reinterpret_cast<cudaStream_t>(stream)),
            "cublasLtMatmul");
    }
  }
  if (preference) cublasLtMatmulPreferenceDestroy(preference);
  if (yLayout) cublasLtMatrixLayoutDestroy(yLayout);
  if (aLayout) cublasLtMatrixLayoutDestroy(aLayout);
  if (wLayout) cublasLtMatrixLayoutDestroy(wLayout);
  if (op) cublasLtMatmulDescDestroy(op);
  return status;
}

qmat_status runGemv(const LayerDesc &layer, ContextState &state, CUstream stream, int64_t m,
                    const void *a, const void *weights, const void *scales,
                    const float *globalScale, const void *zeroPoints, const void *bias, void *y) {
  size_t variant = 0;
  if (qmat_status s =
          chooseVariant(layer, state.multiprocessors, state.gemvResidentWarps, m, variant))
    return s;
  if (int level = callLogLevel(layer, Path::gemv, variant))
    logCall(level, layer, m, describeGemv(variant, state.multiprocessors, "multiprocessors"));
  const GemvKernelDesc &kernel = state.gemvKernels[variant];
  Params params = gemvParams(layer, m, a, weights, scales, globalScale, zeroPoints, bias, y);
  std::vector<void *> pointers = params.pointers();
  unsigned blocks = unsigned((layer.n + kernel.rowsPerBlock - 1) / kernel.rowsPerBlock);
  QMAT_CU(cuLaunchKernel(state.gemvFunctions[variant], blocks, 1, 1, unsigned(kernel.threads), 1,
                         1, 0, stream, pointers.data(), nullptr));
  return QMAT_OK;
}

/// A's tensor map for the specialized fused GEMM: tiles of 64 columns
/// (128 bytes, 128-byte swizzled) by `rows` rows (the M tile, or a block's
/// share of it with multicast), zeros past row m. The launch copies it (a
/// by-value parameter).
qmat_status encodeActivationMap(const LayerDesc &layer, int64_t m, int rows, const void *a,
                                CUtensorMap &map) {
  const cuuint64_t dims[2] = {cuuint64_t(layer.k), cuuint64_t(m)};
  const cuuint64_t rowBytes[1] = {cuuint64_t(layer.k) * 2};
  const cuuint32_t box[2] = {64, cuuint32_t(rows)};
  const cuuint32_t steps[2] = {1, 1};
  CUresult result = cuTensorMapEncodeTiled(
      &map,
      layer.bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      2, const_cast<void *>(a), dims, rowBytes, box, steps,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return result == CUDA_SUCCESS ? QMAT_OK
                                : cudaFailure(result, "cuTensorMapEncodeTiled");
}

qmat_status runFused(const LayerDesc &layer, ContextState &state, CUstream stream, int64_t m,
                     const void *a, const void *weights, const void *scales,
                     const float *globalScale, const void *zeroPoints, const void *bias, void *y) {
  size_t variant = 0;
  if (qmat_status s = chooseFused(layer, state.multiprocessors, state.fusedResidentWarps, m,
                                  variant))
    return s;
  if (int level = callLogLevel(layer, Path::fused, variant))
    logCall(level, layer, m, describeFused(variant, state.multiprocessors, "multiprocessors"));
  const GemvKernelDesc &kernel = state.fusedKernels[variant];
  Params params = gemvParams(layer, m, a, weights, scales, globalScale, zeroPoints, bias, y);
  std::vector<void *> pointers = params.pointers();
  CUtensorMap activationMap;
  // The specialized forms take A's tensor map after their other arguments.
  if (kFusedVariants[variant].warpgroup >= qmat_policy::kSpecializedForm) {
    const qmat_policy::FusedVariantDesc &v = kFusedVariants[variant];
    if (qmat_status s = encodeActivationMap(layer, m, v.mTile / v.multicast, a, activationMap))
      return s;
    pointers.push_back(&activationMap);
  }
  unsigned mTiles = 0, blocks = 0, slices = 1;
  if (qmat_status s = fusedGrid(layer, kernel, variant, m, mTiles, blocks, slices))
    return s;
  QMAT_CU(cuLaunchKernel(state.fusedFunctions[variant], mTiles, blocks, slices,
                         unsigned(kernel.threads), 1, 1, unsigned(kernel.dynamicSharedBytes),
                         stream, pointers.data(), nullptr));
  return QMAT_OK;
}

qmat_status unloadAll() {
  std::lock_guard<std::mutex> lock(stateMutex);
  qmat_status status = QMAT_OK;
  for (auto &entry : states) {
    ScopedContext scope(entry.first);
    if (entry.second.lt)
      cublasLtDestroy(entry.second.lt);
    CUresult result = cuModuleUnload(entry.second.module);
    if (result != CUDA_SUCCESS && status == QMAT_OK)
      status = cudaFailure(result, "cuModuleUnload");
  }
  states.clear();
  return status;
}

qmat_status runChecked(const LayerDesc &layer, CUstream stream, int64_t m, const void *a,
                       const void *weights, const void *scales, const float *globalScale,
                       const void *zeroPoints, const void *bias, void *y, void *workspace,
                       size_t workspaceSize) {
  Path path = Path::prefill;
  if (qmat_status s = validateArguments(layer, m, a, weights, scales, globalScale, zeroPoints, bias,
                                        y, workspace, workspaceSize, path))
    return s;
  CUcontext context;
  if (qmat_status s = contextOf(stream, context))
    return s;
  ContextState *state = nullptr;
  if (qmat_status s = loadState(context, state))
    return s;
  ScopedContext scope(context);
  if (!scope.ok())
    return fail(QMAT_ERROR_CUDA, "cuCtxPushCurrent failed for the stream's context");
  if (qmat_status s = checkDevicePointers(
          *state, {{a, "a"}, {weights, "weights"}, {scales, "scales"},
                   {globalScale, "global_scale"}, {zeroPoints, "zero_points"}, {bias, "bias"},
                   {y, "y"}, {path == Path::prefill ? workspace : nullptr, "workspace"}}))
    return s;
  if (path == Path::gemv)
    return runGemv(layer, *state, stream, m, a, weights, scales, globalScale, zeroPoints, bias, y);
  if (path == Path::fused)
    return runFused(layer, *state, stream, m, a, weights, scales, globalScale, zeroPoints, bias, y);

  if (qmat_status s = ensureLt(*state))
    return s;
  if (int level = callLogLevel(layer, Path::prefill, 0))
    logCall(level, layer, m,
            "the dequantize kernel " + std::string(state->kernels[layer.kernelIndex].symbol) +
                " in tiles of " + std::to_string(layer.tileRows) + " rows, each followed by a "
                "cuBLASLt GEMM");
  // The scratch never exceeds the cap: N is covered in tiles of tileRows.
  char *scratch = static_cast<char *>(workspace);
  void *gemmWorkspace = scratch + layer.scratchBytes;
  const KernelDesc &kernel = state->kernels[layer.kernelIndex];
  CUfunction function = state->functions[layer.kernelIndex];
  for (int64_t n0 = 0; n0 < layer.n; n0 += layer.tileRows) {
    int64_t rows = std::min(layer.tileRows, layer.n - n0);
    Params params = dequantParams(layer, n0, rows, weights, scales, globalScale, zeroPoints, scratch);
    std::vector<void *> pointers = params.pointers();
    QMAT_CU(cuLaunchKernel(function, unsigned(rows), unsigned(kernel.gridY), 1,
                           unsigned(kernel.threads), 1, 1, 0, stream, pointers.data(), nullptr));
    const void *biasTile = bias ? static_cast<const char *>(bias) + n0 * 2 : nullptr;
    if (qmat_status s = gemm(layer, *state, stream, m, rows, a, scratch, biasTile,
                             static_cast<char *>(y) + n0 * 2, gemmWorkspace))
      return s;
  }
  return QMAT_OK;
}

}  // namespace

#endif // QMAT_AOT_RUNTIME_LAUNCHERCUDA_H
