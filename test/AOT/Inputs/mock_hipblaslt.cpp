// A recording stand-in for libhipblaslt.so, declared from hipBLASLt's public
// C API independently of the launcher: the launcher dlopens it, and every
// value it passes (types, operations, epilogue, layouts) is printed.
#include "mock_base.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
struct Layout {
  int type;
  uint64_t rows, cols;
  int64_t ld;
};
struct Desc {
  int compute, scale;
  int32_t transA = 111, transB = 111;
  uint32_t epilogue = 1;
  const void *bias = nullptr;
};
int fakeHandle;
} // namespace

extern "C" {

int hipblasLtCreate(void **handle) {
  *handle = &fakeHandle;
  std::printf("hipblasLtCreate\n");
  return 0;
}
int hipblasLtDestroy(void *) { return 0; }
int hipblasLtMatmulDescCreate(void **desc, int compute, int scale) {
  *desc = new Desc{compute, scale};
  return 0;
}
int hipblasLtMatmulDescDestroy(void *desc) {
  delete static_cast<Desc *>(desc);
  return 0;
}
int hipblasLtMatmulDescSetAttribute(void *desc, int attribute, const void *buf, size_t size) {
  auto *d = static_cast<Desc *>(desc);
  // TRANSA = 0, TRANSB = 1 (int32_t), EPILOGUE = 2 (uint32_t), BIAS_POINTER = 3.
  if ((attribute <= 2 && size != 4) || (attribute == 3 && size != sizeof(void *)))
    return 7; // HIPBLAS_STATUS_INVALID_VALUE
  if (attribute == 0) std::memcpy(&d->transA, buf, 4);
  if (attribute == 1) std::memcpy(&d->transB, buf, 4);
  if (attribute == 2) std::memcpy(&d->epilogue, buf, 4);
  if (attribute == 3) std::memcpy(&d->bias, buf, sizeof(void *));
  return 0;
}
int hipblasLtMatrixLayoutCreate(void **layout, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  *layout = new Layout{type, rows, cols, ld};
  return 0;
}
int hipblasLtMatrixLayoutDestroy(void *layout) {
  delete static_cast<Layout *>(layout);
  return 0;
}
int hipblasLtMatmulPreferenceCreate(void **pref) {
  *pref = new uint64_t(0);
  return 0;
}
int hipblasLtMatmulPreferenceDestroy(void *pref) {
  delete static_cast<uint64_t *>(pref);
  return 0;
}
int hipblasLtMatmulPreferenceSetAttribute(void *pref, int attribute, const void *buf, size_t size) {
  if (attribute == 1 && size == 8) // MAX_WORKSPACE_BYTES, uint64_t
    std::memcpy(pref, buf, 8);
  return 0;
}
int hipblasLtMatmulAlgoGetHeuristic(void *, void *, void *, void *, void *, void *, void *pref,
                                    int requested, void *results, int *found) {
  std::printf("heuristic requested=%d max_workspace=%llu\n", requested,
              (unsigned long long)*static_cast<uint64_t *>(pref));
  // hipblasLtMatmulHeuristicResult_t: 16 + 8 bytes of algo, workspaceSize,
  // state, wavesCount, reserved[4].
  std::memset(results, 0, 64);
  *found = std::getenv("MOCK_NO_ALGO") ? 0 : 1;
  return 0;
}
int hipblasLtMatmul(void *, void *desc, const void *alpha, const void *, void *aLayout,
                    const void *, void *bLayout, const void *beta, const void *c, void *cLayout,
                    void *d, void *dLayout, const void *, void *, size_t workspaceSize, void *) {
  auto *m = static_cast<Desc *>(desc);
  auto *a = static_cast<Layout *>(aLayout);
  auto *b = static_cast<Layout *>(bLayout);
  auto *y = static_cast<Layout *>(dLayout);
  std::printf("gemm compute=%d scale=%d op=%d,%d type=%d W=%llux%llu(ld %lld) A=%llux%llu(ld %lld) "
              "Y=%llux%llu(ld %lld) y=+%lld alpha=%g beta=%g ws=%zu bias=%s\n",
              m->compute, m->scale, m->transA, m->transB, a->type, (unsigned long long)a->rows,
              (unsigned long long)a->cols, (long long)a->ld, (unsigned long long)b->rows,
              (unsigned long long)b->cols, (long long)b->ld, (unsigned long long)y->rows,
              (unsigned long long)y->cols, (long long)y->ld,
              (long long)(reinterpret_cast<uintptr_t>(d) - mockBase()),
              *static_cast<const float *>(alpha), *static_cast<const float *>(beta),
              workspaceSize, m->epilogue == 4 ? "+" : "none");
  if (m->epilogue == 4)
    std::printf("  bias=+%lld\n", (long long)(reinterpret_cast<uintptr_t>(m->bias) - mockBase()));
  (void)c;
  (void)cLayout;
  return std::getenv("MOCK_FAIL_GEMM") ? 13 : 0; // HIPBLAS_STATUS_EXECUTION_FAILED-like
}

} // extern "C"
