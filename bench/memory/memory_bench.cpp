// Device memory of a whole-model prefill through two bundles of the example
// model (examples/qwen-like-27b-nvfp4.mlir): `qwen` (the default: fused
// dequant-GEMM up to M = 128) and `qwend` (--fused-max-m=0: every M above
// the GEMV dequantizes into the workspace for cuBLASLt). For each M, every
// linear of `layers` transformer layers (qkv, o, gate_up, down) runs on M
// rows and the lm_head on the last row, as a prefill that keeps one token's
// logits does; one workspace serves all, sized by workspace_size. The
// device memory in use (cudaMemGetInfo) is read before anything is
// allocated and after the pass; the launcher allocates nothing itself.
// Usage: memory_bench OUT.json [layers] [M,M,...]
#include "qwen.h"
#include "qwend.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

using RunFn = qmat_status (*)(CUstream, int64_t, const void *, const void *,
                              const void *, const float *, const void *,
                              const void *, void *, void *, size_t);
using WorkspaceFn = size_t (*)(int64_t);

struct Linear {
  const char *name;
  int64_t n, k;
  WorkspaceFn workspace[2];
  RunFn run[2];
};

#define QMAT_LINEAR(layer, n, k)                                               \
  Linear {                                                                     \
    #layer, n, k, {qwen_##layer##_workspace_size, qwend_##layer##_workspace_size}, \
        {qwen_##layer##_run, qwend_##layer##_run}                              \
  }

const Linear kLinears[] = {
    QMAT_LINEAR(qkv_proj, 6144, 5120), QMAT_LINEAR(o_proj, 5120, 6144),
    QMAT_LINEAR(gate_up_proj, 17408, 5120),
    QMAT_LINEAR(down_proj, 5120, 17408), QMAT_LINEAR(lm_head, 248320, 5120)};
constexpr int kLmHead = 4;
const char *kPaths[2] = {"fused", "dequant"};

#define CHECK_CUDA(x)                                                          \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

size_t usedBytes() {
  size_t freeBytes = 0, total = 0;
  CHECK_CUDA(cudaMemGetInfo(&freeBytes, &total));
  return total - freeBytes;
}

double mib(size_t bytes) { return bytes / 1048576.0; }

struct Weights {
  void *codes = nullptr, *scales = nullptr;
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: memory_bench OUT.json [layers] [M,M,...]\n");
    return 2;
  }
  int layers = argc > 2 ? std::atoi(argv[2]) : 64;
  std::vector<int64_t> ms = {16, 64, 128, 1024, 8192};
  if (argc > 3) {
    ms.clear();
    std::stringstream list(argv[3]);
    for (std::string item; std::getline(list, item, ',');)
      ms.push_back(std::atoll(item.c_str()));
  }
  CHECK_CUDA(cudaFree(nullptr));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  float *globalScale;
  CHECK_CUDA(cudaMalloc(&globalScale, sizeof(float)));
  float one = 1.0f;
  CHECK_CUDA(cudaMemcpy(globalScale, &one, sizeof one, cudaMemcpyHostToDevice));

  // One set of weights per linear of each layer, and the lm_head's. The
  // codes 0x22 (1.0, 1.0) and the scales 0x38 (e4m3 1.0): memory and launch
  // behaviour do not depend on the values.
  std::vector<std::vector<Weights>> weights(layers + 1);
  size_t weightBytes = 0;
  for (int l = 0; l <= layers; ++l)
    for (int i = 0; i < 5; ++i) {
      if ((l == layers) != (i == kLmHead)) {
        weights[l].push_back({});
        continue;
      }
      const Linear &lin = kLinears[i];
      size_t codes = size_t(lin.n) * lin.k / 2, scales = size_t(lin.n) * lin.k / 16;
      Weights w;
      CHECK_CUDA(cudaMalloc(&w.codes, codes));
      CHECK_CUDA(cudaMalloc(&w.scales, scales));
      CHECK_CUDA(cudaMemset(w.codes, 0x22, codes));
      CHECK_CUDA(cudaMemset(w.scales, 0x38, scales));
      weightBytes += codes + scales;
      weights[l].push_back(w);
    }

  std::string json = "{\"layers\": " + std::to_string(layers) +
                     ", \"weight_mib\": " + std::to_string(mib(weightBytes)) +
                     ", \"records\": [";
  bool first = true;
  for (int64_t m : ms)
    for (int path = 0; path < 2; ++path) {
      CHECK_CUDA(cudaDeviceSynchronize());
      size_t before = usedBytes();
      // Activations: the widest input and output of a linear, M rows.
      size_t actBytes = size_t(m) * 17408 * 2;
      size_t workspace = 0;
      for (int i = 0; i < 4; ++i)
        workspace = std::max(workspace, kLinears[i].workspace[path](m));
      workspace = std::max(workspace, kLinears[kLmHead].workspace[path](1));
      void *a, *y, *logits, *ws = nullptr;
      CHECK_CUDA(cudaMalloc(&a, actBytes));
      CHECK_CUDA(cudaMalloc(&y, actBytes));
      CHECK_CUDA(cudaMalloc(&logits, size_t(kLinears[kLmHead].n) * 2));
      if (workspace)
        CHECK_CUDA(cudaMalloc(&ws, workspace));
      CHECK_CUDA(cudaMemset(a, 0, actBytes));
      cudaEvent_t start, stop;
      CHECK_CUDA(cudaEventCreate(&start));
      CHECK_CUDA(cudaEventCreate(&stop));
      float ms2 = 0;
      for (int rep = 0; rep < 2; ++rep) {  // the first pass loads the modules
        CHECK_CUDA(cudaEventRecord(start, stream));
        for (int l = 0; l < layers; ++l)
          for (int i = 0; i < 4; ++i) {
            const Linear &lin = kLinears[i];
            qmat_status s = lin.run[path](stream, m, a, weights[l][i].codes,
                                          weights[l][i].scales, globalScale, nullptr,
                                          nullptr, y, ws, workspace);
            if (s != QMAT_OK) {
              std::fprintf(stderr, "%s %s m=%lld: status %d\n", kPaths[path], lin.name,
                           (long long)m, int(s));
              return 1;
            }
          }
        const Linear &head = kLinears[kLmHead];
        qmat_status s = head.run[path](
            stream, 1, static_cast<char *>(a) + size_t(m - 1) * head.k * 2,
            weights[layers][kLmHead].codes, weights[layers][kLmHead].scales, globalScale,
            nullptr, nullptr, logits, ws, workspace);
        if (s != QMAT_OK) {
          std::fprintf(stderr, "%s lm_head: status %d\n", kPaths[path], int(s));
          return 1;
        }
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaEventElapsedTime(&ms2, start, stop));
      }
      size_t during = usedBytes();
      double allocated = mib(2 * actBytes + size_t(kLinears[kLmHead].n) * 2 + workspace);
      std::printf("%-7s M=%-5lld workspace %8.1f MiB, activations %8.1f MiB, device memory "
                  "in use beyond the weights %8.1f MiB (pass %.2f ms)\n",
                  kPaths[path], (long long)m, mib(workspace), mib(2 * actBytes),
                  mib(during - before), ms2);
      json += std::string(first ? "" : ", ") + "{\"path\": \"" + kPaths[path] +
              "\", \"m\": " + std::to_string(m) +
              ", \"workspace_mib\": " + std::to_string(mib(workspace)) +
              ", \"allocated_mib\": " + std::to_string(allocated) +
              ", \"device_used_beyond_weights_mib\": " + std::to_string(mib(during - before)) +
              ", \"device_used_total_mib\": " + std::to_string(mib(during)) +
              ", \"pass_ms\": " + std::to_string(ms2) + "}";
      first = false;
      CHECK_CUDA(cudaFree(a));
      CHECK_CUDA(cudaFree(y));
      CHECK_CUDA(cudaFree(logits));
      if (ws)
        CHECK_CUDA(cudaFree(ws));
    }
  json += "]}\n";
  FILE *f = std::fopen(argv[1], "w");
  if (!f)
    return 1;
  std::fputs(json.c_str(), f);
  std::fclose(f);
  return 0;
}
