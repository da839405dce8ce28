//===- GemvReachability.h - GEMV variants the policy can choose -*- C++ -*-===//
//
// Which compiled GEMV variants qmat_policy::chooseGemvVariant can return for
// a layer, on any device: qmat-aot and qmat-expand-gemv compile only those.
// Kept apart from GemvPolicy.h, which every launcher carries: the launcher
// never asks.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_AOT_GEMVREACHABILITY_H
#define QMAT_AOT_GEMVREACHABILITY_H

#include "qmat/AOT/GemvPolicy.h"

#include <algorithm>
#include <vector>

namespace qmat_policy {

/// The most warps a multiprocessor holds at once on any device a bundle
/// can load on (2048 threads: every NVIDIA GPU from sm_80; 40 wavefronts
/// on a CDNA compute unit). The launcher passes the driver's occupancy,
/// one block's warps or more, or none (kDefaultResidentWarps).
constexpr int64_t kMaxResidentWarps = 64;
/// Multiprocessor counts tried one by one by reachableGemvVariants; above
/// it the choice changes only where a rounds count or a tile threshold does.
constexpr int64_t kDenseMultiprocessors = 1024;
/// Rounds counts above kDenseMultiprocessors looked at per variant, beyond
/// which (a layer of tens of millions of rows) every variant counts as
/// reachable.
constexpr int64_t kMaxSparseSteps = int64_t(1) << 16;

/// Which of `count` variants chooseGemvVariant can return for an
/// [m, k] x [n, k]^T product with 1 <= m <= maxM, on a device of any
/// multiprocessor count, each variant holding any number of resident warps
/// from 1 to kMaxResidentWarps: `reachable[i]` is set for those. A variant
/// left out never changes a choice, so a bundle compiles only these.
///
/// Exact, not sampled: residency enters a variant's key only through its
/// rounds of resident warps, and the key never falls as those grow, so
/// variant i can win for some residencies exactly when it wins with its own
/// at the most and every other at the fewest. With those fixed, the choice
/// changes with the multiprocessor count only where some variant's rounds or
/// the layer's many-tiles tests change: every count up to kDenseMultiprocessors
/// is tried, and above it each count where one of those steps.
inline void reachableGemvVariants(int64_t n, int64_t k, int64_t maxM,
                                  const GemvVariantDesc *variants, int count,
                                  bool *reachable) {
  std::fill(reachable, reachable + count, false);
  if (n <= 0 || k <= 0 || count <= 0)
    return;
  // Multiprocessor counts past the dense range where a step happens.
  std::vector<int64_t> sparse;
  auto addStep = [&](int64_t sms) {
    if (sms > kDenseMultiprocessors)
      sparse.push_back(sms);
  };
  for (int64_t width : {32, 64}) // the many-tiles tests
    addStep((n + width - 1) / width / kWideTilesPerSM + 1);
  for (int i = 0; i < count; ++i) {
    int64_t tiles = 16 * int64_t(variants[i].colTiles);
    int64_t warps = (n + tiles - 1) / tiles * variants[i].splitK;
    if (warps / kDenseMultiprocessors > kMaxSparseSteps) {
      std::fill(reachable, reachable + count, true);
      return;
    }
    for (int64_t resident : {int64_t(1), kMaxResidentWarps})
      for (int64_t rounds = 1;
           rounds * resident * kDenseMultiprocessors < warps; ++rounds)
        addStep((warps + resident * rounds - 1) / (resident * rounds));
  }
  std::sort(sparse.begin(), sparse.end());
  sparse.erase(std::unique(sparse.begin(), sparse.end()), sparse.end());
  std::vector<int> resident(count);
  for (int64_t m = 1; m <= maxM; ++m) {
    // The choice depends on m only through the row capacity that holds it
    // and kTwoTilesFromM: one m of each class will do.
    if (m > 1 && m != kTwoTilesFromM) {
      bool newCapacity = false;
      for (int i = 0; i < count; ++i)
        newCapacity |= variants[i].maxM == m - 1;
      if (!newCapacity)
        continue;
    }
    int capacity = gemvCapacity(m, variants, count);
    for (int i = 0; i < count; ++i) {
      if (reachable[i] || variants[i].maxM != capacity)
        continue;
      std::fill(resident.begin(), resident.end(), 1);
      resident[i] = int(kMaxResidentWarps);
      auto wins = [&](int64_t sms) {
        return chooseGemvVariant(n, k, m, sms, variants, count,
                                 resident.data()) == i;
      };
      for (int64_t sms = 1; sms <= kDenseMultiprocessors && !reachable[i];
           ++sms)
        reachable[i] = wins(sms);
      for (size_t s = 0; s < sparse.size() && !reachable[i]; ++s)
        reachable[i] = wins(sparse[s]);
    }
  }
}

} // namespace qmat_policy

#endif // QMAT_AOT_GEMVREACHABILITY_H
