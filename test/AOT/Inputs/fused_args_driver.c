/* The argument checks of the fused dequant-GEMM path (M from 9 to
 * fused_max_m) of a generated launcher, in C, against the recording mock:
 * each bad call returns its status and message without a launch. */
#define _POSIX_C_SOURCE 200112L
#include "fargs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void report(const char *what, qmat_status status) {
  printf("%s: %d %s\n", what, (int)status, status ? fargs_last_error() : "ok");
}

int main(void) {
  CUstream stream = (CUstream)AT(0x7000000);
  char *a = AT(0x3000000), *w = AT(0), *s = AT(0x1000000), *y = AT(0x2000000);
  const float *g = (const float *)AT(0x6000000);
  printf("workspace m<=128: %zu\n", fargs_gate_workspace_size(128));
  report("fused m=16", fargs_gate_run(stream, 16, a, w, s, g, NULL, NULL, y, NULL, 0));
  report("fused m=128", fargs_gate_run(stream, 128, a, w, s, g, NULL, NULL, y, NULL, 0));
  /* The default stream runs in the current context; without one the call
   * is refused. */
  report("default stream", fargs_gate_run(NULL, 16, a, w, s, g, NULL, NULL, y, NULL, 0));
  setenv("MOCK_NO_CONTEXT", "1", 1);
  report("no context", fargs_gate_run(NULL, 16, a, w, s, g, NULL, NULL, y, NULL, 0));
  unsetenv("MOCK_NO_CONTEXT");
  report("null a", fargs_gate_run(stream, 16, NULL, w, s, g, NULL, NULL, y, NULL, 0));
  report("null weights", fargs_gate_run(stream, 16, a, NULL, s, g, NULL, NULL, y, NULL, 0));
  report("null y", fargs_gate_run(stream, 16, a, w, s, g, NULL, NULL, NULL, NULL, 0));
  report("a + 8", fargs_gate_run(stream, 16, a + 8, w, s, g, NULL, NULL, y, NULL, 0));
  report("weights + 8", fargs_gate_run(stream, 16, a, w + 8, s, g, NULL, NULL, y, NULL, 0));
  report("scales + 1", fargs_gate_run(stream, 16, a, w, s + 1, g, NULL, NULL, y, NULL, 0));
  report("y + 1", fargs_gate_run(stream, 16, a, w, s, g, NULL, NULL, y + 1, NULL, 0));
  report("global_scale + 2",
         fargs_gate_run(stream, 16, a, w, s, (const float *)((const char *)g + 2), NULL, NULL, y,
                        NULL, 0));
  /* Above fused_max_m the workspace is needed again. */
  report("m=129 without workspace", fargs_gate_run(stream, 129, a, w, s, g, NULL, NULL, y, NULL, 0));
  /* A layer of 2,097,184 rows pinned to 32-row blocks: 65,537 blocks along
   * the grid's y dimension, refused before any launch. */
  report("pin 32x2x2x1", fargs_set_fused_override(32, 2, 2, 1, 2));
  report("huge grid", fargs_huge_run(stream, 16, a, w, s, g, NULL, NULL, y, NULL, 0));
  report("unpin", fargs_set_fused_override(0, 0, 0, 0, 0));
  report("huge, policy", fargs_huge_run(stream, 16, a, w, s, g, NULL, NULL, y, NULL, 0));
  return 0;
}
