//===- row_access.cu - Read rate of the decode GEMV's code access shapes --===//
//
// Reads an lm_head-sized code matrix (248320 rows x 2560 bytes, nvfp4 at
// K = 5120) and nothing else, in the shapes a warp's load instruction can
// take in the tensor-core GEMV:
// - rows64: 8 rows x 64 bytes per instruction (the m16n8k16 A fragment: a
//   row's K chunk spread over the 4 lanes of its group), 16 rows per warp;
// - rows128: 4 rows x 128 bytes per instruction (lanes g and g + 4 of a
//   column group take the two halves of one row's line), 8 rows per warp;
// - linear: 512 consecutive bytes per instruction.
// All three read every byte once with `ld.global.L1::no_allocate.L2::128B`,
// warps of a block split K in two (as the GEMV's split-K 2), on copies
// rotated past L2. It answers whether the GEMV's two-sector row requests
// cost L2 throughput that whole-line requests would not.
//
// Usage: row_access OUT.json
//
//===----------------------------------------------------------------------===//

#include "../common/harness.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

constexpr int64_t kRows = 248320;
constexpr int64_t kRowBytes = 2560;
constexpr int kCopies = 3;

__device__ uint4 streamingLoad(const uint8_t *p) {
  uint4 v;
  asm volatile("ld.global.L1::no_allocate.L2::128B.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ void keep(unsigned acc, unsigned *sink) {
  if (acc == 0x9E3779B9u)
    *sink = acc;
}

/// Warp w of a block: tile (blockIdx.x * 2 + w / 2), K half w % 2. Lane
/// (g, t) reads 16 bytes at 16 t of each step of rows g and g + 8 (rows64:
/// 16-row tiles, 64-byte steps), or of rows g % 4 and 4 + g % 4 at
/// 64 (g / 4) + 16 t (rows128: 8-row tiles, 128-byte steps).
template <bool kWholeLines>
__global__ void rowLoads(const uint8_t *codes, unsigned *sink) {
  constexpr int64_t kTileRows = kWholeLines ? 8 : 16;
  constexpr int64_t kStepBytes = kWholeLines ? 128 : 64;
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int g = lane / 4, t = lane % 4;
  int64_t tile = int64_t(blockIdx.x) * 2 + warp / 2;
  int64_t row = kWholeLines ? g % 4 : g;
  int64_t half = kWholeLines ? 64 * (g / 4) : 0;
  const uint8_t *first = codes + (tile * kTileRows + row) * kRowBytes +
                         (warp % 2) * (kRowBytes / 2) + half + 16 * t;
  const uint8_t *second = first + kTileRows / 2 * kRowBytes;
  unsigned acc = 0;
  for (int step = 0; step < kRowBytes / 2 / kStepBytes; ++step) {
    uint4 a = streamingLoad(first + kStepBytes * step);
    uint4 b = streamingLoad(second + kStepBytes * step);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w;
  }
  keep(acc, sink);
}

/// The same bytes and loads per warp as rows64, as 512-byte runs.
__global__ void linear(const uint8_t *codes, unsigned *sink) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int64_t slab = int64_t(blockIdx.x) * 4 + warp; // 16 x 1280 bytes each
  const uint8_t *base = codes + slab * 16 * (kRowBytes / 2) + 16 * lane;
  unsigned acc = 0;
  for (int step = 0; step < 16 * (kRowBytes / 2) / 1024; ++step) {
    uint4 a = streamingLoad(base + 1024 * step);
    uint4 b = streamingLoad(base + 1024 * step + 512);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w;
  }
  keep(acc, sink);
}

} // namespace

int main(int argc, char **argv) {
  using namespace bench;
  if (argc != 2) {
    std::fprintf(stderr, "usage: row_access OUT.json\n");
    return 1;
  }
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  size_t bytes = size_t(kRows) * kRowBytes;
  uint8_t *copies[kCopies];
  for (auto &c : copies) {
    CUDA_CHECK(cudaMalloc(&c, bytes));
    CUDA_CHECK(cudaMemset(c, 0x5A, bytes));
  }
  unsigned *sink;
  CUDA_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  double copy = copyBytesPerSecond(stream);

  struct Shape {
    const char *name;
    void (*kernel)(const uint8_t *, unsigned *);
    int64_t blocks;
  } shapes[] = {{"rows64", rowLoads<false>, kRows / 32},
                {"rows128", rowLoads<true>, kRows / 16},
                {"linear", linear, kRows / 32}};
  // Interleaved rounds: each shape's median per round, then the median of
  // rounds, so that clock drift falls on all three alike.
  constexpr int kRounds = 5;
  std::vector<double> ms[3];
  for (int round = 0; round < kRounds; ++round)
    for (int s = 0; s < 3; ++s) {
      const Shape &shape = shapes[(s + round) % 3];
      ms[(s + round) % 3].push_back(batchedMs(stream, 2, 5, 20, [&](int i) {
        shape.kernel<<<shape.blocks, 128, 0, stream>>>(copies[i % kCopies],
                                                       sink);
      }));
      CUDA_CHECK(cudaGetLastError());
    }
  FILE *out = std::fopen(argv[1], "w");
  std::fprintf(out, "{\"bytes\": %zu, \"copy_tb_s\": %.4f", bytes,
               copy * 1e-12);
  std::printf("copy %.2f TB/s, %zu bytes read\n", copy * 1e-12, bytes);
  for (int s = 0; s < 3; ++s) {
    double m = median(ms[s]);
    double rate = bytes / (m * 1e-3);
    std::printf("%-8s %8.2f us  %.2f TB/s  %.3f x copy\n", shapes[s].name,
                m * 1e3, rate * 1e-12, rate / copy);
    std::fprintf(out,
                 ", \"%s\": {\"us\": %.3f, \"tb_s\": %.4f, \"over_copy\": "
                 "%.4f}",
                 shapes[s].name, m * 1e3, rate * 1e-12, rate / copy);
  }
  std::fprintf(out, "}\n");
  std::fclose(out);
  return 0;
}
