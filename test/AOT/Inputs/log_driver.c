/* One call on each path of the layer (the GEMV at m = 1, twice; the fused
 * GEMM at m = 16; the dequantize + GEMM at m = 256, twice), then calls with
 * one operand at an address no allocation holds. Run under QMAT_LOG and
 * MOCK_PRINT_HANDLES, its output shows what is logged and when cuBLASLt is
 * initialized. */
#define _POSIX_C_SOURCE 200112L
#include "lg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void run(int64_t m) {
  qmat_status status = lg_layer_run((CUstream)AT(0x7000000), m, AT(0x3000000), AT(0),
                                    AT(0x1000000), NULL, NULL, NULL, AT(0x2000000),
                                    AT(0x4000000), lg_layer_workspace_size(256));
  printf("m = %d: %d %s\n", (int)m, (int)status, status ? lg_last_error() : "ok");
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0); /* in order with the log on stderr */
  run(1);
  run(1);
  run(16);
  run(256);
  run(256);
  /* The activations in pageable host memory, on each path. */
  setenv("MOCK_HOST_POINTER", "0x13000000", 1);
  run(1);
  run(16);
  run(256);
  /* The workspace too, which only the dequantize + GEMM path reads. */
  setenv("MOCK_HOST_POINTER", "0x14000000", 1);
  run(1);
  run(256);
  return 0;
}
