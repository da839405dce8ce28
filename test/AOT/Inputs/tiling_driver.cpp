// Runs the `tiling` bundle's layer once against the recording mock: the
// printed launches and GEMMs are the tile loop.
#include "tiling.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

int main() {
  const uintptr_t base = 0x10000000;
  setenv("MOCK_BASE", "0x10000000", 1);
  setenv("MOCK_PRINT_ALIGNMENT", "1", 1);
  auto at = [&](uintptr_t offset) { return reinterpret_cast<void *>(base + offset); };
  size_t need = tiling_down_proj_workspace_size(16);
  std::printf("workspace %zu\n", need);
  qmat_status status = tiling_down_proj_run(
      reinterpret_cast<CUstream>(at(0x7000000)), 16, at(0x3000000), at(0), at(0x1000000),
      nullptr, nullptr, at(0x4000000), at(0x2000000), at(0x5000000), need);
  std::printf("status %d %s\n", int(status), status ? tiling_last_error() : "");
  // A second call reuses the loaded module (lazy, once per context).
  status = tiling_down_proj_run(reinterpret_cast<CUstream>(at(0x7000000)), 1, at(0x3000000),
                                at(0), at(0x1000000), nullptr, nullptr, at(0x4000000),
                                at(0x2000000), at(0x5000000), need);
  std::printf("status %d\n", int(status));
  // A and Y 2-byte aligned (valid: the elements are 2 bytes): the heuristic
  // is asked for algorithms that take that, and keeps them apart.
  status = tiling_down_proj_run(reinterpret_cast<CUstream>(at(0x7000000)), 16, at(0x3000002),
                                at(0), at(0x1000000), nullptr, nullptr, at(0x4000000),
                                at(0x2000002), at(0x5000000), need);
  std::printf("status %d\n", int(status));
  std::printf("unload %d\n", int(tiling_unload()));
  return 0;
}
