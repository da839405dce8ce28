//===- harness.h - Shared pieces of the GPU benchmark harnesses -----------===//
//
// Random quantized weights of realistic magnitude, the reference
// dequantization in parallel, device upload and event timing, shared by the
// prefill and decode-GEMV benchmarks (built with nvcc on the device).
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_BENCH_COMMON_HARNESS_H
#define QMAT_BENCH_COMMON_HARNESS_H

#include "qmat/Reference/Numerics.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

namespace bench {

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

/// What makeWeight needs to know of a layer.
struct LayerShape {
  Scheme scheme;
  ActType act;
  int64_t n, k, blockSize;
  bool zeroPoints;
};

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

inline uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Random weights of realistic magnitude (finite scales), generated in
/// parallel by rows.
inline QuantizedWeight makeWeight(const LayerShape &l, uint64_t seed) {
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

inline std::vector<uint16_t> dequantizeParallel(const QuantizedWeight &w) {
  std::vector<uint16_t> out(size_t(w.n) * w.k);
  parallelFor(w.n, [&](int64_t r) {
    for (int64_t c = 0; c < w.k; ++c)
      out[r * w.k + c] = dequantizeElement(w, r, c);
  });
  return out;
}

/// `count` activations drawn from N(0, 1), rounded to `act` (bit patterns).
/// Timing takes them too: zeros can run faster than real data
/// (bench/README.md, the "zeros against random activations" row).
inline std::vector<uint16_t> randomActivations(ActType act, size_t count,
                                               uint64_t seed) {
  std::mt19937 rng{uint32_t(seed)};
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<uint16_t> bits(count);
  for (auto &v : bits)
    v = roundToAct(act, normal(rng));
  return bits;
}

/// Y = A W^T in fp64 from act-typed bit patterns: ref[r * n + j] for the
/// `rows` rows of A ([rows, k]) and the n rows of W ([n, k]).
inline std::vector<double> referenceProduct(ActType act,
                                            const std::vector<uint16_t> &aBits,
                                            const std::vector<uint16_t> &wBits,
                                            int64_t rows, int64_t n,
                                            int64_t k) {
  std::vector<double> ref(size_t(rows) * n);
  parallelFor(n, [&](int64_t j) {
    const uint16_t *wr = &wBits[size_t(j) * k];
    for (int64_t r = 0; r < rows; ++r) {
      const uint16_t *ar = &aBits[size_t(r) * k];
      double acc = 0;
      for (int64_t c = 0; c < k; ++c)
        acc += double(actBitsToFloat(act, ar[c])) *
               double(actBitsToFloat(act, wr[c]));
      ref[r * n + j] = acc;
    }
  });
  return ref;
}

/// ||got - ref|| / ||ref|| (Frobenius) over the first `count` outputs
/// (act-typed bit patterns); NaN when any output is NaN.
inline double relativeFrobeniusError(ActType act, const uint16_t *got,
                                     const double *ref, size_t count) {
  double num = 0, den = 0;
  for (size_t i = 0; i < count; ++i) {
    double g = actBitsToFloat(act, got[i]);
    if (std::isnan(g))
      return NAN;
    num += (g - ref[i]) * (g - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

/// The median of `values` (the upper one of an even count).
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

template <typename T> T *upload(const std::vector<T> &v) {
  T *p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(v.size() * sizeof(T), 256)));
  if (!v.empty())
    CUDA_CHECK(
        cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

inline double usedBytes() {
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

/// Median over `batches` of the mean time (ms) of `perBatch` back-to-back
/// calls `call(i)` (i = 0 .. perBatch - 1, e.g. to rotate weight copies),
/// after `warmup` such batches: launch gaps stay out, as when kernels are
/// queued in a model.
template <typename F>
double batchedMs(cudaStream_t stream, int warmup, int batches, int perBatch,
                 F call) {
  return medianMs(stream, warmup, batches,
                  [&] {
                    for (int i = 0; i < perBatch; ++i)
                      call(i);
                  }) /
         perBatch;
}

/// Device-to-device copy bandwidth (bytes read + written per second) of a
/// 1 GiB cudaMemcpyAsync, the median of 20: the copy ceiling of every
/// bandwidth ratio.
inline double copyBytesPerSecond(cudaStream_t stream) {
  size_t bytes = size_t(1) << 30;
  void *src, *dst;
  CUDA_CHECK(cudaMalloc(&src, bytes));
  CUDA_CHECK(cudaMalloc(&dst, bytes));
  CUDA_CHECK(cudaMemset(src, 1, bytes));
  double ms = medianMs(stream, 3, 20, [&] {
    CUDA_CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  });
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * bytes / (ms * 1e-3);
}

/// The stream every measurement runs on and a cuBLAS handle bound to it
/// (the baselines); exits when cuBLAS cannot start.
struct GpuContext {
  cudaStream_t stream;
  cublasHandle_t blas;
};
inline GpuContext createGpuContext() {
  GpuContext gpu;
  CUDA_CHECK(cudaStreamCreate(&gpu.stream));
  if (cublasCreate(&gpu.blas) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    std::exit(2);
  }
  cublasSetStream(gpu.blas, gpu.stream);
  return gpu;
}

} // namespace bench

#endif // QMAT_BENCH_COMMON_HARNESS_H
