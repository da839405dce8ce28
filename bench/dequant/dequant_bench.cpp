//===- dequant_bench.cpp - Dequant kernels on a GPU: bits, then time ------===//
//
// Runs on a machine with the GPU. Loads the cubin qmat generated, checks every
// kernel bit for bit against lib/Reference (all byte values against all
// scale bytes, then random data at model shapes, outputs poisoned before
// each run), then times the bandwidth-relevant kernels against a
// device-to-device copy and the traffic ceiling (a kernel that only reads
// the same input bytes and writes the same output, bench/common/ceiling.cu)
// measured in the same run. Writes JSON.
//
// Build: nvcc -O2 -std=c++17 -arch=sm_90 -I include
//            bench/dequant/dequant_bench.cpp
//            bench/common/ceiling.cu lib/Reference/Numerics.cpp -lcuda
//            -o dequant_bench
//
//===----------------------------------------------------------------------===//

#include "../common/ceiling.h"
#include "qmat/Reference/Numerics.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace qmat::ref;

#define CU_CHECK(expr)                                                         \
  do {                                                                         \
    CUresult status_ = (expr);                                                 \
    if (status_ != CUDA_SUCCESS) {                                             \
      const char *msg_ = nullptr;                                              \
      cuGetErrorString(status_, &msg_);                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,       \
                   #expr, msg_ ? msg_ : "?");                                  \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

namespace {

struct Kernel {
  std::string name, scheme, act, kernel, decode, cubin;
  int64_t k, bs, threads, perThread, persistentBlocks = 0;
  bool zp;
  CUfunction fn;
  Scheme schemeEnum() const {
    if (scheme == "nvfp4")
      return Scheme::NVFP4;
    if (scheme == "mxfp4")
      return Scheme::MXFP4;
    if (scheme == "fp8")
      return Scheme::FP8;
    return Scheme::INT4;
  }
  ActType actEnum() const {
    return act == "f16" ? ActType::F16 : ActType::BF16;
  }
  bool packed() const { return scheme != "fp8"; }
  int64_t itemsPerRow() const {
    if (kernel == "vec8")
      return k / 8;
    return packed() ? k / 2 : k;
  }
};

struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t n) : bytes(n) {
    CU_CHECK(cuMemAlloc(&ptr, std::max<size_t>(n, 16)));
  }
  ~DeviceBuffer() {
    if (ptr)
      cuMemFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  template <typename T> void upload(const std::vector<T> &v) {
    if (!v.empty())
      CU_CHECK(cuMemcpyHtoD(ptr, v.data(), v.size() * sizeof(T)));
  }
};

/// The arguments of one launch, in the expanded memref-descriptor form the
/// MLIR GPU lowering gives kernel parameters.
struct ParamPack {
  std::vector<std::vector<char>> storage;
  std::vector<void *> pointers;
  template <typename T> void push(T v) {
    std::vector<char> bytes(sizeof(T));
    std::memcpy(bytes.data(), &v, sizeof(T));
    storage.push_back(std::move(bytes));
  }
  void memref2d(CUdeviceptr p, int64_t rows, int64_t cols) {
    push(p);
    push(p);
    push<int64_t>(0);
    push(rows);
    push(cols);
    push(cols);
    push<int64_t>(1);
  }
  void memref0d(CUdeviceptr p) {
    push(p);
    push(p);
    push<int64_t>(0);
  }
  void **finish() {
    pointers.clear();
    for (auto &s : storage)
      pointers.push_back(s.data());
    return pointers.data();
  }
};

/// Device copies of one quantized weight and its output.
struct Problem {
  QuantizedWeight w;
  std::unique_ptr<DeviceBuffer> codes, scales, global, zp, out;
  void upload() {
    codes = std::make_unique<DeviceBuffer>(w.codes.size());
    codes->upload(w.codes);
    size_t scaleBytes = w.scheme == Scheme::FP8    ? w.scaleF32.size() * 4
                        : w.scheme == Scheme::INT4 ? w.scaleAct.size() * 2
                                                   : w.scaleBytes.size();
    scales = std::make_unique<DeviceBuffer>(scaleBytes);
    if (w.scheme == Scheme::FP8)
      scales->upload(w.scaleF32);
    else if (w.scheme == Scheme::INT4)
      scales->upload(w.scaleAct);
    else
      scales->upload(w.scaleBytes);
    global = std::make_unique<DeviceBuffer>(4);
    CU_CHECK(cuMemcpyHtoD(global->ptr, &w.globalScale, 4));
    zp = std::make_unique<DeviceBuffer>(w.zeroPoints.size());
    zp->upload(w.zeroPoints);
    out = std::make_unique<DeviceBuffer>(size_t(w.n) * w.k * 2);
  }
  size_t bytesMoved() const {
    return codes->bytes + scales->bytes + (w.scheme == Scheme::NVFP4 ? 4 : 0) +
           zp->bytes + out->bytes;
  }
};

void launch(const Kernel &kn, Problem &p, CUstream stream) {
  ParamPack params;
  const int64_t codeCols = kn.packed() ? kn.k / 2 : kn.k;
  params.memref2d(p.codes->ptr, p.w.n, codeCols);
  params.memref2d(p.scales->ptr, p.w.n, p.w.numScaleBlocks());
  if (kn.scheme == "nvfp4")
    params.memref0d(p.global->ptr);
  if (kn.zp)
    params.memref2d(p.zp->ptr, p.w.n, (p.w.numScaleBlocks() + 1) / 2);
  params.memref2d(p.out->ptr, p.w.n, kn.k);
  int64_t perBlock = kn.threads * kn.perThread;
  unsigned gridY = unsigned((kn.itemsPerRow() + perBlock - 1) / perBlock);
  // A row-looping kernel covers every row with at most persistentBlocks.
  int64_t gridX =
      kn.persistentBlocks > 0 ? std::min(p.w.n, kn.persistentBlocks) : p.w.n;
  CU_CHECK(cuLaunchKernel(kn.fn, unsigned(gridX), gridY, 1,
                          unsigned(kn.threads), 1, 1, 0, stream,
                          params.finish(), nullptr));
}

/// A weight of the kernel's scheme and shape with no data yet.
QuantizedWeight emptyWeight(const Kernel &kn, int64_t rows) {
  QuantizedWeight w;
  w.scheme = kn.schemeEnum();
  w.act = kn.actEnum();
  w.n = rows;
  w.k = kn.k;
  w.blockSize = kn.bs;
  return w;
}

/// Structured data: byte j of each row is j mod 256 and the scale of
/// (row, block) is (row + block) mod 256, so over 256 rows every code byte
/// meets every scale byte (and every zero point).
QuantizedWeight structured(const Kernel &kn, int64_t rows, std::mt19937 &rng) {
  QuantizedWeight w = emptyWeight(kn, rows);
  const int64_t codeCols = kn.packed() ? kn.k / 2 : kn.k,
                blocks = w.numScaleBlocks();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < codeCols; ++j)
      w.codes.push_back(uint8_t(j));
  std::uniform_int_distribution<int> e(-30, 30);
  std::uniform_real_distribution<float> m(-2.f, 2.f);
  std::uniform_int_distribution<int> h(0, 0xFFFF);
  std::vector<float> f32Table = {0.f,   -0.f,     1.f,       448.f, 1e-40f,
                                 1e36f, INFINITY, -INFINITY, NAN};
  while (f32Table.size() < 256)
    f32Table.push_back(std::ldexp(m(rng), e(rng)));
  std::vector<uint16_t> actTable;
  while (actTable.size() < 256)
    actTable.push_back(uint16_t(h(rng)));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < blocks; ++b) {
      uint8_t i = uint8_t(r + b);
      if (w.scheme == Scheme::FP8)
        w.scaleF32.push_back(f32Table[i]);
      else if (w.scheme == Scheme::INT4)
        w.scaleAct.push_back(actTable[i]);
      else
        w.scaleBytes.push_back(i);
    }
  if (kn.zp)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < (blocks + 1) / 2; ++c)
        w.zeroPoints.push_back(uint8_t(r * 7 + c * 13));
  w.globalScale = 1.0f;
  return w;
}

/// Random data of a model-like distribution (finite scales).
QuantizedWeight randomWeight(const Kernel &kn, int64_t rows,
                             std::mt19937 &rng) {
  QuantizedWeight w = emptyWeight(kn, rows);
  const int64_t codeCols = kn.packed() ? kn.k / 2 : kn.k,
                blocks = w.numScaleBlocks();
  std::uniform_int_distribution<int> byte(0, 255);
  w.codes.resize(size_t(rows) * codeCols);
  for (auto &c : w.codes)
    c = uint8_t(byte(rng));
  std::uniform_real_distribution<float> u(0.001f, 2.0f);
  for (int64_t i = 0; i < rows * blocks; ++i) {
    if (w.scheme == Scheme::NVFP4)
      w.scaleBytes.push_back(uint8_t(byte(rng) & 0x7E));
    else if (w.scheme == Scheme::MXFP4)
      w.scaleBytes.push_back(uint8_t(100 + byte(rng) % 40));
    else if (w.scheme == Scheme::FP8)
      w.scaleF32.push_back(u(rng));
    else
      w.scaleAct.push_back(roundToAct(w.act, u(rng) * 0.01f));
  }
  if (kn.zp)
    for (int64_t i = 0; i < rows * ((blocks + 1) / 2); ++i)
      w.zeroPoints.push_back(uint8_t(byte(rng)));
  w.globalScale = u(rng) * 0.01f;
  return w;
}

/// Runs the kernel on poisoned output and counts mismatching elements.
int64_t checkBits(const Kernel &kn, QuantizedWeight w, CUstream stream,
                  std::string &firstBad) {
  Problem p;
  p.w = std::move(w);
  p.upload();
  // 0xFFFF is a NaN no kernel ever writes (NaN results are 0x7FFF).
  CU_CHECK(cuMemsetD16(p.out->ptr, 0xFFFF, size_t(p.w.n) * p.w.k));
  launch(kn, p, stream);
  CU_CHECK(cuStreamSynchronize(stream));
  std::vector<uint16_t> got(size_t(p.w.n) * p.w.k);
  CU_CHECK(cuMemcpyDtoH(got.data(), p.out->ptr, got.size() * 2));
  std::vector<uint16_t> want = dequantize(p.w);
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) {
      std::ostringstream os;
      os << "row " << i / p.w.k << " col " << i % p.w.k << " got 0x" << std::hex
         << got[i] << " want 0x" << want[i];
      firstBad = os.str();
    }
  return bad;
}

/// JSON has no NaN and std::to_string drops small values: %.9g round-trips
/// every float.
std::string formatFloat(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median over `batches` of the mean time (ms) of `perBatch` back-to-back
/// calls `fn(i)` between two events, after `warmup` calls: launch latency
/// and event overhead stay out, as when kernels are queued in a model.
template <typename F>
double timeBatched(CUstream stream, int warmup, int batches, int perBatch,
                   F fn) {
  CUevent start, stop;
  CU_CHECK(cuEventCreate(&start, 0));
  CU_CHECK(cuEventCreate(&stop, 0));
  int call = 0;
  for (int i = 0; i < warmup; ++i)
    fn(call++);
  std::vector<double> ms;
  for (int b = 0; b < batches; ++b) {
    CU_CHECK(cuEventRecord(start, stream));
    for (int i = 0; i < perBatch; ++i)
      fn(call++);
    CU_CHECK(cuEventRecord(stop, stream));
    CU_CHECK(cuEventSynchronize(stop));
    float t;
    CU_CHECK(cuEventElapsedTime(&t, start, stop));
    ms.push_back(t / perBatch);
  }
  cuEventDestroy(start);
  cuEventDestroy(stop);
  return median(ms);
}

/// Median time (ms) of `fn(i)` over `reps` single calls after `warmup`.
template <typename F>
double timeIt(CUstream stream, int warmup, int reps, F fn) {
  return timeBatched(stream, warmup, reps, 1, fn);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s BUNDLE_DIR OUT.json [--quick]\n", argv[0]);
    return 1;
  }
  std::string dir = argv[1], outPath = argv[2];
  bool quick = false, timeOnly = false;
  std::string only;
  for (int i = 3; i < argc; ++i) {
    quick |= std::string(argv[i]) == "--quick";
    timeOnly |= std::string(argv[i]) == "--time-only";
    if (std::string(argv[i]) == "--only" && i + 1 < argc)
      only = argv[++i];
  }
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  char devName[256];
  CU_CHECK(cuDeviceGetName(devName, sizeof devName, dev));
  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  std::map<std::string, CUmodule> modules;
  std::vector<Kernel> kernels;
  std::ifstream manifest(dir + "/manifest.txt");
  for (std::string line; std::getline(manifest, line);) {
    std::istringstream is(line);
    Kernel k;
    int zp;
    is >> k.name >> k.scheme >> k.act >> k.k >> k.bs >> k.kernel >> k.decode >>
        zp >> k.threads >> k.perThread >> k.cubin >> k.persistentBlocks;
    k.zp = zp;
    if (!modules.count(k.cubin)) {
      std::ifstream cubinFile(dir + "/" + k.cubin, std::ios::binary);
      std::string cubin((std::istreambuf_iterator<char>(cubinFile)), {});
      CU_CHECK(cuModuleLoadData(&modules[k.cubin], cubin.data()));
    }
    CU_CHECK(cuModuleGetFunction(&k.fn, modules[k.cubin], k.name.c_str()));
    kernels.push_back(k);
  }

  uint32_t seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::ostringstream json;
  json << "{\n  \"device\": \"" << devName << "\",\n  \"seed\": " << seed
       << ",\n  \"cases\": [\n";
  bool allIdentical = true;
  int64_t cases = 0;
  auto record = [&](const Kernel &kn, const char *data, int64_t n, float global,
                    int64_t bad, const std::string &first) {
    allIdentical &= bad == 0;
    json << (cases++ ? ",\n" : "") << "    {\"kernel\": \"" << kn.name
         << "\", \"data\": \"" << data << "\", \"n\": " << n
         << ", \"k\": " << kn.k << ", \"global\": "
         << (std::isnan(global) ? std::string("\"NaN\"") : formatFloat(global))
         << ", \"mismatches\": " << bad
         << (bad ? ", \"first\": \"" + first + "\"" : "") << "}";
    if (bad)
      std::printf("MISMATCH %s %s n=%ld: %ld (%s)\n", kn.name.c_str(), data,
                  long(n), long(bad), first.c_str());
  };

  auto t0 = std::chrono::steady_clock::now();
  for (const Kernel &kn : kernels) {
    if (timeOnly)
      break;
    if (!only.empty() && kn.name.find(only) == std::string::npos)
      continue;
    std::string first;
    // Every byte against every scale, with special global scales for nvfp4.
    std::vector<float> globals = {1.0f};
    if (kn.scheme == "nvfp4" && kn.k <= 520)
      globals = {1.0f, 0.37f, -2.25f, 1e30f, NAN};
    for (float g : globals) {
      QuantizedWeight w = structured(kn, 256, rng);
      w.globalScale = g;
      record(kn, "all-bytes-x-all-scales", 256, g,
             checkBits(kn, w, stream, first), first);
    }
    // Model shapes with fresh random data.
    std::vector<int64_t> rows = {128, 769};
    if (kn.k == 5120 && !quick)
      rows = {128, 5120, 17408};
    if (kn.k == 17408 && !quick)
      rows = {5120};
    for (int64_t n : rows) {
      QuantizedWeight w = randomWeight(kn, n, rng);
      record(kn, "random", n, w.globalScale, checkBits(kn, w, stream, first),
             first);
    }
  }
  double checkSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  json << "\n  ],\n  \"bitwise_identical\": "
       << (timeOnly       ? "null"
           : allIdentical ? "true"
                          : "false")
       << ",\n  \"check_seconds\": " << checkSeconds << ",\n";

  // Copy ceiling: a 1 GiB device-to-device copy, bytes read + written,
  // rotating over 4 buffers so nothing stays in L2.
  const size_t copyBytes = size_t(1) << 30;
  std::vector<std::unique_ptr<DeviceBuffer>> copyBufs;
  for (int i = 0; i < 4; ++i)
    copyBufs.push_back(std::make_unique<DeviceBuffer>(copyBytes));
  double copyMs = timeIt(stream, 3, 20, [&](int i) {
    CU_CHECK(cuMemcpyDtoDAsync(copyBufs[(i + 1) % 4]->ptr, copyBufs[i % 4]->ptr,
                               copyBytes, stream));
  });
  double copyBw = 2.0 * copyBytes / (copyMs * 1e-3);
  double copyBatchedMs = timeBatched(stream, 2, 9, 4, [&](int i) {
    CU_CHECK(cuMemcpyDtoDAsync(copyBufs[(i + 1) % 4]->ptr, copyBufs[i % 4]->ptr,
                               copyBytes, stream));
  });
  double copyBatchedBw = 2.0 * copyBytes / (copyBatchedMs * 1e-3);
  copyBufs.clear();
  json << "  \"copy\": {\"bytes_each_way\": " << copyBytes
       << ", \"median_ms\": " << copyMs
       << ", \"bandwidth_bytes_per_s\": " << copyBw
       << ", \"median_ms_batched\": " << copyBatchedMs
       << ", \"bandwidth_bytes_per_s_batched\": " << copyBatchedBw << "},\n";
  std::printf("copy: %.3f ms, %.3f TB/s (read+write); batched %.3f ms, %.3f "
              "TB/s\n",
              copyMs, copyBw / 1e12, copyBatchedMs, copyBatchedBw / 1e12);
  // Context for write-heavy kernels: a pure fill of 1 GiB (write only).
  std::vector<std::unique_ptr<DeviceBuffer>> fillBufs;
  for (int i = 0; i < 2; ++i)
    fillBufs.push_back(std::make_unique<DeviceBuffer>(copyBytes));
  double fillMs = timeIt(stream, 3, 20, [&](int i) {
    CU_CHECK(cuMemsetD32Async(fillBufs[i % 2]->ptr, 0x3F803F80u, copyBytes / 4,
                              stream));
  });
  fillBufs.clear();
  double fillBw = copyBytes / (fillMs * 1e-3);
  std::printf("fill: %.3f ms, %.3f TB/s (write only)\n", fillMs, fillBw / 1e12);
  json << "  \"fill\": {\"bytes\": " << copyBytes
       << ", \"median_ms\": " << fillMs
       << ", \"bandwidth_bytes_per_s\": " << fillBw << "},\n  \"timing\": [\n";

  // Bandwidth: the example model's shapes, every kernel/decode of those K.
  struct Shape {
    int64_t n, k;
  };
  std::vector<Shape> shapes = {{17408, 5120}, {4096, 4096}};
  std::map<std::tuple<int64_t, int64_t, size_t>, std::pair<double, std::string>>
      trafficCeilings;
  int multiprocessors = 0;
  CU_CHECK(cuDeviceGetAttribute(&multiprocessors,
                                CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  int timed = 0;
  std::printf("%-56s %-22s %11s %9s %7s %7s\n", "kernel", "cubin", "n x k",
              "ms", "bw/copy", "/same-bytes copy");
  for (const Kernel &kn : kernels) {
    if (!only.empty() && kn.name.find(only) == std::string::npos)
      continue;
    for (Shape s : shapes) {
      if (kn.k != s.k || (kn.bs != 16 && kn.scheme == "nvfp4"))
        continue;
      // Rotate input/output sets until they exceed 4x the 60 MB L2.
      std::vector<std::unique_ptr<Problem>> sets;
      size_t total = 0;
      while (total < size_t(256) << 20 || sets.size() < 2) {
        auto p = std::make_unique<Problem>();
        p->w = randomWeight(kn, s.n, rng);
        p->upload();
        total += p->bytesMoved();
        sets.push_back(std::move(p));
      }
      double ms = timeIt(stream, 5, 50, [&](int i) {
        launch(kn, *sets[i % sets.size()], stream);
      });
      CU_CHECK(cuStreamSynchronize(stream));
      double bw = sets[0]->bytesMoved() / (ms * 1e-3);
      // The same number of bytes moved by a plain copy (half read, half
      // written), for what launch and ramp cost at this size.
      size_t half = sets[0]->bytesMoved() / 2;
      std::vector<std::unique_ptr<DeviceBuffer>> cb;
      for (int i = 0; i < 8; ++i)
        cb.push_back(std::make_unique<DeviceBuffer>(half));
      double copySameMs = timeIt(stream, 3, 30, [&](int i) {
        CU_CHECK(cuMemcpyDtoDAsync(cb[(i + 1) % 8]->ptr, cb[i % 8]->ptr, half,
                                   stream));
      });
      double copySameBw = 2.0 * half / (copySameMs * 1e-3);
      // The same, 20 launches back to back per event pair (batches rotate
      // through the input sets, so L2 never holds the next one).
      double batchedMs = timeBatched(stream, 5, 15, 20, [&](int i) {
        launch(kn, *sets[i % sets.size()], stream);
      });
      double copySameBatchedMs = timeBatched(stream, 3, 15, 20, [&](int i) {
        CU_CHECK(cuMemcpyDtoDAsync(cb[(i + 1) % 8]->ptr, cb[i % 8]->ptr, half,
                                   stream));
      });
      double batchedBw = sets[0]->bytesMoved() / (batchedMs * 1e-3);
      double copySameBatchedBw = 2.0 * half / (copySameBatchedMs * 1e-3);
      // The traffic ceiling: a kernel that reads as many bytes as the
      // dequantization reads and writes its output, and does nothing else
      // (best of a sweep), on buffers rotated the same way; once per shape
      // and input size.
      size_t inputBytes = sets[0]->bytesMoved() - sets[0]->out->bytes;
      auto key = std::make_tuple(s.n, s.k, inputBytes);
      if (!trafficCeilings.count(key)) {
        std::vector<std::unique_ptr<DeviceBuffer>> in, outBufs;
        std::vector<void *> inPtrs, outPtrs;
        for (size_t i = 0; i < sets.size(); ++i) {
          in.push_back(std::make_unique<DeviceBuffer>(inputBytes));
          outBufs.push_back(
              std::make_unique<DeviceBuffer>(sets[0]->out->bytes));
          inPtrs.push_back(reinterpret_cast<void *>(in.back()->ptr));
          outPtrs.push_back(reinterpret_cast<void *>(outBufs.back()->ptr));
        }
        std::string config;
        double ceilingMs = bench::trafficCeilingMs(
            stream, inPtrs.data(), inputBytes, outPtrs.data(),
            sets[0]->out->bytes, int(sets.size()), multiprocessors, config);
        trafficCeilings[key] = {ceilingMs, config};
        std::printf("traffic ceiling %ldx%ld, %zu input bytes: %.4f ms (%s), "
                    "%.3f x copy\n",
                    long(s.n), long(s.k), inputBytes, ceilingMs, config.c_str(),
                    sets[0]->bytesMoved() / (ceilingMs * 1e-3) / copyBatchedBw);
      }
      auto [ceilingMs, ceilingConfig] = trafficCeilings[key];
      std::printf("%-56s %-22s %5ldx%-5ld %9.4f %7.3f %7.3f | batched %9.4f "
                  "%7.3f %7.3f\n",
                  kn.name.c_str(), kn.cubin.c_str(), long(s.n), long(s.k), ms,
                  bw / copyBw, bw / copySameBw, batchedMs,
                  batchedBw / copyBatchedBw, batchedBw / copySameBatchedBw);
      json << (timed++ ? ",\n" : "") << "    {\"kernel\": \"" << kn.name
           << "\", \"cubin\": \"" << kn.cubin << "\", \"scheme\": \""
           << kn.scheme << "\", \"act\": \"" << kn.act
           << "\", \"kernel_kind\": \"" << kn.kernel << "\", \"decode\": \""
           << kn.decode << "\", \"n\": " << s.n << ", \"k\": " << s.k
           << ", \"bytes\": " << sets[0]->bytesMoved()
           << ", \"median_ms\": " << ms << ", \"bandwidth_bytes_per_s\": " << bw
           << ", \"dequant_bw_over_copy\": " << bw / copyBw
           << ", \"copy_same_bytes_ms\": " << copySameMs
           << ", \"dequant_bw_over_copy_same_bytes\": " << bw / copySameBw
           << ", \"median_ms_batched\": " << batchedMs
           << ", \"dequant_bw_over_copy_batched\": "
           << batchedBw / copyBatchedBw
           << ", \"copy_same_bytes_ms_batched\": " << copySameBatchedMs
           << ", \"dequant_bw_over_copy_same_bytes_batched\": "
           << batchedBw / copySameBatchedBw
           << ", \"traffic_ceiling_ms_batched\": " << ceilingMs
           << ", \"traffic_ceiling_config\": \"" << ceilingConfig
           << "\", \"traffic_ceiling_bw_over_copy_batched\": "
           << sets[0]->bytesMoved() / (ceilingMs * 1e-3) / copyBatchedBw
           << ", \"dequant_bw_over_traffic_ceiling\": " << ceilingMs / batchedMs
           << "}";
    }
  }
  json << "\n  ]\n}\n";
  std::ofstream(outPath) << json.str();
  std::printf("kernels: %zu, cases: %ld, bitwise_identical: %s (%.1f s)\n",
              kernels.size(), long(cases), allIdentical ? "true" : "false",
              checkSeconds);
  return allIdentical ? 0 : 3;
}
