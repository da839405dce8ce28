//===- GemvVariants.cpp - The compiled decode-GEMV variants ---------------===//

#include "qmat/Transforms/GemvVariants.h"
#include "qmat/AOT/FusedGemmPolicy.h"
#include "qmat/AOT/GemvReachability.h"
#include "qmat/Dialect/QMat/IR/FusedGemm.h"
#include "qmat/Dialect/QMat/IR/GemvLayouts.h"
#include "qmat/Target/TargetInfo.h"
#include "qmat/Transforms/KernelConfig.h"
#include "llvm/Support/FormatVariadic.h"

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

SmallVector<GemvVariant> mlir::qmat::getGemvVariants(MatmulOp op,
                                                     ArrayRef<int64_t> splitKs,
                                                     ArrayRef<int64_t> colTiles,
                                                     bool allVariants) {
  PlanAttr plan = *op.getPlan();
  SchemeAttr scheme = op.getScheme();
  SmallVector<GemvVariant> variants =
      getGemvVariants(plan, scheme.getKind(), op.getK(), splitKs, colTiles);
  int64_t n = op.getN();
  if (allVariants || variants.size() < 2 || n <= 0)
    return variants;
  // The launcher's table of these variants, with the traits of the configs
  // qmat-configure-kernels will give them.
  std::unique_ptr<TargetInfo> target =
      createTargetInfo(plan.getTarget().getChip());
  DecodeMethod decode =
      getDefaultGemvDecode(scheme.getElementFormat(), *target);
  SmallVector<qmat_policy::GemvVariantDesc> table;
  for (const GemvVariant &v : variants) {
    GemvPolicyTraits traits = getGemvPolicyTraits(
        scheme.getKind(), op.getActType().isBF16(), plan.getPreparedWeights(),
        target->usesWarpMmaGemv(), v.wholeLines,
        getGemvMatrix(v.tensorCore, *target), decode);
    table.push_back({static_cast<int>(v.maxM), static_cast<int>(v.splitK),
                     static_cast<int>(v.colTiles), v.tensorCore,
                     traits.wideTiles, v.wholeLines,
                     traits.unsplitOnManyTiles});
  }
  SmallVector<bool> reachable(table.size());
  qmat_policy::reachableGemvVariants(
      n, op.getK(), plan.getGemvMaxM(), table.data(),
      static_cast<int>(table.size()), reachable.data());
  SmallVector<GemvVariant> kept;
  for (auto [v, keep] : llvm::zip_equal(variants, reachable))
    if (keep)
      kept.push_back(v);
  return kept;
}

ArrayRef<int64_t> mlir::qmat::getDefaultFusedGemmTiles() {
  // The tilings the launcher's policy (FusedGemmPolicy.h) takes, each the
  // best or within 10 % of the best of 20 timed on the H200 for every
  // layer of the example model at M = 16 .. 128, each with two stages:
  // the best two-stage tiling beat the best one-stage one (activations
  // staged between barriers) in 36 of 40 nvfp4 / int4 cases, by up to
  // 1.33x, and was within 8 % in the others; three stages were slower than
  // two in most (bench/README.md, "Fused dequant-GEMM").
  // The one-column-tile siblings of the first and third fill the grid's
  // last wave better where it is mostly empty (the policy's wave rule;
  // bench/README.md, "wave quantization").
  static const int64_t values[] = {16, 1, 4, 2, 2, 16, 2, 2, 2, 2,
                                   32, 2, 2, 2, 2, 64, 4, 1, 2, 2,
                                   16, 1, 4, 1, 2, 32, 2, 2, 1, 2};
  return values;
}

bool mlir::qmat::hasDefaultSpecializedTiles(const TargetInfo &target,
                                            SchemeKind scheme, bool prepared) {
  return target.hasWarpgroupMma() && scheme != SchemeKind::fp8 && !prepared;
}

ArrayRef<int64_t> mlir::qmat::getDefaultSpecializedTiles(int64_t fusedMaxM) {
  // Timed on the H100 against every other specialized tiling (m_tile 64 ..
  // 256, one and two column tiles) on every layer of the example model and
  // the lm_head, nvfp4, mxfp4 and int4: 128 x 1 was the fastest at M = 128,
  // 192 x 1 at M = 192 (0.68-0.89 of 128 x 1 in two passes on the model's
  // layers), 256 x 1 at M = 256 and on most layers at 512 and 1024, 256 x 2
  // on the wide grids from M = 512, where the launcher takes it
  // (qmat_policy::kSpecializedWideFromM; bench/README.md, "The specialized
  // warpgroup form", "K slices of the specialized form").
  static const int64_t values[] = {128, 1, 192, 1, 256, 1, 256, 2};
  ArrayRef<int64_t> tiles(values);
  return fusedMaxM >= qmat_policy::kSpecializedWideFromM ? tiles
                                                         : tiles.drop_back(2);
}

ArrayRef<int64_t> mlir::qmat::getDefaultSpecializedBTiles() {
  // 144-row blocks: 17408 rows (the example model's gate and up
  // projections) make 121 of them, one wave on 132 SMs, and 8704 rows 61
  // per 64-token tile; the launcher takes them only for such grids
  // (qmat_policy::kSpecializedBUpToM; bench/README.md, "Weights as B").
  static const int64_t values[] = {64, 9, 128, 9};
  return values;
}

int64_t mlir::qmat::getDefaultFusedMaxM(const TargetInfo &target,
                                        SchemeKind scheme, bool prepared) {
  // Against the dequantize + cuBLASLt path on every layer of the example
  // model: the warp tilings within 5 % either way at M = 128 and slower from
  // M = 256 (H200); the specialized tilings 0.62-0.76 of its time at M = 256
  // and 0.98-1.28 at M = 512 (H100; bench/README.md).
  return hasDefaultSpecializedTiles(target, scheme, prepared)
             ? kSpecializedFusedMaxM
             : kWarpFusedMaxM;
}

/// The lists of specialized tilings: (m_tile, col_tiles) pairs of the form
/// with the weights as A or as B, (m_tile, col_tiles, weights_as_b,
/// multicast) quadruples of either form whose clusters share the
/// activations, or (m_tile, col_tiles, k_slices) triples of the form with
/// the weights as A whose clusters split the K range.
enum class SpecializedList {
  weightsAsA,
  weightsAsB,
  multicast,
  sliced,
  registers,
  decoders
};

/// The specialized variants of `list`'s numbers for a `scheme` layer of K
/// `k` planned as `plan`, appended to `variants`.
static LogicalResult addSpecializedVariants(
    PlanAttr plan, SchemeKind scheme, int64_t k, ArrayRef<int64_t> numbers,
    SpecializedList list, const TargetInfo &target,
    SmallVector<FusedGemmVariant> &variants, std::string &error) {
  StringRef option =
      list == SpecializedList::weightsAsA   ? "fused-specialized-variants"
      : list == SpecializedList::weightsAsB ? "fused-specialized-b-variants"
      : list == SpecializedList::multicast  ? "fused-multicast-variants"
      : list == SpecializedList::registers  ? "fused-register-variants"
      : list == SpecializedList::decoders   ? "fused-decoder-variants"
                                          : "fused-specialized-sliced-variants";
  bool decoderList = list == SpecializedList::decoders;
  size_t width = list == SpecializedList::multicast || decoderList ? 4
                 : list == SpecializedList::sliced                 ? 3
                                                                   : 2;
  StringRef kind = decoderList ? "decoder" : "multicast";
  if (numbers.size() % width != 0) {
    error = llvm::formatv(
                "{0} takes {1}, got {2} numbers", option,
                width == 2 ? "(m_tile, col_tiles) pairs"
                : width == 3
                    ? "(m_tile, col_tiles, k_slices) triples"
                    : "(m_tile, col_tiles, weights_as_b, " +
                          std::string(decoderList ? "decoders" : "multicast") +
                          ") quadruples",
                numbers.size())
                .str();
    return failure();
  }
  if (numbers.empty())
    return success();
  if (!target.hasWarpgroupMma()) {
    error = llvm::formatv("{0} needs the warpgroup matrix instruction, which "
                          "{1} lacks (sm_90a has it)",
                          option, stringifyChip(plan.getTarget().getChip()))
                .str();
    return failure();
  }
  if (plan.getPreparedWeights()) {
    error = llvm::formatv("{0} read the codes in the checkpoint's layout; "
                          "they are not compiled with prepared weights",
                          option)
                .str();
    return failure();
  }
  for (size_t i = 0; i < numbers.size(); i += width) {
    bool weightsAsB = list == SpecializedList::weightsAsB ||
                      (width == 4 && numbers[i + 2] != 0);
    int64_t multicast = width == 4 && !decoderList ? numbers[i + 3] : 1;
    int64_t decoders = decoderList ? numbers[i + 3] : 0;
    if (width == 4 && (numbers[i + 2] < 0 || numbers[i + 2] > 1)) {
      error = llvm::formatv("fused {3} variant (m_tile = {0}, "
                            "col_tiles = {1}) has weights_as_b = {2}; it "
                            "takes 0 or 1",
                            numbers[i], numbers[i + 1], numbers[i + 2], kind)
                  .str();
      return failure();
    }
    if (decoderList && (decoders < 1 || decoders > kMaxSpecializedDecoders)) {
      error = llvm::formatv("fused decoder variant (m_tile = {0}, col_tiles "
                            "= {1}) has decoders = {2}; it takes 1 to {3}",
                            numbers[i], numbers[i + 1], decoders,
                            kMaxSpecializedDecoders)
                  .str();
      return failure();
    }
    bool registers = list == SpecializedList::registers;
    int64_t rows = FusedGemmOp::getSpecializedRows(numbers[i + 1], weightsAsB);
    FusedGemmVariant v{numbers[i],           weightsAsB ? 1 : 4, 1,
                       numbers[i + 1],
                       /*stages=*/0,
                       /*warpgroup=*/true,
                       /*specialized=*/true, weightsAsB};
    v.multicast = multicast;
    v.registerWeights = registers;
    v.decoders = decoders;
    v.stages = registers ? FusedGemmOp::getRegisterStages(v.mTile, v.colTiles)
                         : FusedGemmOp::getSpecializedStages(
                               v.mTile, rows, v.getDecoderGroups());
    if (registers && !FusedGemmOp::isRegisterTiling(v.mTile, v.colTiles)) {
      error = llvm::formatv("fused register variant (m_tile = {0}, col_tiles "
                            "= {1}) is not a legal qmat.fused_gemm tiling "
                            "(weights_in_registers: m_tile 64 or 128, "
                            "col_tiles 1 or 2)",
                            v.mTile, v.colTiles)
                  .str();
      return failure();
    }
    if (width == 3)
      v.kSlices = numbers[i + 2];
    if (!FusedGemmOp::isSpecializedTiling(v.mTile, v.colTiles, weightsAsB)) {
      error =
          llvm::formatv(
              "fused specialized variant (m_tile = {0}, col_tiles = {1}) "
              "is not a legal qmat.fused_gemm tiling ({2})",
              v.mTile, v.colTiles,
              weightsAsB ? "with the weights as B: m_tile 64 or 128, "
                           "col_tiles 1 to 16"
                         : "m_tile one of 16, 32, 64, 128, 192, 256, col_tiles "
                           "1 or 2")
              .str();
      return failure();
    }
    if (list == SpecializedList::multicast &&
        (multicast == 1 ||
         !llvm::is_contained(FusedGemmOp::getMulticastChoices(), multicast) ||
         !isWholeMulticastShare(v.mTile, multicast))) {
      error = llvm::formatv("fused multicast variant (m_tile = {0}, "
                            "col_tiles = {1}) has multicast = {2}; it takes 2 "
                            "or 4 where m_tile is a multiple of 8 x "
                            "multicast",
                            v.mTile, v.colTiles, multicast)
                  .str();
      return failure();
    }
    int64_t threads = FusedGemmOp::getSpecializedThreads(
        v.mTile, v.colTiles, weightsAsB, v.getDecoderGroups());
    if (decoderList && threads > kMaxFusedBlockThreads) {
      error = llvm::formatv("fused decoder variant (m_tile = {0}, col_tiles "
                            "= {1}) has decoders = {2}, which with the "
                            "multiplying warpgroups make {3} threads, more "
                            "than the {4} a block may take",
                            v.mTile, v.colTiles, decoders, threads,
                            kMaxFusedBlockThreads)
                  .str();
      return failure();
    }
    if (width == 3 &&
        (v.kSlices == 1 ||
         !llvm::is_contained(FusedGemmOp::getKSliceChoices(), v.kSlices))) {
      error = llvm::formatv("fused specialized sliced variant (m_tile = {0}, "
                            "col_tiles = {1}) has k_slices = {2}; it takes 2, "
                            "4 or 8",
                            v.mTile, v.colTiles, v.kSlices)
                  .str();
      return failure();
    }
    // A K range the slices' K steps do not divide has no such variant.
    if (width == 3 && (k / 128) % v.kSlices != 0)
      continue;
    for (const FusedGemmVariant &other : variants)
      if (other.mTile == v.mTile && other.warpsN == v.warpsN &&
          other.splitK == v.splitK && other.colTiles == v.colTiles &&
          other.stages == v.stages && other.multicast == v.multicast &&
          other.kSlices == v.kSlices &&
          other.registerWeights == v.registerWeights) {
        // The launcher names a variant by these numbers.
        if (decoderList) {
          error = llvm::formatv("fused decoder variant (m_tile = {0}, "
                                "col_tiles = {1}, decoders = {2}) has the "
                                "tiling of another variant (stages = {3}), "
                                "which the launcher could not tell apart",
                                v.mTile, v.colTiles, decoders, v.stages)
                      .str();
          return failure();
        }
        error = llvm::formatv("fused specialized variant (m_tile = {0}, "
                              "col_tiles = {1}{4}) has the tiling of a listed "
                              "warp or warpgroup variant (warps_n = {3}, "
                              "split_k = 1, stages = {2})",
                              v.mTile, v.colTiles, v.stages, v.warpsN,
                              v.multicast > 1 ? ", multicast = " +
                                                    std::to_string(v.multicast)
                                              : std::string())
                    .str();
        return failure();
      }
    // The decode through fp32 (fp8) has no specialized form.
    if (scheme != SchemeKind::fp8)
      variants.push_back(v);
  }
  return success();
}

int64_t FusedGemmVariant::getDecoderGroups() const {
  if (!specialized || registerWeights)
    return 0;
  return decoders
             ? decoders
             : FusedGemmOp::getSpecializedDecoders(mTile, colTiles, weightsAsB);
}

ArrayRef<int64_t> mlir::qmat::getDefaultSpecializedSlicedTiles(int64_t n,
                                                               int64_t k) {
  // The sibling the launcher's policy may take (its M tile's grid under
  // one block per SM on a GPU of up to kSlicedMaxMultiprocessors SMs, and
  // enough K steps a slice: qmat_policy::kSpecializedSlicedMaxMTile).
  static const int64_t values[] = {qmat_policy::kSpecializedSlicedMaxMTile, 1,
                                   2};
  if (llvm::divideCeil(n, 64) >= kSlicedMaxMultiprocessors ||
      !qmat_policy::hasSpecializedSliceSteps(k))
    return {};
  return values;
}

ArrayRef<int64_t> mlir::qmat::getDefaultSlicedTiles() {
  // The tilings the launcher's policy took on the H100 wherever a K-sliced
  // tiling was the fastest (bench/README.md, "K slices"): 16 x 1 x 4 x 2
  // and 32 x 2 x 2 x {1, 2} in 2 slices, 32 x 2 x 2 x 2 in 4, and the
  // one-column 16-row tiling in 2 for grids under one block per SM.
  static const int64_t values[] = {16, 1, 4,  2, 2,  2, 16, 1, 4,  1,
                                   2,  2, 32, 2, 2,  2, 2,  2, 32, 2,
                                   2,  2, 2,  4, 32, 2, 2,  1, 2,  2};
  return values;
}

int64_t mlir::qmat::getSlicedRowLimit(int64_t rowsPerBlock) {
  return int64_t(qmat_policy::kSlicedBlocksPerSM *
                 double(kSlicedMaxMultiprocessors)) *
         rowsPerBlock;
}

FailureOr<SmallVector<FusedGemmVariant>> mlir::qmat::getFusedGemmVariants(
    PlanAttr plan, SchemeKind scheme, int64_t n, int64_t k,
    ArrayRef<int64_t> tiles, ArrayRef<int64_t> warpgroupTiles,
    ArrayRef<int64_t> specializedTiles, ArrayRef<int64_t> specializedBTiles,
    std::string &error, ArrayRef<int64_t> slicedTiles, bool slicedDefaults,
    ArrayRef<int64_t> multicastTiles, ArrayRef<int64_t> specializedSlicedTiles,
    ArrayRef<int64_t> registerTiles, ArrayRef<int64_t> decoderTiles) {
  SmallVector<FusedGemmVariant> variants;
  if (plan.getFusedMaxM() == 0)
    return variants;
  std::unique_ptr<TargetInfo> target =
      createTargetInfo(plan.getTarget().getChip());
  bool defaultTiles = tiles.empty();
  if (defaultTiles)
    tiles = getDefaultFusedGemmTiles();
  if (tiles.size() % kFusedTilingNumbers != 0) {
    error = "fused-variants takes (m_tile, warps_n, split_k, col_tiles, "
            "stages) quintuples, got " +
            std::to_string(tiles.size()) + " numbers";
    return failure();
  }
  if (warpgroupTiles.size() % 4 != 0) {
    error = "fused-warpgroup-variants takes (m_tile, warps_n, split_k, "
            "col_tiles) quadruples, got " +
            std::to_string(warpgroupTiles.size()) + " numbers";
    return failure();
  }
  // The default sliced tilings where the policy can take them: rows of
  // their unsliced grid under the limit (the whole default list kept
  // together, in its order).
  SmallVector<int64_t> defaultSliced;
  if (slicedDefaults && defaultTiles && slicedTiles.empty() &&
      target->hasBlockClusters()) {
    ArrayRef<int64_t> all = getDefaultSlicedTiles();
    for (size_t i = 0; i < all.size(); i += kFusedTilingNumbers + 1)
      if (n < getSlicedRowLimit(16 * all[i + 1] * all[i + 3]))
        defaultSliced.append(all.begin() + i,
                             all.begin() + i + kFusedTilingNumbers + 1);
    slicedTiles = defaultSliced;
  }
  if (slicedTiles.size() % (kFusedTilingNumbers + 1) != 0) {
    error = "fused-sliced-variants takes (m_tile, warps_n, split_k, "
            "col_tiles, stages, k_slices) sextuples, got " +
            std::to_string(slicedTiles.size()) + " numbers";
    return failure();
  }
  SmallVector<FusedGemmVariant> listed;
  // Without asynchronous copies the default tilings stage their
  // activations between barriers (one stage). Not measured: the tilings were
  // chosen on the H200 only.
  for (size_t i = 0; i < tiles.size(); i += kFusedTilingNumbers)
    listed.push_back(
        {tiles[i], tiles[i + 1], tiles[i + 2], tiles[i + 3],
         defaultTiles && !target->hasAsyncCopy() ? 1 : tiles[i + 4]});
  for (size_t i = 0; i < warpgroupTiles.size(); i += 4) {
    int64_t stages = FusedGemmOp::getWarpgroupStages(
        warpgroupTiles[i], warpgroupTiles[i + 1], warpgroupTiles[i + 2],
        warpgroupTiles[i + 3]);
    FusedGemmVariant v{warpgroupTiles[i],
                       warpgroupTiles[i + 1],
                       warpgroupTiles[i + 2],
                       warpgroupTiles[i + 3],
                       stages,
                       /*warpgroup=*/true};
    for (const FusedGemmVariant &other : listed)
      if (!other.warpgroup && other.mTile == v.mTile &&
          other.warpsN == v.warpsN && other.splitK == v.splitK &&
          other.colTiles == v.colTiles && other.stages == v.stages) {
        error = llvm::formatv("fused variant (m_tile = {0}, warps_n = {1}, "
                              "split_k = {2}, col_tiles = {3}, stages = {4}) "
                              "is listed both as a warp and as a warpgroup "
                              "tiling",
                              v.mTile, v.warpsN, v.splitK, v.colTiles, v.stages)
                    .str();
        return failure();
      }
    listed.push_back(v);
  }
  for (size_t i = 0; i < slicedTiles.size(); i += kFusedTilingNumbers + 1) {
    FusedGemmVariant v{slicedTiles[i], slicedTiles[i + 1], slicedTiles[i + 2],
                       slicedTiles[i + 3], slicedTiles[i + 4]};
    v.kSlices = slicedTiles[i + 5];
    if (!llvm::is_contained(FusedGemmOp::getKSliceChoices(), v.kSlices) ||
        v.kSlices == 1) {
      error = llvm::formatv("fused sliced variant (m_tile = {0}, warps_n = "
                            "{1}, split_k = {2}, col_tiles = {3}, stages = "
                            "{4}) has k_slices = {5}; it takes 2, 4 or 8",
                            v.mTile, v.warpsN, v.splitK, v.colTiles, v.stages,
                            v.kSlices)
                  .str();
      return failure();
    }
    if (!target->hasBlockClusters()) {
      error =
          llvm::formatv("fused sliced variant (m_tile = {0}, warps_n = "
                        "{1}, split_k = {2}, col_tiles = {3}, stages = "
                        "{4}, k_slices = {5}) needs thread-block "
                        "clusters, which {6} lacks",
                        v.mTile, v.warpsN, v.splitK, v.colTiles, v.stages,
                        v.kSlices, stringifyChip(plan.getTarget().getChip()))
              .str();
      return failure();
    }
    listed.push_back(v);
  }
  for (const FusedGemmVariant &v : listed) {
    if (v.warpgroup && v.stages == 0) {
      error = llvm::formatv(
                  "fused warpgroup variant (m_tile = {0}, warps_n = {1}, "
                  "split_k = {2}, col_tiles = {3}) needs {4} bytes of "
                  "workgroup memory for three stages, more than the {5} a "
                  "warpgroup block may have",
                  v.mTile, v.warpsN, v.splitK, v.colTiles,
                  FusedGemmOp::getWorkgroupBytes(v.mTile, v.warpsN, v.splitK,
                                                 v.colTiles, 3,
                                                 /*warpgroup=*/true),
                  FusedGemmOp::getMaxWorkgroupBytes(/*warpgroup=*/true))
                  .str();
      return failure();
    }
    bool legal =
        llvm::is_contained(FusedGemmOp::getMTileChoices(), v.mTile) &&
        llvm::is_contained(FusedGemmOp::getWarpsNChoices(), v.warpsN) &&
        llvm::is_contained(FusedGemmOp::getSplitKChoices(), v.splitK) &&
        llvm::is_contained(GemvOp::getColTileChoices(), v.colTiles) &&
        32 * v.warpsN * v.splitK <= kMaxFusedBlockThreads &&
        v.colTiles * v.mTile / 2 <= kMaxFusedAccumulators &&
        llvm::is_contained(FusedGemmOp::getStagesChoices(), v.stages) &&
        FusedGemmOp::getWorkgroupBytes(v.mTile, v.warpsN, v.splitK, v.colTiles,
                                       v.stages, v.warpgroup, v.kSlices) <=
            FusedGemmOp::getMaxWorkgroupBytes(v.warpgroup) &&
        (!v.warpgroup ||
         FusedGemmOp::isWarpgroupTiling(v.warpsN, v.colTiles, v.stages));
    if (!legal) {
      error = llvm::formatv("fused {5}variant (m_tile = {0}, warps_n = {1}, "
                            "split_k = {2}, col_tiles = {3}, stages = {4}) "
                            "is not a legal qmat.fused_gemm tiling",
                            v.mTile, v.warpsN, v.splitK, v.colTiles, v.stages,
                            v.warpgroup ? "warpgroup " : "")
                  .str();
      return failure();
    }
    int64_t threads = target->getWarpSize() * v.warpsN * v.splitK;
    if (threads > kMaxFusedBlockThreads) {
      error = llvm::formatv("fused variant (m_tile = {0}, warps_n = {1}, "
                            "split_k = {2}, col_tiles = {3}) needs {4} "
                            "threads per block on {5} ({6}-lane warps), more "
                            "than the {7} a fused block may take",
                            v.mTile, v.warpsN, v.splitK, v.colTiles, threads,
                            stringifyChip(plan.getTarget().getChip()),
                            target->getWarpSize(), kMaxFusedBlockThreads)
                  .str();
      return failure();
    }
    if (v.stages > 1 && !target->hasAsyncCopy()) {
      error = llvm::formatv("fused {5}variant (m_tile = {0}, warps_n = {1}, "
                            "split_k = {2}, col_tiles = {3}) has stages = {4}, "
                            "which needs asynchronous copies to workgroup "
                            "memory; {6} has none (stages = 1)",
                            v.mTile, v.warpsN, v.splitK, v.colTiles, v.stages,
                            v.warpgroup ? "warpgroup " : "",
                            stringifyChip(plan.getTarget().getChip()))
                  .str();
      return failure();
    }
    if ((k / 128) % (v.splitK * v.kSlices) == 0)
      variants.push_back(v);
  }
  bool defaults =
      plan.getFusedMaxM() > kWarpFusedMaxM &&
      hasDefaultSpecializedTiles(*target, scheme, plan.getPreparedWeights());
  // A listed tiling of either form replaces both default lists.
  if (specializedTiles.empty() && specializedBTiles.empty() && defaults) {
    specializedTiles = getDefaultSpecializedTiles(plan.getFusedMaxM());
    specializedBTiles = getDefaultSpecializedBTiles();
    if (specializedSlicedTiles.empty())
      specializedSlicedTiles = getDefaultSpecializedSlicedTiles(n, k);
  }
  if (failed(addSpecializedVariants(plan, scheme, k, specializedTiles,
                                    SpecializedList::weightsAsA, *target,
                                    variants, error)) ||
      failed(addSpecializedVariants(plan, scheme, k, specializedBTiles,
                                    SpecializedList::weightsAsB, *target,
                                    variants, error)) ||
      failed(addSpecializedVariants(plan, scheme, k, multicastTiles,
                                    SpecializedList::multicast, *target,
                                    variants, error)) ||
      failed(addSpecializedVariants(plan, scheme, k, specializedSlicedTiles,
                                    SpecializedList::sliced, *target, variants,
                                    error)) ||
      failed(addSpecializedVariants(plan, scheme, k, registerTiles,
                                    SpecializedList::registers, *target,
                                    variants, error)) ||
      failed(addSpecializedVariants(plan, scheme, k, decoderTiles,
                                    SpecializedList::decoders, *target,
                                    variants, error)))
    return failure();
  return variants;
}
