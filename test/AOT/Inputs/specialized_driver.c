/* The `ws` bundle's layer (N = 128, K = 256) on the mock driver: its
 * specialized variant (64, 4, 1, 1, 4 stages) pinned by the fused override,
 * one call at m = 100. The mock prints the tensor map the launcher encodes
 * for A and the launch, with the map it received after the other
 * parameters. */
#include "ws.h"

#include <stdint.h>
#include <stdio.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  qmat_status status = ws_set_fused_override(64, 4, 1, 1, 4);
  printf("override specialized: %d\n", (int)status);
  status = ws_layer_run((CUstream)AT(0x7000000), 100, AT(0x3000000), AT(0),
                        AT(0x1000000), (const float *)AT(0x5000000), NULL, NULL,
                        AT(0x2000000), NULL, 0);
  printf("specialized: %d %s\n", (int)status, status ? ws_last_error() : "ok");
  return 0;
}
