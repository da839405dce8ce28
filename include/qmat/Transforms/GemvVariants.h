//===- GemvVariants.h - The compiled decode-GEMV variants -------*- C++ -*-===//
//
// One layer's small-M path is a handful of compiled GEMV variants; the
// launcher picks one per call (GemvPolicy.h). The set is computed here once,
// for qmat-expand-gemv (which emits them) and qmat-aot (which tabulates
// them), so that the two always agree on the order.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_TRANSFORMS_GEMVVARIANTS_H
#define QMAT_TRANSFORMS_GEMVVARIANTS_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"

namespace mlir::qmat {

class TargetInfo;

struct GemvVariant {
  int64_t maxM = 8, splitK = 1, colTiles = 1;
  bool tensorCore = false;
  /// A kernel of the whole-line tier (the lowering takes that layout for
  /// each of them: isWholeLineGemv holds).
  bool wholeLines = false;
};

/// The variants of a `scheme` layer with K = `k` planned as `plan` (empty
/// when the plan sends
/// every M to the prefill path). Tensor core: every split-K of `splitKs`
/// times every column tile count of `colTiles`, for row capacities 8, 16,
/// 32, 64 up to the plan's gemv_max_m, keeping several row groups to one
/// column tile (two while col_tiles * row groups <= 4: registers), the
/// split-K buffer within 48 KiB and blocks within 512 threads (split-K <= 8
/// with the plan target's 64-lane wavefronts). Scalar: one variant. An
/// empty list means the default set. Where the layout applies
/// (isWholeLineGemv, a target with the 16x8x16 instruction) the whole-line
/// kernels of row capacity kWholeLineGemvMaxM come first, every split-K
/// with one column tile (when 1 is among `colTiles`), which the launcher
/// takes for M <= 4.
SmallVector<GemvVariant> getGemvVariants(PlanAttr plan, SchemeKind scheme,
                                         int64_t k, ArrayRef<int64_t> splitKs,
                                         ArrayRef<int64_t> colTiles);

/// The variants of planned matmul `op` that a bundle compiles: of
/// getGemvVariants' set, only those the launcher's policy can choose for
/// op's N and K (qmat_policy::reachableGemvVariants: on any device, so that
/// no choice changes), or all of them with `allVariants` (to time each).
SmallVector<GemvVariant> getGemvVariants(MatmulOp op, ArrayRef<int64_t> splitKs,
                                         ArrayRef<int64_t> colTiles,
                                         bool allVariants);

/// The defaults: the split-K and column-tile counts of the 16-row kernels
/// (split-K 3 only pays in the whole-line tier), and the whole-line tier's
/// split-Ks: with 3, a 17408 x 5120 grid fits one round of resident warps
/// (7 steps each) where split-K 4 needs a second round for 3 % of its
/// blocks, 7-8 % faster on the H200 for nvfp4 at M = 1 and 4 (mxfp4
/// within 1 %); the 16-row kernels at M = 8 are slower at split-K 3
/// (bench/README.md, "Measurements behind the compiler's choices").
ArrayRef<int64_t> getDefaultGemvSplitKs();
ArrayRef<int64_t> getDefaultWholeLineGemvSplitKs();
ArrayRef<int64_t> getDefaultGemvColTiles();

/// One compiled fused dequant-GEMM variant (qmat.fused_gemm).
struct FusedGemmVariant {
  int64_t mTile = 16, warpsN = 1, splitK = 1, colTiles = 1, stages = 1;
  /// qmat.fused_gemm's `warpgroup` (warps_n 4 or 8, stages 3 or 4).
  bool warpgroup = false;
  /// qmat.fused_gemm's `specialized` (with warpgroup: warps_n 4, split_k 1).
  bool specialized = false;
  /// qmat.fused_gemm's `weights_as_b` (with specialized: warps_n 1).
  bool weightsAsB = false;
  /// qmat.fused_gemm's `k_slices` (warp tilings, sm_90 on).
  int64_t kSlices = 1;
  /// qmat.fused_gemm's `multicast` (specialized tilings).
  int64_t multicast = 1;
  /// qmat.fused_gemm's `weights_in_registers` (specialized, the weights as
  /// A).
  bool registerWeights = false;
  /// qmat.fused_gemm's `decoders` (specialized, the decoded weights in
  /// workgroup memory); 0 for the tiling's default.
  int64_t decoders = 0;
  /// Its decoding warpgroups: `decoders` or the tiling's default; 0 where
  /// none decodes (not specialized, or the weights in registers).
  int64_t getDecoderGroups() const;
};

/// Numbers per tiling in a fused-variants list.
constexpr size_t kFusedTilingNumbers = 5;

/// The fused variants of a `scheme` layer with K = `k` planned as `plan`
/// (empty when the plan has no fused path): `tiles` holds (m_tile,
/// warps_n, split_k, col_tiles, stages) quintuples, or is empty for the
/// default set; tilings whose split_k does not divide this K's steps are
/// left out. Fails with a message when `tiles` is not a list of quintuples
/// or holds a tiling qmat.fused_gemm's verifier refuses.
/// `warpgroupTiles` adds warpgroup variants, as (m_tile, warps_n, split_k,
/// col_tiles) quadruples (stages 3 or 4);
/// one whose warp form `tiles` also lists is refused (the launcher's
/// override names a variant by its tiling). `specializedTiles` adds
/// specialized warpgroup variants, as (m_tile, col_tiles) pairs (stages 3
/// or 4), for the packed decodes only (an fp8 layer takes none); they need
/// the warpgroup instruction and the checkpoint's layout of the codes.
/// `specializedBTiles` adds specialized variants with the weights as the
/// instruction's B operand (`weights_as_b`), as (m_tile, col_tiles) pairs
/// of 16-row column tiles, under the same rules. `slicedTiles` adds warp
/// variants whose K range is split across the blocks of a cluster, as
/// (m_tile, warps_n, split_k, col_tiles, stages, k_slices) sextuples, on a
/// target with thread-block clusters; those whose split_k x k_slices does
/// not divide this K's steps are left out. Where neither `tiles` nor
/// `slicedTiles` lists any, a target with clusters takes the default sliced
/// tilings (getDefaultSlicedTiles) whose rows the launcher's policy can
/// take for this N, unless `slicedDefaults` is false. `multicastTiles` adds
/// specialized variants whose clusters share the activations, as (m_tile,
/// col_tiles, weights_as_b, multicast) quadruples; `specializedSlicedTiles`
/// specialized variants (the weights as A) whose K range is split across
/// the blocks of a cluster, as (m_tile, col_tiles, k_slices) triples;
/// `registerTiles` specialized variants with the decoded weights in the
/// multiplying warps' registers, as (m_tile, col_tiles) pairs;
/// `decoderTiles` specialized variants of either form with a decoding
/// warpgroup count of their own, as (m_tile, col_tiles, weights_as_b,
/// decoders) quadruples.
FailureOr<SmallVector<FusedGemmVariant>> getFusedGemmVariants(
    PlanAttr plan, SchemeKind scheme, int64_t n, int64_t k,
    ArrayRef<int64_t> tiles, ArrayRef<int64_t> warpgroupTiles,
    ArrayRef<int64_t> specializedTiles, ArrayRef<int64_t> specializedBTiles,
    std::string &error, ArrayRef<int64_t> slicedTiles = {},
    bool slicedDefaults = true, ArrayRef<int64_t> multicastTiles = {},
    ArrayRef<int64_t> specializedSlicedTiles = {},
    ArrayRef<int64_t> registerTiles = {}, ArrayRef<int64_t> decoderTiles = {});

/// The default (m_tile, warps_n, split_k, col_tiles, stages) quintuples.
ArrayRef<int64_t> getDefaultFusedGemmTiles();

/// Whether a `scheme` layer on `target` compiles specialized warpgroup
/// tilings when none are listed: the target has the warpgroup instruction,
/// the decode is a packed one (not fp8) and the codes keep the
/// checkpoint's layout (not `prepared`).
bool hasDefaultSpecializedTiles(const TargetInfo &target, SchemeKind scheme,
                                bool prepared);

/// The specialized (m_tile, col_tiles) pairs compiled when none are listed,
/// for a plan whose fused GEMM runs beyond M = kWarpFusedMaxM (below that
/// the warp tilings serve every M) up to `fusedMaxM`.
ArrayRef<int64_t> getDefaultSpecializedTiles(int64_t fusedMaxM);

/// The (m_tile, col_tiles) pairs with the weights as B compiled when none
/// are listed, where getDefaultSpecializedTiles' are.
ArrayRef<int64_t> getDefaultSpecializedBTiles();

/// The default warp tilings split across a cluster's blocks, as (m_tile,
/// warps_n, split_k, col_tiles, stages, k_slices) sextuples, and the rows
/// N below which the policy can take one of `rowsPerBlock` rows per block
/// on a GPU of up to kSlicedMaxMultiprocessors SMs: its unsliced grid of
/// one M tile has fewer than kSlicedBlocksPerSM blocks per SM there
/// (FusedGemmPolicy.h). 160 SMs covers the cluster-capable data-center GPUs
/// (H100 and H200: 132, B200: 148).
ArrayRef<int64_t> getDefaultSlicedTiles();
/// The specialized tilings in K slices (m_tile, col_tiles, k_slices) that a
/// layer of N x K compiles where the specialized defaults apply: 128 x 1 in
/// two slices where the launcher's policy can take it, else none.
ArrayRef<int64_t> getDefaultSpecializedSlicedTiles(int64_t n, int64_t k);
constexpr int64_t kSlicedMaxMultiprocessors = 160;
int64_t getSlicedRowLimit(int64_t rowsPerBlock);

/// The largest M of the fused GEMM by default: where the specialized form
/// is compiled by default, kSpecializedFusedMaxM, else kWarpFusedMaxM.
constexpr int64_t kWarpFusedMaxM = 128;
constexpr int64_t kSpecializedFusedMaxM = 256;
int64_t getDefaultFusedMaxM(const TargetInfo &target, SchemeKind scheme,
                            bool prepared);

} // namespace mlir::qmat

#endif // QMAT_TRANSFORMS_GEMVVARIANTS_H
