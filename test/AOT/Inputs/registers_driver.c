/* The `wr` bundle's layer (N = 192, K = 256) on the mock driver: its
 * specialized variant 128 x 1 with the decoded weights in registers,
 * pinned by the registers override, one call at m = 100; then the plain
 * override of the same numbers, which names the sibling with the weights
 * in workgroup memory; a registers tiling not compiled is refused naming
 * it. The mock prints the tensor map the launcher encodes for A and the
 * launch. */
#include "wr.h"

#include <stdint.h>
#include <stdio.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void run(const char *what) {
  qmat_status status = wr_layer_run((CUstream)AT(0x7000000), 100, AT(0x3000000), AT(0),
                                    AT(0x1000000), (const float *)AT(0x5000000), NULL,
                                    NULL, AT(0x2000000), NULL, 0);
  printf("%s: %d %s\n", what, (int)status, status ? wr_last_error() : "ok");
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  qmat_status status = wr_set_fused_override_registers(128, 1);
  printf("override registers: %d\n", (int)status);
  run("registers");
  status = wr_set_fused_override(128, 4, 1, 1, 4);
  printf("override specialized: %d\n", (int)status);
  run("specialized");
  status = wr_set_fused_override_registers(64, 1);
  printf("override registers 64: %d %s\n", (int)status, wr_last_error());
  return 0;
}
