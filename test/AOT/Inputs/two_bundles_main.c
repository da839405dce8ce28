/* Calls into two bundles linked into one program. */
#include "one.h"
#include "two.h"

#include <stdio.h>

int main(void) {
  printf("%zu %zu\n", one_layer_workspace_size(64), two_layer_workspace_size(64));
  return 0;
}
