//===- GemvPolicy.h - Run-time choice among compiled GEMV variants -*- C++ -*-//
//
// Plain C++ with no dependencies: qmat-aot writes this file verbatim into
// every generated launcher, and the unit tests include it, so the function
// the tests check is the one that ships.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_AOT_GEMVPOLICY_H
#define QMAT_AOT_GEMVPOLICY_H

#include <cstdint>

namespace qmat_policy {

/// One compiled decode-GEMV variant.
struct GemvVariantDesc {
  int maxM;     // activation rows it handles (8, 16, 32, 64)
  int splitK;   // warps sharing one tile's K range
  int colTiles; // 16-row weight tiles per block
  bool tensorCore;
  /// Weights decoded straight into the activation type (packed decode): the
  /// per-row work is small enough that sharing activations across column
  /// tiles pays once M grows.
  bool packedDecode;
};

/// 16-row weight tiles in flight per multiprocessor (warps times column
/// tiles) that the split-K factor aims for, so that enough weight loads are
/// outstanding to cover memory latency.
constexpr int64_t kTargetTilesPerSM = 32;
/// A warp owns at most this many 128-element K steps (longer K: more
/// split-K) and, when split, at least kMinStepsPerWarp.
constexpr int64_t kMaxStepsPerWarp = 10;
constexpr int64_t kMinStepsPerWarp = 2;
/// From this many activation rows on, packed-decode layers use two column
/// tiles per block.
constexpr int64_t kTwoTilesFromM = 4;

/// The index of the variant to launch for an [m, k] x [n, k]^T product on a
/// GPU with `multiprocessors` SMs, or -1 when none handles m rows.
///
/// Among the variants of the smallest row capacity that holds m: one column
/// tile (two for packed-decode layers at m >= kTwoTilesFromM), and the
/// smallest split-K that gives every SM kTargetTilesPerSM tiles in flight
/// and every warp at most kMaxStepsPerWarp K steps, without leaving a warp
/// fewer than kMinStepsPerWarp. Fitted on the H200 (bench/results,
/// 2026-11-30-gemv-sm90-*.json): at K = 5120 split-K 4 was best or within
/// 3% of the best for N = 17408 and for the 248320-row lm_head, one tile
/// except for nvfp4 at M >= 4. When the wanted tiling was not compiled, the
/// nearest compiled one.
inline int chooseGemvVariant(int64_t n, int64_t k, int64_t m,
                             int64_t multiprocessors,
                             const GemvVariantDesc *variants, int count) {
  int capacity = 0;
  for (int i = 0; i < count; ++i)
    if (variants[i].maxM >= m && (capacity == 0 || variants[i].maxM < capacity))
      capacity = variants[i].maxM;
  if (capacity == 0 || n <= 0 || k <= 0)
    return -1;
  int64_t steps = k / 128 > 0 ? k / 128 : 1;
  int64_t sms = multiprocessors > 0 ? multiprocessors : 1;
  int chosen = -1;
  int64_t chosenScore = 0;
  for (int i = 0; i < count; ++i) {
    const GemvVariantDesc &v = variants[i];
    if (v.maxM != capacity)
      continue;
    if (!v.tensorCore)
      return i;
    int64_t wantTiles = v.packedDecode && m >= kTwoTilesFromM ? 2 : 1;
    int64_t tiles = 16 * int64_t(v.colTiles);
    int64_t warps = (n + tiles - 1) / tiles * v.splitK;
    int64_t stepsPerWarp = (steps + v.splitK - 1) / v.splitK;
    bool enoughWarps = warps * v.colTiles >= kTargetTilesPerSM * sms;
    bool shortEnough = stepsPerWarp <= kMaxStepsPerWarp;
    bool longEnough = v.splitK == 1 || stepsPerWarp >= kMinStepsPerWarp;
    // Lexicographic: the tiling wanted, then a feasible split, then the
    // smallest split that is feasible (or the largest when none is).
    int64_t tileMiss = v.colTiles > wantTiles ? v.colTiles - wantTiles
                                              : wantTiles - v.colTiles;
    bool feasible = enoughWarps && shortEnough && longEnough;
    int64_t score = -tileMiss * 1000000 + (longEnough ? 100000 : 0) +
                    (feasible ? 10000 - v.splitK : v.splitK);
    if (chosen < 0 || score > chosenScore) {
      chosen = i;
      chosenScore = score;
    }
  }
  return chosen;
}

} // namespace qmat_policy

#endif // QMAT_AOT_GEMVPOLICY_H
