/* Each layer of layer-names.mlir through its mangled entry points: the
 * launcher's messages name the layer as written. */
#include "names.h"

#include <stdio.h>

static void report(qmat_status status) {
  printf("%d %s\n", (int)status, names_last_error());
}

int main(void) {
  report(names_my_layer_run(NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0));
  report(names_a_b_run(NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0));
  report(names_layers_0_q_proj_run(NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0));
  report(names__0proj_run(NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0));
  report(names_say__hi______run(NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0));
  report(names_a__b__c_run(NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0));
  printf("workspace %zu\n", names_layers_0_q_proj_workspace_size(64));
  return 0;
}
