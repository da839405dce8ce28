// A recording stand-in for the CUDA driver and cuBLASLt, so that a generated
// launcher runs on a machine without a GPU: every launch and GEMM is printed
// (one line each) for FileCheck, and nothing is executed.
#include "mock_base.h"

#include <cublasLt.h>
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {
int fakeContext;
int fakeModule;
int fakeFunction;
int fakeHandle;
int64_t deviceMajor() {
  const char *cc = std::getenv("MOCK_CC");
  return cc ? std::atoi(cc) / 10 : 9;
}
int64_t deviceMinor() {
  const char *cc = std::getenv("MOCK_CC");
  return cc ? std::atoi(cc) % 10 : 0;
}
// The length of an ELF64 image: the furthest byte any header, section or
// segment names.
size_t elfImageSize(const unsigned char *bytes) {
  auto field = [&](size_t offset, size_t size) {
    uint64_t value = 0;
    std::memcpy(&value, bytes + offset, size);
    return value;
  };
  uint64_t phoff = field(32, 8), shoff = field(40, 8);
  uint64_t phentsize = field(54, 2), phnum = field(56, 2);
  uint64_t shentsize = field(58, 2), shnum = field(60, 2);
  uint64_t end = std::max({uint64_t(64), phoff + phnum * phentsize, shoff + shnum * shentsize});
  for (uint64_t i = 0; i < shnum; ++i) {
    size_t header = shoff + i * shentsize;
    if (field(header + 4, 4) != 8) // SHT_NOBITS occupies no bytes
      end = std::max(end, field(header + 24, 8) + field(header + 32, 8));
  }
  for (uint64_t i = 0; i < phnum; ++i) {
    size_t header = phoff + i * phentsize;
    end = std::max(end, field(header + 8, 8) + field(header + 32, 8));
  }
  return end;
}
// MOCK_DUMP_IMAGE=path: each loaded image is written there, so that a test
// compares the bytes the launcher embeds with the binary qmat-aot wrote.
void dumpImage(const void *image, size_t size) {
  const char *path = std::getenv("MOCK_DUMP_IMAGE");
  if (!path)
    return;
  if (FILE *file = std::fopen(path, "wb")) {
    std::fwrite(image, 1, size, file);
    std::fclose(file);
  }
}
} // namespace

extern "C" {

CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_ERROR_LAUNCH_FAILED ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult, const char **text) {
  *text = "mock failure";
  return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx(CUstream, CUcontext *context) {
  *context = reinterpret_cast<CUcontext>(&fakeContext);
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *context) {
  // MOCK_NO_CONTEXT: a thread on which no context is current.
  *context = std::getenv("MOCK_NO_CONTEXT") ? nullptr : reinterpret_cast<CUcontext>(&fakeContext);
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxPopCurrent(CUcontext *context) {
  *context = reinterpret_cast<CUcontext>(&fakeContext);
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice *device) {
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice) {
  if (attribute == CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS) {
    *value = std::getenv("MOCK_PAGEABLE") ? 1 : 0; // a Grace Hopper-like system
    return CUDA_SUCCESS;
  }
  if (attribute == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) {
    const char *sms = std::getenv("MOCK_SMS");
    *value = sms ? std::atoi(sms) : 132; // an H100/H200
    return CUDA_SUCCESS;
  }
  *value = attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? int(deviceMajor())
                                                                      : int(deviceMinor());
  return CUDA_SUCCESS;
}
// MOCK_HOST_POINTER=<address>: that address is held by no allocation (as
// pageable host memory is); every other one is device memory.
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr pointer) {
  const char *host = std::getenv("MOCK_HOST_POINTER");
  if (host && std::strtoull(host, nullptr, 0) == pointer)
    return CUDA_ERROR_INVALID_VALUE;
  if (attribute == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
    *static_cast<unsigned *>(data) = CU_MEMORYTYPE_DEVICE;
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  // An ELF image starts with 0x7f 'E' 'L' 'F'; PTX is text. Each is followed
  // by the architecture it was built for: a cubin's from its ELF header
  // (e_flags bits 8-15 from ELF ABI version 8 on, bits 0-7 before; no `a`
  // suffix, which the header does not tell), PTX's from its .target line.
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  if (bytes[0] == 0x7f && bytes[1] == 'E') {
    uint32_t flags;
    std::memcpy(&flags, bytes + 48, sizeof flags);
    unsigned sm = bytes[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
    std::printf("load cubin sm_%u\n", sm);
    dumpImage(image, elfImageSize(bytes));
  } else {
    const char *text = static_cast<const char *>(image);
    const char *target = std::strstr(text, "\n.target ");
    int length = target ? int(std::strcspn(target + 9, " \n,")) : 0;
    std::printf("load ptx %.*s\n", length, target ? target + 9 : "");
    dumpImage(image, std::strlen(text));
  }
  *module = reinterpret_cast<CUmodule>(&fakeModule);
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule) {
  std::printf("unload\n");
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule, const char *name) {
  std::printf("function %s\n", name);
  *function = reinterpret_cast<CUfunction>(&fakeFunction);
  return CUDA_SUCCESS;
}
// 36 resident warps per SM (the nvfp4 GEMV's occupancy on an H200), or
// MOCK_RESIDENT_WARPS; MOCK_FAIL_OCCUPANCY fails the query.
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction, int blockSize,
                                                     size_t) {
  if (std::getenv("MOCK_FAIL_OCCUPANCY"))
    return CUDA_ERROR_INVALID_VALUE;
  const char *warps = std::getenv("MOCK_RESIDENT_WARPS");
  int resident = warps ? std::atoi(warps) : 36;
  *blocks = resident * 32 / blockSize;
  return CUDA_SUCCESS;
}
// MOCK_FAIL_ATTRIBUTE fails it.
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute attribute, int value) {
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    std::printf("attribute max_dynamic_shared_bytes=%d\n", value);
  if (std::getenv("MOCK_FAIL_ATTRIBUTE"))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *base,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *steps, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion,
    CUtensorMapFloatOOBfill fill) {
  const char *typeName = type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16  ? "bf16"
                         : type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 ? "f16"
                                                                   : "other";
  int64_t offset =
      int64_t(reinterpret_cast<uintptr_t>(base)) - int64_t(mockBase());
  std::printf("tensor map %s rank=%u base=+%lld dims=(%llu,%llu) "
              "row_bytes=%llu box=(%u,%u) "
              "steps=(%u,%u)%s%s%s\n",
              typeName, rank, static_cast<long long>(offset),
              static_cast<unsigned long long>(dims[0]),
              static_cast<unsigned long long>(dims[1]),
              static_cast<unsigned long long>(strides[0]), box[0], box[1],
              steps[0], steps[1],
              interleave == CU_TENSOR_MAP_INTERLEAVE_NONE ? "" : " interleaved",
              swizzle == CU_TENSOR_MAP_SWIZZLE_128B ? " swizzle=128B" : "",
              fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE ? " oob=zeros"
                                                        : " oob=nan");
  if (std::getenv("MOCK_FAIL_TENSOR_MAP"))
    return CUDA_ERROR_INVALID_VALUE;
  // The map's first bytes carry the base, for the launch to print.
  std::memset(map, 0, sizeof *map);
  std::memcpy(map, &offset, sizeof offset);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream, void **params,
                        void **) {
  // The first memref descriptor (weights for a dequantization, A for a
  // GEMV): its aligned pointer and rows; the dynamic workgroup memory where
  // there is some.
  int64_t view = *static_cast<int64_t *>(params[1]);
  int64_t rows = *static_cast<int64_t *>(params[3]);
  std::printf("launch grid=(%u,%u,%u) block=(%u,%u,%u) view0=+%lld rows=%lld", gx, gy, gz, bx,
              by, bz, static_cast<long long>(view - int64_t(mockBase())),
              static_cast<long long>(rows));
  if (shared)
    std::printf(" shared=%u", shared);
  // MOCK_TENSOR_MAP_PARAM=i: parameter i is a tensor map (its base).
  if (const char *index = std::getenv("MOCK_TENSOR_MAP_PARAM")) {
    int64_t mapBase = 0;
    std::memcpy(&mapBase, params[std::atoi(index)], sizeof mapBase);
    std::printf(" map=+%lld", static_cast<long long>(mapBase));
  }
  std::printf("\n");
  if (std::getenv("MOCK_FAIL_LAUNCH"))
    return CUDA_ERROR_LAUNCH_FAILED;
  return CUDA_SUCCESS;
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  if (std::getenv("MOCK_PRINT_HANDLES"))
    std::printf("cublasLtCreate\n");
  *handle = reinterpret_cast<cublasLtHandle_t>(&fakeHandle);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t) { return CUBLAS_STATUS_SUCCESS; }

struct MockLayout {
  uint64_t rows, cols;
  int64_t ld;
};
struct MockDesc {
  bool bias = false;
  const void *biasPointer = nullptr;
};

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc, cublasComputeType_t,
                                        cudaDataType_t) {
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(new MockDesc());
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete reinterpret_cast<MockDesc *>(desc);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t) {
  auto *d = reinterpret_cast<MockDesc *>(desc);
  if (attr == CUBLASLT_MATMUL_DESC_EPILOGUE)
    d->bias = *static_cast<const cublasLtEpilogue_t *>(buf) == CUBLASLT_EPILOGUE_BIAS;
  if (attr == CUBLASLT_MATMUL_DESC_BIAS_POINTER)
    std::memcpy(&d->biasPointer, buf, sizeof(void *));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(new MockLayout{rows, cols, ld});
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete reinterpret_cast<MockLayout *>(layout);
  return CUBLAS_STATUS_SUCCESS;
}
/// The minimum alignments the launcher asks for (A, B, C, D), in bytes.
struct MockPreference {
  uint32_t alignment[4] = {0, 0, 0, 0};
};
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
  *pref = reinterpret_cast<cublasLtMatmulPreference_t>(new MockPreference);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  delete reinterpret_cast<MockPreference *>(pref);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t size) {
  auto *p = reinterpret_cast<MockPreference *>(pref);
  const cublasLtMatmulPreferenceAttributes_t alignments[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4; ++i)
    if (attr == alignments[i] && size == sizeof(uint32_t))
      std::memcpy(&p->alignment[i], buf, sizeof(uint32_t));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t, cublasLtMatmulDesc_t,
                                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                              cublasLtMatmulPreference_t pref, int,
                                              cublasLtMatmulHeuristicResult_t *, int *found) {
  // MOCK_PRINT_ALIGNMENT: each heuristic query with the alignments it was given.
  if (std::getenv("MOCK_PRINT_ALIGNMENT")) {
    const uint32_t *a = reinterpret_cast<MockPreference *>(pref)->alignment;
    std::printf("heuristic alignment A=%u B=%u C=%u D=%u\n", a[0], a[1], a[2], a[3]);
  }
  *found = 1;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t desc, const void *,
                              const void *, cublasLtMatrixLayout_t aLayout, const void *,
                              cublasLtMatrixLayout_t bLayout, const void *, const void *c,
                              cublasLtMatrixLayout_t cLayout, void *, cublasLtMatrixLayout_t,
                              const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t) {
  auto *d = reinterpret_cast<MockDesc *>(desc);
  auto *a = reinterpret_cast<MockLayout *>(aLayout);
  auto *b = reinterpret_cast<MockLayout *>(bLayout);
  auto *y = reinterpret_cast<MockLayout *>(cLayout);
  std::printf("gemm W=%llux%llu(ld %lld) A=%llux%llu(ld %lld) Y=%llux%llu(ld %lld) y=+%lld bias=%s\n",
              (unsigned long long)a->rows, (unsigned long long)a->cols, (long long)a->ld,
              (unsigned long long)b->rows, (unsigned long long)b->cols, (long long)b->ld,
              (unsigned long long)y->rows, (unsigned long long)y->cols, (long long)y->ld,
              (long long)(reinterpret_cast<uintptr_t>(c) - mockBase()),
              d->bias ? "+" : "none");
  if (d->bias)
    std::printf("  bias=+%lld\n", (long long)(reinterpret_cast<uintptr_t>(d->biasPointer) - mockBase()));
  return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"
