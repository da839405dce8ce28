//===- GemvPolicy.h - Run-time choice among compiled GEMV variants -*- C++ -*-//
//
// Plain C++ with no dependencies: qmat-aot writes this file verbatim into
// every generated launcher, and the unit tests include it, so the function
// the tests check is the one that ships.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_AOT_GEMVPOLICY_H
#define QMAT_AOT_GEMVPOLICY_H

#include <array>
#include <cstdint>

namespace qmat_policy {

/// When two or four column tiles per block (tiles sharing activation loads)
/// are wanted over one, fitted on the H200: the packed decodes (nvfp4,
/// mxfp4, int4) gain from two tiles on the lm_head at every M and at 17408
/// rows from M = 8 (equal at M = 4), except prepared int4, which gains on
/// the lm_head only (KernelConfig.cpp, getGemvPolicyTraits); the fp32 decode
/// (fp8) only on the lm_head from M = 4 (10 % faster at M = 8), losing at
/// M = 1 (bench/README.md, "Measurements behind the compiler's choices").
enum class WideTiles : int {
  never = 0,
  /// When there are kWideTilesPerSM two-tile blocks per SM or more.
  manyTiles = 1,
  /// manyTiles, or from kTwoTilesFromM activation rows on.
  manyTilesOrRows = 2,
  /// manyTiles, and from kTwoTilesFromM activation rows on.
  manyTilesFromRows = 3,
  /// Four tiles with kWideTilesPerSM four-tile blocks per SM or more, else
  /// as manyTilesOrRows. nvfp4: on the lm_head (29 four-tile blocks per SM)
  /// four tiles at split-K 2 beat two at split-K 4 at every M, by 5-6 % at
  /// M = 8, since a block's activation loads serve twice the rows; int4 and
  /// mxfp4 do not gain. Smaller layers, not measured with four tiles, keep
  /// two (bench/README.md, "Measurements behind the compiler's choices").
  fourOnManyTiles = 4,
};

/// One compiled decode-GEMV variant.
struct GemvVariantDesc {
  int maxM;     // activation rows it handles (4: whole lines; 8, 16, 32, 64)
  int splitK;   // warps sharing one tile's K range
  int colTiles; // 16-row weight tiles per block
  bool tensorCore;
  WideTiles wideTiles;
  /// The whole-line layout (nvfp4, mxfp4, M <= 4): 256-element K steps.
  bool wholeLines = false;
  /// Where two tiles are wanted on a many-tile layer, split-K 1 whatever
  /// K. fp8 with f16 activations, whose decode is one conversion per two
  /// codes: on the lm_head at M = 4 and 8 split-K 1 was the best two-tile
  /// variant in every full run (about 10 % ahead of the capped split-K 4 at
  /// M = 8); bf16 (through fp32) keeps the cap. Prepared packed codes with
  /// f16 activations, and prepared mxfp4: on the lm_head at M = 8 split-K 1
  /// was the best variant in both runs that timed each, and for int4 f16
  /// at M = 1, 4 and 8 since its cheaper decode (about 9 % ahead of the old
  /// choice), where the checkpoint's layout had it 30-40 % behind
  /// (bench/README.md, "Measurements behind the compiler's choices").
  bool unsplitOnManyTiles = false;
};

/// A warp owns at most this many 128-element K steps (longer K: more
/// split-K) and, when split, at least kMinStepsPerWarp.
constexpr int64_t kMaxStepsPerWarp = 10;
constexpr int64_t kMinStepsPerWarp = 2;
/// Whole-line variants: a warp walks at most this many 256-element K steps,
/// or kMaxWholeLineStepsOnManyTiles on many-tile layers.
constexpr int64_t kMaxWholeLineStepsPerWarp = 5;
constexpr int64_t kMaxWholeLineStepsOnManyTiles = 10;
/// Steps past that cap a whole-line split may walk when its grid fits one
/// round of resident warps and the capped split's does not.
constexpr int64_t kWholeLineStepsForOneRound = 2;
/// The activation rows from which WideTiles::manyTilesOrRows and
/// manyTilesFromRows count M as many.
constexpr int64_t kTwoTilesFromM = 4;
/// Blocks per SM from which a layer counts as many tiles of that width
/// (two-tile blocks for WideTiles::manyTiles and the like, four-tile blocks
/// for fourOnManyTiles; the lm_head, 248320 rows, has 59 two-tile blocks
/// per SM on 132 SMs; 17408 rows have 4, where halving the warps costs more
/// than sharing saves).
constexpr int64_t kWideTilesPerSM = 16;
/// Resident warps per multiprocessor assumed for a variant whose occupancy
/// is unknown (the launcher queries the driver for every kernel).
constexpr int64_t kDefaultResidentWarps = 32;

/// The column tiles (1, 2 or 4) a variant of `wideTiles` wants;
/// `manyTiles` / `manyFourTiles`: the layer has kWideTilesPerSM two-tile /
/// four-tile blocks per SM or more.
inline int64_t wantedColTiles(WideTiles wideTiles, bool manyTiles,
                              bool manyFourTiles, int64_t m) {
  bool manyRows = m >= kTwoTilesFromM;
  switch (wideTiles) {
  case WideTiles::never:
    return 1;
  case WideTiles::manyTiles:
    return manyTiles ? 2 : 1;
  case WideTiles::manyTilesOrRows:
    return manyTiles || manyRows ? 2 : 1;
  case WideTiles::manyTilesFromRows:
    return manyTiles && manyRows ? 2 : 1;
  case WideTiles::fourOnManyTiles:
    return manyFourTiles ? 4 : manyTiles || manyRows ? 2 : 1;
  }
  return 1;
}

/// The smallest row capacity among `count` variants that holds m rows, or 0.
inline int gemvCapacity(int64_t m, const GemvVariantDesc *variants, int count) {
  int capacity = 0;
  for (int i = 0; i < count; ++i)
    if (variants[i].maxM >= m && (capacity == 0 || variants[i].maxM < capacity))
      capacity = variants[i].maxM;
  return capacity;
}

/// The index of the variant to launch for an [m, k] x [n, k]^T product on a
/// GPU with `multiprocessors` SMs, or -1 when none handles m rows.
/// `residentWarps[i]` is how many warps of variant i one SM holds at once
/// (null, or an entry <= 0: kDefaultResidentWarps).
///
/// Among the variants of the smallest row capacity that holds m, in order:
/// the wanted column tiling (wantedColTiles; the nearest compiled one when
/// it was not compiled), warps that keep kMinStepsPerWarp K steps and at
/// most kMaxStepsPerWarp (twice that in four-tile blocks, which are few and
/// long-lived: split-K 2 measured faster than 4 there), then the fewest
/// wave-steps: the rounds of resident warps the grid needs, ceil(warps /
/// (resident x SMs)), times the K steps each warp walks. A grid just past a
/// whole wave pays a second round of long warps; a larger split makes the
/// rounds shorter. Four-tile blocks on many-tile layers make many waves
/// whose last round's tail is small: the smallest split within the step cap
/// wins (on the lm_head at M = 1 split-K 2 beat 4 and 8, where wave-steps
/// would have taken 8). With two tiles and one wave-steps still decide
/// (fp8 f16 on the lm_head at M = 8: split-K 8 beat 4).
/// Whole-line variants (the tier of row capacity 4) take the smallest split
/// whose warps walk at most kMaxWholeLineStepsPerWarp of their 256-element
/// steps, or kMaxStepsPerWarp on many-tile layers (nvfp4 17408 x 5120 at
/// M = 1: split-K 4 beat 2 and 8, where wave-steps would take 8; the
/// lm_head: 2 beat 4); but where that split's grid needs a second round of
/// resident warps, a split whose grid fits one round with at most
/// kWholeLineStepsForOneRound more steps goes first (17408 x 5120, 32
/// resident warps with the register budget: split-K 3, 7 steps, one round,
/// 7-8 % faster than split-K 4's 1.03 rounds). The fp32 decode's (fp8)
/// two-tile variants on many-tile layers also take the smallest split
/// within the cap: split-K 4 was within 0-3 % of the best on the bf16
/// lm_head at M = 4 and 8, where wave-steps' split-K 8 was 4-8 % behind;
/// with f16 activations, where both were 6-10 % behind, split-K 1
/// (unsplitOnManyTiles). Ties go to the smaller split (less reduction).
/// Fitted on the H200: int4 at 17408 x 5120 has 58 registers, 32 resident
/// warps, and split-K 4 needs 1.03 waves (2 rounds x 10 steps) where
/// split-K 8 needs 3 rounds x 5 steps, and 8 is 11 % faster; nvfp4 with 56
/// registers fits split-K 4 in one wave (10 against 15). Figures:
/// bench/README.md, "Measurements behind the compiler's choices".
inline int chooseGemvVariant(int64_t n, int64_t k, int64_t m,
                             int64_t multiprocessors,
                             const GemvVariantDesc *variants, int count,
                             const int *residentWarps = nullptr) {
  int capacity = gemvCapacity(m, variants, count);
  if (capacity == 0 || n <= 0 || k <= 0)
    return -1;
  int64_t steps = k / 128 > 0 ? k / 128 : 1;
  int64_t sms = multiprocessors > 0 ? multiprocessors : 1;
  int chosen = -1;
  bool manyTiles = (n + 31) / 32 >= kWideTilesPerSM * sms;
  bool manyFourTiles = (n + 63) / 64 >= kWideTilesPerSM * sms;
  // Lexicographic key, smaller is better.
  std::array<int64_t, 6> chosenKey{};
  for (int i = 0; i < count; ++i) {
    const GemvVariantDesc &v = variants[i];
    if (v.maxM != capacity)
      continue;
    if (!v.tensorCore)
      return i;
    int64_t wantTiles =
        wantedColTiles(v.wideTiles, manyTiles, manyFourTiles, m);
    int64_t maxSteps = (v.colTiles == 4 ? 2 : 1) * kMaxStepsPerWarp;
    if (v.wholeLines)
      maxSteps =
          manyTiles ? kMaxWholeLineStepsOnManyTiles : kMaxWholeLineStepsPerWarp;
    bool unsplit = v.unsplitOnManyTiles && manyTiles && v.colTiles == 2;
    if (unsplit)
      maxSteps = steps;
    // Where the smallest split within the step cap wins over wave-steps.
    bool smallestSplit = (manyFourTiles && v.colTiles == 4) || v.wholeLines ||
                         unsplit ||
                         (v.wideTiles == WideTiles::manyTilesFromRows &&
                          manyTiles && v.colTiles == 2);
    int64_t tiles = 16 * int64_t(v.colTiles);
    int64_t warps = (n + tiles - 1) / tiles * v.splitK;
    int64_t variantSteps =
        v.wholeLines ? (steps + 1) / 2 : steps; // in the variant's own steps
    int64_t stepsPerWarp = (variantSteps + v.splitK - 1) / v.splitK;
    int64_t resident = residentWarps && residentWarps[i] > 0
                           ? residentWarps[i]
                           : kDefaultResidentWarps;
    int64_t perRound = resident * sms;
    int64_t rounds = (warps + perRound - 1) / perRound;
    // Past the cap: where wave-steps decide they weigh the excess too;
    // elsewhere the split nearest the cap (a K too long for every split
    // must not fall to the smallest).
    int64_t excessSteps = stepsPerWarp > maxSteps ? stepsPerWarp - maxSteps : 0;
    // Whole lines: a grid in one round within the cap first, then one
    // round a little past it (17408 x 5120 at split-K 3: 7 steps, where
    // split-K 4's 5 take a second round for 3 % of the blocks; measured
    // 7-8 % faster for nvfp4), then the capped split however many rounds.
    int64_t oneRoundTier = 0;
    if (v.wholeLines)
      oneRoundTier = rounds == 1 && excessSteps == 0 ? 0
                     : rounds == 1 && excessSteps <= kWholeLineStepsForOneRound
                         ? 1
                         : 2;
    std::array<int64_t, 6> key = {
        v.colTiles > wantTiles ? v.colTiles - wantTiles
                               : wantTiles - v.colTiles,
        v.splitK == 1 || stepsPerWarp >= kMinStepsPerWarp ? 0 : 1,
        oneRoundTier,
        smallestSplit ? excessSteps : (excessSteps > 0 ? 1 : 0),
        smallestSplit ? 0 : rounds * stepsPerWarp,
        v.splitK};
    if (chosen < 0 || key < chosenKey) {
      chosen = i;
      chosenKey = key;
    }
  }
  return chosen;
}

} // namespace qmat_policy

#endif // QMAT_AOT_GEMVPOLICY_H
