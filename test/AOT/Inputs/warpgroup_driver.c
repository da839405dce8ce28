/* The `wg` bundle's layer (N = 128, K = 256) on the mock driver: one call
 * on the GEMV (m = 1), one on a warp-form fused variant and one on the
 * warpgroup variant (64, 4, 1, 1, 4 stages), each fused variant pinned by
 * the fused override, at m = 16. The mock prints the load's opt-in to
 * dynamic workgroup memory and each launch's dynamic bytes. */
#include "wg.h"

#include <stdint.h>
#include <stdio.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void run(const char *what, int64_t m) {
  qmat_status status = wg_layer_run(
      (CUstream)AT(0x7000000), m, AT(0x3000000), AT(0), AT(0x1000000),
      (const float *)AT(0x5000000), NULL, NULL, AT(0x2000000), NULL, 0);
  printf("%s: %d %s\n", what, (int)status, status ? wg_last_error() : "ok");
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  run("gemv", 1);
  qmat_status status = wg_set_fused_override(16, 2, 2, 2, 2);
  printf("override warp: %d\n", (int)status);
  run("warp", 16);
  status = wg_set_fused_override(64, 4, 1, 1, 4);
  printf("override warpgroup: %d\n", (int)status);
  run("warpgroup", 16);
  return 0;
}
