/* Every argument check of a generated launcher, in C (the header is a C
 * API), against the recording mock: each bad call must return its status
 * and message without touching the GPU. */
#define _POSIX_C_SOURCE 200112L
#include "args.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void report(const char *what, qmat_status status) {
  printf("%s: %d %s\n", what, (int)status, status ? args_last_error() : "ok");
}

/* Calls the layer with one of its pointer arguments moved by 1, 2, 4 and 8
 * bytes and prints the four statuses. */
static void misalign(const char *path, int64_t m, size_t workspace) {
  static const char *const names[] = {"a", "weights", "scales", "global_scale", "y", "workspace"};
  for (int which = 0; which < 6; ++which) {
    int statuses[4];
    for (int i = 0; i < 4; ++i) {
      uintptr_t shift = (uintptr_t)1 << i;
      char *p[6] = {AT(0x3000000), AT(0), AT(0x1000000), AT(0x6000000), AT(0x2000000),
                    m > 8 ? AT(0x5000000) : NULL};
      if (!p[which])
        p[which] = AT(0x5000000); /* a workspace the GEMV does not need */
      p[which] += shift;
      statuses[i] = (int)args_gate_run((CUstream)AT(0x7000000), m, p[0], p[1], p[2],
                                       (const float *)p[3], NULL, NULL, p[4], p[5], workspace);
    }
    printf("misaligned %s %s: +1=%d +2=%d +4=%d +8=%d\n", path, names[which], statuses[0],
           statuses[1], statuses[2], statuses[3]);
  }
}

int main(void) {
  /* M <= 8 takes the decode GEMV, which needs no workspace. */
  printf("workspace m<=8: %zu\n", args_gate_workspace_size(8));
  size_t need = args_gate_workspace_size(64);
  printf("workspace m=64: %zu\n", need);
  const float *global = (const float *)AT(0x6000000);
  void *a = AT(0x3000000), *w = AT(0), *s = AT(0x1000000), *y = AT(0x2000000);
  void *ws = AT(0x5000000);
  CUstream stream = (CUstream)AT(0x7000000);
  report("m=0", args_gate_run(stream, 0, a, w, s, global, NULL, NULL, y, ws, need));
  report("m<0", args_gate_run(stream, -3, a, w, s, global, NULL, NULL, y, ws, need));
  report("null a", args_gate_run(stream, 64, NULL, w, s, global, NULL, NULL, y, ws, need));
  report("null weights", args_gate_run(stream, 64, a, NULL, s, global, NULL, NULL, y, ws, need));
  report("null global", args_gate_run(stream, 64, a, w, s, NULL, NULL, NULL, y, ws, need));
  report("stray zero points", args_gate_run(stream, 64, a, w, s, global, AT(64), NULL, y, ws, need));
  report("stray bias", args_gate_run(stream, 64, a, w, s, global, NULL, AT(64), y, ws, need));
  report("null y", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, NULL, ws, need));
  report("null workspace", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, y, NULL, need));
  report("misaligned weights", args_gate_run(stream, 64, a, AT(2), s, global, NULL, NULL, y, ws, need));
  report("misaligned workspace", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, y, AT(0x5000010), need));
  report("misaligned y", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, AT(0x2000001), ws, need));
  report("small workspace", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, y, ws, need - 1));
  setenv("MOCK_CC", "80", 1);
  report("sm_80 device", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, y, ws, need));
  setenv("MOCK_CC", "90", 1);
  setenv("MOCK_FAIL_LAUNCH", "1", 1);
  report("launch failure", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, y, ws, need));
  unsetenv("MOCK_FAIL_LAUNCH");
  /* The decode GEMV: no workspace, 16-byte vectors, the policy's variant
   * (11008 x 2048 at M = 4 on 132 SMs: the whole-line tier, one tile,
   * split-K 2). */
  report("gemv without workspace", args_gate_run(stream, 4, a, w, s, global, NULL, NULL, y, NULL, 0));
  report("gemv misaligned a", args_gate_run(stream, 4, AT(0x3000008), w, s, global, NULL, NULL, y, NULL, 0));
  report("gemv misaligned weights", args_gate_run(stream, 1, a, AT(4), s, global, NULL, NULL, y, NULL, 0));
  /* nvfp4's GEMV reads both scales of a 32-element chunk with one load. */
  report("gemv misaligned scales", args_gate_run(stream, 1, a, w, AT(0x1000001), global, NULL, NULL, y, NULL, 0));
  report("override unknown", args_set_gemv_override(3, 2));
  report("override split 2, 4 tiles", args_set_gemv_override(2, 4));
  report("gemv overridden", args_gate_run(stream, 1, a, w, s, global, NULL, NULL, y, NULL, 0));
  report("override off", args_set_gemv_override(0, 0));
  report("gemv m=1", args_gate_run(stream, 1, a, w, s, global, NULL, NULL, y, NULL, 0));
  report("gemv m=8", args_gate_run(stream, 8, a, w, s, global, NULL, NULL, y, NULL, 0));

  /* The edges of m and of the workspace. */
  report("m=2^40", args_gate_run(stream, (int64_t)1 << 40, a, w, s, global, NULL, NULL, y, ws, need));
  report("m=INT64_MIN", args_gate_run(stream, INT64_MIN, a, w, s, global, NULL, NULL, y, ws, need));
  report("null scales", args_gate_run(stream, 64, a, w, NULL, global, NULL, NULL, y, ws, need));
  report("workspace of 0 bytes", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, y, ws, 0));
  report("workspace of 1 byte", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, y, ws, 1));
  printf("workspace m=2^40: %zu m=0: %zu m=-1: %zu\n", args_gate_workspace_size((int64_t)1 << 40),
         args_gate_workspace_size(0), args_gate_workspace_size(-1));
  /* Each pointer moved by 1, 2, 4 and 8 bytes on the prefill path (m = 64)
   * and the GEMV's (m = 4): the statuses, in that order, after whatever
   * the calls that pass launch on the mock. */
  misalign("prefill", 64, need);
  misalign("gemv", 4, 0);

  /* Unloading twice is allowed; a call after it loads the module again. */
  report("unload", args_unload());
  report("unload again", args_unload());
  report("override after unload", args_set_gemv_override(2, 4));
  report("override off after unload", args_set_gemv_override(0, 0));
  report("gemv after unload", args_gate_run(stream, 1, a, w, s, global, NULL, NULL, y, NULL, 0));
  report("prefill after unload", args_gate_run(stream, 64, a, w, s, global, NULL, NULL, y, ws, need));
  report("m=0 after unload", args_gate_run(stream, 0, a, w, s, global, NULL, NULL, y, ws, need));
  report("final unload", args_unload());
  return 0;
}
