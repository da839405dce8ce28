//===- GemvVariants.cpp - The compiled decode-GEMV variants ---------------===//

#include "qmat/Transforms/GemvVariants.h"
#include "qmat/Dialect/QMat/IR/WholeLineGemv.h"
#include "qmat/Target/TargetInfo.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {
/// Accumulator registers grow with col_tiles * row groups (4 per pair):
/// several row groups take one column tile, or two up to 4 pairs, beyond
/// which ptxas spills (16 rows x 16 tiles of 4 columns did).
constexpr int64_t kMaxWideAccumulatorTiles = 4;
constexpr int64_t kMaxSharedBytes = GemvOp::kMaxSharedBytes;
constexpr int64_t kMaxBlockThreads = GemvOp::kMaxBlockThreads;
} // namespace

ArrayRef<int64_t> mlir::qmat::getDefaultGemvSplitKs() {
  static const int64_t values[] = {1, 2, 4, 8, 16};
  return values;
}

ArrayRef<int64_t> mlir::qmat::getDefaultWholeLineGemvSplitKs() {
  return GemvOp::getSplitKChoices();
}

ArrayRef<int64_t> mlir::qmat::getDefaultGemvColTiles() {
  return GemvOp::getColTileChoices();
}

SmallVector<GemvVariant>
mlir::qmat::getGemvVariants(PlanAttr plan, SchemeKind scheme, int64_t k,
                            ArrayRef<int64_t> splitKs,
                            ArrayRef<int64_t> colTiles) {
  bool defaultSplitKs = splitKs.empty();
  if (defaultSplitKs)
    splitKs = getDefaultGemvSplitKs();
  if (colTiles.empty())
    colTiles = getDefaultGemvColTiles();
  SmallVector<GemvVariant> variants;
  int64_t maxM = plan.getGemvMaxM();
  if (maxM == 0 || plan.getSmallM() == DecodePath::prefill)
    return variants;
  if (plan.getSmallM() == DecodePath::gemv_scalar) {
    variants.push_back({maxM, 1, 1, false});
    return variants;
  }
  std::unique_ptr<TargetInfo> target =
      createTargetInfo(plan.getTarget().getChip());
  int64_t warpSize = target->getWarpSize();
  // The whole-line layout is a mapping of the 16x8x16 instruction; the fp4
  // GEMVs' decode is the magic-bias one on every target
  // (getDefaultGemvDecode).
  bool wholeLineTier =
      target->usesWarpMmaGemv() &&
      isWholeLineGemv(scheme, /*tensorCore=*/true, DecodeMethod::magic_bias, k,
                      kWholeLineGemvMaxM, /*colTiles=*/1);
  if (wholeLineTier && llvm::is_contained(colTiles, 1)) {
    // One column tile: the launcher takes no other in this tier (two were
    // within 0.5 % on the lm_head and slower at 17408 rows), and each
    // variant is a kernel to compile per layer.
    for (int64_t s :
         defaultSplitKs ? getDefaultWholeLineGemvSplitKs() : splitKs) {
      if (s * warpSize > kMaxBlockThreads ||
          GemvOp::getPartialSumBytes(s, 1, kWholeLineGemvMaxM,
                                     /*wholeLines=*/true) > kMaxSharedBytes)
        continue;
      variants.push_back({kWholeLineGemvMaxM, s, 1, true, /*wholeLines=*/true});
    }
    if (!variants.empty() && maxM <= kWholeLineGemvMaxM)
      return variants;
  }
  // Row capacities 8, 16, 32, 64: the smallest that holds M is launched.
  for (int64_t groups = 1;; groups *= 2) {
    for (int64_t c : colTiles)
      for (int64_t s : splitKs) {
        if (s * warpSize > kMaxBlockThreads)
          continue;
        int64_t shared = GemvOp::getPartialSumBytes(s, c, 8 * groups);
        bool registersFit = c == 1 || c * groups <= kMaxWideAccumulatorTiles;
        if (!registersFit || shared > kMaxSharedBytes)
          continue;
        variants.push_back({8 * groups, s, c, true});
      }
    if (8 * groups >= maxM)
      break;
  }
  return variants;
}
