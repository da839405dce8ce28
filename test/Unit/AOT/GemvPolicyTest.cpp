//===- GemvPolicyTest.cpp - The launcher's GEMV variant choice ------------===//
//
// Boundaries of qmat_policy::chooseGemvVariant on the variant table
// qmat-aot compiles by default (split-K 1..16 x column tiles 1, 2, 4 for
// M <= 8) and on restricted tables.
//
//===----------------------------------------------------------------------===//

#include "qmat/AOT/GemvPolicy.h"
#include "qmat/AOT/GemvReachability.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

using qmat_policy::chooseGemvVariant;
using qmat_policy::GemvVariantDesc;
using qmat_policy::WideTiles;

namespace {

std::vector<GemvVariantDesc> table(WideTiles wide,
                                   std::vector<int> capacities = {8},
                                   std::vector<int> colTiles = {1, 2, 4}) {
  std::vector<GemvVariantDesc> out;
  for (int capacity : capacities)
    for (int c : colTiles)
      for (int s : {1, 2, 4, 8, 16})
        out.push_back({capacity, s, c, true, wide});
  return out;
}

/// table() with unsplitOnManyTiles set on every variant.
std::vector<GemvVariantDesc> unsplitTable(WideTiles wide) {
  std::vector<GemvVariantDesc> out = table(wide);
  for (GemvVariantDesc &v : out)
    v.unsplitOnManyTiles = true;
  return out;
}

/// (split_k, col_tiles, max_m) of the choice, or all -1.
struct Choice {
  int splitK, colTiles, maxM;
  bool operator==(const Choice &o) const {
    return splitK == o.splitK && colTiles == o.colTiles && maxM == o.maxM;
  }
};
std::ostream &operator<<(std::ostream &os, const Choice &c) {
  return os << "split_k " << c.splitK << ", col_tiles " << c.colTiles
            << ", max_m " << c.maxM;
}

/// Warps of a `threads`-thread kernel using `registers` per thread that one
/// H200 SM holds, as the driver's occupancy query computes it (64 K
/// registers allocated per warp in units of 256, at most 32 blocks).
int residentOnH200(int registers, int threads) {
  int perWarp = (registers * 32 + 255) / 256 * 256;
  int warpsPerBlock = threads / 32;
  int blocks = std::min(65536 / perWarp / warpsPerBlock, 32);
  return blocks * warpsPerBlock;
}

/// Registers of the nvfp4 bf16 max_m = 8 kernels for sm_90 (ptxas -v,
/// 2026-11-30), by split-K and column tiles.
int nvfp4Registers(int splitK, int colTiles) {
  static const std::map<std::pair<int, int>, int> registers = {
      {{1, 1}, 59},  {{2, 1}, 56},  {{4, 1}, 56},  {{8, 1}, 57},
      {{16, 1}, 84}, {{1, 2}, 113}, {{2, 2}, 72},  {{4, 2}, 72},
      {{8, 2}, 80},  {{16, 2}, 98}, {{1, 4}, 157}, {{2, 4}, 108},
      {{4, 4}, 108}, {{8, 4}, 108}, {{16, 4}, 104}};
  return registers.at({splitK, colTiles});
}

/// Registers of the nvfp4 bf16 whole-line kernels (K = 5120) for sm_90
/// (ptxas -v, 2026-11-30, split-K 3 build): split-K 2 to 8 ask for the 64-register
/// budget (1024 resident threads), 1 and 16 do not.
int nvfp4WholeLineRegisters(int splitK) {
  static const std::map<int, int> registers = {{1, 78}, {2, 64}, {3, 64},
                                               {4, 64}, {8, 64}, {16, 90}};
  return registers.at(splitK);
}

/// The variant chosen with the nvfp4 kernels' H200 occupancy, or with
/// `warps` resident warps for every variant when warps >= 0 (0: unknown).
Choice choose(const std::vector<GemvVariantDesc> &variants, int64_t n,
              int64_t k, int64_t m, int64_t sms, int warps = -1) {
  std::vector<int> resident;
  for (const GemvVariantDesc &v : variants)
    resident.push_back(
        warps >= 0 ? warps
                   : residentOnH200(v.wholeLines
                                        ? nvfp4WholeLineRegisters(v.splitK)
                                        : nvfp4Registers(v.splitK, v.colTiles),
                                    32 * v.splitK));
  int i = chooseGemvVariant(n, k, m, sms, variants.data(), int(variants.size()),
                            resident.data());
  if (i < 0)
    return {-1, -1, -1};
  return {variants[i].splitK, variants[i].colTiles, variants[i].maxM};
}

TEST(GemvPolicy, Gate17408OnH200) {
  // Split 4 (56 registers, 36 resident warps): 1088 tiles x 4 warps = 4352
  // fit one round of 132 x 36 = 4752, 10 steps each; split 8 (32 resident
  // in blocks of 8) needs 3 rounds of 5.
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 5120, 1, 132),
            (Choice{4, 1, 8}));
  EXPECT_EQ(choose(table(WideTiles::manyTilesOrRows), 17408, 5120, 1, 132),
            (Choice{4, 1, 8}));
  // Wide tiles from M = 4: 544 tiles x 4 = 2176 warps, one round of 10
  // (split 8 at 24 resident warps: 2 rounds of 5, a tie the smaller wins).
  EXPECT_EQ(choose(table(WideTiles::manyTilesOrRows), 17408, 5120, 3, 132),
            (Choice{4, 1, 8}));
  EXPECT_EQ(choose(table(WideTiles::manyTilesOrRows), 17408, 5120, 4, 132),
            (Choice{4, 2, 8}));
  EXPECT_EQ(choose(table(WideTiles::manyTilesOrRows), 17408, 5120, 8, 132),
            (Choice{4, 2, 8}));
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 5120, 8, 132),
            (Choice{4, 1, 8}));
}

TEST(GemvPolicy, JustPastAWaveSplitsMore) {
  // 32 resident warps (int4's 58 registers): 4352 warps are 1.03 waves,
  // 2 rounds x 10 steps; split 8 is 3 rounds x 5 (measured 11% faster).
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 5120, 1, 132, 32),
            (Choice{8, 1, 8}));
  // Unknown occupancy is taken as 32 resident warps.
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 5120, 1, 132, 0),
            (Choice{8, 1, 8}));
  std::vector<GemvVariantDesc> variants = table(WideTiles::never);
  EXPECT_EQ(chooseGemvVariant(17408, 5120, 1, 132, variants.data(),
                              int(variants.size()), nullptr),
            chooseGemvVariant(17408, 5120, 1, 132, variants.data(),
                              int(variants.size()),
                              std::vector<int>(variants.size(), 32).data()));
  // Per-variant occupancy: split 4 at 36 warps, the others at 32.
  std::vector<int> mixed(variants.size(), 32);
  for (size_t i = 0; i < variants.size(); ++i)
    if (variants[i].splitK == 4 && variants[i].colTiles == 1)
      mixed[i] = 36;
  int i = chooseGemvVariant(17408, 5120, 1, 132, variants.data(),
                            int(variants.size()), mixed.data());
  EXPECT_EQ(variants[i].splitK, 4);
}

TEST(GemvPolicy, LongKSplitsMore) {
  // K = 8192: 64 steps, at most 10 per warp -> split-K 8 (3 rounds of 8
  // steps; split 16 at 16 resident warps is 9 rounds of 4).
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 8192, 1, 132),
            (Choice{8, 1, 8}));
  // K = 32768: 256 steps; no compiled split keeps 10 per warp: the fewest
  // wave-steps, 1 round x 64 (split 4; split 8: 3 x 32, 16: 9 x 16).
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 32768, 1, 132),
            (Choice{4, 1, 8}));
}

TEST(GemvPolicy, SmallerPartNeedsLessSplit) {
  // K = 2048 (16 steps): split 4 is one round of 4 steps on 132 SMs.
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 2048, 1, 132),
            (Choice{4, 1, 8}));
  // 64 SMs (2304 warps a round at 36): split 2 is 1 round of 8, split 4
  // 2 rounds of 4: a tie the smaller split wins.
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 2048, 1, 64),
            (Choice{2, 1, 8}));
  // K = 5120 on 64 SMs: split 4 is 2 rounds x 10, split 8 5 rounds x 5.
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 5120, 1, 64),
            (Choice{4, 1, 8}));
}

TEST(GemvPolicy, LmHead) {
  // 15520 tiles: split 4 is 14 rounds x 10 (split 8: 30 x 5; split 2
  // keeps 20 steps per warp).
  EXPECT_EQ(choose(table(WideTiles::never), 248320, 5120, 1, 132),
            (Choice{4, 1, 8}));
  // 7760 two-tile blocks, 59 per SM (>= 16): two tiles at any M where the
  // kernel gains from them, split 4 (9 rounds x 10 at 28 resident warps).
  EXPECT_EQ(choose(table(WideTiles::manyTiles), 248320, 5120, 1, 132),
            (Choice{4, 2, 8}));
  EXPECT_EQ(choose(table(WideTiles::manyTilesOrRows), 248320, 5120, 1, 132),
            (Choice{4, 2, 8}));
  EXPECT_EQ(choose(table(WideTiles::manyTilesOrRows), 248320, 5120, 8, 132),
            (Choice{4, 2, 8}));
  // nvfp4: four tiles at every M (3880 blocks, 29 per SM), many waves: the
  // smallest split within the four-tile cap of 20 steps, 2 (split 1 walks
  // 40; by wave-steps split 8 would win, 15 rounds x 5 against 4 x 20).
  for (int64_t m : {1, 4, 8})
    EXPECT_EQ(choose(table(WideTiles::fourOnManyTiles), 248320, 5120, m, 132),
              (Choice{2, 4, 8}));
  // Without four-tile variants the nearest, two tiles, as before.
  EXPECT_EQ(choose(table(WideTiles::fourOnManyTiles, {8}, {1, 2}), 248320, 5120,
                   8, 132),
            (Choice{4, 2, 8}));
}

/// nvfp4's table with the whole-line tier (row capacity 4, one tile) ahead
/// of the 16-row kernels.
std::vector<GemvVariantDesc> wholeLineTable() {
  std::vector<GemvVariantDesc> out;
  for (int s : {1, 2, 3, 4, 8, 16})
    out.push_back({4, s, 1, true, WideTiles::never, /*wholeLines=*/true});
  for (const GemvVariantDesc &v : table(WideTiles::fourOnManyTiles))
    out.push_back(v);
  return out;
}

TEST(GemvPolicy, WholeLineTier) {
  // M <= 4: one tile, the smallest split whose warps walk at most 5 of
  // the 20 256-element steps of K = 5120 and whose grid fits one round:
  // 8704 rows at split 4 (2176 warps, 5 steps; 32 resident warps x 132).
  for (int64_t m : {1, 2, 4})
    EXPECT_EQ(choose(wholeLineTable(), 8704, 5120, m, 132), (Choice{4, 1, 4}));
  // 17408 rows: split 4's 4352 warps need a second round (4224 per round),
  // split 3's 3264 fit one (30 resident in blocks of 3) at 7 steps, 2 past
  // the cap.
  for (int64_t m : {1, 2, 4})
    EXPECT_EQ(choose(wholeLineTable(), 17408, 5120, m, 132), (Choice{3, 1, 4}));
  // Without split 3 compiled: split 4, though wave-steps would take 8.
  std::vector<GemvVariantDesc> withoutThree;
  for (const GemvVariantDesc &v : wholeLineTable())
    if (v.splitK != 3)
      withoutThree.push_back(v);
  EXPECT_EQ(choose(withoutThree, 17408, 5120, 1, 132), (Choice{4, 1, 4}));
  // K = 6144 (24 steps): split 3 walks 8, 3 past the cap: the capped
  // split 8 (3 steps), however many rounds.
  EXPECT_EQ(choose(wholeLineTable(), 17408, 6144, 1, 132), (Choice{8, 1, 4}));
  // From M = 5 the 16-row kernels, as before.
  EXPECT_EQ(choose(wholeLineTable(), 17408, 5120, 5, 132), (Choice{4, 2, 8}));
  // K = 5376 (21 steps): split 4 walks 6 in two rounds, split 3 7 in one.
  EXPECT_EQ(choose(wholeLineTable(), 17408, 5376, 1, 132), (Choice{3, 1, 4}));
  EXPECT_EQ(choose(withoutThree, 17408, 5376, 1, 132), (Choice{8, 1, 4}));
  EXPECT_EQ(choose(wholeLineTable(), 17408, 8192, 1, 132), (Choice{8, 1, 4}));
  // Many tiles (>= 16 two-tile blocks per SM: 67553 rows on 132 SMs): the
  // 10-step cap, split 2.
  EXPECT_EQ(choose(wholeLineTable(), 67584, 5120, 1, 132), (Choice{2, 1, 4}));
  EXPECT_EQ(choose(wholeLineTable(), 67552, 5120, 1, 132), (Choice{4, 1, 4}));
  for (int64_t m : {1, 4})
    EXPECT_EQ(choose(wholeLineTable(), 248320, 5120, m, 132),
              (Choice{2, 1, 4}));
  EXPECT_EQ(choose(wholeLineTable(), 248320, 5120, 8, 132), (Choice{2, 4, 8}));
  // K = 25600 (100 steps): no split keeps 5; the one nearest the cap,
  // split 16 (7 steps), not the smallest.
  EXPECT_EQ(choose(wholeLineTable(), 5120, 25600, 1, 132), (Choice{16, 1, 4}));
}

TEST(GemvPolicy, FourTilesOnlyOnManyTiles) {
  // 17408 rows are not many tiles: one tile below M = 4, two from it.
  EXPECT_EQ(choose(table(WideTiles::fourOnManyTiles), 17408, 5120, 3, 132),
            (Choice{4, 1, 8}));
  EXPECT_EQ(
      choose(table(WideTiles::fourOnManyTiles), 17408, 5120, 4, 132).colTiles,
      2);
  // 16 four-tile blocks per SM on 132 SMs: 2112 blocks, 135168 rows take
  // four tiles; 64 rows fewer leave 2111 four-tile blocks but 4222
  // two-tile ones (>= 16 per SM): two tiles, as manyTilesOrRows.
  EXPECT_EQ(
      choose(table(WideTiles::fourOnManyTiles), 135168, 5120, 1, 132).colTiles,
      4);
  EXPECT_EQ(
      choose(table(WideTiles::fourOnManyTiles), 135104, 5120, 1, 132).colTiles,
      2);
  // Below many two-tile blocks (67584 rows): one tile at M = 1.
  EXPECT_EQ(
      choose(table(WideTiles::fourOnManyTiles), 67552, 5120, 1, 132).colTiles,
      1);
}

TEST(GemvPolicy, WideTilesBoundaries) {
  // 16 two-tile blocks per SM on 132 SMs: 2112 blocks, 67584 rows.
  EXPECT_EQ(choose(table(WideTiles::manyTiles), 67584, 5120, 1, 132).colTiles,
            2);
  EXPECT_EQ(choose(table(WideTiles::manyTiles), 67552, 5120, 1, 132).colTiles,
            1);
  // manyTiles ignores M; manyTilesOrRows takes two tiles from M = 4.
  EXPECT_EQ(choose(table(WideTiles::manyTiles), 17408, 5120, 8, 132).colTiles,
            1);
  EXPECT_EQ(
      choose(table(WideTiles::manyTilesOrRows), 17408, 5120, 3, 132).colTiles,
      1);
  EXPECT_EQ(
      choose(table(WideTiles::manyTilesOrRows), 17408, 5120, 4, 132).colTiles,
      2);
  // manyTilesFromRows (the fp32 decode) needs both: the lm_head from M = 4.
  EXPECT_EQ(choose(table(WideTiles::manyTilesFromRows), 248320, 5120, 3, 132)
                .colTiles,
            1);
  EXPECT_EQ(choose(table(WideTiles::manyTilesFromRows), 248320, 5120, 4, 132)
                .colTiles,
            2);
  EXPECT_EQ(
      choose(table(WideTiles::manyTilesFromRows), 17408, 5120, 8, 132).colTiles,
      1);
  // Its two-tile variants on many-tile layers take the smallest split
  // within 10 steps (split 4), not wave-steps' choice; one tile (M = 3)
  // still by wave-steps, the same answer for the same data.
  for (int64_t m : {4, 8})
    EXPECT_EQ(
        choose(table(WideTiles::manyTilesFromRows), 248320, 5120, m, 132, 28),
        (Choice{4, 2, 8}));
  EXPECT_EQ(
      choose(table(WideTiles::manyTilesFromRows), 248320, 5120, 3, 132, 28),
      choose(table(WideTiles::never), 248320, 5120, 3, 132, 28));
  // unsplitOnManyTiles with manyTilesFromRows (fp8 with f16 activations):
  // the same tiles, and its two-tile variants split-K 1 however long K; one
  // tile (M = 3) as without it; a layer of few tiles never takes two.
  for (int64_t m : {4, 8})
    for (int64_t k : {5120, 32768})
      EXPECT_EQ(choose(unsplitTable(WideTiles::manyTilesFromRows), 248320, k, m,
                       132, 28),
                (Choice{1, 2, 8}));
  EXPECT_EQ(
      choose(unsplitTable(WideTiles::manyTilesFromRows), 248320, 5120, 3, 132,
             28),
      choose(table(WideTiles::manyTilesFromRows), 248320, 5120, 3, 132, 28));
  EXPECT_EQ(
      choose(unsplitTable(WideTiles::manyTilesFromRows), 17408, 5120, 8, 132,
             28),
      choose(table(WideTiles::manyTilesFromRows), 17408, 5120, 8, 132, 28));
  // With manyTilesOrRows (prepared nvfp4 with f16 activations): split-K 1
  // on the lm_head at every M, where wave-steps took split-K 8; at 17408
  // rows (not many tiles) two tiles from M = 4 by wave-steps, as without it.
  for (int64_t m : {1, 4, 8})
    EXPECT_EQ(choose(unsplitTable(WideTiles::manyTilesOrRows), 248320, 5120, m,
                     132, 28),
              (Choice{1, 2, 8}));
  EXPECT_EQ(
      choose(unsplitTable(WideTiles::manyTilesOrRows), 17408, 5120, 8, 132, 28),
      choose(table(WideTiles::manyTilesOrRows), 17408, 5120, 8, 132, 28));
  EXPECT_EQ(
      choose(unsplitTable(WideTiles::manyTilesOrRows), 17408, 5120, 8, 132, 28)
          .colTiles,
      2);
  // With manyTiles (prepared int4, f16 activations): split-K 1 on the lm_head,
  // one tile at 17408 rows whatever M.
  EXPECT_EQ(
      choose(unsplitTable(WideTiles::manyTiles), 248320, 5120, 8, 132, 28),
      (Choice{1, 2, 8}));
  EXPECT_EQ(choose(unsplitTable(WideTiles::manyTiles), 17408, 5120, 8, 132, 28)
                .colTiles,
            1);
  // manyTilesOrRows keeps wave-steps on the same layer: split 8 at 28
  // resident warps (7760 blocks x 8 warps: 17 rounds of 5 against 9 of 10).
  EXPECT_EQ(choose(table(WideTiles::manyTilesOrRows), 248320, 5120, 4, 132, 28),
            (Choice{8, 2, 8}));
  // Past the cap (K = 32768, 256 steps), the split nearest it.
  EXPECT_EQ(
      choose(table(WideTiles::manyTilesFromRows), 248320, 32768, 8, 132, 28),
      (Choice{16, 2, 8}));
  // A smaller part has fewer SMs to fill: 17408 rows are 544 blocks, 17 per
  // SM on 32 SMs.
  EXPECT_EQ(choose(table(WideTiles::manyTiles), 17408, 5120, 1, 32).colTiles,
            2);
}

TEST(GemvPolicy, SmallNTakesTheMostWarps) {
  // N = 40: 3 tiles, one round at any split: the largest split whose warps
  // keep two steps (16: 3 steps each).
  EXPECT_EQ(choose(table(WideTiles::never), 40, 5120, 1, 132),
            (Choice{16, 1, 8}));
  // K = 256: 2 steps; split 2 leaves one step per warp, so no split.
  EXPECT_EQ(choose(table(WideTiles::never), 40, 256, 1, 132),
            (Choice{1, 1, 8}));
}

TEST(GemvPolicy, RowCapacity) {
  auto wide = table(WideTiles::never, {8, 16, 32, 64}, {1});
  EXPECT_EQ(choose(wide, 2048, 5120, 8, 132).maxM, 8);
  EXPECT_EQ(choose(wide, 2048, 5120, 9, 132).maxM, 16);
  EXPECT_EQ(choose(wide, 2048, 5120, 33, 132).maxM, 64);
  EXPECT_EQ(choose(wide, 2048, 5120, 65, 132), (Choice{-1, -1, -1}));
  EXPECT_EQ(choose(table(WideTiles::never), 2048, 5120, 9, 132),
            (Choice{-1, -1, -1}));
}

TEST(GemvPolicy, NearestCompiledTiling) {
  // Wide M = 8 wants two tiles; only one and four exist: one is as near
  // and comes first.
  auto oneOrFour = table(WideTiles::manyTilesOrRows, {8}, {1, 4});
  EXPECT_EQ(choose(oneOrFour, 17408, 5120, 8, 132).colTiles, 1);
  auto onlyFour = table(WideTiles::manyTilesOrRows, {8}, {4});
  EXPECT_EQ(choose(onlyFour, 17408, 5120, 8, 132).colTiles, 4);
}

TEST(GemvPolicy, ScalarAndBadArguments) {
  std::vector<GemvVariantDesc> scalar = {{8, 1, 1, false, WideTiles::never}};
  EXPECT_EQ(choose(scalar, 2048, 1000, 3, 132), (Choice{1, 1, 8}));
  EXPECT_EQ(choose(table(WideTiles::never), 0, 5120, 1, 132),
            (Choice{-1, -1, -1}));
  EXPECT_EQ(choose(table(WideTiles::never), 2048, 0, 1, 132),
            (Choice{-1, -1, -1}));
  EXPECT_EQ(chooseGemvVariant(2048, 5120, 1, 132, nullptr, 0), -1);
  // An unknown SM count (0) counts as one SM rather than dividing by zero.
  EXPECT_EQ(choose(table(WideTiles::never), 17408, 5120, 1, 0),
            choose(table(WideTiles::never), 17408, 5120, 1, 1));
}

} // namespace

namespace {

std::vector<int> reachableOf(int64_t n, int64_t k, int64_t maxM,
                             const std::vector<GemvVariantDesc> &variants) {
  std::unique_ptr<bool[]> reachable(new bool[variants.size()]);
  qmat_policy::reachableGemvVariants(n, k, maxM, variants.data(),
                                     int(variants.size()), reachable.get());
  std::vector<int> out;
  for (int i = 0; i < int(variants.size()); ++i)
    if (reachable[i])
      out.push_back(i);
  return out;
}

} // namespace

// The example model's layers keep 4 to 9 of their 21 variants: no
// whole-line split-K 1 (20 or more 256-element steps per warp, past every
// cap), no 16-row variant of one column tile (m >= 5 always wants two or
// four), and of the rest only splits whose steps per warp some device's
// rounds of resident warps favour.
TEST(GemvPolicy, ReachableOnTheExampleModel) {
  std::vector<GemvVariantDesc> t = wholeLineTable();
  // Indices: 0-5 whole lines (split-K 1, 2, 3, 4, 8, 16); 6-10 one column
  // tile, 11-15 two, 16-20 four (split-K 1, 2, 4, 8, 16 each).
  EXPECT_EQ(reachableOf(6144, 5120, 8, t),
            (std::vector<int>{1, 2, 3, 4, 5, 13, 14, 15, 17}));
  EXPECT_EQ(reachableOf(5120, 6144, 8, t),
            (std::vector<int>{1, 2, 3, 4, 5, 14, 15, 18}));
  EXPECT_EQ(reachableOf(17408, 5120, 8, t),
            (std::vector<int>{1, 2, 3, 4, 5, 13, 14, 15, 17}));
  EXPECT_EQ(reachableOf(5120, 17408, 8, t), (std::vector<int>{4, 5, 15, 19}));
  // Whole lines at split-K 8 and 16 win on the lm_head only where their
  // grid fits one round and split-K 4's does not: above 1024 SMs.
  EXPECT_EQ(reachableOf(248320, 5120, 8, t),
            (std::vector<int>{1, 2, 3, 4, 5, 13, 14, 15, 17}));
  // A GEMV range of 4 rows reaches the whole-line tier only.
  EXPECT_EQ(reachableOf(6144, 5120, 4, t), (std::vector<int>{1, 2, 3, 4, 5}));
  // Nothing is reachable without rows or a shape.
  EXPECT_EQ(reachableOf(0, 5120, 8, t), std::vector<int>{});
  EXPECT_EQ(reachableOf(6144, 5120, 0, t), std::vector<int>{});
}

// The property the bundle relies on: on any device (multiprocessor count,
// each variant's residency) and any m, the choice among the reachable
// variants is the choice among all of them.
TEST(GemvPolicy, ReachableVariantsKeepEveryChoice) {
  std::vector<std::vector<GemvVariantDesc>> tables = {
      wholeLineTable(), table(WideTiles::manyTilesOrRows, {8, 16, 32}),
      table(WideTiles::manyTilesFromRows), unsplitTable(WideTiles::manyTiles)};
  const int64_t shapes[][2] = {{6144, 5120},   {5120, 6144},   {17408, 5120},
                               {5120, 17408},  {248320, 5120}, {4096, 14336},
                               {128256, 4096}, {96, 256},      {40, 1000}};
  uint64_t state = 12345;
  auto next = [&](int64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return int64_t((state >> 33) % uint64_t(bound));
  };
  int checked = 0;
  for (const std::vector<GemvVariantDesc> &all : tables)
    for (const auto &shape : shapes) {
      int64_t n = shape[0], k = shape[1], maxM = all.back().maxM;
      std::vector<int> kept = reachableOf(n, k, maxM, all);
      ASSERT_FALSE(kept.empty());
      std::vector<GemvVariantDesc> pruned;
      for (int i : kept)
        pruned.push_back(all[i]);
      for (int trial = 0; trial < 3000; ++trial) {
        int64_t m = 1 + next(maxM);
        int64_t sms = trial % 3 == 0 ? 1 + next(4096) : 1 + next(200);
        std::vector<int> resident(all.size());
        for (int &r : resident)
          r = int(1 + next(qmat_policy::kMaxResidentWarps));
        std::vector<int> prunedResident;
        for (int i : kept)
          prunedResident.push_back(resident[i]);
        int full = chooseGemvVariant(n, k, m, sms, all.data(), int(all.size()),
                                     resident.data());
        int fromKept =
            chooseGemvVariant(n, k, m, sms, pruned.data(), int(pruned.size()),
                              prunedResident.data());
        ASSERT_GE(fromKept, 0);
        ASSERT_EQ(full, kept[fromKept])
            << n << " x " << k << ", m " << m << ", " << sms << " SMs";
        ++checked;
      }
    }
  EXPECT_EQ(checked, 4 * 9 * 3000);
}
