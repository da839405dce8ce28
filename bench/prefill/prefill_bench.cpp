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

#include "bench.h"
#include "qmat/Reference/Numerics.h"

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

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    cudaError_t e_ = (expr);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #expr,        \
                   cudaGetErrorString(e_));                                    \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

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

template <typename F> void parallelFor(int64_t n, F f) {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int64_t i = t; i < n; i += threads)
        f(i);
    });
  for (auto &th : pool)
    th.join();
}

uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Random weights of realistic magnitude (finite scales), generated in
/// parallel by rows.
QuantizedWeight makeWeight(const LayerEntry &l, uint64_t seed) {
  QuantizedWeight w;
  w.scheme = l.scheme;
  w.act = l.act;
  w.n = l.n;
  w.k = l.k;
  w.blockSize = l.blockSize;
  int64_t codeCols = l.scheme == Scheme::FP8 ? l.k : l.k / 2,
          blocks = w.numScaleBlocks();
  w.codes.resize(size_t(l.n) * codeCols);
  if (l.scheme == Scheme::NVFP4 || l.scheme == Scheme::MXFP4)
    w.scaleBytes.resize(l.n * blocks);
  if (l.scheme == Scheme::FP8)
    w.scaleF32.resize(l.n * blocks);
  if (l.scheme == Scheme::INT4)
    w.scaleAct.resize(l.n * blocks);
  if (l.zeroPoints)
    w.zeroPoints.resize(l.n * ((blocks + 1) / 2));
  parallelFor(l.n, [&](int64_t r) {
    uint64_t s = seed ^ (uint64_t(r) * 0x2545F4914F6CDD1Dull);
    for (int64_t j = 0; j < codeCols; ++j) {
      uint8_t byte = uint8_t(splitmix(s));
      // fp8: keep codes finite (S.1111.111 is NaN).
      if (l.scheme == Scheme::FP8 && (byte & 0x7F) == 0x7F)
        byte &= 0xFE;
      w.codes[r * codeCols + j] = byte;
    }
    for (int64_t b = 0; b < blocks; ++b) {
      uint64_t v = splitmix(s);
      double u = double(v % 1000000) / 1e6;
      if (l.scheme == Scheme::NVFP4)
        w.scaleBytes[r * blocks + b] = uint8_t(0x28 + v % 24);
      if (l.scheme == Scheme::MXFP4)
        w.scaleBytes[r * blocks + b] = uint8_t(120 + v % 6);
      if (l.scheme == Scheme::FP8)
        w.scaleF32[r * blocks + b] = float(0.001 + 0.01 * u);
      if (l.scheme == Scheme::INT4)
        w.scaleAct[r * blocks + b] = roundToAct(l.act, float(0.002 + 0.02 * u));
    }
    if (l.zeroPoints)
      for (int64_t c = 0; c < (blocks + 1) / 2; ++c)
        w.zeroPoints[r * ((blocks + 1) / 2) + c] = uint8_t(splitmix(s));
  });
  w.globalScale = l.scheme == Scheme::NVFP4 ? 0.0123f : 1.0f;
  return w;
}

std::vector<uint16_t> dequantizeParallel(const QuantizedWeight &w) {
  std::vector<uint16_t> out(size_t(w.n) * w.k);
  parallelFor(w.n, [&](int64_t r) {
    for (int64_t c = 0; c < w.k; ++c)
      out[r * w.k + c] = dequantizeElement(w, r, c);
  });
  return out;
}

template <typename T> T *upload(const std::vector<T> &v) {
  T *p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(v.size() * sizeof(T), 256)));
  if (!v.empty())
    CUDA_CHECK(
        cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

double usedBytes() {
  size_t freeB, totalB;
  CUDA_CHECK(cudaMemGetInfo(&freeB, &totalB));
  return double(totalB - freeB);
}

template <typename F>
double medianMs(cudaStream_t stream, int warmup, int reps, F f) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < warmup; ++i)
    f();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    CUDA_CHECK(cudaEventRecord(a, stream));
    f();
    CUDA_CHECK(cudaEventRecord(b, stream));
    CUDA_CHECK(cudaEventSynchronize(b));
    float t;
    CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms[ms.size() / 2];
}

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
    QuantizedWeight w = makeWeight(l, seed ^ std::hash<std::string>{}(l.name));
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
