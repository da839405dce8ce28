/* The `mc` bundle's layer (N = 192, K = 256) on the mock driver: its
 * specialized variant 128 x 1 whose clusters of 2 blocks share the
 * activations, pinned by the multicast override, one call at m = 100; the
 * same tiling in clusters of 4, not compiled, is refused naming it. The
 * mock prints the tensor map the launcher encodes for A and the launch. */
#include "mc.h"

#include <stdint.h>
#include <stdio.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void run(const char *what) {
  qmat_status status = mc_layer_run((CUstream)AT(0x7000000), 100, AT(0x3000000), AT(0),
                                    AT(0x1000000), (const float *)AT(0x5000000), NULL,
                                    NULL, AT(0x2000000), NULL, 0);
  printf("%s: %d %s\n", what, (int)status, status ? mc_last_error() : "ok");
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  qmat_status status = mc_set_fused_override_multicast(128, 4, 1, 1, 4, 2);
  printf("override multicast: %d\n", (int)status);
  run("multicast");
  status = mc_set_fused_override_multicast(128, 4, 1, 1, 4, 4);
  printf("override multicast 4: %d %s\n", (int)status, mc_last_error());
  return 0;
}
