//===- ab_bench.cpp - Two builds of the decode GEMV, interleaved ---------===//
//
// Compares two qmat-aot bundles of the same layers (prefix `bench`: A, the
// reference build; prefix `exp`: B, the changed one) in one process, so
// that clock, power and thermal drift fall on both alike: for every layer
// with N >= 2048 and M = 1, 4, 8,
//  1. both outputs from fresh random activations, Y poisoned with NaN
//     before each run, must be bitwise identical (the builds differ in how
//     they move data, not in arithmetic), and within docs/numerics.md's bound of
//     an fp64 product with the reference-dequantized W (checked on both:
//     an experiment that breaks the arithmetic shows its error, not only
//     that the outputs differ);
//  2. rounds of A B B A, each a median of batches of 20 calls rotating
//     through weight copies larger than L2; reported: each build's median
//     over rounds and the median, lowest and highest of the per-round
//     ratios B / A, with the device copy bandwidth measured in the run.
// Usage: ab_bench OUT.json [LAYER_FILTER]   (AB_SPLIT_K / AB_COL_TILES:
// the same variant override on both builds; AB_ZERO_ACTIVATIONS=1 times
// with all-zero activations (zeros can run faster than random data);
// AB_ZERO_ACTIVATIONS_B=1 gives B alone all-zero activations, which with
// the same kernel in both builds measures what zeros change;
// AB_SPLIT_K_A / AB_COL_TILES_A and AB_SPLIT_K_B / AB_COL_TILES_B pin A or
// B alone; AB_MAX_M=4 times M <= 4 only;
// AB_M_DESCENDING=1 times M = 8, 4, 1 in that order)
//
//===----------------------------------------------------------------------===//

#include "../common/device_weight.h"
#include "../common/layers.h"
#include "exp.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

using namespace qmat::ref;
using namespace bench;

namespace {

#define BENCH_LAYER(name, scheme, act, n, k, bs, zp) &exp_##name##_run,
const RunFn kExpRuns[] = {
#include "layers.inc"
};
#undef BENCH_LAYER
// B's codes in B's layout (A and B may differ: --prepared-weights).
#define BENCH_LAYER(name, scheme, act, n, k, bs, zp)                           \
  &exp_##name##_prepare_weights,
const PrepareFn kExpPrepares[] = {
#include "layers.inc"
};
#undef BENCH_LAYER

qmat_status runWith(RunFn run, cudaStream_t stream, int64_t m, const void *a,
                    const DeviceWeight &w, int copy, void *y) {
  return run(reinterpret_cast<CUstream>(stream), m, a, w.codes[copy],
             w.scales[copy], w.global, w.zeroPoints[copy], nullptr, y, nullptr,
             0);
}

} // namespace

int main(int argc, char **argv) {
  std::string outPath = argc > 1 ? argv[1] : "ab.json";
  std::string only = argc > 2 ? argv[2] : "";
  uint64_t seed = std::random_device{}();
  GpuContext gpu = createGpuContext();
  cudaStream_t stream = gpu.stream;
  // A variant pinned on both builds (AB_SPLIT_K, AB_COL_TILES), or on A or
  // B alone (AB_SPLIT_K_A / _B, AB_COL_TILES_A / _B) to compare two
  // layouts' best, or two variant sets that share no variant.
  auto pin = [](const char *splitKName, const char *colTilesName,
                auto setOverride) {
    const char *sk = std::getenv(splitKName);
    if (!sk)
      return true;
    const char *c = std::getenv(colTilesName);
    return setOverride(std::atoi(sk), c ? std::atoi(c) : 1) == QMAT_OK;
  };
  auto both = [](int splitK, int colTiles) {
    int status = bench_set_gemv_override(splitK, colTiles);
    return status != QMAT_OK ? status : exp_set_gemv_override(splitK, colTiles);
  };
  if (!pin("AB_SPLIT_K", "AB_COL_TILES", both) ||
      !pin("AB_SPLIT_K_A", "AB_COL_TILES_A", bench_set_gemv_override) ||
      !pin("AB_SPLIT_K_B", "AB_COL_TILES_B", exp_set_gemv_override)) {
    std::printf("override: %s / %s\n", bench_last_error(), exp_last_error());
    return 1;
  }
  // AB_MAX_M: the largest M timed (a build compiled for fewer rows).
  const char *maxMText = std::getenv("AB_MAX_M");
  int64_t largestM = maxMText ? std::atoll(maxMText) : 8;
  bool zeroActivations = std::getenv("AB_ZERO_ACTIVATIONS") != nullptr;
  bool zeroActivationsOfB = std::getenv("AB_ZERO_ACTIVATIONS_B") != nullptr;
  double copyBandwidth = copyBytesPerSecond(stream);
  std::printf("copy: %.2f TB/s\n", copyBandwidth / 1e12);

  std::ostringstream json;
  json << "{\n  \"seed\": " << seed
       << ",\n  \"zero_activations\": " << (zeroActivations ? "true" : "false")
       << ",\n  \"zero_activations_of_b\": "
       << (zeroActivationsOfB ? "true" : "false")
       << ",\n  \"copy_bytes_per_s\": " << copyBandwidth
       << ",\n  \"cases\": [\n";
  int cases = 0;
  bool allIdentical = true, allWithin = true;
  for (size_t i = 0; i < std::size(kLayers); ++i) {
    const LayerEntry &l = kLayers[i];
    const LayerShape &s = l.shape;
    if (s.n < 2048 || s.k % 128 != 0 ||
        (!only.empty() && std::string(l.name).find(only) == std::string::npos))
      continue;
    QuantizedWeight w = makeWeight(s, seed ^ std::hash<std::string>{}(l.name));
    double bytes =
        double(w.codes.size() + w.scaleBytes.size() + w.scaleF32.size() * 4 +
               w.scaleAct.size() * 2 + w.zeroPoints.size());
    int copies = int(std::max(1.0, std::ceil(256e6 / bytes)));
    DeviceWeight dw(w, copies, l.prepare), dwB(w, copies, kExpPrepares[i]);
    std::vector<uint16_t> wBits = dequantizeParallel(w);
    const int64_t maxM = 8;
    std::vector<uint16_t> aBits =
        randomActivations(s.act, size_t(maxM) * s.k, seed ^ uint64_t(s.n));
    uint16_t *a = upload(aBits), *aZero, *yA, *yB;
    CUDA_CHECK(cudaMalloc(&aZero, aBits.size() * 2));
    CUDA_CHECK(cudaMemset(aZero, 0, aBits.size() * 2));
    size_t yBytes = size_t(maxM) * s.n * 2;
    CUDA_CHECK(cudaMalloc(&yA, yBytes));
    CUDA_CHECK(cudaMalloc(&yB, yBytes));
    double bound = s.act == ActType::F16 ? 2e-3 : 1e-2;
    // fp64 reference for every row: rows of smaller M are its prefixes.
    std::vector<double> ref =
        referenceProduct(s.act, aBits, wBits, maxM, s.n, s.k);
    // AB_M_DESCENDING=1 times M = 8 first: clocks drift with the GPU's
    // temperature over a layer's rounds, which an ascending order alone
    // would fold into the M = 4 / 8 figures.
    std::vector<int64_t> ms = {1, 4, 8};
    if (std::getenv("AB_M_DESCENDING"))
      std::reverse(ms.begin(), ms.end());
    for (int64_t m : ms) {
      if (m > largestM)
        continue;
      // 1. Identical outputs, within the bound.
      CUDA_CHECK(cudaMemset(yA, 0xFF, yBytes));
      CUDA_CHECK(cudaMemset(yB, 0xFF, yBytes));
      if (runWith(l.run, stream, m, a, dw, 0, yA) != QMAT_OK ||
          runWith(kExpRuns[i], stream, m, a, dwB, 0, yB) != QMAT_OK) {
        std::printf("%s m=%ld FAILED: %s / %s\n", l.name, long(m),
                    bench_last_error(), exp_last_error());
        return 1;
      }
      std::vector<uint16_t> gotA(size_t(m) * s.n), gotB(gotA.size());
      CUDA_CHECK(
          cudaMemcpy(gotA.data(), yA, gotA.size() * 2, cudaMemcpyDeviceToHost));
      CUDA_CHECK(
          cudaMemcpy(gotB.data(), yB, gotB.size() * 2, cudaMemcpyDeviceToHost));
      bool identical = gotA == gotB;
      double err =
          relativeFrobeniusError(s.act, gotA.data(), ref.data(), gotA.size());
      double errB =
          relativeFrobeniusError(s.act, gotB.data(), ref.data(), gotB.size());
      bool within = !std::isnan(err) && err <= bound && !std::isnan(errB) &&
                    errB <= bound;
      allIdentical &= identical;
      allWithin &= within;

      // 2. A B B A rounds.
      if (zeroActivations)
        CUDA_CHECK(cudaMemset(a, 0, aBits.size() * 2));
      const uint16_t *aOfB = zeroActivationsOfB ? aZero : a;
      auto timeOf = [&](RunFn run, const DeviceWeight &weight,
                        const uint16_t *activations) {
        return batchedMs(stream, 1, 5, 20,
                         [&](int c) {
                           runWith(run, stream, m, activations, weight,
                                   c % copies, yA);
                         }) *
               1e3;
      };
      std::vector<double> usA, usB, ratios;
      for (int round = 0; round < 8; ++round) {
        double a1 = timeOf(l.run, dw, a), b1 = timeOf(kExpRuns[i], dwB, aOfB);
        double b2 = timeOf(kExpRuns[i], dwB, aOfB), a2 = timeOf(l.run, dw, a);
        usA.insert(usA.end(), {a1, a2});
        usB.insert(usB.end(), {b1, b2});
        ratios.push_back((b1 + b2) / (a1 + a2));
      }
      double ratio = median(ratios);
      auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
      double aUs = median(usA), bUs = median(usB);
      std::printf("%-24s m=%ld identical=%d err=%.2e/%.2e A %.1f us (%.3f x "
                  "copy) B %.1f us (%.3f x copy) B/A %.3f [%.3f, %.3f]\n",
                  l.name, long(m), int(identical), err, errB, aUs,
                  bytes / (aUs * 1e-6) / copyBandwidth, bUs,
                  bytes / (bUs * 1e-6) / copyBandwidth, ratio, *lo, *hi);
      if (zeroActivations)
        CUDA_CHECK(cudaMemcpy(a, aBits.data(), aBits.size() * 2,
                              cudaMemcpyHostToDevice));
      std::ostringstream c;
      c << "{\"layer\": \"" << l.name << "\", \"m\": " << m
        << ", \"identical\": " << (identical ? "true" : "false")
        << ", \"rel_frobenius_error\": " << err
        << ", \"rel_frobenius_error_b\": " << errB << ", \"bound\": " << bound
        << ", \"weight_and_scale_bytes\": " << bytes << ", \"a_us\": " << aUs
        << ", \"b_us\": " << bUs
        << ", \"a_bw_over_copy\": " << bytes / (aUs * 1e-6) / copyBandwidth
        << ", \"b_bw_over_copy\": " << bytes / (bUs * 1e-6) / copyBandwidth
        << ", \"b_over_a\": " << ratio << ", \"b_over_a_min\": " << *lo
        << ", \"b_over_a_max\": " << *hi << "}";
      json << (cases++ ? ",\n" : "") << "    " << c.str();
    }
    cudaFree(a);
    cudaFree(aZero);
    cudaFree(yA);
    cudaFree(yB);
  }
  json << "\n  ],\n  \"all_identical\": " << (allIdentical ? "true" : "false")
       << ",\n  \"all_within_bounds\": " << (allWithin ? "true" : "false")
       << "\n}\n";
  std::ofstream(outPath) << json.str();
  return allIdentical && allWithin ? 0 : 1;
}
