//===- prefill_bench.cpp - qmat-aot launchers on a GPU: error, time, memory
//===//
//
// For every layer of the bench bundle and M in {9, 16, 128, 1024, 8192}
// (lm_head: M <= 1024): fresh random weights and activations, Y poisoned,
// the generated launcher's Y checked against an fp64 product of A and the
// reference-dequantized W (lib/Reference) on sampled rows; then the prefill
// time against cuBLAS bf16/f16 on the already dequantized weights, and the
// lm_head's measured device-memory peak. Writes JSON.
//
//===----------------------------------------------------------------------===//

#include "../common/harness.h"
#include "../common/layers.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace qmat::ref;
using namespace bench;

namespace {

/// Y = A * W^T by cuBLASLt on the whole dequantized W, configured as the
/// launcher configures its per-tile GEMM (same descriptors, heuristic's
/// first algorithm, 32 MiB workspace): the untiled computation.
bool directLtGemm(cudaStream_t stream, ActType act, int64_t m, int64_t n,
                  int64_t k, const void *a, const void *w, void *y,
                  void *workspace, size_t workspaceBytes) {
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS)
    return false;
  cudaDataType_t type = act == ActType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t wl, al, yl;
  cublasLtMatmulPreference_t pref;
  cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
  uint64_t ws = workspaceBytes;
  bool ok =
      cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) == 0 &&
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t,
                                     sizeof t) == 0 &&
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn,
                                     sizeof nn) == 0 &&
      cublasLtMatrixLayoutCreate(&wl, type, k, n, k) == 0 &&
      cublasLtMatrixLayoutCreate(&al, type, k, m, k) == 0 &&
      cublasLtMatrixLayoutCreate(&yl, type, n, m, n) == 0 &&
      cublasLtMatmulPreferenceCreate(&pref) == 0 &&
      cublasLtMatmulPreferenceSetAttribute(
          pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws) == 0;
  cublasLtMatmulHeuristicResult_t h = {};
  int found = 0;
  ok = ok &&
       cublasLtMatmulAlgoGetHeuristic(lt, op, wl, al, yl, yl, pref, 1, &h,
                                      &found) == 0 &&
       found > 0;
  float one = 1.f, zero = 0.f;
  ok = ok && cublasLtMatmul(lt, op, &one, w, wl, a, al, &zero, y, yl, y, yl,
                            &h.algo, workspace, workspaceBytes, stream) == 0;
  cudaStreamSynchronize(stream);
  cublasLtDestroy(lt);
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  std::string outPath = argc > 1 ? argv[1] : "prefill.json";
  std::string only = argc > 2 ? argv[2] : "";
  // bitwise: only the single-tile check (launcher vs an untiled cuBLASLt
  // GEMM on the dequantized W), no timing, no lm_head.
  bool bitwiseOnly = argc > 3 && std::string(argv[3]) == "bitwise";
  bool allBitwise = true;
  uint64_t seed = std::random_device{}();
  GpuContext gpu = createGpuContext();
  cudaStream_t stream = gpu.stream;
  cublasHandle_t blas = gpu.blas;
  cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH);
  std::ostringstream json;
  json << "{\n  \"seed\": " << seed << ",\n  \"cases\": [\n";
  int cases = 0;
  bool allWithin = true;
  std::printf("%-24s %6s %10s %10s %10s %9s %s\n", "layer", "M", "rel_err",
              "qmat_ms", "cublas_ms", "ratio", "status");
  for (const LayerEntry &l : kLayers) {
    if (!only.empty() && std::string(l.name).find(only) == std::string::npos)
      continue;
    bool lmHead = l.shape.n == 248320;
    if (bitwiseOnly && lmHead)
      continue;
    double before = usedBytes();
    QuantizedWeight w =
        makeWeight(l.shape, seed ^ std::hash<std::string>{}(l.name));
    std::vector<uint16_t> wBits = dequantizeParallel(w);
    void *codes = upload(w.codes);
    void *scales = l.shape.scheme == Scheme::FP8 ? (void *)upload(w.scaleF32)
                   : l.shape.scheme == Scheme::INT4
                       ? (void *)upload(w.scaleAct)
                       : (void *)upload(w.scaleBytes);
    float *global = l.shape.scheme == Scheme::NVFP4
                        ? upload(std::vector<float>{w.globalScale})
                        : nullptr;
    void *zp = l.shape.zeroPoints ? (void *)upload(w.zeroPoints) : nullptr;
    std::vector<int64_t> ms = {9, 16, 128, 1024, 8192};
    if (lmHead)
      ms = {9, 16, 128, 1024};
    if (bitwiseOnly)
      ms = {9, 128, 1024};
    int64_t maxM = ms.back();
    size_t wsBytes = l.workspace(maxM);
    void *workspace;
    CUDA_CHECK(cudaMalloc(&workspace, wsBytes));
    uint16_t *a, *y;
    CUDA_CHECK(cudaMalloc(&a, size_t(maxM) * l.shape.k * 2));
    CUDA_CHECK(cudaMalloc(&y, size_t(maxM) * l.shape.n * 2));
    double afterAlloc = usedBytes();
    // Memory of the qmat run alone: one run at the largest M before the
    // baseline's dense weights exist (the launcher allocates nothing, so
    // the reading after it is its peak).
    CUDA_CHECK(cudaMemset(a, 0, size_t(maxM) * l.shape.k * 2));
    qmat_status memoryRun =
        l.run(reinterpret_cast<CUstream>(stream), maxM, a, codes, scales,
              global, zp, nullptr, y, workspace, wsBytes);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double peakDuring = std::max(afterAlloc, usedBytes());
    if (memoryRun != QMAT_OK)
      std::printf("%s: memory run failed: %s\n", l.name, bench_last_error());
    uint16_t *wDense = upload(wBits);

    for (int64_t m : ms) {
      uint64_t s = seed ^ uint64_t(m);
      std::vector<uint16_t> aBits =
          randomActivations(l.shape.act, size_t(m) * l.shape.k, splitmix(s));
      CUDA_CHECK(cudaMemcpy(a, aBits.data(), aBits.size() * 2,
                            cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemset(y, 0xFF, size_t(m) * l.shape.n * 2));
      qmat_status status =
          l.run(reinterpret_cast<CUstream>(stream), m, a, codes, scales, global,
                zp, nullptr, y, workspace, wsBytes);
      CUDA_CHECK(cudaStreamSynchronize(stream));
      if (status != QMAT_OK) {
        std::printf("%-24s %6ld FAILED %s\n", l.name, long(m),
                    bench_last_error());
        allWithin = false;
        continue;
      }
      // Sampled rows: the first, the last and one in between, all N columns.
      std::vector<int64_t> rows = {0, m / 2, m - 1};
      std::vector<uint16_t> got(size_t(l.shape.n));
      double num = 0, den = 0;
      bool nan = false;
      for (int64_t r : rows) {
        CUDA_CHECK(cudaMemcpy(got.data(), y + r * l.shape.n, l.shape.n * 2,
                              cudaMemcpyDeviceToHost));
        std::vector<double> ref(l.shape.n);
        parallelFor(l.shape.n, [&](int64_t j) {
          double acc = 0;
          const uint16_t *wr = &wBits[size_t(j) * l.shape.k];
          const uint16_t *ar = &aBits[size_t(r) * l.shape.k];
          for (int64_t c = 0; c < l.shape.k; ++c)
            acc += double(actBitsToFloat(l.shape.act, ar[c])) *
                   double(actBitsToFloat(l.shape.act, wr[c]));
          ref[j] = acc;
        });
        for (int64_t j = 0; j < l.shape.n; ++j) {
          double g = actBitsToFloat(l.shape.act, got[j]);
          nan |= std::isnan(g);
          num += (g - ref[j]) * (g - ref[j]);
          den += ref[j] * ref[j];
        }
      }
      double err = nan ? NAN : std::sqrt(num / den);
      double bound = l.shape.act == ActType::F16 ? 2e-3 : 1e-2;
      bool within = !nan && err <= bound;
      allWithin &= within;

      // Single-tile shapes: the launcher's Y against the untiled GEMM.
      bool singleTile = double(l.shape.n) * l.shape.k * 2 <= 256.0 * 1048576;
      int64_t mismatches = -1;
      if (bitwiseOnly && singleTile) {
        std::vector<uint16_t> tiled(size_t(m) * l.shape.n),
            untiled(size_t(m) * l.shape.n);
        CUDA_CHECK(cudaMemcpy(tiled.data(), y, tiled.size() * 2,
                              cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemset(y, 0xFF, size_t(m) * l.shape.n * 2));
        if (!directLtGemm(stream, l.shape.act, m, l.shape.n, l.shape.k, a,
                          wDense, y, workspace, 32 << 20)) {
          std::printf("%s: direct cuBLASLt GEMM failed\n", l.name);
          return 2;
        }
        CUDA_CHECK(cudaMemcpy(untiled.data(), y, untiled.size() * 2,
                              cudaMemcpyDeviceToHost));
        mismatches = 0;
        for (size_t i = 0; i < tiled.size(); ++i)
          mismatches += tiled[i] != untiled[i];
        allBitwise &= mismatches == 0;
      }
      // Speed: the launcher against cuBLAS on the dequantized weights.
      double qmatMs = -1, blasMs = -1;
      bool timed = !bitwiseOnly && m >= 16 &&
                   (std::string(l.name).find("bf16") != std::string::npos);
      if (timed) {
        qmatMs = medianMs(stream, 3, 15, [&] {
          l.run(reinterpret_cast<CUstream>(stream), m, a, codes, scales, global,
                zp, nullptr, y, workspace, wsBytes);
        });
        cudaDataType_t t =
            l.shape.act == ActType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
        float one = 1.f, zero = 0.f;
        blasMs = medianMs(stream, 3, 15, [&] {
          cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(l.shape.n), int(m),
                       int(l.shape.k), &one, wDense, t, int(l.shape.k), a, t,
                       int(l.shape.k), &zero, y, t, int(l.shape.n),
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        });
      }
      std::printf("%-24s %6ld %10.2e %10.4f %10.4f %9.3f %s\n", l.name, long(m),
                  err, qmatMs, blasMs, timed ? qmatMs / blasMs : 0.0,
                  within ? "ok" : "OUT OF BOUND");
      if (mismatches >= 0)
        std::printf("%-24s %6ld tiled vs untiled: %ld differing outputs\n",
                    l.name, long(m), long(mismatches));
      json << (cases++ ? ",\n" : "") << "    {\"layer\": \"" << l.name
           << "\", \"m\": " << m << ", \"n\": " << l.shape.n
           << ", \"k\": " << l.shape.k << ", \"rel_frobenius_error\": "
           << (nan ? std::string("\"NaN\"") : std::to_string(err))
           << ", \"bound\": " << bound
           << ", \"within_bound\": " << (within ? "true" : "false");
      if (mismatches >= 0)
        json << ", \"single_tile\": true, \"outputs_differing_from_untiled\": "
             << mismatches << ", \"tiled_equals_untiled_bitwise\": "
             << (mismatches == 0 ? "true" : "false");
      if (timed)
        json << ", \"prefill_ms\": " << qmatMs << ", \"cublas_ms\": " << blasMs
             << ", \"prefill_over_cublas_bf16\": " << qmatMs / blasMs;
      json << "}";
    }
    if (lmHead) {
      double weightsBytes =
          double(w.codes.size() + w.scaleBytes.size() + w.scaleF32.size() * 4 +
                 w.scaleAct.size() * 2 + w.zeroPoints.size());
      double actsOut =
          double(maxM) * l.shape.k * 2 + double(maxM) * l.shape.n * 2;
      std::printf("%s memory: %.1f MiB in use over the start after a run at "
                  "M=%ld; weights %.1f + A,Y %.1f + workspace %.1f MiB\n",
                  l.name, (peakDuring - before) / 1048576.0, long(maxM),
                  weightsBytes / 1048576.0, actsOut / 1048576.0,
                  wsBytes / 1048576.0);
      json << (cases++ ? ",\n" : "") << "    {\"layer\": \"" << l.name
           << "\", \"memory\": {\"measured_peak_bytes\": "
           << (peakDuring - before) << ", \"weights_bytes\": " << weightsBytes
           << ", \"activations_output_bytes\": " << actsOut
           << ", \"workspace_bytes\": " << wsBytes
           << ", \"untiled_scratch_bytes\": "
           << double(l.shape.n) * l.shape.k * 2 << "}}";
    }
    cudaFree(wDense);
    cudaFree(a);
    cudaFree(y);
    cudaFree(workspace);
    cudaFree(codes);
    cudaFree(scales);
    if (global)
      cudaFree(global);
    if (zp)
      cudaFree(zp);
  }
  json << "\n  ],\n  \"all_within_bounds\": " << (allWithin ? "true" : "false");
  if (bitwiseOnly)
    json << ",\n  \"single_tile_bitwise_identical\": "
         << (allBitwise ? "true" : "false");
  json << "\n}\n";
  std::ofstream(outPath) << json.str();
  std::printf("all_within_bounds: %s\n", allWithin ? "true" : "false");
  bench_unload();
  return allWithin && allBitwise ? 0 : 3;
}
