//===- gemv_bench.cpp - The decode GEMV on a GPU: error, probes, time -----===//
//
// Through the generated launcher (qmat-aot bundle, prefix `bench`):
//  1. error: every layer, M = 1..8 (or 16, 32, 64 for the wide bundle),
//     fresh random weights and activations, Y poisoned with NaN before each
//     run, relative Frobenius error against an fp64 product of A and the
//     reference-dequantized W (lib/Reference) over all of Y;
//  2. lane-ownership probe: W zero but for one element of value 0.5 at
//     (n0, k0), swept over every K position of a warp step and every row
//     of two column tiles, for every compiled variant of the N = 40 nvfp4
//     layers: Y must be exactly 0.5 * A[:, k0] in column n0 and 0 elsewhere;
//  2b. decoded weights: every element of the N = 512 and K != 5120 layers
//     with scales over their whole range, one-hot activations (Y = W's
//     column), compared bit for bit with lib/Reference;
//  3. time (main bundle, K = 5120 tensor-core layers, M = 1, 4, 8; random
//     activations): the policy's variant and every variant (override), in
//     three interleaved rounds (median of each), CUDA events over
//     batches that rotate through weight copies larger than L2, against
//     cuBLAS bf16/f16 on the dequantized weights, a device copy and the
//     layer's read ceiling (a kernel that only reads the same code and
//     scale bytes, best of a small sweep), all in the same run.
// Usage: gemv_bench OUT.json [main|wide] [LAYER_FILTER]
//
//===----------------------------------------------------------------------===//

#include "../common/ceiling.h"
#include "../common/device_weight.h"
#include "../common/gpu_monitor.h"
#include "../common/harness.h"
#include "../common/layers.h"
#include "qmat/Conversion/QMatToGPU/PackedFp4Placement.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

using namespace qmat::ref;
using namespace bench;

namespace {

constexpr int kSplitKs[] = {1, 2, 3, 4, 8, 16};
/// A sweep's best variant that beats the policy by more than this is timed
/// against it again in kRecheckRounds head-to-head rounds.
constexpr double kRecheckMargin = 1.03;
constexpr int kRecheckRounds = 6;
constexpr int kColTiles[] = {1, 2, 4};

qmat_status runLayer(const LayerEntry &l, cudaStream_t stream, int64_t m,
                     const void *a, const DeviceWeight &w, int copy, void *y) {
  return l.run(reinterpret_cast<CUstream>(stream), m, a, w.codes[copy],
               w.scales[copy], w.global, w.zeroPoints[copy], nullptr, y,
               nullptr, 0);
}

std::string jsonNumber(double v) {
  if (std::isnan(v))
    return "\"NaN\"";
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

/// Whether the last call failed because the GEMV override has no variant
/// for this layer at this M: an override is checked against the whole
/// bundle, and a layer may lack it (split-K 3 is compiled for the
/// whole-line tier alone, so not at M = 8 or for fp8).
bool lacksOverrideVariant() {
  return std::string(bench_last_error()).find("has no variant for m") !=
         std::string::npos;
}

/// One kernel run back to back for a stretch of seconds, after a settling
/// stretch: time, power and energy where the board's power controller has
/// reached its steady state (the timed sweeps' batches are too short for
/// that, and their times move with the controller's swings).
struct SustainedRun {
  /// watts and joulesPerCall are NaN where NVML has no energy counter.
  double usPerCall = 0, watts = NAN, joulesPerCall = NAN;
  GpuMonitorSummary clocks;
};

template <typename F>
SustainedRun runSustained(cudaStream_t stream, GpuMonitor &monitor,
                          double seconds, F call) {
  using Clock = std::chrono::steady_clock;
  long calls = 0;
  auto spin = [&](double forSeconds) {
    Clock::time_point start = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - start).count() <
           forSeconds) {
      for (int i = 0; i < 50; ++i)
        call(calls++);
      CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  };
  spin(0.5);
  cudaEvent_t begin, end;
  CUDA_CHECK(cudaEventCreate(&begin));
  CUDA_CHECK(cudaEventCreate(&end));
  calls = 0;
  double joules = monitor.energyJoules();
  monitor.start();
  CUDA_CHECK(cudaEventRecord(begin, stream));
  spin(seconds);
  CUDA_CHECK(cudaEventRecord(end, stream));
  CUDA_CHECK(cudaEventSynchronize(end));
  // Before stop(), whose join would stretch the energy's window past the
  // events'.
  double joulesAfter = monitor.energyJoules();
  SustainedRun run;
  run.clocks = monitor.stop();
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, begin, end));
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  run.usPerCall = ms * 1e3 / double(calls);
  if (joules >= 0 && joulesAfter > joules) {
    run.watts = (joulesAfter - joules) / (ms * 1e-3);
    run.joulesPerCall = (joulesAfter - joules) / double(calls);
  }
  return run;
}

/// The lm_head layers' GEMV at M = 1, 4, 8 (the policy's variant, and at M =
/// 8 the variants POWER_VARIANTS names as "splitK:colTiles,..."), the read
/// ceiling's kernel, a copy of their random codes and a copy of constant
/// bytes (the copy ceiling's data), each run for two seconds: the power, the
/// energy per byte and the SM clock that the board's power limit leaves
/// each of them.
void runPowerSection(cudaStream_t stream, GpuMonitor &monitor,
                     int multiprocessors, const std::string &only,
                     uint64_t seed, std::ostringstream &json) {
  int entries = 0;
  auto emit = [&](const std::string &name, int64_t m, double bytes,
                  const SustainedRun &r) {
    double bytesPerS = bytes / (r.usPerCall * 1e-6);
    std::printf("power %-28s m=%ld %.2f us, %.3f TB/s, %.0f W, %.2f mJ per "
                "call, %.1f pJ/byte, sm clock median %u MHz, %s\n",
                name.c_str(), long(m), r.usPerCall, bytesPerS / 1e12, r.watts,
                r.joulesPerCall * 1e3, r.joulesPerCall / bytes * 1e12,
                r.clocks.smClockMedianMhz, r.clocks.reasonNames().c_str());
    json << (entries++ ? ",\n" : "") << "    {\"power\": \"" << name
         << "\", \"m\": " << m << ", \"bytes\": " << jsonNumber(bytes)
         << ", \"us_per_call\": " << jsonNumber(r.usPerCall)
         << ", \"bytes_per_s\": " << jsonNumber(bytesPerS)
         << ", \"watts\": " << jsonNumber(r.watts)
         << ", \"joules_per_call\": " << jsonNumber(r.joulesPerCall)
         << ", \"pj_per_byte\": " << jsonNumber(r.joulesPerCall / bytes * 1e12)
         << ", \"gpu_monitor\": " << r.clocks.json() << "}";
  };
  for (const LayerEntry &l : kLayers) {
    const LayerShape &s = l.shape;
    if (s.n != 248320 ||
        (!only.empty() && std::string(l.name).find(only) == std::string::npos))
      continue;
    QuantizedWeight w = makeWeight(s, seed ^ 0x51ED);
    DeviceWeight dw(w, 1, l.prepare);
    double bytes = double(dw.codeBytes + dw.scaleBytes + dw.zeroPointBytes);
    uint16_t *a =
        upload(randomActivations(s.act, size_t(8) * s.k, seed ^ 0xAC7));
    uint16_t *zeros = upload(std::vector<uint16_t>(size_t(8) * s.k, 0)), *y;
    CUDA_CHECK(cudaMalloc(&y, size_t(8) * s.n * 2));
    void *copyDst, *constantSrc;
    CUDA_CHECK(cudaMalloc(&copyDst, dw.codeBytes));
    CUDA_CHECK(cudaMalloc(&constantSrc, dw.codeBytes));
    CUDA_CHECK(cudaMemset(constantSrc, 1, dw.codeBytes));
    bool ok = true;
    auto sustainedGemv = [&](int64_t m, const uint16_t *activations) {
      return runSustained(stream, monitor, 2.0, [&](long) {
        ok &= runLayer(l, stream, m, activations, dw, 0, y) == QMAT_OK;
      });
    };
    for (int64_t m : {1, 4, 8})
      emit(l.name, m, bytes, sustainedGemv(m, a));
    emit(std::string(l.name) + "/zero_activations", 8, bytes,
         sustainedGemv(8, zeros));
    const char *variantList = std::getenv("POWER_VARIANTS");
    std::istringstream variants(variantList ? variantList : "");
    for (std::string item; std::getline(variants, item, ',');) {
      int sk = 0, c = 0;
      if (std::sscanf(item.c_str(), "%d:%d", &sk, &c) != 2 ||
          bench_set_gemv_override(sk, c) != QMAT_OK ||
          runLayer(l, stream, 8, a, dw, 0, y) != QMAT_OK) {
        std::printf("%s: variant %s at m=8 not run: %s\n", l.name, item.c_str(),
                    bench_last_error());
        continue;
      }
      emit(std::string(l.name) + "/s" + std::to_string(sk) + "_c" +
               std::to_string(c),
           8, bytes, sustainedGemv(8, a));
    }
    bench_set_gemv_override(0, 0);
    // The read ceiling's kernel in the configuration that won on the lm_head
    // in every full run (4 blocks per SM, 4 loads; 8 for int4, within 1 %).
    unsigned *sink;
    CUDA_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    emit(std::string("read_ceiling/") + l.name, 0, bytes,
         runSustained(stream, monitor, 2.0, [&](long) {
           launchReadCeiling(stream, dw.codes[0], dw.codeBytes, dw.scales[0],
                             dw.scaleBytes, dw.zeroPoints[0], dw.zeroPointBytes,
                             4, 4, multiprocessors, sink);
         }));
    cudaFree(sink);
    for (bool constant : {false, true}) {
      SustainedRun r = runSustained(stream, monitor, 2.0, [&](long) {
        CUDA_CHECK(
            cudaMemcpyAsync(copyDst, constant ? constantSrc : dw.codes[0],
                            dw.codeBytes, cudaMemcpyDeviceToDevice, stream));
      });
      emit(std::string(constant ? "copy_constant_bytes" : "copy_random_codes") +
               "/" + l.name,
           0, 2.0 * double(dw.codeBytes), r);
    }
    if (!ok)
      std::printf("%s: a sustained run failed: %s\n", l.name,
                  bench_last_error());
    cudaFree(copyDst);
    cudaFree(constantSrc);
    cudaFree(a);
    cudaFree(zeros);
    cudaFree(y);
  }
}

/// Probe::run's result where the override has no variant here.
constexpr int64_t kNoVariant = -2;

/// The probe: Y == 0.5 * A[:, k0] in column n0, 0 elsewhere, exactly.
struct Probe {
  const LayerEntry &l;
  cudaStream_t stream;
  std::vector<uint16_t> aBits;
  uint16_t *a, *y;
  int64_t m;
  QuantizedWeight w;

  Probe(const LayerEntry &l, cudaStream_t stream, uint64_t seed, int64_t m)
      : l(l), stream(stream), m(m) {
    const LayerShape &s = l.shape;
    w.scheme = s.scheme;
    w.act = s.act;
    w.n = s.n;
    w.k = s.k;
    w.blockSize = s.blockSize;
    int64_t blocks = w.numScaleBlocks();
    bool packed = s.scheme != Scheme::FP8;
    // Code 0 is zero except int4, whose zero is its zero point (default 8).
    w.codes.assign(size_t(s.n) * (packed ? s.k / 2 : s.k),
                   s.scheme == Scheme::INT4 ? 0x88 : 0);
    if (s.scheme == Scheme::NVFP4)
      w.scaleBytes.assign(s.n * blocks, 0x38); // e4m3 1.0
    if (s.scheme == Scheme::MXFP4)
      w.scaleBytes.assign(s.n * blocks, 127); // 2^0
    if (s.scheme == Scheme::FP8)
      w.scaleF32.assign(s.n * blocks, 1.0f);
    if (s.scheme == Scheme::INT4)
      w.scaleAct.assign(s.n * blocks, roundToAct(s.act, 0.5f));
    if (s.zeroPoints)
      w.zeroPoints.assign(s.n * ((blocks + 1) / 2), 0x88);
    w.globalScale = 1.0f;
    aBits = randomActivations(s.act, size_t(m) * s.k, seed);
    a = upload(aBits);
    CUDA_CHECK(cudaMalloc(&y, size_t(m) * s.n * 2));
  }
  ~Probe() {
    cudaFree(a);
    cudaFree(y);
  }

  /// The code byte and nibble shift that make w[n0, k0] = 0.5.
  void place(QuantizedWeight &q, int64_t n0, int64_t k0) const {
    const LayerShape &s = l.shape;
    if (s.scheme == Scheme::FP8) {
      q.codes[n0 * s.k + k0] = 0x30; // e4m3 0.5
      return;
    }
    uint8_t &byte = q.codes[n0 * (s.k / 2) + k0 / 2];
    int shift = k0 % 2 ? 4 : 0;
    uint8_t code = s.scheme == Scheme::INT4 ? 9 : 1; // (9 - 8) * 0.5, e2m1 0.5
    byte = uint8_t((byte & ~(0xF << shift)) | (code << shift));
  }

  /// Failures over the given (n0, k0) positions with the current variant.
  int64_t run(const std::vector<std::pair<int64_t, int64_t>> &positions) {
    const LayerShape &s = l.shape;
    int64_t failures = 0;
    std::vector<uint16_t> got(size_t(m) * s.n);
    for (auto [n0, k0] : positions) {
      QuantizedWeight q = w;
      place(q, n0, k0);
      DeviceWeight dw(q, 1, l.prepare);
      CUDA_CHECK(cudaMemset(y, 0xFF, size_t(m) * s.n * 2));
      if (runLayer(l, stream, m, a, dw, 0, y) != QMAT_OK) {
        if (lacksOverrideVariant())
          return kNoVariant;
        std::printf("probe %s: %s\n", l.name, bench_last_error());
        return -1;
      }
      CUDA_CHECK(
          cudaMemcpy(got.data(), y, got.size() * 2, cudaMemcpyDeviceToHost));
      for (int64_t r = 0; r < m; ++r)
        for (int64_t n = 0; n < s.n; ++n) {
          float expect = n == n0
                             ? 0.5f * actBitsToFloat(s.act, aBits[r * s.k + k0])
                             : 0.0f;
          uint16_t want = roundToAct(s.act, expect);
          uint16_t have = got[r * s.n + n];
          // +0 and -0 both mean "nothing landed here".
          if (have != want && !((have | want) == 0x8000 && expect == 0.0f))
            ++failures;
        }
    }
    return failures;
  }
};

/// Where checkDecodedWeights draws mxfp4's scales: over the format's range
/// (nearly every warp's step in the GEMV's general arm), within its
/// one-multiply range, or within it but for one block in 97 at e = 129 (the
/// vote must send each step that holds one to the general arm).
enum class Mxfp4Scales { wide, oneMultiply, oneMultiplyWithOutliers };

/// makeWeight with scales drawn over each format's range (subnormal, zero,
/// negative where the format has them, and large; mxfp4 as `mxfp4Scales`
/// says), bounded only so that every dequantized weight stays finite in the
/// activation type.
QuantizedWeight makeWideRangeWeight(const LayerShape &s, uint64_t seed,
                                    Mxfp4Scales mxfp4Scales) {
  QuantizedWeight w = makeWeight(s, seed);
  uint64_t state = seed ^ 0xD1CE;
  bool f16 = s.act == ActType::F16;
  mlir::qmat::Mxfp4OneMultiply oneMultiply =
      mlir::qmat::getMxfp4OneMultiply(f16);
  size_t block = 0;
  for (uint8_t &byte : w.scaleBytes) {
    uint8_t v = uint8_t(splitmix(state));
    bool outlier = mxfp4Scales == Mxfp4Scales::oneMultiplyWithOutliers &&
                   block++ % 97 == 0;
    if (s.scheme == Scheme::NVFP4)
      byte = (v & 0x7F) == 0x7F ? uint8_t(v & 0xFE) : v; // e4m3, not NaN
    else if (outlier)
      byte = uint8_t(oneMultiply.maxE + 1);
    else if (mxfp4Scales != Mxfp4Scales::wide)
      byte = uint8_t(v % (oneMultiply.maxE + 1));
    else // e8m0, past where the largest codes overflow (see below)
      byte = f16 ? uint8_t(127 - 40 + v % 57) : uint8_t(v % 255);
  }
  if (s.scheme == Scheme::MXFP4) {
    // Where 2^(e - 127) would overflow some codes, those codes shrink to the
    // largest that stays finite: every weight finite, large e still seen.
    static const float magnitudes[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    double largest = f16 ? 65504.0 : 3.3895313892515355e38;
    int64_t blocks = w.numScaleBlocks();
    for (int64_t r = 0; r < s.n; ++r)
      for (int64_t c = 0; c < s.k; ++c) {
        double scale = std::ldexp(
            1.0, int(w.scaleBytes[r * blocks + c / s.blockSize]) - 127);
        uint8_t &byte = w.codes[r * (s.k / 2) + c / 2];
        int shift = c % 2 ? 4 : 0;
        int code = (byte >> shift) & 0xF, magnitude = code & 7;
        while (magnitude > 0 && magnitudes[magnitude] * scale > largest)
          --magnitude;
        byte = uint8_t((byte & ~(0xF << shift)) | ((code & 8) | magnitude)
                                                      << shift);
      }
  }
  for (float &scale : w.scaleF32) {
    uint64_t v = splitmix(state);
    int exponent = f16 ? -34 + int(v % 41) : -120 + int(v % 230);
    scale = std::ldexp(1.0f + float((v >> 8) % 1024) / 1024.0f, exponent) *
            ((v >> 20) & 1 ? -1.0f : 1.0f);
  }
  for (uint16_t &scale : w.scaleAct) {
    // Bit patterns: exponent field 0 (subnormal) up to where 15 * scale
    // stays finite.
    uint64_t v = splitmix(state);
    uint16_t sign = (v >> 40) & 1 ? 0x8000 : 0;
    scale = f16 ? uint16_t(sign | (v % 27) << 10 | ((v >> 16) & 0x3FF))
                : uint16_t(sign | (v % 241) << 7 | ((v >> 16) & 0x7F));
  }
  return w;
}

/// Every weight the kernel decodes, compared bit for bit with the reference:
/// activation row r is one-hot at k = 8j + r, so Y[r, n] is the decoded
/// w[n, k] itself (one exact product, the other terms exact zeros). Returns
/// the elements that differ (+0 and -0 count as equal: the fp32 sum of a
/// -0 product and +0 terms is +0).
int64_t checkDecodedWeights(const LayerEntry &l, cudaStream_t stream,
                            uint64_t seed, int64_t m, Mxfp4Scales mxfp4Scales,
                            int64_t &compared) {
  const LayerShape &s = l.shape;
  QuantizedWeight w = makeWideRangeWeight(s, seed, mxfp4Scales);
  std::vector<uint16_t> wBits = dequantizeParallel(w);
  DeviceWeight dw(w, 1, l.prepare);
  uint16_t one = roundToAct(s.act, 1.0f);
  std::vector<uint16_t> aBits(size_t(m) * s.k), got(size_t(m) * s.n);
  uint16_t *a, *y;
  CUDA_CHECK(cudaMalloc(&a, aBits.size() * 2));
  CUDA_CHECK(cudaMalloc(&y, got.size() * 2));
  int64_t mismatches = 0, reported = 0;
  compared = 0;
  for (int64_t k0 = 0; k0 < s.k; k0 += m) {
    std::fill(aBits.begin(), aBits.end(), 0);
    for (int64_t r = 0; r < m && k0 + r < s.k; ++r)
      aBits[r * s.k + k0 + r] = one;
    CUDA_CHECK(
        cudaMemcpy(a, aBits.data(), aBits.size() * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(y, 0xFF, got.size() * 2));
    if (runLayer(l, stream, m, a, dw, 0, y) != QMAT_OK) {
      std::printf("decode check %s: %s\n", l.name, bench_last_error());
      mismatches = -1;
      break;
    }
    CUDA_CHECK(
        cudaMemcpy(got.data(), y, got.size() * 2, cudaMemcpyDeviceToHost));
    for (int64_t r = 0; r < m && k0 + r < s.k; ++r)
      for (int64_t n = 0; n < s.n; ++n) {
        uint16_t want = wBits[size_t(n) * s.k + k0 + r];
        uint16_t have = got[r * s.n + n];
        ++compared;
        if (have == want || ((have | want) & 0x7FFF) == 0)
          continue;
        if (reported++ < 5)
          std::printf("decode check %s: w[%ld, %ld] = 0x%04x, kernel 0x%04x\n",
                      l.name, long(n), long(k0 + r), want, have);
        ++mismatches;
      }
  }
  cudaFree(a);
  cudaFree(y);
  return mismatches;
}

} // namespace

int main(int argc, char **argv) {
  std::string outPath = argc > 1 ? argv[1] : "gemv.json";
  bool wide = argc > 2 && std::string(argv[2]) == "wide";
  bool power = argc > 2 && std::string(argv[2]) == "power";
  std::string only = argc > 3 ? argv[3] : "";
  uint64_t seed = std::random_device{}();
  GpuContext gpu = createGpuContext();
  cudaStream_t stream = gpu.stream;
  cublasHandle_t blas = gpu.blas;
  int multiprocessors = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors,
                                    cudaDevAttrMultiProcessorCount, 0));

  GpuMonitor monitor;
  std::printf("gpu monitor (NVML): %s\n",
              monitor.isAvailable() ? "sampling each sweep" : "unavailable");

  // Copy ceiling: 1 GiB device to device, bytes read + written.
  double copyBandwidth = copyBytesPerSecond(stream);
  std::printf("copy: %.2f TB/s; %d SMs\n", copyBandwidth / 1e12,
              multiprocessors);

  std::ostringstream json;
  if (power) {
    // bench/gemv/power.sh: the sustained runs alone, the main bundle.
    json << "{\n  \"seed\": " << seed
         << ",\n  \"copy_bytes_per_s\": " << copyBandwidth
         << ",\n  \"gpu_monitor_available\": "
         << (monitor.isAvailable() ? "true" : "false")
         << ",\n  \"sustained\": [\n";
    runPowerSection(stream, monitor, multiprocessors, only, seed, json);
    json << "\n  ]\n}\n";
    std::ofstream(outPath) << json.str();
    return 0;
  }
  json << "{\n  \"seed\": " << seed << ",\n  \"bundle\": \""
       << (wide ? "wide" : "main")
       << "\",\n  \"multiprocessors\": " << multiprocessors
       << ",\n  \"copy_bytes_per_s\": " << copyBandwidth
       << ",\n  \"cases\": [\n";
  int cases = 0;
  bool allWithin = true, probesClean = true, timedRunsOk = true;
  auto emit = [&](const std::string &object) {
    json << (cases++ ? ",\n" : "") << "    " << object;
  };

  // 1. Error.
  std::vector<int64_t> ms = {1, 2, 3, 4, 5, 6, 7, 8};
  if (wide)
    ms = {16, 32, 64};
  for (const LayerEntry &l : kLayers) {
    const LayerShape &s = l.shape;
    if (!only.empty() && std::string(l.name).find(only) == std::string::npos)
      continue;
    QuantizedWeight w = makeWeight(s, seed ^ std::hash<std::string>{}(l.name));
    std::vector<uint16_t> wBits = dequantizeParallel(w);
    DeviceWeight dw(w, 1, l.prepare);
    int64_t maxM = ms.back();
    std::vector<uint16_t> aBits =
        randomActivations(s.act, size_t(maxM) * s.k, seed ^ uint64_t(s.n));
    uint16_t *a = upload(aBits), *y;
    CUDA_CHECK(cudaMalloc(&y, size_t(maxM) * s.n * 2));
    // fp64 reference for every row: rows of smaller M are its prefixes.
    std::vector<double> ref =
        referenceProduct(s.act, aBits, wBits, maxM, s.n, s.k);
    double bound = s.act == ActType::F16 ? 2e-3 : 1e-2;
    std::vector<uint16_t> got(size_t(maxM) * s.n);
    for (int64_t m : ms) {
      CUDA_CHECK(cudaMemset(y, 0xFF, size_t(maxM) * s.n * 2));
      qmat_status status = runLayer(l, stream, m, a, dw, 0, y);
      CUDA_CHECK(cudaStreamSynchronize(stream));
      if (status != QMAT_OK) {
        std::printf("%-24s m=%ld FAILED %s\n", l.name, long(m),
                    bench_last_error());
        allWithin = false;
        continue;
      }
      CUDA_CHECK(cudaMemcpy(got.data(), y, size_t(m) * s.n * 2,
                            cudaMemcpyDeviceToHost));
      double err =
          relativeFrobeniusError(s.act, got.data(), ref.data(), m * s.n);
      bool within = !std::isnan(err) && err <= bound;
      allWithin &= within;
      std::printf("%-24s m=%-3ld rel_err %.2e %s\n", l.name, long(m), err,
                  within ? "ok" : "OUT OF BOUND");
      emit("{\"layer\": \"" + std::string(l.name) + "\", \"m\": " +
           std::to_string(m) + ", \"n\": " + std::to_string(s.n) +
           ", \"k\": " + std::to_string(s.k) + ", \"rel_frobenius_error\": " +
           jsonNumber(err) + ", \"bound\": " + jsonNumber(bound) +
           ", \"within_bound\": " + (within ? "true" : "false") + "}");
    }
    cudaFree(a);
    cudaFree(y);
  }

  // 2. Lane-ownership probes on the N = 40 tensor-core layers.
  for (const LayerEntry &l : kLayers) {
    const LayerShape &s = l.shape;
    if (s.n != 40 || s.k % 128 != 0)
      continue;
    std::vector<std::pair<int64_t, int64_t>> positions;
    // Every K slot of a warp step (256: the whole-line kernels' step).
    int64_t stepK = s.k % 256 == 0 ? 256 : 128;
    for (int64_t k0 = 0; k0 < stepK; ++k0)
      positions.push_back({k0 % 32, k0});
    for (int64_t n0 = 0; n0 < s.n; ++n0) // every row, in a later step
      positions.push_back({n0, s.k - stepK + (n0 * 37) % stepK});
    bool everyVariant = s.scheme == Scheme::NVFP4 && !wide;
    std::vector<std::pair<int, int>> variants = {{0, 0}};
    if (everyVariant)
      for (int c : kColTiles)
        for (int sk : kSplitKs)
          variants.push_back({sk, c});
    // M = 4 and 8: each row capacity's kernels (nvfp4's whole-line tier
    // holds M <= 4).
    for (int64_t m : {int64_t(4), int64_t(8)}) {
      Probe probe(l, stream, seed ^ 0x9E37, m);
      for (auto [sk, c] : variants) {
        if (bench_set_gemv_override(sk, c) != QMAT_OK)
          continue;
        int64_t failures = probe.run(positions);
        if (failures == kNoVariant)
          continue;
        probesClean &= failures == 0;
        std::printf(
            "probe %-22s m=%ld split_k=%d col_tiles=%d: %ld wrong of %zu\n",
            l.name, long(m), sk, c, long(failures),
            positions.size() * size_t(probe.m) * size_t(s.n));
        emit("{\"probe\": \"" + std::string(l.name) + "\", \"m\": " +
             std::to_string(m) + ", \"split_k\": " + std::to_string(sk) +
             ", \"col_tiles\": " + std::to_string(c) +
             ", \"positions\": " + std::to_string(positions.size()) +
             ", \"wrong_outputs\": " + std::to_string(failures) + "}");
      }
      bench_set_gemv_override(0, 0);
    }
  }

  // 2b. Decoded weights, bit for bit, over every element of the small
  // layers (one-hot activations), scales over their whole range.
  bool decodeExact = true;
  for (const LayerEntry &l : kLayers) {
    const LayerShape &s = l.shape;
    if (wide || (s.n != 512 && s.k == 5120) ||
        (!only.empty() && std::string(l.name).find(only) == std::string::npos))
      continue;
    // M = 8, and M = 4 where the fp4 layers have whole-line kernels.
    bool wholeLines =
        (s.scheme == Scheme::NVFP4 || s.scheme == Scheme::MXFP4) &&
        s.k % 256 == 0;
    for (int64_t m : {int64_t(8), int64_t(4)}) {
      if (m == 4 && !wholeLines)
        continue;
      // mxfp4 in both arms of the GEMV's decode, and across the vote.
      for (Mxfp4Scales scaleRange :
           {Mxfp4Scales::wide, Mxfp4Scales::oneMultiply,
            Mxfp4Scales::oneMultiplyWithOutliers}) {
        if (scaleRange != Mxfp4Scales::wide && s.scheme != Scheme::MXFP4)
          continue;
        int64_t compared = 0;
        int64_t mismatches = checkDecodedWeights(l, stream, seed ^ 0xDEC0, m,
                                                 scaleRange, compared);
        decodeExact &= mismatches == 0;
        const char *scales = scaleRange == Mxfp4Scales::wide ? "wide"
                             : scaleRange == Mxfp4Scales::oneMultiply
                                 ? "one_multiply_range"
                                 : "one_multiply_with_outliers";
        std::printf(
            "decoded weights %-22s m=%ld scales %s: %ld of %ld differ\n",
            l.name, long(m), scales, long(mismatches), long(compared));
        emit("{\"decoded_weights\": \"" + std::string(l.name) +
             "\", \"m\": " + std::to_string(m) + ", \"scales\": \"" + scales +
             "\", \"compared\": " + std::to_string(compared) +
             ", \"differ\": " + std::to_string(mismatches) + "}");
      }
    }
  }

  // 3. Time.
  for (const LayerEntry &l : kLayers) {
    const LayerShape &s = l.shape;
    if (wide || s.k != 5120 || s.n < 2048 ||
        (!only.empty() && std::string(l.name).find(only) == std::string::npos))
      continue;
    QuantizedWeight w = makeWeight(s, seed ^ 0x51ED);
    std::vector<uint16_t> wBits = dequantizeParallel(w);
    double weightBytes = double(w.codes.size());
    double scaleBytes = double(w.scaleBytes.size() + w.scaleF32.size() * 4 +
                               w.scaleAct.size() * 2 + w.zeroPoints.size());
    // Enough copies that the ones a batch touches exceed L2 several times.
    int copies =
        int(std::max(1.0, std::ceil(256e6 / (weightBytes + scaleBytes))));
    DeviceWeight dw(w, copies, l.prepare);
    // Random activations: zeros can run faster than real data. Measured in
    // one process (ab_bench, AB_ZERO_ACTIVATIONS_B): the same kernel on zeros
    // within 2 % of random, so the earlier results in bench/results, timed
    // on zeros, stand (bench/README.md).
    uint16_t *dense = upload(wBits), *y;
    uint16_t *a =
        upload(randomActivations(s.act, size_t(8) * s.k, seed ^ 0xAC7));
    CUDA_CHECK(cudaMalloc(&y, size_t(8) * s.n * 2));
    std::string readConfig;
    double readMs = readCeilingMs(
        stream, dw.codes.data(), dw.codeBytes, dw.scales.data(), dw.scaleBytes,
        dw.zeroPointBytes ? dw.zeroPoints.data() : nullptr, dw.zeroPointBytes,
        copies, multiprocessors, readConfig);
    std::printf("%-24s read ceiling %.2f us (%s), %.2f TB/s\n", l.name,
                readMs * 1e3, readConfig.c_str(),
                (weightBytes + scaleBytes) / (readMs * 1e-3) / 1e12);
    for (int64_t m : {1, 4, 8}) {
      int perBatch = 20;
      auto timeVariant = [&] {
        return batchedMs(stream, 2, 15, perBatch, [&](int i) {
          if (runLayer(l, stream, m, a, dw, i % copies, y) != QMAT_OK) {
            std::printf("%s m=%ld timed run: %s\n", l.name, long(m),
                        bench_last_error());
            timedRunsOk = false;
          }
        });
      };
      // The policy and every variant, timed in 3 interleaved rounds and
      // each taken at its median, so that clock and power drift over the
      // sweep falls on all of them alike.
      bool sweep = s.n == 17408 || s.n == 248320;
      // The copy ceiling again next to this sweep: the lm_head's times have
      // drifted by up to 10 % within one run (bench/README.md, the 2026-12-01
      // rows),
      // and a ratio to a copy timed minutes earlier would carry that drift.
      double copyBefore = copyBytesPerSecond(stream);
      std::vector<std::pair<int, int>> overrides = {{0, 0}};
      for (int c : kColTiles)
        for (int sk : kSplitKs) {
          if (!sweep || bench_set_gemv_override(sk, c) != QMAT_OK)
            continue;
          if (runLayer(l, stream, m, a, dw, 0, y) == QMAT_OK)
            overrides.push_back({sk, c});
          else if (!lacksOverrideVariant()) {
            std::printf("%s m=%ld split_k=%d col_tiles=%d: %s\n", l.name,
                        long(m), sk, c, bench_last_error());
            timedRunsOk = false;
          }
        }
      std::vector<std::vector<double>> rounds(overrides.size());
      monitor.start();
      // Each round starts a third further along the list: a timing depends
      // on what ran just before it (clocks follow power), and no variant
      // should always come first.
      for (int round = 0; round < 3; ++round)
        for (size_t i = 0; i < overrides.size(); ++i) {
          size_t v = (i + round * overrides.size() / 3) % overrides.size();
          bench_set_gemv_override(overrides[v].first, overrides[v].second);
          rounds[v].push_back(timeVariant());
        }
      // The largest max / min over the rounds of any timed kernel: how far
      // apart a kernel's own timings were in this sweep.
      double spread = 1.0;
      for (const std::vector<double> &t : rounds)
        spread = std::max(spread, *std::max_element(t.begin(), t.end()) /
                                      *std::min_element(t.begin(), t.end()));
      double policyMs = median(rounds[0]);
      std::ostringstream variants;
      double bestMs = policyMs;
      std::string best = "policy";
      size_t bestIndex = 0;
      for (size_t v = 1; v < overrides.size(); ++v) {
        double t = median(rounds[v]);
        std::string tag = "s" + std::to_string(overrides[v].first) + "_c" +
                          std::to_string(overrides[v].second);
        variants << (v > 1 ? ", " : "") << "\"" << tag
                 << "\": " << jsonNumber(t * 1e3);
        if (t < bestMs) {
          bestMs = t;
          best = tag;
          bestIndex = v;
        }
      }
      // A sweep's ranking moves with the rounds' drift (round_spread up to
      // 1.25 on the lm_head, where interleaved A/B rounds ranked two kernels
      // the other way): a variant that beat the policy by more than the
      // margin is timed against it again, head to head in rounds of policy,
      // variant, variant, policy, and policy_over_best is the median of
      // those rounds' ratios (sweep_policy_over_best keeps the sweep's).
      double sweepRatio = policyMs / bestMs, ratio = sweepRatio;
      bool confirmed = false;
      if (bestIndex != 0 && sweepRatio > kRecheckMargin) {
        std::vector<double> ratios, policySamples = rounds[0],
                                    bestSamples = rounds[bestIndex];
        for (int round = 0; round < kRecheckRounds; ++round) {
          double t[4];
          for (int i = 0; i < 4; ++i) {
            bool variant = i == 1 || i == 2;
            bench_set_gemv_override(overrides[variant ? bestIndex : 0].first,
                                    overrides[variant ? bestIndex : 0].second);
            t[i] = timeVariant();
          }
          ratios.push_back((t[0] + t[3]) / (t[1] + t[2]));
          policySamples.push_back(t[0]);
          policySamples.push_back(t[3]);
          bestSamples.push_back(t[1]);
          bestSamples.push_back(t[2]);
        }
        ratio = median(ratios);
        confirmed = true;
        // The policy's time (and so its bandwidth and cuBLAS ratios) and the
        // best variant's are the medians of every timing of each, the
        // sweep's and the recheck's: one sweep slot on the lm_head has read
        // 7 % above the same kernel's override slot (bench/README.md, the
        // 2026-12-01 rows).
        policyMs = median(policySamples);
        bestMs = median(bestSamples);
      }
      GpuMonitorSummary sweepMonitor = monitor.stop();
      bench_set_gemv_override(0, 0);
      cudaDataType_t type = s.act == ActType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
      float one = 1.f, zero = 0.f;
      double blasMs = medianMs(stream, 3, 30, [&] {
        cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(s.n), int(m), int(s.k),
                     &one, dense, type, int(s.k), a, type, int(s.k), &zero, y,
                     type, int(s.n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      });
      double bandwidth = (weightBytes + scaleBytes) / (policyMs * 1e-3);
      double copyAdjacent = (copyBefore + copyBytesPerSecond(stream)) / 2;
      char sweepText[32];
      std::snprintf(sweepText, sizeof(sweepText), "%.3f", sweepRatio);
      std::string recheckNote =
          confirmed ? std::string(" head to head; sweep ") + sweepText : "";
      std::printf("%-24s m=%ld policy %.2f us, best %s %.2f us (policy/best "
                  "%.3f%s), cublas %.2f "
                  "us: gemv/cublas %.3f, bw/copy %.3f (copy at start %.3f), "
                  "read ceiling/cublas %.3f, gemv/read ceiling %.3f, round "
                  "spread %.3f\n",
                  l.name, long(m), policyMs * 1e3, best.c_str(), bestMs * 1e3,
                  ratio, recheckNote.c_str(), blasMs * 1e3, policyMs / blasMs,
                  bandwidth / copyAdjacent, bandwidth / copyBandwidth,
                  readMs / blasMs, policyMs / readMs, spread);
      if (sweepMonitor.samples)
        std::printf("%-24s m=%ld sm clock %u-%u MHz (median %u), power "
                    "median %.0f W, max %.0f W (limit %.0f W), %u C, reasons "
                    "%s (%zu of %zu samples limited)\n",
                    l.name, long(m), sweepMonitor.smClockMinMhz,
                    sweepMonitor.smClockMaxMhz, sweepMonitor.smClockMedianMhz,
                    sweepMonitor.powerMedianW, sweepMonitor.powerMaxW,
                    sweepMonitor.powerLimitW, sweepMonitor.temperatureMaxC,
                    sweepMonitor.reasonNames().c_str(),
                    sweepMonitor.limitedSamples, sweepMonitor.samples);
      emit("{\"time\": \"" + std::string(l.name) + "\", \"m\": " +
           std::to_string(m) + ", \"n\": " + std::to_string(s.n) + ", \"k\": " +
           std::to_string(s.k) + ", \"weight_and_scale_bytes\": " +
           jsonNumber(weightBytes + scaleBytes) + ", \"policy_us\": " +
           jsonNumber(policyMs * 1e3) + ", \"best_variant\": \"" + best +
           "\", \"best_us\": " + jsonNumber(bestMs * 1e3) +
           ", \"policy_over_best\": " + jsonNumber(ratio) +
           ", \"sweep_policy_over_best\": " + jsonNumber(sweepRatio) +
           ", \"policy_over_best_head_to_head\": " +
           (confirmed ? "true" : "false") +
           ", \"cublas_us\": " + jsonNumber(blasMs * 1e3) +
           ", \"gemv_over_cublas_" + (s.act == ActType::BF16 ? "bf16" : "f16") +
           "\": " + jsonNumber(policyMs / blasMs) +
           ", \"gemv_bw_over_copy\": " + jsonNumber(bandwidth / copyAdjacent) +
           ", \"copy_adjacent_bytes_per_s\": " + jsonNumber(copyAdjacent) +
           ", \"gemv_bw_over_copy_at_start\": " +
           jsonNumber(bandwidth / copyBandwidth) +
           ", \"read_ceiling_us\": " + jsonNumber(readMs * 1e3) +
           ", \"read_ceiling_config\": \"" + readConfig +
           "\", \"read_ceiling_over_cublas\": " + jsonNumber(readMs / blasMs) +
           ", \"gemv_over_read_ceiling\": " + jsonNumber(policyMs / readMs) +
           ", \"round_spread\": " + jsonNumber(spread) +
           ", \"gpu_monitor\": " + sweepMonitor.json() +
           ", \"variants_us\": {" + variants.str() + "}}");
    }
    cudaFree(dense);
    cudaFree(a);
    cudaFree(y);
  }

  json << "\n  ],\n  \"all_within_bounds\": " << (allWithin ? "true" : "false")
       << ",\n  \"probes_exact\": " << (probesClean ? "true" : "false")
       << ",\n  \"decoded_weights_bitwise\": "
       << (decodeExact ? "true" : "false")
       << ",\n  \"timed_runs_ok\": " << (timedRunsOk ? "true" : "false")
       << "\n}\n";
  std::ofstream(outPath) << json.str();
  std::printf("all_within_bounds: %s, probes_exact: %s, "
              "decoded_weights_bitwise: %s, timed_runs_ok: %s\n",
              allWithin ? "true" : "false", probesClean ? "true" : "false",
              decodeExact ? "true" : "false", timedRunsOk ? "true" : "false");
  bench_unload();
  return allWithin && probesClean && decodeExact && timedRunsOk ? 0 : 3;
}
