//===- layers.h - The layers of a benchmark bundle
//-------------------------===//
//
// The benchmark bundles are generated with --prefix=bench: their header
// (bench.h) declares the entry points, and make_bundle.py writes one
// BENCH_LAYER(name, scheme, act, n, k, block, zero_points) per layer into
// layers.inc; both are found through -I <bundle dir>.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_BENCH_COMMON_LAYERS_H
#define QMAT_BENCH_COMMON_LAYERS_H

#include "bench.h"
#include "device_weight.h"
#include "harness.h"

#include <cuda.h>

#include <cstddef>
#include <cstdint>

namespace bench {

/// <prefix>_<layer>_run and <prefix>_<layer>_workspace_size
/// (<prefix>_<layer>_prepare_weights: PrepareFn, device_weight.h).
using RunFn = qmat_status (*)(CUstream, int64_t, const void *, const void *,
                              const void *, const float *, const void *,
                              const void *, void *, void *, size_t);
using WorkspaceFn = size_t (*)(int64_t);

struct LayerEntry {
  const char *name;
  RunFn run;
  WorkspaceFn workspace;
  PrepareFn prepare;
  LayerShape shape;
};

#define BENCH_LAYER(name, scheme, act, n, k, bs, zp)                           \
  {#name,                                                                      \
   &bench_##name##_run,                                                        \
   &bench_##name##_workspace_size,                                             \
   &bench_##name##_prepare_weights,                                            \
   {Scheme::scheme, ActType::act, n, k, bs, zp}},
inline const LayerEntry kLayers[] = {
#include "layers.inc"
};
#undef BENCH_LAYER

} // namespace bench

#endif // QMAT_BENCH_COMMON_LAYERS_H
