//===- GemvPolicyTest.cpp - The launcher's GEMV variant choice ------------===//
//
// Boundaries of qmat_policy::chooseGemvVariant on the variant table
// qmat-aot compiles by default (split-K 1..16 x column tiles 1, 2, 4 for
// M <= 8) and on restricted tables.
//
//===----------------------------------------------------------------------===//

#include "qmat/AOT/GemvPolicy.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using qmat_policy::chooseGemvVariant;
using qmat_policy::GemvVariantDesc;

namespace {

std::vector<GemvVariantDesc> table(bool packed,
                                   std::vector<int> capacities = {8},
                                   std::vector<int> colTiles = {1, 2, 4}) {
  std::vector<GemvVariantDesc> out;
  for (int capacity : capacities)
    for (int c : colTiles)
      for (int s : {1, 2, 4, 8, 16})
        out.push_back({capacity, s, c, true, packed});
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

Choice choose(const std::vector<GemvVariantDesc> &variants, int64_t n,
              int64_t k, int64_t m, int64_t sms) {
  int i =
      chooseGemvVariant(n, k, m, sms, variants.data(), int(variants.size()));
  if (i < 0)
    return {-1, -1, -1};
  return {variants[i].splitK, variants[i].colTiles, variants[i].maxM};
}

TEST(GemvPolicy, Gate17408OnH200) {
  // 1088 tiles x 4 warps = 4352 >= 32 x 132 tiles in flight; 10 steps each.
  EXPECT_EQ(choose(table(false), 17408, 5120, 1, 132), (Choice{4, 1, 8}));
  EXPECT_EQ(choose(table(true), 17408, 5120, 1, 132), (Choice{4, 1, 8}));
  // Packed decode from M = 4: two tiles, 544 x 4 x 2 = 4352 tiles in flight.
  EXPECT_EQ(choose(table(true), 17408, 5120, 3, 132), (Choice{4, 1, 8}));
  EXPECT_EQ(choose(table(true), 17408, 5120, 4, 132), (Choice{4, 2, 8}));
  EXPECT_EQ(choose(table(true), 17408, 5120, 8, 132), (Choice{4, 2, 8}));
  EXPECT_EQ(choose(table(false), 17408, 5120, 8, 132), (Choice{4, 1, 8}));
}

TEST(GemvPolicy, LongKSplitsMore) {
  // K = 8192: 64 steps, at most 10 per warp -> split-K 8.
  EXPECT_EQ(choose(table(false), 17408, 8192, 1, 132), (Choice{8, 1, 8}));
  // K = 32768: 256 steps; no compiled split keeps 10 per warp -> the largest.
  EXPECT_EQ(choose(table(false), 17408, 32768, 1, 132), (Choice{16, 1, 8}));
}

TEST(GemvPolicy, SmallerPartNeedsLessSplit) {
  // K = 2048 (16 steps): 132 SMs need 4224 tiles in flight (split 4),
  // 64 SMs need 2048 (split 2: 2176, 8 steps per warp).
  EXPECT_EQ(choose(table(false), 17408, 2048, 1, 132), (Choice{4, 1, 8}));
  EXPECT_EQ(choose(table(false), 17408, 2048, 1, 64), (Choice{2, 1, 8}));
  // 5120 is step-bound on both.
  EXPECT_EQ(choose(table(false), 17408, 5120, 1, 64), (Choice{4, 1, 8}));
}

TEST(GemvPolicy, LmHead) {
  EXPECT_EQ(choose(table(false), 248320, 5120, 1, 132), (Choice{4, 1, 8}));
  EXPECT_EQ(choose(table(true), 248320, 5120, 8, 132), (Choice{4, 2, 8}));
}

TEST(GemvPolicy, SmallNTakesTheMostWarps) {
  // N = 40: 3 tiles; nothing reaches the target, the largest split whose
  // warps keep two steps wins.
  EXPECT_EQ(choose(table(false), 40, 5120, 1, 132), (Choice{16, 1, 8}));
  // K = 256: 2 steps; split 2 leaves one step per warp, so no split.
  EXPECT_EQ(choose(table(false), 40, 256, 1, 132), (Choice{1, 1, 8}));
}

TEST(GemvPolicy, RowCapacity) {
  auto wide = table(false, {8, 16, 32, 64}, {1});
  EXPECT_EQ(choose(wide, 2048, 5120, 8, 132).maxM, 8);
  EXPECT_EQ(choose(wide, 2048, 5120, 9, 132).maxM, 16);
  EXPECT_EQ(choose(wide, 2048, 5120, 33, 132).maxM, 64);
  EXPECT_EQ(choose(wide, 2048, 5120, 65, 132), (Choice{-1, -1, -1}));
  EXPECT_EQ(choose(table(false), 2048, 5120, 9, 132), (Choice{-1, -1, -1}));
}

TEST(GemvPolicy, NearestCompiledTiling) {
  // Packed M = 8 wants two tiles; only one and four exist: one is as near
  // and comes first.
  auto oneOrFour = table(true, {8}, {1, 4});
  EXPECT_EQ(choose(oneOrFour, 17408, 5120, 8, 132).colTiles, 1);
  auto onlyFour = table(true, {8}, {4});
  EXPECT_EQ(choose(onlyFour, 17408, 5120, 8, 132).colTiles, 4);
}

TEST(GemvPolicy, ScalarAndBadArguments) {
  std::vector<GemvVariantDesc> scalar = {{8, 1, 1, false, false}};
  EXPECT_EQ(choose(scalar, 2048, 1000, 3, 132), (Choice{1, 1, 8}));
  EXPECT_EQ(choose(table(false), 0, 5120, 1, 132), (Choice{-1, -1, -1}));
  EXPECT_EQ(choose(table(false), 2048, 0, 1, 132), (Choice{-1, -1, -1}));
  EXPECT_EQ(chooseGemvVariant(2048, 5120, 1, 132, nullptr, 0), -1);
  // An unknown SM count (0) counts as one SM rather than dividing by zero.
  EXPECT_EQ(choose(table(false), 17408, 5120, 1, 0), (Choice{4, 1, 8}));
}

} // namespace
