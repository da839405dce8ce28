//===- fused_bench.cpp - The fused dequant-GEMM on a GPU: error, time -----===//
//
// For every layer of the bench bundle: fresh random weights and activations,
// Y poisoned, the launcher's Y at each M checked against an fp64 product of
// A and the reference-dequantized W (lib/Reference) on sampled rows, and
// run twice for the same bits. Then, with the weights rotated through
// copies past L2, the launcher's time (its policy), every compiled fused
// variant (<prefix>_set_fused_override), the dequantize + cuBLASLt path and
// cuBLAS bf16 / f16 on the dense dequantized weights, all in this process.
// At M in the GEMV's range the checks run every compiled GEMV
// (split-K, column tiles) pair (<prefix>_set_gemv_override) besides the
// policy.
// Writes JSON.
//
// Usage: fused_bench OUT.json [LAYER_FILTER] [check|time|all] [M,M,...]
//
//===----------------------------------------------------------------------===//

#include "../common/layers.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace qmat::ref;
using namespace bench;

namespace {

/// The name suffix of each form (Variant::warpgroup): warp, warpgroup,
/// specialized warpgroup, specialized with the weights in registers.
const char *const kVariantForms[] = {"", "_wg", "_ws", "_wr"};
/// The form whose override names it by M tile and column tiles.
constexpr int kRegisterForm = 3;

struct Variant {
  int mTile, warpsN, splitK, colTiles, stages, warpgroup, kSlices, multicast;
  /// Pins this variant for every call (or restores the policy).
  qmat_status pin() const {
    if (warpgroup == kRegisterForm)
      return bench_set_fused_override_registers(mTile, colTiles);
    if (multicast > 1)
      return bench_set_fused_override_multicast(mTile, warpsN, splitK, colTiles,
                                                stages, multicast);
    return bench_set_fused_override_sliced(mTile, warpsN, splitK, colTiles,
                                           stages, kSlices);
  }
  /// mt<m>_w<w>_s<s>_c<c>_p<p>, the form's suffix, _k<k> for K slices,
  /// _x<x> for multicast clusters.
  std::string name() const {
    char text[64];
    std::snprintf(text, sizeof text, "mt%d_w%d_s%d_c%d_p%d%s", mTile, warpsN,
                  splitK, colTiles, stages, kVariantForms[warpgroup]);
    return std::string(text) +
           (kSlices > 1 ? "_k" + std::to_string(kSlices) : std::string()) +
           (multicast > 1 ? "_x" + std::to_string(multicast) : std::string());
  }
};

/// Every fused tiling compiled into the bundle (make_bundle.py writes them
/// into variants.inc; none where no layer takes the fused GEMM).
const std::vector<Variant> kVariants = {
#include "variants.inc"
};

/// The bundle's GEMV range, kGemvMaxM, and every (split-K, column tiles)
/// pair of its variants, kGemvPairs (make_bundle.py writes both into
/// gemv_variants.inc).
struct GemvPair {
  int splitK, colTiles;
};
#include "gemv_variants.inc"

std::vector<int64_t> parseList(const std::string &text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(std::stoll(item));
  return out;
}

/// Rows 0, m / 2 and m - 1 of Y against the fp64 product.
double sampledError(const LayerEntry &l, const std::vector<uint16_t> &aBits,
                    const std::vector<uint16_t> &wBits, const uint16_t *y,
                    int64_t m, bool &nan) {
  std::vector<int64_t> rows = {0, m / 2, m - 1};
  std::vector<uint16_t> got(size_t(l.shape.n));
  double num = 0, den = 0;
  nan = false;
  for (int64_t r : rows) {
    CUDA_CHECK(cudaMemcpy(got.data(), y + r * l.shape.n, l.shape.n * 2,
                          cudaMemcpyDeviceToHost));
    std::vector<uint16_t> row(aBits.begin() + r * l.shape.k,
                              aBits.begin() + (r + 1) * l.shape.k);
    std::vector<double> ref =
        referenceProduct(l.shape.act, row, wBits, 1, l.shape.n, l.shape.k);
    for (int64_t j = 0; j < l.shape.n; ++j) {
      double g = actBitsToFloat(l.shape.act, got[j]);
      nan |= std::isnan(g);
      num += (g - ref[j]) * (g - ref[j]);
      den += ref[j] * ref[j];
    }
  }
  return std::sqrt(num / den);
}

const char *schemeName(Scheme s) {
  switch (s) {
  case Scheme::NVFP4:
    return "nvfp4";
  case Scheme::MXFP4:
    return "mxfp4";
  case Scheme::FP8:
    return "fp8";
  case Scheme::INT4:
    return "int4";
  }
  return "?";
}

} // namespace

int main(int argc, char **argv) {
  std::string outPath = argc > 1 ? argv[1] : "fused.json";
  std::string only = argc > 2 ? argv[2] : "";
  std::string mode = argc > 3 ? argv[3] : "all";
  std::vector<int64_t> timeMs =
      argc > 4 ? parseList(argv[4])
               : std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024};
  bool check = mode != "time", timing = mode != "check";
  uint64_t seed = std::random_device{}();
  GpuContext gpu = createGpuContext();
  cudaStream_t stream = gpu.stream;
  CUstream cuStream = reinterpret_cast<CUstream>(stream);
  double copyRate = copyBytesPerSecond(stream);
  std::ostringstream json;
  json << "{\n  \"seed\": " << seed << ",\n  \"copy_bytes_per_s\": " << copyRate
       << ",\n  \"cases\": [\n";
  int cases = 0;
  bool allWithin = true, allDeterministic = true;
  for (const LayerEntry &l : kLayers) {
    if (!only.empty() && std::string(l.name).find(only) == std::string::npos)
      continue;
    const LayerShape &shape = l.shape;
    bool lmHead = shape.n >= 100000;
    QuantizedWeight w =
        makeWeight(shape, seed ^ std::hash<std::string>{}(l.name));
    std::vector<uint16_t> wBits = dequantizeParallel(w);
    double weightBytes =
        double(w.codes.size() + w.scaleBytes.size() + w.scaleF32.size() * 4 +
               w.scaleAct.size() * 2 + w.zeroPoints.size());
    // Enough copies that the one being read is never in the 60 MB L2.
    int copies =
        timing ? int(std::max(1.0, std::ceil(240e6 / weightBytes))) : 1;
    DeviceWeight dw(w, copies, l.prepare);
    std::vector<int64_t> checkMs = {9,   16,  17,  31,   64,
                                    100, 128, 256, 1000, 1024};
    if (!lmHead) {
      checkMs.push_back(4096);
      checkMs.push_back(8192);
    }
    // Checks alone: the M list, when given, is the one checked (M <= 8
    // takes the GEMV).
    if (!timing && argc > 4)
      checkMs = timeMs;
    int64_t maxM = std::max(*std::max_element(checkMs.begin(), checkMs.end()),
                            *std::max_element(timeMs.begin(), timeMs.end()));
    size_t wsBytes = l.workspace(maxM);
    void *workspace = nullptr;
    CUDA_CHECK(cudaMalloc(&workspace, std::max<size_t>(wsBytes, 256)));
    uint16_t *a, *y;
    CUDA_CHECK(cudaMalloc(&a, size_t(maxM) * shape.k * 2));
    CUDA_CHECK(cudaMalloc(&y, size_t(maxM) * shape.n * 2));
    auto run = [&](int64_t m, int copy) {
      return l.run(cuStream, m, a, dw.codes[copy], dw.scales[copy], dw.global,
                   dw.zeroPoints[copy], nullptr, y, workspace, wsBytes);
    };
    auto writeCase = [&](const std::string &body) {
      json << (cases++ ? ",\n" : "") << "    {\"layer\": \"" << l.name
           << "\", \"scheme\": \"" << schemeName(shape.scheme)
           << "\", \"act\": \"" << (shape.act == ActType::BF16 ? "bf16" : "f16")
           << "\", \"n\": " << shape.n << ", \"k\": " << shape.k << ", " << body
           << "}";
    };
    double bound = shape.act == ActType::F16 ? 2e-3 : 1e-2;
    if (check) {
      for (int64_t m : checkMs) {
        uint64_t s = seed ^ uint64_t(m) ^ std::hash<std::string>{}(l.name);
        std::vector<uint16_t> aBits =
            randomActivations(shape.act, size_t(m) * shape.k, splitmix(s));
        CUDA_CHECK(cudaMemcpy(a, aBits.data(), aBits.size() * 2,
                              cudaMemcpyHostToDevice));
        // The policy (-1), then every fused variant that this layer has or,
        // at M in the GEMV's range, every GEMV pair.
        bool gemvM = m <= kGemvMaxM;
        int arms = gemvM ? int(std::size(kGemvPairs)) : int(kVariants.size());
        for (int v = -1; v < arms; ++v) {
          // Each fused variant at M = 16, 31, 100 and 1000 (M % 3 == 1),
          // each GEMV pair at every M; the lm_head's reference is too slow
          // for more than the policy.
          if (v >= 0 && (lmHead || (!gemvM && (m > 1024 || m % 3 != 1))))
            continue;
          const Variant *var = v >= 0 && !gemvM ? &kVariants[v] : nullptr;
          const GemvPair *pair = v >= 0 && gemvM ? &kGemvPairs[v] : nullptr;
          if (var && var->pin() != QMAT_OK)
            continue;
          if (pair && (pair->splitK == 0 ||
                       bench_set_gemv_override(pair->splitK, pair->colTiles) != QMAT_OK))
            continue;
          std::vector<uint16_t> first(size_t(m) * shape.n),
              second(first.size());
          bool ok = true;
          for (int pass = 0; pass < 2 && ok; ++pass) {
            CUDA_CHECK(cudaMemset(y, 0xFF, size_t(m) * shape.n * 2));
            qmat_status st = run(m, 0);
            CUDA_CHECK(cudaStreamSynchronize(stream));
            // This layer has no variant of the pair that holds m rows, or
            // did not compile the pinned tiling (its split-K does not
            // divide the K steps): a refusal, not a failure.
            if ((pair || var) && st == QMAT_ERROR_INVALID_ARGUMENT &&
                (std::string(bench_last_error()).find("GEMV override") != std::string::npos ||
                 std::string(bench_last_error()).find("has no variant in this layer") !=
                     std::string::npos)) {
              ok = false;
              break;
            }
            if (st != QMAT_OK) {
              std::printf("%-26s m=%5ld FAILED: %s\n", l.name, long(m),
                          bench_last_error());
              ok = false;
              break;
            }
            CUDA_CHECK(cudaMemcpy((pass ? second : first).data(), y,
                                  first.size() * 2, cudaMemcpyDeviceToHost));
          }
          bench_set_fused_override(0, 0, 0, 0, 0);
          bench_set_gemv_override(0, 0);
          if (!ok) {
            if (!var && !pair)
              allWithin = false;
            continue;
          }
          bool same = first == second;
          allDeterministic &= same;
          bool nan = false;
          double err = sampledError(l, aBits, wBits, y, m, nan);
          bool within = !nan && err <= bound;
          allWithin &= within;
          char variant[64] = "policy";
          if (var)
            std::snprintf(variant, sizeof variant, "%s", var->name().c_str());
          if (pair)
            std::snprintf(variant, sizeof variant, "gemv_s%d_c%d", pair->splitK,
                          pair->colTiles);
          std::printf("%-26s m=%5ld %-16s err %.2e %s%s\n", l.name, long(m),
                      variant, err, within ? "ok" : "OUT OF BOUND",
                      same ? "" : " NONDETERMINISTIC");
          std::ostringstream body;
          body << "\"check\": true, \"m\": " << m << ", \"variant\": \""
               << variant << "\", \"rel_frobenius_error\": "
               << (nan ? std::string("\"NaN\"") : std::to_string(err))
               << ", \"bound\": " << bound
               << ", \"within_bound\": " << (within ? "true" : "false")
               << ", \"same_bits_on_two_runs\": " << (same ? "true" : "false");
          writeCase(body.str());
        }
      }
    }
    if (timing) {
      uint16_t *dense = upload(wBits);
      int denseCopies =
          int(std::max(1.0, std::ceil(240e6 / (wBits.size() * 2.0))));
      std::vector<uint16_t *> denses = {dense};
      for (int c = 1; c < denseCopies; ++c) {
        uint16_t *d;
        CUDA_CHECK(cudaMalloc(&d, wBits.size() * 2));
        CUDA_CHECK(
            cudaMemcpy(d, dense, wBits.size() * 2, cudaMemcpyDeviceToDevice));
        denses.push_back(d);
      }
      for (int64_t m : timeMs) {
        if (lmHead && m > 1024)
          continue;
        uint64_t s = seed ^ uint64_t(m);
        std::vector<uint16_t> aBits =
            randomActivations(shape.act, size_t(m) * shape.k, splitmix(s));
        CUDA_CHECK(cudaMemcpy(a, aBits.data(), aBits.size() * 2,
                              cudaMemcpyHostToDevice));
        auto timeLauncher = [&] {
          return batchedMs(stream, 2, 7, copies, [&](int c) { run(m, c); });
        };
        double policyMs = timeLauncher();
        double bestMs = 1e30;
        std::string best;
        std::ostringstream variants;
        int timed = 0;
        for (const Variant &v : kVariants) {
          if (v.pin() != QMAT_OK)
            continue;
          if (run(m, 0) != QMAT_OK) {
            bench_set_fused_override(0, 0, 0, 0, 0);
            continue;
          }
          double ms = timeLauncher();
          std::string name = v.name();
          variants << (timed++ ? ", " : "") << "\"" << name << "\": " << ms;
          if (ms < bestMs) {
            bestMs = ms;
            best = name;
          }
        }
        bench_set_fused_override(-1, 0, 0, 0, 0);
        double dequantMs = -1;
        if (wsBytes >= l.workspace(m) && run(m, 0) == QMAT_OK)
          dequantMs = timeLauncher();
        bench_set_fused_override(0, 0, 0, 0, 0);
        cudaDataType_t t =
            shape.act == ActType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
        float one = 1.f, zero = 0.f;
        double blasMs = batchedMs(stream, 2, 7, int(denses.size()), [&](int c) {
          cublasGemmEx(gpu.blas, CUBLAS_OP_T, CUBLAS_OP_N, int(shape.n), int(m),
                       int(shape.k), &one, denses[c], t, int(shape.k), a, t,
                       int(shape.k), &zero, y, t, int(shape.n),
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        });
        double bytesMs = weightBytes / copyRate * 1e3;
        double flopsMs = 2.0 * m * shape.n * shape.k / 700e12 * 1e3;
        double limitMs = std::max(bytesMs, flopsMs);
        std::printf("%-26s m=%5ld policy %8.4f best %8.4f (%s) dequant %8.4f "
                    "cublas %8.4f  fused/cublas %.3f  policy/best %.3f  "
                    "fused/limit %.3f\n",
                    l.name, long(m), policyMs, bestMs, best.c_str(), dequantMs,
                    blasMs, policyMs / blasMs, policyMs / bestMs,
                    limitMs / policyMs);
        std::printf("  variants: %s\n", variants.str().c_str());
        std::ostringstream body;
        body << "\"m\": " << m << ", \"fused_ms\": " << policyMs
             << ", \"best_variant\": \"" << best
             << "\", \"best_variant_ms\": " << bestMs
             << ", \"policy_over_best\": " << policyMs / bestMs
             << ", \"dequant_gemm_ms\": " << dequantMs
             << ", \"cublas_ms\": " << blasMs << ", \"fused_over_cublas_"
             << (shape.act == ActType::BF16 ? "bf16" : "f16")
             << "\": " << policyMs / blasMs
             << ", \"bytes_limit_ms\": " << bytesMs
             << ", \"flops_limit_ms\": " << flopsMs
             << ", \"fused_over_limit\": " << limitMs / policyMs
             << ", \"variants_ms\": {" << variants.str() << "}";
        writeCase(body.str());
      }
      for (uint16_t *d : denses)
        cudaFree(d);
    }
    cudaFree(a);
    cudaFree(y);
    cudaFree(workspace);
  }
  json << "\n  ],\n  \"all_within_bounds\": " << (allWithin ? "true" : "false")
       << ",\n  \"all_deterministic\": "
       << (allDeterministic ? "true" : "false") << "\n}\n";
  std::ofstream(outPath) << json.str();
  std::printf("all_within_bounds: %s  all_deterministic: %s\n",
              allWithin ? "true" : "false",
              allDeterministic ? "true" : "false");
  bench_unload();
  return allWithin && allDeterministic ? 0 : 3;
}
