// Both vendors' launcher headers in one translation unit: the status enum
// is defined once and the entry points have distinct names.
#include "mixed.h"
#include "mixed_hip.h"

static_assert(QMAT_ERROR_HIPBLASLT == 7, "one status enum for both vendors");
auto cudaRun = &mixed_layer_run;
auto hipRun = &mixed_hip_layer_run;
