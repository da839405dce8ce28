//===- device_weight.h - A quantized weight on the GPU ---------*- C++ -*-===//
//
// The GEMV harnesses' copy of a layer's codes, scales and zero points on
// the device, several times over so that timing can rotate through copies
// larger than L2.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_BENCH_COMMON_DEVICE_WEIGHT_H
#define QMAT_BENCH_COMMON_DEVICE_WEIGHT_H

#include "bench.h"
#include "harness.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bench {

/// <prefix>_<layer>_prepare_weights: the codes in the layout the layer's
/// kernels read (a copy, or the prepared layout).
using PrepareFn = qmat_status (*)(const void *, void *);

/// A quantized weight on the device, `copies` times (timing rotates through
/// them so that L2 never holds the one being read), its codes written by
/// the layer's `prepare` first where one is given.
struct DeviceWeight {
  std::vector<void *> codes, scales, zeroPoints;
  float *global = nullptr;
  size_t codeBytes = 0, scaleBytes = 0, zeroPointBytes = 0;

  DeviceWeight(const QuantizedWeight &w, int copies,
               PrepareFn prepare = nullptr) {
    codeBytes = w.codes.size();
    std::vector<uint8_t> prepared;
    const void *codeSrc = w.codes.data();
    if (prepare) {
      prepared.resize(codeBytes);
      if (prepare(w.codes.data(), prepared.data()) != QMAT_OK) {
        std::fprintf(stderr, "prepare_weights failed\n");
        std::exit(1);
      }
      codeSrc = prepared.data();
    }
    const void *scaleSrc =
        w.scheme == Scheme::FP8    ? (const void *)w.scaleF32.data()
        : w.scheme == Scheme::INT4 ? (const void *)w.scaleAct.data()
                                   : (const void *)w.scaleBytes.data();
    scaleBytes = w.scheme == Scheme::FP8    ? w.scaleF32.size() * 4
                 : w.scheme == Scheme::INT4 ? w.scaleAct.size() * 2
                                            : w.scaleBytes.size();
    zeroPointBytes = w.zeroPoints.size();
    for (int c = 0; c < copies; ++c) {
      codes.push_back(copy(codeSrc, codeBytes));
      scales.push_back(copy(scaleSrc, scaleBytes));
      zeroPoints.push_back(
          zeroPointBytes ? copy(w.zeroPoints.data(), zeroPointBytes) : nullptr);
    }
    if (w.scheme == Scheme::NVFP4)
      global = upload(std::vector<float>{w.globalScale});
  }
  static void *copy(const void *src, size_t bytes) {
    void *p;
    CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 256)));
    CUDA_CHECK(cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice));
    return p;
  }
  ~DeviceWeight() {
    for (size_t c = 0; c < codes.size(); ++c) {
      cudaFree(codes[c]);
      cudaFree(scales[c]);
      if (zeroPoints[c])
        cudaFree(zeroPoints[c]);
    }
    if (global)
      cudaFree(global);
  }
};

} // namespace bench

#endif // QMAT_BENCH_COMMON_DEVICE_WEIGHT_H
