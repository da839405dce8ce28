// The dequantize + cuBLASLt path with 2-byte aligned activations and
// output (valid input: the elements are 2 bytes), against the same call on
// 256-byte aligned buffers: both must return QMAT_OK and agree within the
// bf16 bound. Built by bench/prefill/alignment_check.sh against a bundle of
// test/AOT/Inputs/tensor-core-layer.mlir (fp8, N = 64, K = 256, bf16) with
// no GEMV and no fused path.
#include "align.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

float bf16ToFloat(uint16_t bits) {
  uint32_t word = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &word, 4);
  return value;
}

} // namespace

int main() {
  const int64_t m = 16, n = 64, k = 256;
  std::vector<uint16_t> a(m * k);
  std::vector<uint8_t> w(n * k);
  std::vector<float> s(n * 2, 1.0f / 64);
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (auto &x : a)
    x = uint16_t(0x3C00 + (next() >> 24)); // bf16 in [0.0078, 0.0156)
  for (auto &x : w)
    x = uint8_t(next() >> 24) & 0x77; // finite e4m3
  size_t wsBytes = align_layer_workspace_size(m);
  char *aBuf, *yBuf, *wDev, *sDev, *ws;
  cudaMalloc(&aBuf, a.size() * 2 + 256);
  cudaMalloc(&yBuf, m * n * 2 + 256);
  cudaMalloc(&wDev, w.size());
  cudaMalloc(&sDev, s.size() * 4);
  cudaMalloc(&ws, wsBytes);
  cudaMemcpy(wDev, w.data(), w.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(sDev, s.data(), s.size() * 4, cudaMemcpyHostToDevice);
  std::vector<uint16_t> out[2];
  int failures = 0;
  for (int shift : {0, 2}) {
    cudaMemcpy(aBuf + shift, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
    cudaMemset(yBuf, 0xFF, m * n * 2 + 256);
    qmat_status status = align_layer_run(nullptr, m, aBuf + shift, wDev, sDev, nullptr, nullptr,
                                         nullptr, yBuf + shift, ws, wsBytes);
    cudaDeviceSynchronize();
    std::printf("a and y at +%d bytes: status %d %s\n", shift, int(status),
                status ? align_last_error() : "");
    failures += status != QMAT_OK;
    out[shift / 2].resize(m * n);
    cudaMemcpy(out[shift / 2].data(), yBuf + shift, m * n * 2, cudaMemcpyDeviceToHost);
  }
  double diff = 0, norm = 0;
  for (int64_t i = 0; i < m * n; ++i) {
    double x = bf16ToFloat(out[0][i]), y = bf16ToFloat(out[1][i]);
    diff += (x - y) * (x - y);
    norm += x * x;
  }
  double rel = std::sqrt(diff / norm);
  bool within = std::isfinite(rel) && rel <= 1e-2;
  std::printf("relative Frobenius difference %.3e %s\n", rel, within ? "ok" : "OUT OF BOUND");
  return failures || !within;
}
