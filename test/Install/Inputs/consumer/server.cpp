// What an inference server does with a bundle: include the generated
// header, link the launcher. Run against the recording CUDA mock
// (test/AOT/Inputs/mock_cuda.cpp), every driver call prints a line. The
// AMD bundle of the same model links into the same program; only its
// argument checks run (no HIP device is called).
#include "tiny.h"
#include "tiny_amd.h"

#include <cstdint>
#include <cstdio>

namespace {
// Fake device addresses, aligned as _run asks; the mock never reads them.
void *at(uintptr_t offset) {
  return reinterpret_cast<void *>(uintptr_t(0x10000000) + offset);
}
} // namespace

int main() {
  const char *target = nullptr;
  int fromPtx = -1;
  qmat_status status = tiny_selected_binary(9, 0, &target, &fromPtx);
  std::printf("9.0: %d %s %s\n", int(status), target,
              fromPtx ? "ptx" : "cubin");
  status = tiny_selected_binary(8, 6, &target, &fromPtx);
  std::printf("8.6: %d %s\n", int(status), tiny_last_error());
  // --gemv-max-m=4 (the bundle's OPTIONS): M = 5 is past the GEMV.
  std::printf("workspace m<=4: %zu, m<=5: %zu\n",
              tiny_blocks_0_up_workspace_size(4),
              tiny_blocks_0_up_workspace_size(5));
  status =
      tiny_blocks_0_up_run(nullptr, 0, at(0x3000), at(0), at(0x1000), nullptr,
                           nullptr, nullptr, at(0x2000), nullptr, 0);
  std::printf("m = 0: %d %s\n", int(status), tiny_last_error());
  status = tiny_blocks_0_up_run(reinterpret_cast<CUstream>(at(0x7000)), 1,
                                at(0x3000), at(0), at(0x1000), nullptr, nullptr,
                                nullptr, at(0x2000), nullptr, 0);
  std::printf("m = 1: %d\n", int(status));
  std::printf("amd workspace m<=8: %zu, m<=9: %zu\n",
              tiny_amd_blocks_0_up_workspace_size(8),
              tiny_amd_blocks_0_up_workspace_size(9));
  status = tiny_amd_blocks_0_up_run(nullptr, -1, at(0x3000), at(0), at(0x1000),
                                    nullptr, nullptr, nullptr, at(0x2000),
                                    nullptr, 0);
  std::printf("amd m = -1: %d %s\n", int(status), tiny_amd_last_error());
  return 0;
}
