//===- FusedGemmPolicy.h - Run-time choice among fused GEMM variants -*- C++
//-*-//
//
// Plain C++ with no dependencies: qmat-aot writes this file verbatim into
// every generated launcher, and the unit tests include it, so the function
// the tests check is the one that ships.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_AOT_FUSEDGEMMPOLICY_H
#define QMAT_AOT_FUSEDGEMMPOLICY_H

#include <cstdint>

namespace qmat_policy {

/// One compiled fused dequant-GEMM variant: a block owns warpsN x colTiles
/// 16-row weight tiles and mTile activation rows; splitK warps share each
/// tile's K range; `stages` tiles of activations are in its pipeline;
/// `warpgroup` kWarpgroupForm where its four warps multiply through the
/// warpgroup matrix instruction, kSpecializedForm for the specialized
/// warpgroup form (colTiles warpgroups multiply, one decodes; its kernel
/// takes A's tensor map after its other arguments), kRegisterForm for the
/// specialized form with the decoded weights in the multiplying warps'
/// registers (the same arguments); `kSlices` blocks of a
/// cluster split each tile's K range among them (the grid's z dimension);
/// `multicast` blocks of a cluster along N share each stage's activations
/// (specialized; the grid's y dimension a multiple of it).
enum FusedForm : int {
  kWarpForm = 0,
  kWarpgroupForm = 1,
  kSpecializedForm = 2,
  kRegisterForm = 3
};
struct FusedVariantDesc {
  int mTile;
  int warpsN;
  int splitK;
  int colTiles;
  int stages;
  int warpgroup;
  int kSlices = 1;
  int multicast = 1;
};

/// Blocks per SM from which a variant of that M tile is taken: a larger M
/// tile reads each weight tile for more rows, but its grid has fewer
/// blocks. Fitted on the H200 over every layer of the example model at M =
/// 16 .. 128 (bench/README.md): 32-row tiles beat 16-row ones from about 2
/// blocks per SM (17408 x 5120 at M = 32: 2.1, 4 % behind to 10 % ahead;
/// 6144 x 5120 at M = 64: 1.5, 1 % behind; 5120 x 17408 at M = 64: 1.2, 53 %
/// behind), 64-row tiles from 4 (the lm_head at M = 64: 14.7, ahead;
/// 17408 x 5120 at M = 128: 2.1, 10 % behind), and 16-row tiles of two warps
/// over N and split-K 2 beat those of one warp and split-K 4 from 8 (the
/// lm_head at M = 16: 29, ahead; 17408 x 5120: 2.1, 29 % behind). The
/// 32-row threshold is 1.5 since rows past M are zero-filled: at M = 72 to
/// 88 on 5120 x 17408 and 5120 x 6144 (three 32-row tiles), two-column
/// blocks (240 and 1.8 per SM on the H100) took 0.85-0.93 of the time of
/// the one-column ones the threshold of 2 chose, nvfp4, mxfp4 and int4 in
/// two runs (bench/README.md, "Rows past M").
constexpr double kBlocksPerSMForMTile32 = 1.5;
constexpr double kBlocksPerSMForMTile64 = 4;
constexpr double kBlocksPerSMForTwoWarpsN = 8;
/// Warpgroup variants (sm_90a) are never taken over a warp variant: measured
/// on the H200 (bench/README.md, "Fused dequant-GEMM"), the best of eight
/// warpgroup tilings was slower than the best warp tiling on every model
/// layer timed, nvfp4, mxfp4 and int4 at M = 16 .. 256 (17408 x 5120 at M =
/// 128: 160 against 101 us). They run where they are the only variants
/// compiled, or pinned (<prefix>_set_fused_override).
///
/// Specialized variants (sm_90a) are taken over every other from this M on:
/// measured on the H100 (bench/README.md, "The specialized warpgroup
/// form"), the best specialized tiling took 0.70-0.98 of the time of the
/// warp tiling the rules below choose at M = 128 and 0.56-0.77 at M = 256
/// .. 1024, on every layer of the example model and the lm_head, nvfp4,
/// mxfp4 and int4; at M = 64 the warp tiling the rules choose was within 3 %
/// of the best of all. From M = 96 since a later run
/// (`results/2026-12-06-fused-sm90a-ragged-m-h100.json`): at M = 97, 100
/// and 112 the warp tilings the rules chose (a partial last tile of 32
/// rows) took 1.18-1.85x the best tiling's time on the 5120- and 6144-row
/// layers, where 128 x 1 was the best; at M = 96 1.08-1.24x.
constexpr int64_t kSpecializedFromM = 96;
/// ... and where their grid has at least one block per this many SMs: a
/// specialized block runs the whole K range of 64 x col_tiles rows, so a
/// narrow layer's few blocks leave the GPU idle (40 x 5120 at M = 128 .. 256
/// on the H100: one block, 3.4-4.3x the time of the best warp tiling;
/// 5120 x 17408 at M = 128: 80 blocks on 132 SMs, the fastest tiling).
constexpr int64_t kSMsPerSpecializedBlock = 2;
/// Among those, the one of the least cost (below); a tile's pass costs as
/// much as this many rows more than it holds: fitted to the time of one
/// 256-row tile against two 128-row ones at M = 256 on the H100, a + b x
/// rows with a / b from 34 to 129 rows on the example model's layers.
constexpr int64_t kSpecializedTileOverheadRows = 64;
/// A tensor load past A's last row costs time per row it zero-fills where
/// the grid runs several waves: on the H100 (17408 x 5120, 272 blocks, nvfp4
/// and int4) a 192-row tile took 1.03 of its M = 192 time with 32 such rows
/// (M = 160) and 1.11 with 48 (144); a 256-row tile 1.08 with 32 (224), 1.16
/// with 48 (208), 1.24-1.26 with 64 (192). So there a tile larger than M is
/// taken only where at most 1 / this of it is past the edge,
constexpr int64_t kSpecializedEdgeFraction = 4;
/// ... and each row past the edge weighs as much as this many rows of its
/// pass: two 128-row tiles took 1.08-1.10 of the 192-row tile's time at
/// M = 144 and 1.18-1.19 at 160, but 0.98-1.01 of the 256-row tile's at 208
/// and 1.07-1.09 at 224 (which the rule takes: a tie goes to the larger
/// tile).
constexpr int64_t kSpecializedPastRowCost = 2;
/// Where the grid has no more blocks than SMs, the rows past the edge cost
/// nothing up to 48 and little to 64: on 5120 x 17408, 6144 x 5120 and
/// 5120 x 6144 (80-96 blocks) the 192-row tile took 0.96-1.00 of its M = 192
/// time at M = 144 .. 176 and the 256-row tile 0.97-1.09 at 208 and 224,
/// 1.10-1.28 at 192 (64 rows past) and 1.20-1.45 at 176 (80), where two
/// 128-row tiles took 1.40-1.49 of the 192-row tile's time and 0.96-1.16 of
/// the 256-row tile's at 176. There a tile is taken with at most this many
/// rows past the edge, at no extra cost.
constexpr int64_t kSpecializedOneWavePastRows = 64;
/// Of two 256-row tilings of equal cost, the one of two column tiles (two
/// multiplying warpgroups sharing each stage's activations, which halves
/// the activation bytes each weight row costs) from this M on, where the
/// one-column grid has at least kSpecializedWideBlocksPerSM blocks per SM;
/// else the one of one column tile. Measured on the H100 (nvfp4 and int4
/// bf16): two columns took 0.75-0.82 of one column's time on the lm_head at
/// M = 512 and 1024 (58-118 blocks per SM) and 0.97-0.99 on 17408 x 5120 at
/// 1024 (8.2), but 1.12-1.17 on 17408 x 5120 at 512 (4.1), 1.15-1.25 on
/// 5120 x 17408 and 6144 x 5120 at 1024 (2.4, 2.9), and 0.93-1.09 on the
/// lm_head at M = 256.
constexpr int64_t kSpecializedWideFromM = 512;
constexpr int64_t kSpecializedWideMTile = 256;
constexpr int64_t kSpecializedWideBlocksPerSM = 8;
/// The specialized tiling chosen below is replaced by its sibling whose K
/// range two blocks of a cluster split (k_slices 2), where one is compiled,
/// its M tile has at most kSpecializedSlicedMaxMTile rows, its grid has
/// fewer blocks than SMs and each slice walks at least
/// kMinSpecializedSliceSteps K steps of 64. Measured on the H100
/// (bench/README.md, "K slices of the specialized form"): 128 x 1 in two
/// slices took 0.83-0.96 of the time of 128 x 1 on 5120 x 17408 (80 blocks,
/// 136 steps a slice) at M = 64 .. 1024, but 0.98-1.16 on 5120 x 6144 (48
/// steps); the 192- and 256-row tiles' slices took up to 1.37 and 1.46 of
/// their siblings' time from M = 192.
constexpr int64_t kSpecializedSlicedMaxMTile = 128;
constexpr int64_t kMinSpecializedSliceSteps = 128;
/// Whether each of two K slices of a K-element row walks enough K steps of
/// 64 (kMinSpecializedSliceSteps); the default sliced tiling is compiled
/// only where it does (GemvVariants.cpp).
constexpr bool hasSpecializedSliceSteps(int64_t k) {
  return k / 64 / 2 >= kMinSpecializedSliceSteps;
}

/// The specialized form with the weights as the instruction's B operand
/// (warpsN 1: a block of any multiple of 16 rows) is taken up to this M
/// where its grid is one wave that fills at least kSpecializedBFillEighths
/// eighths of the SMs: measured on the H100 (bench/README.md, "Weights as
/// B"), 144-row blocks on 17408 x 5120 (121 blocks on 132 SMs) took
/// 0.75-0.94 of the best other tiling's time at M = 48 to 128, where grids
/// of fewer rows per block (48 and 80 rows on 5120 and 6144 rows) or of
/// many waves (the lm_head) were slower than the others. Up to M = 256,
/// where a grid of at most kSpecializedBMaxTiles M tiles is one such wave:
/// on 8704 x 5120 (61 blocks per M tile) two tiles of 128 x 9 took
/// 0.87-0.93 of the other tilings' time at M = 192 and 256 in one H100 run
/// and 0.87-0.94 of the best other default tiling's in another
/// (bench/README.md, "Activations shared across a cluster"), where three
/// tiles of 64 x 9 on 6144 x 5120 at M = 192 (129 blocks) took 1.17 of
/// the best: each M tile decodes the weights again.
constexpr int64_t kSpecializedBUpToM = 256;
constexpr int64_t kSpecializedBMaxTiles = 2;
constexpr int64_t kSpecializedBFillEighths = 7;
/// Such a tile larger than M is taken where less than 1 / this of it lies
/// past A's edge: its decoders, not its tensor loads, set its pace, so the
/// rows it zero-fills cost little. On the H100 (bench/README.md, "Rows past
/// M"), 64 x 9 took 0.84-0.88 of the warp tilings' best time on
/// 17408 x 5120 at M = 33 and 40 and 128 x 9 0.70-0.80 at M = 72 to 88;
/// at M = 32 (half the tile past the edge) the warp tilings were faster.
constexpr int64_t kSpecializedBEdgeFraction = 2;
/// On a grid of several waves such a tile is taken alone (one M tile, from
/// M = 65) where more than 1 / this of it lies past A's edge, where the
/// weights-as-A tiles pay for the rows they zero-fill: on the lm_head
/// (248320 x 5120, 1725 blocks of 144 rows) 128 x 9 took 0.83-0.90 ms at
/// M = 72 to 100 against 0.93-1.13 for the other tilings' best choice
/// (H100, nvfp4 / mxfp4 / int4, four runs replayed: 27 of 2943 recorded
/// choices change, each to the fastest tiling; bench/README.md, "K slices
/// of the specialized form"), but 1.14-1.17 of 128 x 1's time at M = 112
/// and 128 (16 and 0 rows past), and 64 x 9 was slower than the warp
/// tilings at M = 40 and 48.
constexpr int64_t kSpecializedBManyWavesEdgeFraction = 8;

/// A variant that differs from the rules' choice only in its column tiles is
/// taken instead where the driver's occupancy is known and its grid fills
/// its last wave of resident blocks more than this many times better (a
/// grid's blocks over its waves' slots): a wave that is mostly empty costs
/// about as much as a full one. Fitted on the H200 (bench/README.md,
/// "wave quantization"): 16-row blocks over 32-row ones at M = 16 on
/// 5120 x 17408 (fill 0.48 against 0.30: 31.9 against 36.5 us), 6144 x 5120
/// and 5120 x 6144 (0.58 / 0.36), even on 17408 x 5120 (0.82 / 0.52: 26.4
/// against 26.7 us); not 32-row blocks over 64-row ones on 16896 x 5120 at
/// M = 32 (1.0 / 0.67: 31.4 against 29.3 us).
constexpr double kWaveFillRatio = 1.5;
/// Rows past M are zero-filled copies that cost as much as rows of A, so
/// where the tile that holds m has no qualifying grid, the warp tilings
/// that cover m with the fewest rows come first, and the wave rule is kept
/// to m within one tile, where it was fitted. Measured on the H100
/// (bench/README.md, "Rows past M"): at M = 33 to 48 three 16-row tiles
/// took 0.73-0.88 of the time of the two 32-row tiles the rules chose on
/// 5120 x 17408, 5120 x 6144 and 8704 x 5120 (6144 x 5120: 0.99-1.09); at
/// M = 17 to 32 the two-column 16-row tiling 0.84-0.99 of the one-column
/// sibling the wave rule chose.
/// Tilings whose K range is split across the blocks of a cluster (k_slices)
/// compete with the warp tilings, their grids counting every block of a
/// cluster, where each of their warps walks at least kMinSlicedIterations
/// K steps (K / 128 / (split_k x k_slices)); of two tilings alike but for
/// their slices, the fewer slices first. Then, where the chosen grid has
/// fewer than kSlicedBlocksPerSM blocks per SM, its sibling of the fewest
/// slices that reaches that many (else of the most blocks, where it has
/// more). Measured on the H100 (bench/README.md, "K slices"), nvfp4 and
/// int4 bf16: on 5120 x 17408 the sliced tilings took 0.75-0.81 of the
/// time of the best unsliced one at M = 16, 0.71-0.79 at 32 and
/// 0.80-0.83 at 64 (32 x 2 x 2 x 2 in 4 slices: 320 blocks at M = 32), on
/// 5120 x 6144, 6144 x 5120 and 8704 x 5120 0.86-0.99 at 32 and 64; with
/// fewer than 8 steps per warp (8-way splits of K = 5120 and 6144) the
/// sliced tilings lost to the unsliced ones (8704 x 5120 at M = 16: 19.0
/// against 15.9 us), and 8704 x 5120 at M = 64 (272 blocks, 2.1 per SM)
/// took 0.90-0.95 of its time with 2 slices.
constexpr int64_t kMinSlicedIterations = 6;
constexpr double kSlicedBlocksPerSM = 2.25;
/// The index of the fused variant to launch for an [m, k] x [n, k]^T
/// product on a GPU with `multiprocessors` SMs, or -1 when there is none.
/// `residentWarps[i]`, where given, is how many warps of variant i one SM
/// holds (the driver's occupancy).
///
/// Up to kSpecializedBUpToM, a variant with the weights as B whose grid of
/// at most kSpecializedBMaxTiles M tiles is one wave filling
/// kSpecializedBFillEighths of the SMs (the least passes
/// over the weights; a tile past A's edge by less than
/// 1 / kSpecializedBEdgeFraction of it), where one is compiled.
/// From kSpecializedFromM on, the specialized variant of least cost
/// (kSpecializedTileOverheadRows, kSpecializedEdgeFraction,
/// kSpecializedPastRowCost, kSpecializedOneWavePastRows; ties to the
/// larger M tile, then the fewer column tiles but where
/// kSpecializedWideFromM and kSpecializedWideBlocksPerSM take the more)
/// among the unsliced ones whose grid has a
/// block per kSMsPerSpecializedBlock SMs, where one is compiled, or its
/// sibling in two K slices (kSpecializedSlicedMaxMTile). Otherwise,
/// among the warp variants (all variants where none is one), the largest M tile
/// (up to the one that holds m) whose grid has enough blocks per SM (the
/// thresholds above; the 16-row tile always qualifies; where no grid of the
/// tile that holds m qualifies, first the tiles that cover m with the fewest
/// rows), and within it the
/// variant of the most warps over N that qualifies, then the one of most weight
/// rows per block, then the smaller split, then the deeper pipeline; where
/// that one's grid has fewer blocks than SMs, its sibling of the fewest
/// column tiles, else, where m fits one tile, the wave rule (kWaveFillRatio).
/// Specialized variants whose clusters share the activations (multicast >
/// 1) are never taken by these rules: each was slower than its single-block
/// sibling on every layer of the example model and M timed on the H100
/// (bench/README.md, "Activations shared across a cluster"); the override
/// runs them.
/// `m`, `n` and `k` positive.
inline int chooseFusedVariant(int64_t n, int64_t k, int64_t m,
                              int64_t multiprocessors,
                              const FusedVariantDesc *variants, int count,
                              const int *residentWarps = nullptr) {
  if (count <= 0 || n <= 0 || k <= 0 || m <= 0)
    return -1;
  int64_t sms = multiprocessors > 0 ? multiprocessors : 1;
  auto mTiles = [&](const FusedVariantDesc &v) {
    return (m + v.mTile - 1) / v.mTile;
  };
  auto blocks = [&](const FusedVariantDesc &v) {
    int64_t rows = 16 * int64_t(v.colTiles) * v.warpsN;
    return mTiles(v) * ((n + rows - 1) / rows) *
           (v.kSlices > 1 ? v.kSlices : 1);
  };
  // A specialized tiling's cost: its tiles' passes over the weights, each
  // of its rows plus kSpecializedTileOverheadRows. Tiles up to m stay
  // inside A (the last one ends at row m); a larger tile only where it
  // loads at most 1 / kSpecializedEdgeFraction of its rows past A's edge,
  // each weighing kSpecializedPastRowCost rows (at most
  // kSpecializedOneWavePastRows rows, weighing none, where its grid fits
  // the SMs; less than 1 / kSpecializedBEdgeFraction with the weights as
  // B); -1 where it may not serve m.
  auto weightsAsB = [](const FusedVariantDesc &v) {
    return v.warpgroup == kSpecializedForm && v.warpsN == 1;
  };
  auto cost = [&](const FusedVariantDesc &v) -> int64_t {
    int64_t pass = mTiles(v) * (v.mTile + kSpecializedTileOverheadRows);
    if (v.mTile <= m)
      return pass;
    int64_t past = v.mTile - m;
    if (weightsAsB(v))
      return past * kSpecializedBEdgeFraction >= v.mTile ? -1 : pass;
    if (blocks(v) <= sms)
      return past > kSpecializedOneWavePastRows ? -1 : pass;
    return past * kSpecializedEdgeFraction > v.mTile
               ? -1
               : pass + past * kSpecializedPastRowCost;
  };
  if (m <= kSpecializedBUpToM) {
    // The weights-as-B tiling of least cost among those `admits` takes.
    auto leastCostB = [&](auto admits) {
      int chosen = -1;
      int64_t chosenCost = 0;
      for (int i = 0; i < count; ++i) {
        const FusedVariantDesc &v = variants[i];
        int64_t c = cost(v);
        if (!weightsAsB(v) || v.multicast > 1 || c < 0 || !admits(v))
          continue;
        if (chosen < 0 || c < chosenCost) {
          chosen = i;
          chosenCost = c;
        }
      }
      return chosen;
    };
    // Of the grids of one wave that fill kSpecializedBFillEighths of the
    // SMs.
    int chosen = leastCostB([&](const FusedVariantDesc &v) {
      return blocks(v) <= sms &&
             8 * blocks(v) >= kSpecializedBFillEighths * sms &&
             mTiles(v) <= kSpecializedBMaxTiles;
    });
    if (chosen >= 0)
      return chosen;
    // Of the grids of several waves, one M tile from M = 65 that is more
    // than 1 / kSpecializedBManyWavesEdgeFraction past A's edge.
    if (m > 64)
      chosen = leastCostB([&](const FusedVariantDesc &v) {
        return blocks(v) > sms && mTiles(v) == 1 &&
               (v.mTile - m) * kSpecializedBManyWavesEdgeFraction > v.mTile;
      });
    if (chosen >= 0)
      return chosen;
  }
  if (m >= kSpecializedFromM) {
    int specialized = -1;
    int64_t chosenCost = 0;
    for (int i = 0; i < count; ++i) {
      const FusedVariantDesc &v = variants[i];
      int64_t c = cost(v);
      if (v.warpgroup != kSpecializedForm || weightsAsB(v) || v.multicast > 1 ||
          v.kSlices > 1 || c < 0 || blocks(v) * kSMsPerSpecializedBlock < sms)
        continue;
      if (specialized >= 0) {
        const FusedVariantDesc &w = variants[specialized];
        int64_t oneColumnBlocks = (m + v.mTile - 1) / v.mTile * ((n + 63) / 64);
        bool wide = v.mTile == kSpecializedWideMTile &&
                    m >= kSpecializedWideFromM &&
                    oneColumnBlocks >= kSpecializedWideBlocksPerSM * sms;
        bool better = c != chosenCost      ? c < chosenCost
                      : v.mTile != w.mTile ? v.mTile > w.mTile
                      : wide               ? v.colTiles > w.colTiles
                                           : v.colTiles < w.colTiles;
        if (!better)
          continue;
      }
      specialized = i;
      chosenCost = c;
    }
    if (specialized >= 0) {
      // Its sibling in two K slices (kSpecializedSlicedMaxMTile).
      const FusedVariantDesc &s = variants[specialized];
      if (s.mTile <= kSpecializedSlicedMaxMTile && blocks(s) < sms &&
          hasSpecializedSliceSteps(k))
        for (int i = 0; i < count; ++i) {
          const FusedVariantDesc &v = variants[i];
          if (v.warpgroup == kSpecializedForm && !weightsAsB(v) &&
              v.multicast == 1 && v.kSlices == 2 && v.mTile == s.mTile &&
              v.colTiles == s.colTiles && v.stages == s.stages)
            return i;
        }
      return specialized;
    }
  }
  auto slices = [](const FusedVariantDesc &v) -> int64_t {
    return v.kSlices > 1 ? v.kSlices : 1;
  };
  // A sliced tiling whose warps walk too few K steps is not taken.
  auto longEnough = [&](const FusedVariantDesc &v) {
    return slices(v) == 1 ||
           k / 128 / (int64_t(v.splitK) * slices(v)) >= kMinSlicedIterations;
  };
  bool anyWarp = false;
  for (int i = 0; i < count; ++i)
    anyWarp |= !variants[i].warpgroup;
  auto considered = [&](const FusedVariantDesc &v) {
    return (!anyWarp || !v.warpgroup) && longEnough(v);
  };
  auto qualifies = [&](const FusedVariantDesc &v) {
    double perSM = v.mTile >= 64   ? kBlocksPerSMForMTile64
                   : v.mTile >= 32 ? kBlocksPerSMForMTile32
                   : v.warpsN >= 2 ? kBlocksPerSMForTwoWarpsN
                                   : 0.0;
    return double(blocks(v)) >= perSM * double(sms);
  };
  // An M tile larger than needed only wastes rows: the smallest one that
  // holds m caps the choice.
  int cap = 0, smallest = 0;
  for (int i = 0; i < count; ++i) {
    if (!considered(variants[i]))
      continue;
    int tile = variants[i].mTile;
    if (tile >= m && (cap == 0 || tile < cap))
      cap = tile;
    if (smallest == 0 || tile < smallest)
      smallest = tile;
  }
  // Rows past m cost what rows inside do (they are zero-filled, not
  // skipped): where no tiling of the tile that holds m qualifies, the
  // tilings that cover m with the fewest rows come first.
  bool capQualifies = cap == 0;
  for (int i = 0; i < count; ++i)
    capQualifies |= considered(variants[i]) && variants[i].mTile == cap &&
                    qualifies(variants[i]);
  auto padded = [&](const FusedVariantDesc &v) {
    return (m + v.mTile - 1) / v.mTile * v.mTile;
  };
  int chosen = -1;
  for (int i = 0; i < count; ++i) {
    const FusedVariantDesc &v = variants[i];
    if (!considered(v) || (cap != 0 && v.mTile > cap))
      continue;
    if (v.mTile != smallest && !qualifies(v))
      continue;
    if (chosen < 0) {
      chosen = i;
      continue;
    }
    const FusedVariantDesc &c = variants[chosen];
    bool qualified = qualifies(v), chosenQualified = qualifies(c);
    int64_t rows = int64_t(v.colTiles) * v.warpsN,
            chosenRows = int64_t(c.colTiles) * c.warpsN;
    bool better = !capQualifies && padded(v) != padded(c)
                      ? padded(v) < padded(c)
                  : v.mTile != c.mTile           ? v.mTile > c.mTile
                  : qualified != chosenQualified ? qualified
                  : v.warpsN != c.warpsN
                      ? (qualified ? v.warpsN > c.warpsN : v.warpsN < c.warpsN)
                  : rows != chosenRows   ? rows > chosenRows
                  : v.splitK != c.splitK ? v.splitK < c.splitK
                  : v.stages != c.stages ? v.stages > c.stages
                                         : slices(v) < slices(c);
    if (better)
      chosen = i;
  }
  if (chosen < 0)
    return chosen;
  // Two variants of one tiling but for their column tiles or slices.
  auto sameShape = [](const FusedVariantDesc &v, const FusedVariantDesc &c) {
    return v.mTile == c.mTile && v.warpsN == c.warpsN && v.splitK == c.splitK &&
           v.stages == c.stages && v.warpgroup == c.warpgroup;
  };
  // Too few blocks: the sibling of the fewest slices that reaches
  // kSlicedBlocksPerSM, else the one of the most blocks.
  if (double(blocks(variants[chosen])) < kSlicedBlocksPerSM * double(sms)) {
    const FusedVariantDesc c = variants[chosen];
    int best = chosen;
    auto reaches = [&](int i) {
      return double(blocks(variants[i])) >= kSlicedBlocksPerSM * double(sms);
    };
    // Under one block per SM any split beats idle SMs, however short.
    bool idle = blocks(c) < sms;
    for (int i = 0; i < count; ++i) {
      const FusedVariantDesc &v = variants[i];
      if (i == chosen || (!considered(v) && !(idle && !v.warpgroup)) ||
          !sameShape(v, c) || v.colTiles != c.colTiles)
        continue;
      bool better = reaches(i) != reaches(best) ? reaches(i)
                    : reaches(i) ? slices(v) < slices(variants[best])
                                 : blocks(v) > blocks(variants[best]);
      if (better)
        best = i;
    }
    chosen = best;
  }
  const FusedVariantDesc c = variants[chosen];
  auto isSibling = [&](int i) {
    const FusedVariantDesc &v = variants[i];
    return i != chosen && sameShape(v, c) && v.kSlices == c.kSlices;
  };
  // A grid of fewer blocks than SMs leaves SMs idle, and its sibling of the
  // fewest column tiles has the most blocks (40 x 5120 on the H100: 3
  // one-column blocks took 0.76-0.88 of the time of 2 two-column ones at
  // every M from 16 to 256).
  if (blocks(c) < sms) {
    int best = chosen;
    for (int i = 0; i < count; ++i)
      if (isSibling(i) && variants[i].colTiles < variants[best].colTiles)
        best = i;
    return best;
  }
  // The wave rule was fitted where m fits one M tile; with more, the
  // sibling of more column tiles measured faster (rows past m zero-filled).
  if (!residentWarps || m > c.mTile)
    return chosen;
  // The fill of the last wave: blocks over the slots of every wave.
  auto fill = [&](int i) {
    const FusedVariantDesc &v = variants[i];
    int64_t perSM = residentWarps[i] / (int64_t(v.warpsN) * v.splitK);
    if (perSM <= 0)
      return 0.0;
    int64_t slots = perSM * sms, grid = blocks(v);
    return double(grid) / double((grid + slots - 1) / slots * slots);
  };
  // The margin keeps an exact ratio (a fill of 1 against 2/3) a tie.
  double needed = kWaveFillRatio * fill(chosen) + 1e-9, bestFill = needed;
  int best = chosen;
  for (int i = 0; i < count; ++i) {
    if (!isSibling(i))
      continue;
    double f = fill(i);
    if (f > bestFill) {
      best = i;
      bestFill = f;
    }
  }
  return best;
}

} // namespace qmat_policy

#endif // QMAT_AOT_FUSEDGEMMPOLICY_H
