// A recording stand-in for the HIP runtime (the module API the generated
// AMD launcher calls), so that it runs on a machine without a GPU: loads
// and launches are printed for FileCheck and nothing is executed.
#include "mock_base.h"

#include <hip/hip_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
int fakeModule;
int fakeFunction;
int currentDevice;
} // namespace

extern "C" {

const char *hipGetErrorName(hipError_t error) {
  return error == hipErrorLaunchFailure ? "hipErrorLaunchFailure" : "hipErrorUnknown";
}
const char *hipGetErrorString(hipError_t) { return "mock failure"; }
hipError_t hipGetDevice(int *device) {
  *device = currentDevice;
  return hipSuccess;
}
hipError_t hipSetDevice(int device) {
  currentDevice = device;
  return hipSuccess;
}
hipError_t hipGetDeviceProperties(hipDeviceProp_t *properties, int) {
  std::memset(properties, 0, sizeof *properties);
  const char *arch = std::getenv("MOCK_ARCH");
  std::snprintf(properties->gcnArchName, sizeof properties->gcnArchName, "%s:sramecc+:xnack-",
                arch ? arch : "gfx942");
  const char *cus = std::getenv("MOCK_CUS");
  properties->multiProcessorCount = cus ? std::atoi(cus) : 304; // an MI300X
  properties->warpSize = 64;
  return hipSuccess;
}
hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attribute, int) {
  if (attribute != hipDeviceAttributePageableMemoryAccess)
    return hipErrorInvalidValue;
  *value = std::getenv("MOCK_PAGEABLE") ? 1 : 0; // xnack+ with HMM
  return hipSuccess;
}
// MOCK_HOST_POINTER=<address>: that address is held by no allocation (as
// pageable host memory is); every other one is device memory.
// MOCK_FAIL_POINTER: every query fails.
hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *pointer) {
  if (std::getenv("MOCK_FAIL_POINTER"))
    return hipErrorUnknown;
  const char *host = std::getenv("MOCK_HOST_POINTER");
  if (host && std::strtoull(host, nullptr, 0) == reinterpret_cast<uintptr_t>(pointer))
    return hipErrorInvalidValue;
  std::memset(attributes, 0, sizeof *attributes);
  attributes->memoryType = hipMemoryTypeDevice;
  return hipSuccess;
}
hipError_t hipGetLastError() { return hipSuccess; }
hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  // An hsaco is an ELF of machine 224 (EM_AMDGPU).
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  bool elf = bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
  std::printf("load %s\n", elf && bytes[18] == 224 ? "hsaco" : "not an AMDGPU ELF");
  *module = reinterpret_cast<hipModule_t>(&fakeModule);
  return hipSuccess;
}
hipError_t hipModuleUnload(hipModule_t) {
  std::printf("unload\n");
  return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t, const char *name) {
  std::printf("function %s\n", name);
  *function = reinterpret_cast<hipFunction_t>(&fakeFunction);
  return hipSuccess;
}
// 8 resident wavefronts per compute unit, or MOCK_RESIDENT_WARPS;
// MOCK_FAIL_OCCUPANCY fails the query.
hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, hipFunction_t,
                                                              int blockSize, size_t) {
  if (std::getenv("MOCK_FAIL_OCCUPANCY"))
    return hipErrorInvalidValue;
  const char *waves = std::getenv("MOCK_RESIDENT_WARPS");
  int resident = waves ? std::atoi(waves) : 8;
  *blocks = resident * 64 / blockSize;
  return hipSuccess;
}
hipError_t hipModuleLaunchKernel(hipFunction_t, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned, hipStream_t,
                                 void **params, void **) {
  int64_t view = *static_cast<int64_t *>(params[1]);
  int64_t rows = *static_cast<int64_t *>(params[3]);
  std::printf("launch grid=(%u,%u,%u) block=(%u,%u,%u) view0=+%lld rows=%lld\n", gx, gy, gz, bx,
              by, bz, static_cast<long long>(view - int64_t(mockBase())),
              static_cast<long long>(rows));
  if (std::getenv("MOCK_FAIL_LAUNCH"))
    return hipErrorLaunchFailure;
  return hipSuccess;
}

} // extern "C"
