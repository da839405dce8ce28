//===- SelectStrategy.cpp - Choose how each matmul runs -------------------===//

#include "qmat/Dialect/QMat/IR/FusedGemm.h"
#include "qmat/Dialect/QMat/IR/PreparedWeights.h"
#include "qmat/Target/TargetInfo.h"
#include "qmat/Transforms/GemvVariants.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATSELECTSTRATEGY
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

struct QMatSelectStrategyPass
    : qmat::impl::QMatSelectStrategyBase<QMatSelectStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    std::optional<Chip> chip = symbolizeChip(target);
    if (!chip) {
      emitError(getOperation()->getLoc())
          << "unknown target '" << target
          << "' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942 "
             "or "
             "gfx950)";
      return signalPassFailure();
    }
    auto targetAttr = TargetAttr::get(context, *chip);
    std::string error;
    auto info = lookupTargetInfo(target, error);
    if (!info) {
      emitError(getOperation()->getLoc()) << error;
      return signalPassFailure();
    }
    // 2^20 MiB (1 TiB) keeps the byte count far from int64 overflow and is
    // beyond any device's memory.
    if (gemvMaxM < 0 || gemvMaxM > 64) {
      emitError(getOperation()->getLoc())
          << "gemv-max-m must be in [0, 64], got " << int64_t(gemvMaxM);
      return signalPassFailure();
    }
    if (scratchCapMiB <= 0 || scratchCapMiB > (int64_t(1) << 20)) {
      emitError(getOperation()->getLoc())
          << "scratch-cap-mib must be in [1, 1048576], got "
          << int64_t(scratchCapMiB);
      return signalPassFailure();
    }
    if (fusedMaxM < -1 || fusedMaxM > kMaxFusedMaxM) {
      emitError(getOperation()->getLoc())
          << "fused-max-m must be -1 (the target's default), 0 (no fused "
             "GEMM) or in [1, "
          << kMaxFusedMaxM << "], got " << fusedMaxM;
      return signalPassFailure();
    }
    std::optional<DequantKernel> forcedKernel;
    if (forceDequant != "auto" &&
        !(forcedKernel = symbolizeDequantKernel(forceDequant))) {
      emitError(getOperation()->getLoc())
          << "unknown dequant kernel '" << forceDequant
          << "' (expected auto, vec8 or scalar)";
      return signalPassFailure();
    }
    std::optional<DecodeMethod> forcedDecode;
    if (forceDecode != "auto" &&
        !(forcedDecode = symbolizeDecodeMethod(forceDecode))) {
      emitError(getOperation()->getLoc())
          << "unknown decode method '" << forceDecode
          << "' (expected auto, arith, lookup, magic_bias or native)";
      return signalPassFailure();
    }

    WalkResult result = getOperation()->walk([&](MatmulOp op) {
      // The expansions run function by function: a matmul outside one would
      // pass through them unlowered.
      if (!op->getParentOfType<func::FuncOp>()) {
        op.emitOpError() << "must be inside a func.func: the lowering "
                            "expands the matmuls of each function";
        return WalkResult::interrupt();
      }
      SchemeAttr scheme = op.getScheme();
      int64_t n = op.getN(), k = op.getK();
      bool vec8Legal = scheme.isVec8Legal(k);
      DequantKernel kernel = forcedKernel.value_or(
          vec8Legal ? DequantKernel::vec8 : DequantKernel::scalar);
      if (kernel == DequantKernel::vec8 && !vec8Legal) {
        op.emitOpError() << "vec8 was forced but needs K % 8 == 0 and an even "
                            "block size, got K = "
                         << k << ", block = " << scheme.getBlockSize();
        return WalkResult::interrupt();
      }
      ElementFormat format = scheme.getElementFormat();
      DecodeMethod decode = info->getDefaultDecode(format);
      if (forcedDecode) {
        if (!info->supportsDecode(format, *forcedDecode)) {
          op.emitOpError() << "decode '" << stringifyDecodeMethod(*forcedDecode)
                           << "' is not available for "
                           << stringifySchemeKind(scheme.getKind()) << " on "
                           << target;
          return WalkResult::interrupt();
        }
        decode = *forcedDecode;
      }
      DecodePath smallM =
          scheme.isTensorCoreGemvLegal(k) && info->hasGemvMatrixInstruction()
              ? DecodePath::gemv_tensor_core
              : DecodePath::gemv_scalar;
      if (gemvMaxM == 0)
        smallM = DecodePath::prefill;
      // The verifier keeps N and K in [1, 2^31 - 1]; an unverified op must
      // still not divide by zero or overflow here.
      if (n <= 0 || k <= 0) {
        op.emitOpError() << "N and K must be positive, got N = " << n
                         << ", K = " << k;
        return WalkResult::interrupt();
      }
      std::optional<int64_t> rowBytes = llvm::checkedMul<int64_t>(k, 2);
      if (!rowBytes) {
        op.emitOpError() << "a scratch row of K = " << k
                         << " elements exceeds 2^63 bytes";
        return WalkResult::interrupt();
      }
      int64_t capBytes = scratchCapMiB * 1024 * 1024;
      // The prefill dequantizes at least one row per tile: where one row is
      // beyond the cap, the workspace is too, and the user should know.
      if (*rowBytes > capBytes)
        op.emitWarning() << "one scratch row of K = " << k << " elements takes "
                         << *rowBytes << " bytes, more than scratch-cap-mib = "
                         << int64_t(scratchCapMiB)
                         << " MiB: the prefill's tiles of one row each need "
                            "that much workspace";
      int64_t capRows = std::max<int64_t>(1, capBytes / *rowBytes);
      // Tiles of a multiple of 128 rows keep every tile's Y and bias offset
      // 16-byte aligned for the GEMM (on the H200 the nvfp4 lm_head prefill
      // at M = 1024 took 10.9 ms with 26214-row tiles, 4.15 ms with 26112).
      if (capRows >= 128)
        capRows = capRows / 128 * 128;
      int64_t tileRows = std::min(n, capRows);
      bool prepared = preparedWeights && smallM != DecodePath::gemv_scalar &&
                      canPrepareWeights(scheme.isPacked(), n, k);
      // A prepared tile of rows must start at a tile of the layout.
      if (prepared)
        tileRows = std::max(kPreparedTileRows,
                            tileRows / kPreparedTileRows * kPreparedTileRows);
      // The fused GEMM is the tensor-core GEMV's kernel tiled over M: it
      // needs the same layout rule and a warp matrix instruction.
      int64_t fused = 0;
      if (scheme.isTensorCoreGemvLegal(k) && info->hasGemvMatrixInstruction())
        fused = fusedMaxM < 0
                    ? getDefaultFusedMaxM(*info, scheme.getKind(), prepared)
                    : fusedMaxM;
      if (fused != 0 && fused <= gemvMaxM)
        fused = 0;
      op.setPlanAttr(PlanAttr::get(context, targetAttr, gemvMaxM, smallM,
                                   kernel, decode, scratchCapMiB, tileRows,
                                   prepared, fused));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
