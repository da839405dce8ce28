/* The log through lg_set_log_handler: a level out of range is refused,
 * then each line reaches the handler with its level and the user pointer,
 * up to the level given; a null handler sends lines back to stderr under
 * QMAT_LOG. Calls: the GEMV at m = 1 twice, the fused GEMM at m = 16. */
#include "lg.h"

#include <stdint.h>
#include <stdio.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

static void handler(int level, const char *line, void *user) {
  printf("%s level %d: %s\n", (const char *)user, level, line);
}

static void run(int64_t m) {
  qmat_status status = lg_layer_run((CUstream)AT(0x7000000), m, AT(0x3000000), AT(0),
                                    AT(0x1000000), NULL, NULL, NULL, AT(0x2000000),
                                    AT(0x4000000), lg_layer_workspace_size(256));
  printf("m = %d: %d\n", (int)m, (int)status);
}

static void set(qmat_log_fn fn, int level, const char *user) {
  qmat_status status = lg_set_log_handler(fn, level, (void *)user);
  printf("set level %d: %d %s\n", level, (int)status, status ? lg_last_error() : "ok");
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0); /* in order with the log on stderr */
  set(handler, 3, "bad");
  set(handler, -1, "bad");
  set(handler, QMAT_LOG_INFO, "info");
  run(1);
  run(1);
  run(16);
  set(handler, QMAT_LOG_DEBUG, "debug");
  run(1);
  run(16);
  set(handler, QMAT_LOG_OFF, "off");
  run(1);
  set(NULL, 7, "ignored");
  run(1);
  run(16);
  return 0;
}
