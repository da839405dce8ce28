//===- FusedGemmPolicyTest.cpp - The launcher's fused variant choice ------===//
//
// Boundaries of qmat_policy::chooseFusedVariant on the variant table qmat-aot
// compiles by default (getDefaultFusedGemmTiles) and on restricted tables,
// on 132 SMs (the H200) unless a test says otherwise.
//
//===----------------------------------------------------------------------===//

#include "qmat/AOT/FusedGemmPolicy.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using qmat_policy::chooseFusedVariant;
using qmat_policy::FusedVariantDesc;

namespace {

/// The default set, in its compiled order.
const std::vector<FusedVariantDesc> kDefault = {
    {16, 1, 4, 2, 1}, {16, 2, 2, 2, 1}, {32, 2, 2, 2, 1}, {64, 4, 1, 2, 1}};

/// The default set with the one-column-tile siblings of its first and third
/// tilings (the wave rule's), and how many warps of each one H200 SM holds
/// (the registers ptxas gives them: 124, 124, 144, 216, 82, 100).
const std::vector<FusedVariantDesc> kWithSiblings = {
    {16, 1, 4, 2, 2}, {16, 2, 2, 2, 2}, {32, 2, 2, 2, 2},
    {64, 4, 1, 2, 2}, {16, 1, 4, 1, 2}, {32, 2, 2, 1, 2}};
const std::vector<int> kResidentWarps = {16, 16, 12, 8, 20, 16};

std::string chosen(int64_t n, int64_t k, int64_t m,
                   const std::vector<FusedVariantDesc> &table = kDefault,
                   int64_t sms = 132, const int *residentWarps = nullptr) {
  int i = chooseFusedVariant(n, k, m, sms, table.data(), int(table.size()),
                             residentWarps);
  if (i < 0)
    return "none";
  const FusedVariantDesc &v = table[i];
  return "mt" + std::to_string(v.mTile) + "_w" + std::to_string(v.warpsN) +
         "_s" + std::to_string(v.splitK) + "_c" + std::to_string(v.colTiles) +
         (v.stages > 1 ? "_p" + std::to_string(v.stages) : "") +
         (v.warpgroup == qmat_policy::kSpecializedForm ? "_ws"
          : v.warpgroup                                ? "_wg"
                                                       : "") +
         (v.kSlices > 1 ? "_k" + std::to_string(v.kSlices) : "") +
         (v.multicast > 1 ? "_x" + std::to_string(v.multicast) : "");
}

/// The choice among kWithSiblings with the H200's occupancy.
std::string withOccupancy(int64_t n, int64_t k, int64_t m) {
  return chosen(n, k, m, kWithSiblings, 132, kResidentWarps.data());
}

} // namespace

// Every layer of the example model at the M the fused path takes by
// default, against the variant measured fastest (or within 10 %).
TEST(FusedGemmPolicy, ExampleModelOnH200) {
  // qkv 6144 x 5120: 16-row tiles up to M = 64 (a 32-row grid has 1.45
  // blocks per SM), 32-row tiles at M = 128 (2.9).
  EXPECT_EQ(chosen(6144, 5120, 9), "mt16_w1_s4_c2");
  EXPECT_EQ(chosen(6144, 5120, 32), "mt16_w1_s4_c2");
  EXPECT_EQ(chosen(6144, 5120, 64), "mt16_w1_s4_c2");
  EXPECT_EQ(chosen(6144, 5120, 128), "mt32_w2_s2_c2");
  // gate_up 17408 x 5120: 32-row tiles from M = 17 (272 blocks, 2.06 per
  // SM at M = 32); the 64-row grid at M = 128 has 272 blocks, under 4 per SM.
  EXPECT_EQ(chosen(17408, 5120, 16), "mt16_w1_s4_c2");
  EXPECT_EQ(chosen(17408, 5120, 17), "mt32_w2_s2_c2");
  EXPECT_EQ(chosen(17408, 5120, 64), "mt32_w2_s2_c2");
  EXPECT_EQ(chosen(17408, 5120, 128), "mt32_w2_s2_c2");
  // down 5120 x 17408: 80 32-row blocks per M tile, 1.5 per SM only from
  // M = 65 (3 M tiles).
  EXPECT_EQ(chosen(5120, 17408, 64), "mt16_w1_s4_c2");
  EXPECT_EQ(chosen(5120, 17408, 65), "mt32_w2_s2_c2");
  EXPECT_EQ(chosen(5120, 17408, 96), "mt32_w2_s2_c2");
  // lm_head 248320 x 5120: 3880 two-warp 16-row blocks (29 per SM), then
  // 32-row and from M = 33 the 64-row tiles.
  EXPECT_EQ(chosen(248320, 5120, 16), "mt16_w2_s2_c2");
  EXPECT_EQ(chosen(248320, 5120, 32), "mt32_w2_s2_c2");
  EXPECT_EQ(chosen(248320, 5120, 33), "mt64_w4_s1_c2");
  EXPECT_EQ(chosen(248320, 5120, 128), "mt64_w4_s1_c2");
}

// Two-warp 16-row blocks need 8 per SM: 16 x 132 x 64 rows is the edge at
// one M tile.
TEST(FusedGemmPolicy, TwoWarpsNThreshold) {
  int64_t edge = 8 * 132 * 64;
  EXPECT_EQ(chosen(edge, 5120, 16), "mt16_w2_s2_c2");
  EXPECT_EQ(chosen(edge - 64, 5120, 16), "mt16_w1_s4_c2");
  // Fewer SMs, the same layer: more blocks per SM.
  EXPECT_EQ(chosen(edge - 64, 5120, 16, kDefault, 100), "mt16_w2_s2_c2");
}

// Larger M only adds M tiles: a 64-row tile qualifies at 4 blocks per SM.
TEST(FusedGemmPolicy, LargeM) {
  // 17408 rows are 136 64-row blocks per M tile: 4 per SM (528) from 4 M
  // tiles (M > 192).
  EXPECT_EQ(chosen(17408, 5120, 192), "mt32_w2_s2_c2");
  EXPECT_EQ(chosen(17408, 5120, 193), "mt64_w4_s1_c2");
  EXPECT_EQ(chosen(17408, 5120, 256), "mt64_w4_s1_c2");
  EXPECT_EQ(chosen(17408, 5120, 4096), "mt64_w4_s1_c2");
}

// A table without the 16-row tiles still answers; an empty one or a
// non-positive shape has none.
TEST(FusedGemmPolicy, RestrictedTables) {
  std::vector<FusedVariantDesc> only64 = {{64, 4, 1, 2, 1}};
  EXPECT_EQ(chosen(64, 5120, 9, only64), "mt64_w4_s1_c2");
  std::vector<FusedVariantDesc> large = {{32, 2, 2, 2, 1}, {64, 4, 1, 2, 1}};
  // The smallest compiled tile always qualifies, however few its blocks.
  EXPECT_EQ(chosen(64, 5120, 100, large), "mt32_w2_s2_c2");
  EXPECT_EQ(chosen(64, 5120, 9, {}), "none");
  EXPECT_EQ(chosen(0, 5120, 9), "none");
  EXPECT_EQ(chosen(64, 0, 9), "none");
  EXPECT_EQ(chosen(64, 5120, 0), "none");
}

// Ties in the M tile and warps go to the most rows per block, then the
// smaller split, then the deeper pipeline.
TEST(FusedGemmPolicy, Ties) {
  std::vector<FusedVariantDesc> table = {
      {16, 1, 4, 1, 1}, {16, 1, 4, 2, 1}, {16, 1, 2, 2, 1}};
  EXPECT_EQ(chosen(6144, 5120, 16, table), "mt16_w1_s2_c2");
  std::vector<FusedVariantDesc> pipelined = {
      {16, 1, 2, 2, 3}, {16, 1, 2, 2, 1}, {16, 1, 2, 2, 2}};
  EXPECT_EQ(chosen(6144, 5120, 16, pipelined), "mt16_w1_s2_c2_p3");
}

// Warpgroup variants: never over a warp variant (the lm_head's grids have 7
// and 15 blocks per SM at M = 64 and 128, and 33792 rows 4 at M = 128); the
// warp variants choose as without them, and all variants where only
// warpgroup ones are compiled.
TEST(FusedGemmPolicy, Warpgroup) {
  std::vector<FusedVariantDesc> table = kDefault;
  table.push_back({64, 4, 1, 2, 3, 1});
  table.push_back({64, 8, 1, 2, 3, 1});
  for (int64_t m : {16, 63, 64, 100, 128}) {
    EXPECT_EQ(chosen(248320, 5120, m, table), chosen(248320, 5120, m));
    EXPECT_EQ(chosen(17408, 5120, m, table), chosen(17408, 5120, m));
    EXPECT_EQ(chosen(33792, 5120, m, table), chosen(33792, 5120, m));
  }
  std::vector<FusedVariantDesc> onlyGroups = {{16, 4, 2, 2, 2, 1},
                                              {64, 4, 1, 1, 2, 1}};
  EXPECT_EQ(chosen(6144, 5120, 16, onlyGroups), "mt16_w4_s2_c2_p2_wg");
  // 192 blocks of the 64-row tile: under the 4 per SM it needs.
  EXPECT_EQ(chosen(6144, 5120, 100, onlyGroups), "mt16_w4_s2_c2_p2_wg");
  EXPECT_EQ(chosen(40960, 5120, 100, onlyGroups), "mt64_w4_s1_c1_p2_wg");
}

// Tilings whose K is split across a cluster's blocks compete with the warp
// tilings, their grids counting every block (5120 x 17408 at M = 32: 80
// tiles of 64 rows, 320 blocks in 4 slices, past the 1.5 per SM a 32-row
// tile needs), where each warp walks at least 6 K steps (K = 5120 in 8
// slices of split-K and clusters walks 5: not taken); alike but for their
// slices, the fewer first; then a grid under 2.25 blocks per SM takes the
// sibling of the fewest slices that reaches it (8704 x 5120 at M = 64: 272
// blocks, 2 slices), and one under one block per SM the sibling of the
// most blocks whatever its steps (40 x 5120: 3 blocks, 6 with 2 slices).
TEST(FusedGemmPolicy, KSlices) {
  std::vector<FusedVariantDesc> table = kWithSiblings;
  for (FusedVariantDesc v : std::vector<FusedVariantDesc>{{16, 1, 4, 2, 2},
                                                          {16, 1, 4, 1, 2},
                                                          {32, 2, 2, 2, 2},
                                                          {32, 2, 2, 1, 2}}) {
    v.kSlices = 2;
    table.push_back(v);
  }
  table.push_back({32, 2, 2, 2, 2, 0, 4});
  EXPECT_EQ(chosen(5120, 17408, 16, table), "mt16_w1_s4_c2_p2_k2");
  EXPECT_EQ(chosen(5120, 17408, 32, table), "mt32_w2_s2_c2_p2_k4");
  EXPECT_EQ(chosen(5120, 17408, 64, table), "mt32_w2_s2_c2_p2_k2");
  EXPECT_EQ(chosen(5120, 6144, 32, table), "mt32_w2_s2_c2_p2_k4");
  EXPECT_EQ(chosen(6144, 5120, 16, table), "mt16_w1_s4_c2_p2");
  EXPECT_EQ(chosen(6144, 5120, 32, table), "mt32_w2_s2_c1_p2_k2");
  EXPECT_EQ(chosen(8704, 5120, 64, table), "mt32_w2_s2_c2_p2_k2");
  EXPECT_EQ(chosen(8704, 5120, 128, table),
            chosen(8704, 5120, 128, kWithSiblings));
  EXPECT_EQ(chosen(40, 5120, 16, table), "mt16_w1_s4_c1_p2_k2");
  // Many blocks without slices: the sliced tilings change nothing.
  for (int64_t m : {16, 32, 64, 100})
    EXPECT_EQ(chosen(248320, 5120, m, table),
              chosen(248320, 5120, m, kWithSiblings));
  // Where they are all there is, the warp rules choose among them.
  std::vector<FusedVariantDesc> onlySliced = {{16, 1, 4, 2, 2, 0, 2},
                                              {32, 2, 2, 2, 2, 0, 2}};
  EXPECT_EQ(chosen(5120, 17408, 32, onlySliced), "mt16_w1_s4_c2_p2_k2");
}

// Specialized variants: from M = 96 on, the one of least cost (passes of
// its M tile plus 64 rows; a tile larger than M only where at most 1/8 of
// it is past A's edge, 1/4 where its grid has no more blocks than SMs),
// ties to the larger tile and one column tile before
// two; below 96 the warp variants choose as without them; where only
// specialized variants are compiled, the rules of the warp variants below
// 96.
TEST(FusedGemmPolicy, Specialized) {
  std::vector<FusedVariantDesc> table = kDefault;
  for (auto [mTile, colTiles] :
       {std::pair{256, 1}, {128, 2}, {128, 1}, {64, 2}, {64, 1}, {32, 1}})
    table.push_back({mTile, 4, 1, colTiles, 4, qmat_policy::kSpecializedForm});
  for (int64_t m : {16, 64, 95}) {
    EXPECT_EQ(chosen(248320, 5120, m, table), chosen(248320, 5120, m));
    EXPECT_EQ(chosen(17408, 5120, m, table), chosen(17408, 5120, m));
  }
  // From M = 96: one 128-row tile 32 rows past A's edge, which costs
  // nothing where its grid fits the SMs (6144 rows: 96 blocks) and as much
  // as two 64-row tiles inside A where it does not (17408 rows: 192 + 2 x
  // 32 against 2 x 128); a tie goes to the larger tile. At M = 95 the
  // 128-row tile is more than a quarter past the edge.
  EXPECT_EQ(chosen(6144, 5120, 96, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 112, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 96, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 95, table), chosen(17408, 5120, 95));
  EXPECT_EQ(chosen(17408, 5120, 128, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(248320, 5120, 128, table), "mt128_w4_s1_c1_p4_ws");
  // Between tiles: two 128-row tiles (the second ending at row M) where
  // the 256-row one would load more than 32 rows past A's edge, on a grid
  // of more 256-row blocks than SMs (17408 rows: 272; 320 + 2 x 33 against
  // 2 x 192 at M = 223); it serves from M = 224. Where that grid fits the
  // SMs (6144 rows: 96), from M = 192 (64 rows past the edge). Past 256 the
  // least passes of (rows + 64): 3 x 192 against 2 x 320 at M = 320, 8 x 192
  // against 4 x 320 at 1000.
  EXPECT_EQ(chosen(17408, 5120, 192, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 223, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 224, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 129, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 191, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 192, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 223, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 224, table), "mt256_w4_s1_c1_p4_ws");
  // 132 blocks of 64 rows fit 132 SMs, 133 do not.
  EXPECT_EQ(chosen(64 * 132, 5120, 192, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(64 * 133, 5120, 192, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 256, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 320, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 1000, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 1024, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(5120, 17408, 4096, table), "mt256_w4_s1_c1_p4_ws");
  // A grid of fewer blocks than half the SMs keeps the warp variants (the
  // specialized tilings sm_90a compiles by default): 40 rows make one
  // block; 66 blocks of 64 rows on 132 SMs qualify, 65 not.
  std::vector<FusedVariantDesc> sm90a = kDefault;
  for (int mTile : {128, 256})
    sm90a.push_back({mTile, 4, 1, 1, 4, qmat_policy::kSpecializedForm});
  EXPECT_EQ(chosen(40, 5120, 256, sm90a), chosen(40, 5120, 256));
  EXPECT_EQ(chosen(40, 5120, 128, sm90a), chosen(40, 5120, 128));
  EXPECT_EQ(chosen(64 * 65, 5120, 128, sm90a), chosen(64 * 65, 5120, 128));
  EXPECT_EQ(chosen(64 * 66, 5120, 128, sm90a), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(5120, 17408, 128, sm90a), "mt128_w4_s1_c1_p4_ws");
  // At M = 129 on 33 column tiles: the 256-row grid (33 blocks) does not
  // qualify, the 128-row one (66) does.
  EXPECT_EQ(chosen(64 * 33, 5120, 129, sm90a), "mt128_w4_s1_c1_p4_ws");
  // Without the 256-row tiling, the largest one that remains.
  std::vector<FusedVariantDesc> upTo128(table.begin(), table.end());
  upTo128.erase(upTo128.begin() + 4);
  EXPECT_EQ(chosen(6144, 5120, 1024, upTo128), "mt128_w4_s1_c1_p4_ws");
  std::vector<FusedVariantDesc> twoColumns = {
      {128, 4, 1, 2, 4, qmat_policy::kSpecializedForm},
      {64, 4, 1, 2, 4, qmat_policy::kSpecializedForm}};
  EXPECT_EQ(chosen(6144, 5120, 200, twoColumns), "mt128_w4_s1_c2_p4_ws");
  // 6144 x 5120 at M = 90: 192 blocks of the 64-row tile, under the 4 per
  // SM the warp rules ask; the 32-row tile is the smallest. At M = 100 the
  // specialized rule: two 64-row tiles pass the weights fewer times than
  // four 32-row ones.
  std::vector<FusedVariantDesc> only = {
      {64, 4, 1, 1, 4, qmat_policy::kSpecializedForm},
      {32, 4, 1, 1, 4, qmat_policy::kSpecializedForm}};
  EXPECT_EQ(chosen(6144, 5120, 90, only), "mt32_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(6144, 5120, 100, only), "mt64_w4_s1_c1_p4_ws");
}

// Two column tiles of 256 rows (two multiplying warpgroups sharing the
// activations) from M = 512 where the one-column grid has at least 8
// blocks per SM; one column tile elsewhere.
TEST(FusedGemmPolicy, SpecializedWide) {
  std::vector<FusedVariantDesc> table = kDefault;
  for (auto [mTile, colTiles] : {std::pair{128, 1}, {256, 1}, {256, 2}})
    table.push_back({mTile, 4, 1, colTiles, 4, qmat_policy::kSpecializedForm});
  EXPECT_EQ(chosen(248320, 5120, 256, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(248320, 5120, 511, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(248320, 5120, 512, table), "mt256_w4_s1_c2_p4_ws");
  EXPECT_EQ(chosen(248320, 5120, 1024, table), "mt256_w4_s1_c2_p4_ws");
  // 17408 rows: 272 blocks per 256-row tile, 4.1 per SM at M = 512, 8.2 at
  // 1024.
  EXPECT_EQ(chosen(17408, 5120, 512, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 1024, table), "mt256_w4_s1_c2_p4_ws");
  EXPECT_EQ(chosen(5120, 17408, 1024, table), "mt256_w4_s1_c1_p4_ws");
  // 8 x 132 blocks of 64 rows at M = 1024: 264 column tiles, not 263.
  EXPECT_EQ(chosen(64 * 264, 5120, 1024, table), "mt256_w4_s1_c2_p4_ws");
  EXPECT_EQ(chosen(64 * 263, 5120, 1024, table), "mt256_w4_s1_c1_p4_ws");
  // The 128-row tiles keep one column tile.
  std::vector<FusedVariantDesc> narrow = {
      {128, 4, 1, 2, 4, qmat_policy::kSpecializedForm},
      {128, 4, 1, 1, 4, qmat_policy::kSpecializedForm}};
  EXPECT_EQ(chosen(248320, 5120, 1024, narrow), "mt128_w4_s1_c1_p4_ws");
}
// The wave rule: a one-column-tile sibling where its grid fills the last
// wave of resident blocks more than 1.5 times better.
TEST(FusedGemmPolicy, WaveFill) {
  // 17408 x 5120 at M = 16: 544 32-row blocks on 528 slots fill 0.52 of two
  // waves, 1088 16-row blocks on 660 slots 0.82.
  EXPECT_EQ(withOccupancy(17408, 5120, 16), "mt16_w1_s4_c1_p2");
  // 16896 rows: 528 blocks fill one wave exactly.
  EXPECT_EQ(withOccupancy(16896, 5120, 16), "mt16_w1_s4_c2_p2");
  // 5120 x 17408 and 6144 x 5120 at M = 16: 0.48 against 0.30, 0.58 / 0.36.
  EXPECT_EQ(withOccupancy(5120, 17408, 16), "mt16_w1_s4_c1_p2");
  EXPECT_EQ(withOccupancy(6144, 5120, 16), "mt16_w1_s4_c1_p2");
  // 16896 x 5120 at M = 32: 264 64-row blocks fill 2/3 of 396 slots, 528
  // 32-row blocks all of 528: exactly 1.5 times, a tie the rules keep.
  EXPECT_EQ(withOccupancy(16896, 5120, 32), "mt32_w2_s2_c2_p2");
  // 17408 x 5120 at M = 32: 0.69 against 0.52 (two waves of 528).
  EXPECT_EQ(withOccupancy(17408, 5120, 32), "mt32_w2_s2_c2_p2");
  // Without the occupancy, the rules alone.
  EXPECT_EQ(chosen(17408, 5120, 16, kWithSiblings), "mt16_w1_s4_c2_p2");
  // A grid of fewer blocks than SMs takes the sibling of the most blocks,
  // with the occupancy or without: 40 rows make 3 one-column blocks
  // against 2; 4224 rows at M = 16 make 132 two-column blocks, enough.
  EXPECT_EQ(chosen(40, 5120, 16, kWithSiblings), "mt16_w1_s4_c1_p2");
  EXPECT_EQ(withOccupancy(40, 5120, 16), "mt16_w1_s4_c1_p2");
  EXPECT_EQ(chosen(40, 5120, 256, kWithSiblings), "mt16_w1_s4_c1_p2");
  EXPECT_EQ(chosen(32 * 131, 5120, 16, kWithSiblings), "mt16_w1_s4_c1_p2");
  EXPECT_EQ(chosen(32 * 132, 5120, 16, kWithSiblings), "mt16_w1_s4_c2_p2");
  EXPECT_EQ(chosen(40, 5120, 16), "mt16_w1_s4_c2");
  // The rules take a sibling that qualifies where the wider one does not:
  // 6144 x 5120 at M = 64, 384 32-row blocks (2.9 per SM) against 192.
  EXPECT_EQ(chosen(6144, 5120, 64, kWithSiblings), "mt32_w2_s2_c1_p2");
  // The lm_head at M = 16 takes two warps over N, which has no sibling.
  EXPECT_EQ(withOccupancy(248320, 5120, 16), "mt16_w2_s2_c2_p2");
}

TEST(FusedGemmPolicy, RowsPastM) {
  // M = 33 .. 48 on 5120 x 17408: no 64-row grid qualifies (40 blocks), so
  // three 16-row tiles (48 rows) come before two 32-row ones (64 rows).
  EXPECT_EQ(withOccupancy(5120, 17408, 33), "mt16_w1_s4_c2_p2");
  EXPECT_EQ(withOccupancy(5120, 17408, 48), "mt16_w1_s4_c2_p2");
  // From M = 49 both pad to 64 rows: the larger tile, as before.
  EXPECT_EQ(withOccupancy(5120, 17408, 49), "mt32_w2_s2_c1_p2");
  // The lm_head's 64-row grid qualifies (15 blocks per SM): it holds m.
  EXPECT_EQ(withOccupancy(248320, 5120, 33), "mt64_w4_s1_c2_p2");
  // The wave rule only where m fits one tile: at M = 16 it takes one
  // column tile, at M = 17 (two tiles) the rules' two.
  EXPECT_EQ(withOccupancy(5120, 17408, 16), "mt16_w1_s4_c1_p2");
  EXPECT_EQ(withOccupancy(5120, 17408, 17), "mt16_w1_s4_c2_p2");
  EXPECT_EQ(withOccupancy(5120, 17408, 32), "mt16_w1_s4_c2_p2");
}

// 32-row tiles qualify from 1.5 blocks per SM: 198 on 132 SMs, three M
// tiles of 66 two-column blocks (64 rows each) at M = 65 .. 96.
TEST(FusedGemmPolicy, ThirtyTwoRowThreshold) {
  EXPECT_EQ(chosen(66 * 64, 5120, 72), "mt32_w2_s2_c2");
  EXPECT_EQ(chosen(65 * 64, 5120, 72), "mt16_w1_s4_c2");
  // The 5120-row layers at M = 72 .. 88 (240 blocks): the two-column
  // tiling, where a threshold of 2 took its one-column sibling.
  EXPECT_EQ(withOccupancy(5120, 17408, 72), "mt32_w2_s2_c2_p2");
  EXPECT_EQ(withOccupancy(5120, 6144, 88), "mt32_w2_s2_c2_p2");
}

/// The default sm_90a table: kDefault, the specialized 128 x 1, 192 x 1 and
/// 256 x 1, and with `weightsAsB` the 64 x 9 and 128 x 9 tilings with the
/// weights as B.
static std::vector<FusedVariantDesc> sm90aDefault(bool weightsAsB) {
  std::vector<FusedVariantDesc> table = kDefault;
  for (int mTile : {128, 192, 256})
    table.push_back({mTile, 4, 1, 1, 4, qmat_policy::kSpecializedForm});
  if (weightsAsB)
    for (int mTile : {64, 128})
      table.push_back({mTile, 1, 1, 9, 4, qmat_policy::kSpecializedForm});
  return table;
}

TEST(FusedGemmPolicy, SpecializedWeightsAsB) {
  // The sm_90a table: 144-row blocks (9 column tiles of 16 rows) with the
  // weights as B at m_tile 64 and 128 besides the others.
  std::vector<FusedVariantDesc> table = sm90aDefault(/*weightsAsB=*/true);
  std::vector<FusedVariantDesc> sm90aA = sm90aDefault(/*weightsAsB=*/false);
  // 17408 rows make 121 blocks of 144: one wave filling 121 / 132 >= 7/8.
  EXPECT_EQ(chosen(17408, 5120, 64, table), "mt64_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 128, table), "mt128_w1_s1_c9_p4_ws");
  // At M = 65 two 64-row tiles make 242 blocks; the 128-row tile loads 63
  // of its rows past A's edge, less than half.
  EXPECT_EQ(chosen(17408, 5120, 65, table), "mt128_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 96, table), "mt128_w1_s1_c9_p4_ws");
  // From M = 33 the 64-row tile is less than half past the edge; at M = 32
  // half of it is, and the warp tilings serve.
  EXPECT_EQ(chosen(17408, 5120, 33, table), "mt64_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 48, table), "mt64_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 32, table), chosen(17408, 5120, 32));
  EXPECT_NE(chosen(17408, 5120, 32, table), "mt64_w1_s1_c9_p4_ws");
  // 8704 rows make 61 blocks: at M = 128 two 64-row tiles fill 122 SMs.
  EXPECT_EQ(chosen(8704, 5120, 128, table), "mt64_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(8704, 5120, 64, table), chosen(8704, 5120, 64));
  // Fill: 116 blocks on 132 SMs are under 7/8 (115.5 is the bound), 115
  // not; more blocks than SMs never.
  EXPECT_EQ(chosen(144 * 116, 5120, 64, table), "mt64_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(144 * 115, 5120, 64, table), chosen(144 * 115, 5120, 64));
  EXPECT_EQ(chosen(144 * 132, 5120, 64, table), "mt64_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(144 * 133, 5120, 64, table), chosen(144 * 133, 5120, 64));
  // Narrow and wide layers keep the other rules; above M = 128 too.
  EXPECT_EQ(chosen(6144, 5120, 128, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(248320, 5120, 128, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 129, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 256, table), "mt256_w4_s1_c1_p4_ws");
  // To M = 256 where two M tiles still make one wave: 8704 rows, 122
  // blocks of 144 rows; not three tiles (6144 rows at M = 192: 3 x 43
  // blocks of 64 tokens fill the SMs, but decode the weights three times),
  // nor above M = 256.
  EXPECT_EQ(chosen(8704, 5120, 192, table), "mt128_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(8704, 5120, 256, table), "mt128_w1_s1_c9_p4_ws");
  EXPECT_EQ(chosen(8704, 5120, 257, table), chosen(8704, 5120, 257, sm90aA));
  EXPECT_EQ(chosen(6144, 5120, 192, table), chosen(6144, 5120, 192, sm90aA));
  EXPECT_EQ(chosen(6144, 5120, 192, table), "mt192_w4_s1_c1_p4_ws");
}

TEST(FusedGemmPolicy, SpecializedMTile192) {
  // The sm_90a table's 192-row tile: one pass where M fits it exactly on
  // every layer of the example model (two 128-row passes took 1.12-1.46x
  // its time on the H100, one 256-row pass 1.19-1.36x).
  std::vector<FusedVariantDesc> table = sm90aDefault(/*weightsAsB=*/false);
  for (int64_t n : {17408, 5120, 6144})
    for (int64_t k : {5120, 17408})
      EXPECT_EQ(chosen(n, k, 192, table), "mt192_w4_s1_c1_p4_ws")
          << n << " x " << k;
  // Past M's edge by up to 48 rows (a quarter) on a grid of several waves
  // (17408 rows: 256 + 2 x 48 against 2 x 192 at M = 144), by up to 64
  // where the grid fits the SMs (5120 rows: 80 blocks); else two 128-row
  // passes.
  EXPECT_EQ(chosen(17408, 5120, 176, table), "mt192_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 160, table), "mt192_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 144, table), "mt192_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 143, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(5120, 17408, 128, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(5120, 17408, 129, table), "mt192_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(5120, 17408, 160, table), "mt192_w4_s1_c1_p4_ws");
  // Beyond 192 rows two 128-row passes (not two 192-row ones) until the
  // 256-row tile is at most 1 / 8 past the edge.
  EXPECT_EQ(chosen(17408, 5120, 193, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 223, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 224, table), "mt256_w4_s1_c1_p4_ws");
  // Where the grid fits the SMs, the 256-row tile from M = 193 (63 rows
  // past the edge).
  EXPECT_EQ(chosen(5120, 17408, 193, table), "mt256_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(17408, 5120, 256, table), "mt256_w4_s1_c1_p4_ws");
}

TEST(FusedGemmPolicy, SpecializedWeightsAsBManyWaves) {
  // The lm_head's grid of 1725 blocks of 144 rows: 128 x 9 alone where it
  // is more than 16 rows past A's edge, from M = 65; at M = 112 (16 rows
  // past) and 128 the weights-as-A tile, below M = 65 the warp tilings.
  std::vector<FusedVariantDesc> table = sm90aDefault(/*weightsAsB=*/true);
  std::vector<FusedVariantDesc> sm90aA = sm90aDefault(/*weightsAsB=*/false);
  for (int64_t m : {65, 72, 96, 100, 111})
    EXPECT_EQ(chosen(248320, 5120, m, table), "mt128_w1_s1_c9_p4_ws")
        << "M = " << m;
  for (int64_t m : {112, 128, 129, 192})
    EXPECT_EQ(chosen(248320, 5120, m, table), chosen(248320, 5120, m, sm90aA))
        << "M = " << m;
  EXPECT_EQ(chosen(248320, 5120, 112, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(248320, 5120, 64, table), chosen(248320, 5120, 64));
  EXPECT_EQ(chosen(248320, 5120, 40, table), chosen(248320, 5120, 40));
  // A grid of one wave keeps the one-wave rule (17408 rows at M = 100).
  EXPECT_EQ(chosen(17408, 5120, 100, table), "mt128_w1_s1_c9_p4_ws");
}

TEST(FusedGemmPolicy, MulticastNotTaken) {
  // The sm_90a table with multicast siblings of every specialized tiling
  // (clusters of 2 along N; measured slower than the single-block tilings
  // on every layer and M, bench/README.md): the choices are those of the
  // table without them, at every M and on every layer of the example.
  std::vector<FusedVariantDesc> table = sm90aDefault(/*weightsAsB=*/true);
  // The siblings come first, so that no tie goes to the single-block one.
  std::vector<FusedVariantDesc> withMulticast;
  for (FusedVariantDesc v : table)
    if (v.warpgroup == qmat_policy::kSpecializedForm) {
      v.multicast = 2;
      withMulticast.push_back(v);
    }
  withMulticast.insert(withMulticast.end(), table.begin(), table.end());
  for (int64_t n : {17408, 5120, 6144, 8704, 248320})
    for (int64_t k : {5120, 17408})
      for (int64_t m = 9; m <= 1024; m += 5)
        EXPECT_EQ(chosen(n, k, m, withMulticast), chosen(n, k, m, table))
            << n << " x " << k << " at M = " << m;
  // A table of multicast tilings alone still serves every M (by the warp
  // tilings' rules, as any table without warp tilings).
  std::vector<FusedVariantDesc> onlyMulticast(withMulticast.begin(),
                                              withMulticast.begin() + 4);
  for (int64_t m = 9; m <= 1024; m += 5) {
    std::string choice = chosen(17408, 5120, m, onlyMulticast);
    EXPECT_EQ(choice.substr(choice.size() - 3), "_x2") << "M = " << m;
  }
}

TEST(FusedGemmPolicy, SpecializedKSlices) {
  // The sm_90a table with the two-slice siblings of 128 x 1 and 256 x 1.
  std::vector<FusedVariantDesc> table = sm90aDefault(/*weightsAsB=*/true);
  std::vector<FusedVariantDesc> sliced = table;
  for (int mTile : {128, 256}) {
    FusedVariantDesc v{mTile, 4, 1, 1, 4, qmat_policy::kSpecializedForm};
    v.kSlices = 2;
    sliced.push_back(v);
  }
  // 5120 x 17408: 80 blocks of 64 rows on 132 SMs, 136 K steps a slice.
  EXPECT_EQ(chosen(5120, 17408, 128, table), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(5120, 17408, 96, sliced), "mt128_w4_s1_c1_p4_ws_k2");
  EXPECT_EQ(chosen(5120, 17408, 128, sliced), "mt128_w4_s1_c1_p4_ws_k2");
  // A 256-row tile keeps its single blocks.
  EXPECT_EQ(chosen(5120, 17408, 256, sliced), "mt256_w4_s1_c1_p4_ws");
  // 128 K steps a slice take the sibling, 127 do not.
  EXPECT_EQ(chosen(5120, 16384, 128, sliced), "mt128_w4_s1_c1_p4_ws_k2");
  EXPECT_EQ(chosen(5120, 16256, 128, sliced), "mt128_w4_s1_c1_p4_ws");
  EXPECT_EQ(chosen(5120, 6144, 128, sliced), "mt128_w4_s1_c1_p4_ws");
  // 131 blocks on 132 SMs take it, 132 do not (the weights as A only:
  // with them as B, 144-row blocks serve 8448 rows at M = 128).
  std::vector<FusedVariantDesc> slicedA = sm90aDefault(/*weightsAsB=*/false);
  slicedA.push_back(sliced.back());
  slicedA.push_back(sliced[sliced.size() - 2]);
  EXPECT_EQ(chosen(64 * 131, 17408, 128, slicedA), "mt128_w4_s1_c1_p4_ws_k2");
  EXPECT_EQ(chosen(64 * 132, 17408, 128, slicedA), "mt128_w4_s1_c1_p4_ws");
  // Elsewhere the choices are the table's without them.
  for (int64_t n : {17408, 5120, 6144, 8704, 248320})
    for (int64_t k : {5120, 6144})
      for (int64_t m = 9; m <= 1024; m += 5)
        EXPECT_EQ(chosen(n, k, m, sliced), chosen(n, k, m, table))
            << n << " x " << k << " at M = " << m;
  for (int64_t m = 9; m < qmat_policy::kSpecializedFromM; m += 5)
    EXPECT_EQ(chosen(5120, 17408, m, sliced), chosen(5120, 17408, m, table))
        << "M = " << m;
}
