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
#include "bench.h"

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

using RunFn = qmat_status (*)(CUstream, int64_t, const void *, const void *,
                              const void *, const float *, const void *,
                              const void *, void *, void *, size_t);
using WorkspaceFn = size_t (*)(int64_t);

struct LayerEntry {
  const char *name;
  RunFn run;
  WorkspaceFn workspace;
  Scheme scheme;
  ActType act;
  int64_t n, k, blockSize;
  bool zeroPoints;
};

#define BENCH_LAYER(name, scheme, act, n, k, bs, zp)                           \
  {#name,                                                                      \
   &bench_##name##_run,                                                        \
   &bench_##name##_workspace_size,                                             \
   Scheme::scheme,                                                             \
   ActType::act,                                                               \
   n,                                                                          \
   k,                                                                          \
   bs,                                                                         \
   zp},
const LayerEntry kLayers[] = {
#include "layers.inc"
};
#undef BENCH_LAYER

} // namespace

int main(int argc, char **argv) {
  std::string outPath = argc > 1 ? argv[1] : "prefill.json";
  std::string only = argc > 2 ? argv[2] : "";
  uint64_t seed = std::random_device{}();
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS)
    return 2;
  cublasSetStream(blas, stream);
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
    bool lmHead = l.n == 248320;
    double before = usedBytes();
    QuantizedWeight w =
        makeWeight({l.scheme, l.act, l.n, l.k, l.blockSize, l.zeroPoints},
                   seed ^ std::hash<std::string>{}(l.name));
    std::vector<uint16_t> wBits = dequantizeParallel(w);
    void *codes = upload(w.codes);
    void *scales = l.scheme == Scheme::FP8    ? (void *)upload(w.scaleF32)
                   : l.scheme == Scheme::INT4 ? (void *)upload(w.scaleAct)
                                              : (void *)upload(w.scaleBytes);
    float *global = l.scheme == Scheme::NVFP4
                        ? upload(std::vector<float>{w.globalScale})
                        : nullptr;
    void *zp = l.zeroPoints ? (void *)upload(w.zeroPoints) : nullptr;
    std::vector<int64_t> ms = {9, 16, 128, 1024, 8192};
    if (lmHead)
      ms = {9, 16, 128, 1024};
    int64_t maxM = ms.back();
    size_t wsBytes = l.workspace(maxM);
    void *workspace;
    CUDA_CHECK(cudaMalloc(&workspace, wsBytes));
    uint16_t *a, *y;
    CUDA_CHECK(cudaMalloc(&a, size_t(maxM) * l.k * 2));
    CUDA_CHECK(cudaMalloc(&y, size_t(maxM) * l.n * 2));
    double afterAlloc = usedBytes();
    // Memory of the qmat run alone: one run at the largest M before the
    // baseline's dense weights exist (the launcher allocates nothing, so
    // the reading after it is its peak).
    CUDA_CHECK(cudaMemset(a, 0, size_t(maxM) * l.k * 2));
    qmat_status memoryRun =
        l.run(reinterpret_cast<CUstream>(stream), maxM, a, codes, scales,
              global, zp, nullptr, y, workspace, wsBytes);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double peakDuring = std::max(afterAlloc, usedBytes());
    if (memoryRun != QMAT_OK)
      std::printf("%s: memory run failed: %s\n", l.name, bench_last_error());
    uint16_t *wDense = upload(wBits);

    for (int64_t m : ms) {
      std::vector<uint16_t> aBits(size_t(m) * l.k);
      uint64_t s = seed ^ uint64_t(m);
      std::normal_distribution<float> normal(0.f, 1.f);
      std::mt19937 rng(uint32_t(splitmix(s)));
      for (auto &v : aBits)
        v = roundToAct(l.act, normal(rng));
      CUDA_CHECK(cudaMemcpy(a, aBits.data(), aBits.size() * 2,
                            cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemset(y, 0xFF, size_t(m) * l.n * 2));
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
      std::vector<uint16_t> got(size_t(l.n));
      double num = 0, den = 0;
      bool nan = false;
      for (int64_t r : rows) {
        CUDA_CHECK(cudaMemcpy(got.data(), y + r * l.n, l.n * 2,
                              cudaMemcpyDeviceToHost));
        std::vector<double> ref(l.n);
        parallelFor(l.n, [&](int64_t j) {
          double acc = 0;
          const uint16_t *wr = &wBits[size_t(j) * l.k];
          const uint16_t *ar = &aBits[size_t(r) * l.k];
          for (int64_t c = 0; c < l.k; ++c)
            acc += double(actBitsToFloat(l.act, ar[c])) *
                   double(actBitsToFloat(l.act, wr[c]));
          ref[j] = acc;
        });
        for (int64_t j = 0; j < l.n; ++j) {
          double g = actBitsToFloat(l.act, got[j]);
          nan |= std::isnan(g);
          num += (g - ref[j]) * (g - ref[j]);
          den += ref[j] * ref[j];
        }
      }
      double err = nan ? NAN : std::sqrt(num / den);
      double bound = l.act == ActType::F16 ? 2e-3 : 1e-2;
      bool within = !nan && err <= bound;
      allWithin &= within;

      // Speed: the launcher against cuBLAS on the dequantized weights.
      double qmatMs = -1, blasMs = -1;
      bool timed =
          m >= 16 && (std::string(l.name).find("bf16") != std::string::npos);
      if (timed) {
        qmatMs = medianMs(stream, 3, 15, [&] {
          l.run(reinterpret_cast<CUstream>(stream), m, a, codes, scales, global,
                zp, nullptr, y, workspace, wsBytes);
        });
        cudaDataType_t t = l.act == ActType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
        float one = 1.f, zero = 0.f;
        blasMs = medianMs(stream, 3, 15, [&] {
          cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(l.n), int(m),
                       int(l.k), &one, wDense, t, int(l.k), a, t, int(l.k),
                       &zero, y, t, int(l.n), CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT);
        });
      }
      std::printf("%-24s %6ld %10.2e %10.4f %10.4f %9.3f %s\n", l.name, long(m),
                  err, qmatMs, blasMs, timed ? qmatMs / blasMs : 0.0,
                  within ? "ok" : "OUT OF BOUND");
      json << (cases++ ? ",\n" : "") << "    {\"layer\": \"" << l.name
           << "\", \"m\": " << m << ", \"n\": " << l.n << ", \"k\": " << l.k
           << ", \"rel_frobenius_error\": "
           << (nan ? std::string("\"NaN\"") : std::to_string(err))
           << ", \"bound\": " << bound
           << ", \"within_bound\": " << (within ? "true" : "false");
      if (timed)
        json << ", \"prefill_ms\": " << qmatMs << ", \"cublas_ms\": " << blasMs
             << ", \"prefill_over_cublas_bf16\": " << qmatMs / blasMs;
      json << "}";
    }
    if (lmHead) {
      double weightsBytes =
          double(w.codes.size() + w.scaleBytes.size() + w.scaleF32.size() * 4 +
                 w.scaleAct.size() * 2 + w.zeroPoints.size());
      double actsOut = double(maxM) * l.k * 2 + double(maxM) * l.n * 2;
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
           << ", \"untiled_scratch_bytes\": " << double(l.n) * l.k * 2 << "}}";
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
  json << "\n  ],\n  \"all_within_bounds\": " << (allWithin ? "true" : "false")
       << "\n}\n";
  std::ofstream(outPath) << json.str();
  std::printf("all_within_bounds: %s\n", allWithin ? "true" : "false");
  bench_unload();
  return allWithin ? 0 : 3;
}
