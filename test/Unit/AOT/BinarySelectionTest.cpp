//===- BinarySelectionTest.cpp - Which binary of a bundle a GPU loads -----===//
//
// Boundaries of qmat_select::selectBinary: the major version a cubin stays
// within, the minor it needs, arch-specific targets on their exact chip
// only, PTX as the fallback of the newest target at or below the device,
// and the tie between sm_XY and sm_XYa.
//
//===----------------------------------------------------------------------===//

#include "qmat/AOT/BinarySelection.h"

#include <gtest/gtest.h>

#include <vector>

using qmat_select::BinaryDesc;
using qmat_select::BinaryKind;
using qmat_select::selectBinary;

namespace {

/// The selection as "<index> cubin", "<index> ptx" or "none".
std::string select(int device, const std::vector<BinaryDesc> &targets) {
  qmat_select::Selection s =
      selectBinary(device, targets.data(), static_cast<int>(targets.size()));
  switch (s.kind) {
  case BinaryKind::cubin:
    return std::to_string(s.index) + " cubin";
  case BinaryKind::ptx:
    return std::to_string(s.index) + " ptx";
  case BinaryKind::none:
    break;
  }
  EXPECT_EQ(s.index, -1);
  return "none";
}

constexpr BinaryDesc sm80{80, false, false}, sm86{86, false, false},
    sm89{89, false, false}, sm90{90, false, false}, sm90a{90, true, false},
    sm100{100, false, false}, sm100a{100, true, false},
    sm120a{120, true, false};

BinaryDesc withPtx(BinaryDesc d) {
  d.hasPtx = true;
  return d;
}

TEST(BinarySelection, CubinRunsWithinItsMajorFromItsMinor) {
  std::vector<BinaryDesc> bundle = {sm86};
  EXPECT_EQ(select(80, bundle), "none");
  EXPECT_EQ(select(86, bundle), "0 cubin");
  EXPECT_EQ(select(87, bundle), "0 cubin");
  EXPECT_EQ(select(89, bundle), "0 cubin");
  EXPECT_EQ(select(90, bundle), "none");
  EXPECT_EQ(select(100, {sm100}), "0 cubin");
  EXPECT_EQ(select(103, {sm100}), "0 cubin");
  EXPECT_EQ(select(110, {sm100}), "none");
  EXPECT_EQ(select(120, {sm100}), "none");
}

TEST(BinarySelection, NewestCompatibleCubinWins) {
  std::vector<BinaryDesc> bundle = {sm89, sm80, sm86, sm90};
  EXPECT_EQ(select(80, bundle), "1 cubin");
  EXPECT_EQ(select(86, bundle), "2 cubin");
  EXPECT_EQ(select(87, bundle), "2 cubin");
  EXPECT_EQ(select(88, bundle), "2 cubin");
  EXPECT_EQ(select(89, bundle), "0 cubin");
  EXPECT_EQ(select(90, bundle), "3 cubin");
  EXPECT_EQ(select(100, bundle), "none");
}

TEST(BinarySelection, ArchSpecificOnlyOnItsChip) {
  EXPECT_EQ(select(90, {sm90a}), "0 cubin");
  EXPECT_EQ(select(89, {sm90a}), "none");
  EXPECT_EQ(select(100, {sm90a}), "none");
  EXPECT_EQ(select(100, {sm100a}), "0 cubin");
  EXPECT_EQ(select(103, {sm100a}), "none");
  EXPECT_EQ(select(121, {sm120a}), "none");
  // Its PTX too: sm_90a PTX is not JIT-compiled for 10.0.
  EXPECT_EQ(select(100, {withPtx(sm90a)}), "none");
  EXPECT_EQ(select(90, {withPtx(sm90a)}), "0 cubin");
}

TEST(BinarySelection, ArchSpecificBeatsPortableOfItsChipOnly) {
  std::vector<BinaryDesc> bundle = {sm90, sm90a};
  EXPECT_EQ(select(90, bundle), "1 cubin");
  EXPECT_EQ(select(90, {sm90a, sm90}), "0 cubin");
  // On 10.3 the portable sm_100 cubin, not sm_100a.
  EXPECT_EQ(select(103, {sm100a, sm100}), "1 cubin");
  EXPECT_EQ(select(100, {sm100a, sm100}), "0 cubin");
}

TEST(BinarySelection, PtxOfTheNewestTargetAtOrBelowTheDevice) {
  std::vector<BinaryDesc> bundle = {withPtx(sm80), withPtx(sm90)};
  EXPECT_EQ(select(80, bundle), "0 cubin");
  EXPECT_EQ(select(86, bundle), "0 cubin");
  EXPECT_EQ(select(90, bundle), "1 cubin");
  EXPECT_EQ(select(100, bundle), "1 ptx");
  EXPECT_EQ(select(120, bundle), "1 ptx");
  // Listed newest first: the order does not matter.
  EXPECT_EQ(select(100, {withPtx(sm90), withPtx(sm80)}), "0 ptx");
  // Below every target: nothing, PTX does not run backwards.
  EXPECT_EQ(select(75, bundle), "none");
}

TEST(BinarySelection, CompatibleCubinBeforePtx) {
  // Every target has a cubin; PTX serves where none of them runs.
  std::vector<BinaryDesc> bundle = {sm80, withPtx(sm86)};
  EXPECT_EQ(select(89, bundle), "1 cubin");
  EXPECT_EQ(select(80, bundle), "0 cubin");
  EXPECT_EQ(select(90, bundle), "1 ptx");
  // The newest compatible cubin, whichever target carries PTX.
  std::vector<BinaryDesc> ptxOnOlder = {sm86, withPtx(sm80)};
  EXPECT_EQ(select(89, ptxOnOlder), "0 cubin");
  std::vector<BinaryDesc> olderPtx = {withPtx(sm80), sm90a};
  EXPECT_EQ(select(86, olderPtx), "0 cubin");
  EXPECT_EQ(select(90, olderPtx), "1 cubin");
  EXPECT_EQ(select(100, olderPtx), "0 ptx");
}

TEST(BinarySelection, WithoutPtxNoCrossMajor) {
  std::vector<BinaryDesc> bundle = {sm80, sm90};
  for (int device : {100, 103, 110, 120, 121})
    EXPECT_EQ(select(device, bundle), "none") << device;
  EXPECT_EQ(select(0, bundle), "none");
  EXPECT_EQ(select(90, {}), "none");
}

TEST(BinarySelection, KnownDevicesAscend) {
  int previous = 0;
  for (int device : qmat_select::KnownDevices::values) {
    EXPECT_GT(device, previous);
    EXPECT_LT(device % 10, 10);
    previous = device;
  }
}

} // namespace
