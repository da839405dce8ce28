/* The `ks` bundle's layer (N = 128, K = 256) on the mock driver: its
 * variant whose K is split across 2 blocks of a cluster (16, 1, 1, 2, 2
 * stages, 2 slices) pinned by the sliced override, one call at m = 40; the
 * unsliced override of the same tiling is another variant, which this
 * bundle does not hold. */
#include "ks.h"

#include <stdint.h>
#include <stdio.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  qmat_status status = ks_set_fused_override_sliced(16, 1, 1, 2, 2, 2);
  printf("override sliced: %d\n", (int)status);
  status = ks_layer_run((CUstream)AT(0x7000000), 40, AT(0x3000000), AT(0),
                        AT(0x1000000), (const float *)AT(0x5000000), NULL, NULL,
                        AT(0x2000000), NULL, 0);
  printf("sliced: %d %s\n", (int)status, status ? ks_last_error() : "ok");
  status = ks_set_fused_override(16, 1, 1, 2, 2);
  printf("override unsliced: %d %s\n", (int)status,
         status ? ks_last_error() : "ok");
  return 0;
}
