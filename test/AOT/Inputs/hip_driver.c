/* The generated HIP launcher against the recording mocks (mock_hip.cpp,
 * mock_hipblaslt.cpp), in C: argument checks, device matching, the prefill
 * tile loop with its hipBLASLt GEMM (M = 256, above the fused GEMM's range),
 * the decode GEMV, the fused dequant-GEMM, and every HIP and hipBLASLt
 * failure reported with its status and message. */
#define _POSIX_C_SOURCE 200112L
#include "hipargs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void report(const char *what, qmat_status status) {
  printf("%s: %d %s\n", what, (int)status, status ? hipargs_last_error() : "ok");
}

int main(int argc, char **argv) {
  size_t need = hipargs_gate_workspace_size(256);
  void *a = AT(0x3000000), *w = AT(0), *s = AT(0x1000000), *y = AT(0x2000000);
  void *bias = AT(0x4000000), *ws = AT(0x5000000);
  hipStream_t stream = (hipStream_t)AT(0x7000000);
  if (argc > 1 && strcmp(argv[1], "no-hipblaslt") == 0) {
    report("prefill without hipBLASLt",
           hipargs_gate_run(stream, 256, a, w, s, NULL, NULL, bias, y, ws, need));
    return 0;
  }
  printf("workspace m<=8: %zu\n", hipargs_gate_workspace_size(8));
  printf("workspace m<=128: %zu\n", hipargs_gate_workspace_size(128));
  printf("workspace m=256: %zu\n", need);
  report("m=0", hipargs_gate_run(stream, 0, a, w, s, NULL, NULL, bias, y, ws, need));
  report("null a", hipargs_gate_run(stream, 256, NULL, w, s, NULL, NULL, bias, y, ws, need));
  report("stray global", hipargs_gate_run(stream, 256, a, w, s, (const float *)AT(64), NULL, bias, y, ws, need));
  report("small workspace", hipargs_gate_run(stream, 256, a, w, s, NULL, NULL, bias, y, ws, need - 1));
  setenv("MOCK_ARCH", "gfx90a", 1);
  report("gfx90a device", hipargs_gate_run(stream, 256, a, w, s, NULL, NULL, bias, y, ws, need));
  setenv("MOCK_ARCH", "gfx950", 1);
  setenv("MOCK_FAIL_LAUNCH", "1", 1);
  report("launch failure", hipargs_gate_run(stream, 256, a, w, s, NULL, NULL, bias, y, ws, need));
  unsetenv("MOCK_FAIL_LAUNCH");
  report("prefill", hipargs_gate_run(stream, 256, a, w, s, NULL, NULL, bias, y, ws, need));
  setenv("MOCK_FAIL_GEMM", "1", 1);
  report("gemm failure", hipargs_gate_run(stream, 256, a, w, s, NULL, NULL, bias, y, ws, need));
  unsetenv("MOCK_FAIL_GEMM");
  setenv("MOCK_NO_ALGO", "1", 1);
  report("no algorithm", hipargs_gate_run(stream, 257, a, w, s, NULL, NULL, bias, y, ws, need));
  unsetenv("MOCK_NO_ALGO");
  report("gemv m=1", hipargs_gate_run(stream, 1, a, w, s, NULL, NULL, bias, y, NULL, 0));
  /* M = 9 .. 128: the fused dequant-GEMM, no workspace; M tiles along x. */
  report("fused m=9", hipargs_gate_run(stream, 9, a, w, s, NULL, NULL, bias, y, NULL, 0));
  report("fused m=128", hipargs_gate_run(stream, 128, a, w, s, NULL, NULL, bias, y, NULL, 0));
  report("pin fused", hipargs_set_fused_override(64, 4, 1, 2, 1));
  report("fused m=100 pinned", hipargs_gate_run(stream, 100, a, w, s, NULL, NULL, bias, y, NULL, 0));
  /* AMD stages its activations in one stage: no two-stage variant. */
  report("pin two stages", hipargs_set_fused_override(64, 4, 1, 2, 2));
  report("unpin fused", hipargs_set_fused_override(0, 0, 0, 0, 0));
  /* Pageable host memory (no allocation holds it) is refused by name
   * before any launch, workspace included; where the device reads pageable
   * memory itself nothing is refused. */
  setenv("MOCK_HOST_POINTER", "0x13000000", 1);
  report("host a", hipargs_gate_run(stream, 1, a, w, s, NULL, NULL, bias, y, NULL, 0));
  setenv("MOCK_HOST_POINTER", "0x15000000", 1);
  report("host workspace", hipargs_gate_run(stream, 256, a, w, s, NULL, NULL, bias, y, ws, need));
  report("gemv ignores workspace", hipargs_gate_run(stream, 1, a, w, s, NULL, NULL, bias, y, ws, need));
  setenv("MOCK_FAIL_POINTER", "1", 1);
  report("pointer query failure", hipargs_gate_run(stream, 1, a, w, s, NULL, NULL, bias, y, NULL, 0));
  unsetenv("MOCK_FAIL_POINTER");
  report("unload", hipargs_unload());
  setenv("MOCK_HOST_POINTER", "0x13000000", 1);
  setenv("MOCK_PAGEABLE", "1", 1);
  report("pageable host a", hipargs_gate_run(stream, 1, a, w, s, NULL, NULL, bias, y, NULL, 0));
  return 0;
}
