/* Misaligned scale pointers on both paths of each layer of
 * launcher-scale-alignment.mlir, against the recording mock. */
#include "salign.h"

#include <stdint.h>
#include <stdio.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void report(const char *what, qmat_status status) {
  printf("%s: %d %s\n", what, (int)status, status ? salign_last_error() : "ok");
}

int main(void) {
  void *a = AT(0x3000000), *w = AT(0), *y = AT(0x2000000), *ws = AT(0x5000000);
  const float *global = (const float *)AT(0x6000000);
  CUstream stream = (CUstream)AT(0x7000000);
  report("fp8 prefill scales+2",
         salign_fp8_run(stream, 64, a, w, AT(0x1000002), NULL, NULL, NULL, y, ws, salign_fp8_workspace_size(64)));
  report("fp8 gemv scales+2", salign_fp8_run(stream, 1, a, w, AT(0x1000002), NULL, NULL, NULL, y, NULL, 0));
  report("int4 prefill scales+1",
         salign_int4_run(stream, 64, a, w, AT(0x1000001), NULL, NULL, NULL, y, ws, salign_int4_workspace_size(64)));
  report("int4 gemv scales+1", salign_int4_run(stream, 1, a, w, AT(0x1000001), NULL, NULL, NULL, y, NULL, 0));
  report("nvfp4 gemv scales+1", salign_nvfp4_run(stream, 1, a, w, AT(0x1000001), global, NULL, NULL, y, NULL, 0));
  report("int4 block 16 gemv scales+2",
         salign_int4_b16_run(stream, 1, a, w, AT(0x1000002), NULL, NULL, NULL, y, NULL, 0));
  report("dot gemv scales+1", salign_dot_run(stream, 1, a, w, AT(0x1000001), global, NULL, NULL, y, NULL, 0));
  report("dot gemv a+8", salign_dot_run(stream, 1, AT(0x3000008), w, AT(0x1000000), global, NULL, NULL, y, NULL, 0));
  report("mxfp4 gemv scales+1", salign_mxfp4_run(stream, 1, a, w, AT(0x1000001), NULL, NULL, NULL, y, NULL, 0));
  return 0;
}
