/* Which binary of a bundle each device loads. For each compute capability
 * given as an argument ("86" for 8.6): what sel_selected_binary answers,
 * then one call of the layer on a mock device of that compute capability,
 * whose load line names the binary the launcher really took, then an unload
 * so that the next device loads afresh. */
#define _POSIX_C_SOURCE 200112L
#include "sel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(offset) ((void *)(uintptr_t)(0x10000000u + (offset)))

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    int capability = atoi(argv[i]);
    const char *target = NULL;
    int fromPtx = -1;
    qmat_status status =
        sel_selected_binary(capability / 10, capability % 10, &target, &fromPtx);
    if (status == QMAT_OK)
      printf("cc %d.%d: %s %s\n", capability / 10, capability % 10, target,
             fromPtx ? "ptx" : "cubin");
    else
      printf("cc %d.%d: %d %s\n", capability / 10, capability % 10, (int)status,
             sel_last_error());
    setenv("MOCK_CC", argv[i], 1);
    /* M = 1 takes the GEMV, which needs no workspace. */
    status = sel_layer_run((CUstream)AT(0x7000000), 1, AT(0x3000000), AT(0), AT(0x1000000),
                           NULL, NULL, NULL, AT(0x2000000), NULL, 0);
    printf("run: %d %s\n", (int)status, status ? sel_last_error() : "ok");
    sel_unload();
  }
  /* Bad arguments of the query. */
  const char *target = NULL;
  qmat_status nullTarget = sel_selected_binary(9, 0, NULL, NULL);
  printf("null target: %d %s\n", (int)nullTarget, sel_last_error());
  qmat_status badMinor = sel_selected_binary(8, 10, &target, NULL);
  printf("minor 10: %d %s\n", (int)badMinor, sel_last_error());
  return 0;
}
