//===- KernelConfig.cpp - Configure the GEMV and fused GEMM kernels -------===//
//
// The only place that weighs a chip or a measurement for the decode-path
// kernels: every qmat.gemv and qmat.fused_gemm gets a #qmat.kernel_config
// here, and the lowering builds exactly that. The figures cited are in
// bench/README.md, "Measurements behind the compiler's choices".
//
//===----------------------------------------------------------------------===//

#include "qmat/Transforms/KernelConfig.h"
#include "qmat/Dialect/QMat/IR/GemvLayouts.h"
#include "qmat/Target/TargetInfo.h"
#include "qmat/Transforms/Passes.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATCONFIGUREKERNELS
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// The Hopper kernel classes, portable and arch-specific: the register
/// budgets below were measured there.
bool isHopper(const TargetInfo &info) {
  std::optional<Chip> chip = info.getChip();
  return chip == Chip::sm_90 || chip == Chip::sm_90a;
}

/// Threads per SM that the budgeted whole-line kernels keep resident: 64
/// registers each, 32 warps instead of the 28 that their 68-72 registers
/// allow unbudgeted.
constexpr int64_t kWholeLineResidentThreads = 1024;

/// Where ptxas fits that budget without spilling (lit: ptx-gemv.mlir) and
/// it was measured: nvfp4's one-tile whole-line kernels at split-K 2 to 8
/// and K <= 5120 on sm_90, since the lop3 fp4 placement. 17408 x 5120 at
/// split-K 4 then takes 1.03 waves instead of 1.18, 2-4 % faster on the
/// H200. Split-K 1 and 16, K = 8192 and 16384, mxfp4 with bf16 and sm_80 /
/// sm_89 spill at 64 registers; the rest (mxfp4 with f16, other chips) was
/// not measured.
bool takesWholeLineRegisterBudget(GemvOp op, const TargetInfo &info) {
  return isHopper(info) && op.getColTiles() == 1 &&
         op.getScheme().getKind() == SchemeKind::nvfp4 && op.getSplitK() >= 2 &&
         op.getSplitK() <= 8 && op.getK() <= 5120;
}

/// Threads per SM that the half-step kernels keep resident: 96 registers
/// each, 20 warps instead of the 18 that a whole step's 106 registers
/// allow.
constexpr int64_t kHalfStepResidentThreads = 640;

/// Where the half steps fit that budget without spilling (ptxas 13.0,
/// sm_90; lit: ptx-gemv.mlir) and were measured: split-K 2 and 4. At
/// split-K 1 ptxas spills 12-20 bytes; with K a power of two (1024 to
/// 16384) 32-40 bytes, or takes 104 registers unbudgeted (no warp gained),
/// so those keep whole steps. The half steps make nvfp4's lm_head at M = 8
/// 4-5 % faster with identical outputs, and mxfp4's four-tile kernel
/// likewise. Prepared codes take them only without the partial-block loop
/// (whole_blocks), whose clamped tiles spilled.
bool takesHalfSteps(GemvOp op, const TargetInfo &info, bool wholeBlocks) {
  return isHopper(info) && (!op.getPreparedWeights() || wholeBlocks) &&
         (op.getSplitK() == 2 || op.getSplitK() == 4) &&
         !llvm::isPowerOf2_64(op.getK());
}

/// Whether every block of a launch over `weights` is whole: prepared codes
/// only, where the partial-block loop's four clamped tile bases made the
/// half-step kernels spill 40 bytes under their register budget (ptxas
/// 13.0). A static N is known where the lowering specialises on one layer.
bool takesWholeBlocks(bool prepared, Value weights, int64_t rowsPerBlock) {
  int64_t n = cast<MemRefType>(weights.getType()).getDimSize(0);
  return prepared && !ShapedType::isDynamic(n) && n % rowsPerBlock == 0;
}

} // namespace

DecodeMethod mlir::qmat::getDefaultGemvDecode(ElementFormat format) {
  return format == ElementFormat::e4m3 ? DecodeMethod::arith
                                       : DecodeMethod::magic_bias;
}

DecodeMethod mlir::qmat::getDefaultGemvDecode(ElementFormat format,
                                              const TargetInfo &target) {
  if (format == ElementFormat::e4m3 &&
      target.supportsDecode(format, DecodeMethod::native))
    return DecodeMethod::native;
  return getDefaultGemvDecode(format);
}

DecodeMethod mlir::qmat::getDefaultFusedGemmDecode(ElementFormat format,
                                                   const TargetInfo &target) {
  // The conversion's pairs are adjacent K, as the matrix instruction's
  // operand fragments are, so the staged activations need no re-pairing
  // permute (the magic-bias decode pairs K j and j + 4); each pair then goes
  // through fp32 for the scales. Not measured: no Blackwell GPU here. The
  // wavefront (AMD) kernel decodes every word through fp32 whatever the
  // decode, so it keeps the GEMV's default there (docs/amd.md).
  if (format == ElementFormat::e2m1 && target.usesWarpMmaGemv() &&
      target.supportsDecode(format, DecodeMethod::native))
    return DecodeMethod::native;
  return getDefaultGemvDecode(format, target);
}

MatrixOp mlir::qmat::getGemvMatrix(bool tensorCore, const TargetInfo &target) {
  return !tensorCore                ? MatrixOp::scalar
         : target.usesWarpMmaGemv() ? MatrixOp::mma_16x8x16
                                    : MatrixOp::mfma_16x16x16;
}

KernelConfigAttr mlir::qmat::getKernelConfig(GemvOp op,
                                             const TargetInfo &info) {
  SchemeAttr scheme = op.getScheme();
  DecodeMethod decode = op.getDecode().value_or(
      getDefaultGemvDecode(scheme.getElementFormat(), info));
  MatrixOp matrix = getGemvMatrix(op.getTensorCore(), info);
  bool warpMma = matrix == MatrixOp::mma_16x8x16;
  // Whole lines wherever they are legal: against the 16-row layout at up to
  // 4 rows they are faster for nvfp4 (17408 x 5120 7 % at M = 1) and for
  // mxfp4 at 17408 x 5120 (its lm_head even); the variant list keeps int4,
  // which they made slower, out of them (isWholeLineGemv). Measured on the
  // H200 only: the other NVIDIA targets run the same mapping unmeasured.
  bool wholeLines =
      warpMma && isWholeLineGemv(scheme.getKind(), true, decode, op.getK(),
                                 op.getMaxM(), op.getColTiles());
  bool wholeBlocks = matrix != MatrixOp::scalar &&
                     takesWholeBlocks(op.getPreparedWeights(), op.getWeights(),
                                      16 * op.getColTiles());
  bool halfSteps =
      warpMma &&
      isHalfStepGemv(scheme.getKind(), decode, op.getActType().isBF16(),
                     op.getColTiles(), wholeLines) &&
      takesHalfSteps(op, info, wholeBlocks);
  int64_t residentThreads = 0;
  if (wholeLines && takesWholeLineRegisterBudget(op, info))
    residentThreads = kWholeLineResidentThreads;
  else if (halfSteps)
    residentThreads = kHalfStepResidentThreads;
  return KernelConfigAttr::get(op.getContext(), matrix, decode, wholeLines,
                               halfSteps, wholeBlocks, residentThreads);
}

KernelConfigAttr mlir::qmat::getKernelConfig(FusedGemmOp op,
                                             const TargetInfo &info) {
  DecodeMethod decode = op.getDecode().value_or(
      getDefaultFusedGemmDecode(op.getScheme().getElementFormat(), info));
  // The warpgroup form exchanges packed codes between lanes to decode in
  // the instruction's K order; elsewhere, and for the decode through fp32
  // (fp8), the warpgroup tiling takes the warp instruction (the op's
  // documented fallback).
  bool packed = decode == DecodeMethod::magic_bias &&
                op.getScheme().getKind() != SchemeKind::fp8;
  MatrixOp matrix = op.getWarpgroup() && info.hasWarpgroupMma() && packed
                        ? MatrixOp::wgmma_64xnx16
                    : info.usesWarpMmaGemv() ? MatrixOp::mma_16x8x16
                                             : MatrixOp::mfma_16x16x16;
  bool wholeBlocks = takesWholeBlocks(op.getPreparedWeights(), op.getWeights(),
                                      16 * op.getColTiles() * op.getWarpsN());
  return KernelConfigAttr::get(op.getContext(), matrix, decode,
                               /*wholeLines=*/false, /*halfSteps=*/false,
                               wholeBlocks, /*residentThreads=*/0);
}

/// When a variant's kernel gains from two column tiles (measured on the
/// H200): the packed decodes of the 16x8x16 (NVIDIA) mapping, whose
/// per-weight work is light enough that sharing the activations across
/// tiles pays on many-tile layers and from M = 4 (prepared int4: on
/// many-tile layers only), nvfp4 with four tiles on many-tile layers (with
/// prepared codes and f16 activations two, as the other packed decodes);
/// the fp32 decode (fp8) only where both hold. The AMD matrix GEMV (not
/// measured) keeps one tile, and so does the whole-line tier (compiled with
/// one tile only). Split-K 1 on many-tile layers: the fp32 decode with f16
/// activations, and prepared packed codes with f16 activations or mxfp4
/// (nvfp4 with bf16 has four-tile half-step kernels as fast; int4 with bf16
/// measured split-K 1 4-6 % behind).
GemvPolicyTraits mlir::qmat::getGemvPolicyTraits(SchemeKind scheme, bool bf16,
                                                 bool prepared, bool nvidia,
                                                 bool wholeLines,
                                                 KernelConfigAttr config) {
  return getGemvPolicyTraits(scheme, bf16, prepared, nvidia, wholeLines,
                             config.getMatrix(), config.getDecode());
}

GemvPolicyTraits mlir::qmat::getGemvPolicyTraits(SchemeKind scheme, bool bf16,
                                                 bool prepared, bool nvidia,
                                                 bool wholeLines,
                                                 MatrixOp matrix,
                                                 DecodeMethod decode) {
  using qmat_policy::WideTiles;
  GemvPolicyTraits traits;
  if (!nvidia || matrix != MatrixOp::mma_16x8x16 || wholeLines)
    return traits;
  bool packed = decode == DecodeMethod::magic_bias && scheme != SchemeKind::fp8;
  if (!packed) {
    traits.wideTiles = WideTiles::manyTilesFromRows;
    traits.unsplitOnManyTiles = !bf16;
    return traits;
  }
  traits.unsplitOnManyTiles =
      prepared && (scheme == SchemeKind::mxfp4 || !bf16);
  if (scheme == SchemeKind::nvfp4) {
    // With prepared codes and f16 activations two tiles at split-K 1 beat
    // four on the lm_head.
    traits.wideTiles = prepared && !bf16 ? WideTiles::manyTilesOrRows
                                         : WideTiles::fourOnManyTiles;
    return traits;
  }
  // Prepared int4 takes two tiles on many-tile layers only: at 17408 x
  // 5120, M = 4 and 8, one tile is faster (5-11 % with f16), where the
  // checkpoint's layout is even. mxfp4, since its one-multiply decode,
  // gains from two tiles at M = 8 in either layout, as nvfp4 does.
  traits.wideTiles = scheme != SchemeKind::mxfp4 && prepared
                         ? WideTiles::manyTiles
                         : WideTiles::manyTilesOrRows;
  return traits;
}

namespace {

struct QMatConfigureKernelsPass
    : qmat::impl::QMatConfigureKernelsBase<QMatConfigureKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    auto info = lookupGpuTargetInfoOrEmit(getOperation(), target,
                                          "qmat-configure-kernels");
    if (!info)
      return signalPassFailure();
    // A config already attached (pinned in a test, or by a user) is kept;
    // the lowering checks it against the target.
    getOperation()->walk([&](Operation *op) {
      if (auto gemv = dyn_cast<GemvOp>(op); gemv && !gemv.getConfigAttr())
        gemv.setConfigAttr(getKernelConfig(gemv, *info));
      if (auto fused = dyn_cast<FusedGemmOp>(op);
          fused && !fused.getConfigAttr())
        fused.setConfigAttr(getKernelConfig(fused, *info));
    });
  }
};

} // namespace
