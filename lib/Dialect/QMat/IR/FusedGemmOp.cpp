//===- FusedGemmOp.cpp - qmat.fused_gemm's verifier and tiling rules ------===//
//
// The fused GEMM's tilings (warp, warpgroup, specialized, the weights as B,
// in registers, multicast and K-sliced clusters): what each form takes, its
// workgroup memory and threads, and the verifier message of every rule.
//
//===----------------------------------------------------------------------===//

#include "OperandRules.h"
#include "qmat/Dialect/QMat/IR/FusedGemm.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::detail;

/// `diag` << "<name> must be one of a, b, c, got <value>".
static LogicalResult emitNotAmong(Operation *op, StringRef name,
                                  ArrayRef<int64_t> choices, int64_t value) {
  InFlightDiagnostic diag = op->emitOpError() << name << " must be one of ";
  llvm::interleaveComma(choices, diag);
  return diag << ", got " << value;
}

LogicalResult FusedGemmOp::verify() {
  FailureOr<ProblemShape> problem = verifyMatmulOperands(*this);
  if (failed(problem))
    return failure();
  if (!getScheme().isTensorCoreGemvLegal(problem->k))
    return emitOpError() << "the fused GEMM needs K % 128 == 0 and a block "
                            "size that is a multiple of 8, got K = "
                         << problem->k
                         << ", block = " << getScheme().getBlockSize();
  int64_t mTile = getMTile(), warpsN = getWarpsN(), splitK = getSplitK(),
          colTiles = getColTiles(), stages = getStages();
  if (getSpecialized() && !getWeightsAsB()
          ? !llvm::is_contained(getSpecializedMTileChoices(), mTile)
          : !llvm::is_contained(getMTileChoices(), mTile) &&
                !(getSpecialized() && mTile == kMaxSpecializedMTile))
    return emitNotAmong(*this, "m_tile",
                        getSpecialized() && !getWeightsAsB()
                            ? getSpecializedMTileChoices()
                            : getMTileChoices(),
                        mTile);
  if (!llvm::is_contained(getWarpsNChoices(), warpsN))
    return emitNotAmong(*this, "warps_n", getWarpsNChoices(), warpsN);
  if (!llvm::is_contained(getSplitKChoices(), splitK))
    return emitNotAmong(*this, "split_k", getSplitKChoices(), splitK);
  if (!getWeightsAsB() &&
      !llvm::is_contained(GemvOp::getColTileChoices(), colTiles))
    return emitNotAmong(*this, "col_tiles", GemvOp::getColTileChoices(),
                        colTiles);
  if (!llvm::is_contained(getStagesChoices(), stages))
    return emitNotAmong(*this, "stages", getStagesChoices(), stages);
  if (stages > 4 && !getSpecialized())
    return emitOpError() << "stages = 5 is a form of the specialized tiling "
                            "(three decoding warpgroups each a stage ahead), "
                            "got stages = "
                         << stages << " without specialized";
  if (getWeightsAsB() && !getSpecialized())
    return emitOpError() << "weights_as_b is a form of the specialized "
                            "tiling (specialized is not set)";
  int64_t multicast = getMulticast();
  if (!llvm::is_contained(getMulticastChoices(), multicast))
    return emitNotAmong(*this, "multicast", getMulticastChoices(), multicast);
  if (multicast > 1 && !getSpecialized())
    return emitOpError() << "multicast > 1 is a form of the specialized "
                            "tiling (specialized is not set)";
  // Each block loads whole 8-row swizzle atoms of the stage.
  if (!isWholeMulticastShare(mTile, multicast))
    return emitOpError() << "multicast = " << multicast
                         << " gives each block of the cluster m_tile / "
                            "multicast activation rows, whole 8-row atoms: "
                            "m_tile must be a multiple of "
                         << 8 * multicast << ", got " << mTile;
  if (getWeightsInRegisters() && !getSpecialized())
    return emitOpError() << "weights_in_registers is a form of the "
                            "specialized tiling (specialized is not set)";
  if (getDecoders() && (!getSpecialized() || getWeightsInRegisters()))
    return emitOpError() << "decoders is a form of the specialized tiling "
                            "with the decoded weights in workgroup memory "
                            "(specialized without weights_in_registers)";
  if (getSpecialized()) {
    if (failed(getWeightsInRegisters() ? verifyRegisterTiling()
                                       : verifySpecializedTiling()))
      return failure();
  } else if (getWarpgroup() && !isWarpgroupTiling(warpsN, colTiles, stages))
    return emitOpError()
           << "warpgroup needs warps_n = 4 or 8, col_tiles = 1 or 2 and "
              "stages = 3 or 4 (whole warpgroups, one 64-row instruction "
              "per column tile, a staged tile for the instructions in "
              "flight besides the one being copied and the one being "
              "decoded), got warps_n = "
           << warpsN << ", col_tiles = " << colTiles << ", stages = " << stages;
  if (32 * warpsN * splitK > kMaxFusedBlockThreads)
    return emitOpError() << "warps_n x split_k x 32 threads must be at most "
                         << kMaxFusedBlockThreads << ", got "
                         << 32 * warpsN * splitK;
  if (!getSpecialized() && colTiles * mTile / 2 > kMaxFusedAccumulators)
    return emitOpError() << "col_tiles x m_tile / 2 accumulators per lane "
                            "must be at most "
                         << kMaxFusedAccumulators << ", got "
                         << colTiles * mTile / 2;
  bool warpgroup = getWarpgroup();
  int64_t kSlices = getKSlices();
  if (!llvm::is_contained(getKSliceChoices(), kSlices))
    return emitNotAmong(*this, "k_slices", getKSliceChoices(), kSlices);
  if (kSlices > 1 && warpgroup && !getSpecialized())
    return emitOpError() << "k_slices > 1 is a form of the warp and "
                            "specialized tilings, got k_slices = "
                         << kSlices << " with warpgroup";
  int64_t shared = getWorkgroupBytes(mTile, warpsN, splitK, colTiles, stages,
                                     warpgroup, kSlices);
  if (!getSpecialized() && shared > getMaxWorkgroupBytes(warpgroup))
    return emitOpError() << (warpgroup ? "the staged activations and codes "
                                       : "the staged activations ")
                         << "and split-K sums need " << shared
                         << " bytes of workgroup memory, more than the "
                         << getMaxWorkgroupBytes(warpgroup)
                         << " a block of this form may have";
  if ((problem->k / 128) % splitK != 0)
    return emitOpError() << "split_k must divide the K/128 = "
                         << problem->k / 128 << " steps, got " << splitK;
  if ((problem->k / 128) % (splitK * kSlices) != 0)
    return emitOpError() << "split_k x k_slices must divide the K/128 = "
                         << problem->k / 128 << " steps, got " << splitK
                         << " x " << kSlices;
  if (getPreparedWeights() &&
      failed(
          verifyPreparedWeights(*this, getScheme(), getWeights(), problem->k)))
    return failure();
  KernelConfigAttr config = getConfigAttr();
  if (!config)
    return success();
  MatrixOp matrix = config.getMatrix();
  if (matrix == MatrixOp::scalar)
    return emitOpError() << "config matrix must be mma_16x8x16, "
                            "mfma_16x16x16 or wgmma_64xnx16 for the fused "
                            "GEMM, got "
                         << stringifyMatrixOp(matrix);
  if (getSpecialized() && matrix != MatrixOp::wgmma_64xnx16)
    return emitOpError() << "specialized needs config matrix = wgmma_64xnx16 "
                            "(its warps multiply through the warpgroup "
                            "instruction only), got "
                         << stringifyMatrixOp(matrix);
  if (matrix == MatrixOp::wgmma_64xnx16 && !getWarpgroup())
    return emitOpError() << "config matrix = wgmma_64xnx16 needs the "
                            "warpgroup tiling (warpgroup is not set)";
  if (matrix == MatrixOp::wgmma_64xnx16 &&
      (config.getDecode() != DecodeMethod::magic_bias ||
       getScheme().getKind() == SchemeKind::fp8))
    return emitOpError() << "config matrix = wgmma_64xnx16 needs a packed "
                            "decode (nvfp4, mxfp4 or int4 with decode = "
                            "magic_bias), got "
                         << stringifySchemeKind(getScheme().getKind())
                         << " with decode = "
                         << stringifyDecodeMethod(config.getDecode());
  if (config.getWholeLines() || config.getHalfSteps())
    return emitOpError() << "config whole_lines and half_steps are GEMV "
                            "layouts; the fused GEMM takes neither";
  return verifyConfigOfOp(*this, config, getDecode(), getWeights(),
                          16 * colTiles * warpsN);
}

int64_t FusedGemmOp::getK() { return getA().getType().getDimSize(1); }
Type FusedGemmOp::getActType() { return getA().getType().getElementType(); }

ArrayRef<int64_t> FusedGemmOp::getMTileChoices() {
  static const int64_t values[] = {16, 32, 64, 128};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getSpecializedMTileChoices() {
  // 192: M = 129 to 192 in one pass over the weights, where two 128-row
  // tiles take two and a 256-row one zero-fills up to 127 rows.
  static const int64_t values[] = {16, 32, 64, 128, 192, kMaxSpecializedMTile};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getWarpsNChoices() {
  static const int64_t values[] = {1, 2, 4, 8};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getSplitKChoices() {
  static const int64_t values[] = {1, 2, 4};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getStagesChoices() {
  static const int64_t values[] = {1, 2, 3, 4, 5};
  return values;
}

bool FusedGemmOp::isWarpgroupTiling(int64_t warpsN, int64_t colTiles,
                                    int64_t stages) {
  return (warpsN == 4 || warpsN == 8) && (colTiles == 1 || colTiles == 2) &&
         stages >= 3 && stages <= 4;
}

int64_t FusedGemmOp::getWarpgroupStages(int64_t mTile, int64_t warpsN,
                                        int64_t splitK, int64_t colTiles) {
  for (int64_t stages = 4; stages >= 3; --stages)
    if (getWorkgroupBytes(mTile, warpsN, splitK, colTiles, stages,
                          /*warpgroup=*/true) <=
        getMaxWorkgroupBytes(/*warpgroup=*/true))
      return stages;
  return 0;
}

int64_t FusedGemmOp::getStagedActivationBytes(int64_t mTile, int64_t splitK) {
  int64_t stepK = 128, actBytes = 2;
  return splitK * mTile * stepK * actBytes;
}

int64_t FusedGemmOp::getStagedCodeBytes(int64_t warpsN, int64_t splitK,
                                        int64_t colTiles) {
  int64_t lanes = 32, bytesPerLaneRow = 16;
  return warpsN * splitK * lanes * 2 * colTiles * bytesPerLaneRow;
}

int64_t FusedGemmOp::getKSliceBytes(int64_t mTile, int64_t warpsN,
                                    int64_t splitK, int64_t colTiles) {
  int64_t lanes = 32, sumsPerLane = 4;
  return splitK * warpsN * colTiles * (mTile / 8) * lanes * sumsPerLane * 4;
}

ArrayRef<int64_t> FusedGemmOp::getMulticastChoices() {
  static const int64_t values[] = {1, 2, 4};
  return values;
}

ArrayRef<int64_t> FusedGemmOp::getKSliceChoices() {
  static const int64_t values[] = {1, 2, 4, 8};
  return values;
}

int64_t FusedGemmOp::getWorkgroupBytes(int64_t mTile, int64_t warpsN,
                                       int64_t splitK, int64_t colTiles,
                                       int64_t stages, bool warpgroup,
                                       int64_t kSlices) {
  // The split-K sums and the K slices' take the same place per thread.
  int64_t partials = splitK == 1 && kSlices == 1
                         ? 0
                         : getKSliceBytes(mTile, warpsN, splitK, colTiles);
  int64_t stage = getStagedActivationBytes(mTile, splitK);
  if (warpgroup)
    stage += getStagedCodeBytes(warpsN, splitK, colTiles);
  return std::max(partials, stages * stage);
}

int64_t FusedGemmOp::getMaxWorkgroupBytes(bool warpgroup) {
  return warpgroup ? kMaxWarpgroupSharedBytes : kMaxFusedSharedBytes;
}

LogicalResult FusedGemmOp::verifySpecializedTiling() {
  int64_t mTile = getMTile(), colTiles = getColTiles(), stages = getStages();
  if (!getWarpgroup())
    return emitOpError() << "specialized is a form of the warpgroup tiling "
                            "(warpgroup is not set)";
  if (getWeightsAsB()) {
    if (getWarpsN() != 1 || getSplitK() != 1 ||
        !isSpecializedTiling(mTile, colTiles, /*weightsAsB=*/true))
      return emitOpError()
             << "weights_as_b needs warps_n = 1, split_k = 1, m_tile = 64 or "
                "128 (a multiplying warpgroup per 64 tokens, 512 threads at "
                "most) and col_tiles 1 to "
             << kMaxSpecializedBColTiles
             << " (the instruction's N, 16 rows per column tile), got "
                "warps_n = "
             << getWarpsN() << ", split_k = " << getSplitK()
             << ", m_tile = " << mTile << ", col_tiles = " << colTiles;
  } else if (getWarpsN() != 4 || getSplitK() != 1 ||
             (colTiles != 1 && colTiles != 2))
    return emitOpError() << "specialized needs warps_n = 4, split_k = 1 and "
                            "col_tiles = 1 or 2 (one multiplying warpgroup "
                            "per 64-row column tile), got "
                            "warps_n = "
                         << getWarpsN() << ", split_k = " << getSplitK()
                         << ", col_tiles = " << colTiles;
  if (stages < 3)
    return emitOpError() << "specialized needs stages = 3, 4 or 5 (a stage "
                            "being multiplied, one being decoded, one "
                            "being copied), got "
                         << stages;
  int64_t decoders = getDecoderGroups();
  if (decoders < 1 || decoders > kMaxSpecializedDecoders)
    return emitOpError() << "decoders must be 1 to " << kMaxSpecializedDecoders
                         << " (decoding warpgroups beside the multiplying "
                            "ones), got "
                         << decoders;
  int64_t threads =
      getSpecializedThreads(mTile, colTiles, getWeightsAsB(), decoders);
  if (threads > kMaxFusedBlockThreads)
    return emitOpError() << "specialized with " << decoders
                         << " decoding warpgroups needs " << threads
                         << " threads, more than the " << kMaxFusedBlockThreads
                         << " a block may take";
  // Each decoding warpgroup waits for the stage it fills stages - 2
  // iterations ahead; the wait covers its stores into that stage only where
  // the iteration is its own.
  if ((stages - 2) % decoders)
    return emitOpError() << "specialized with " << decoders
                         << " decoding warpgroups needs stages - 2 to be a "
                            "multiple of them (each waits for the stage it "
                            "fills, which it decodes next), got stages = "
                         << stages;
  if (getPreparedWeights())
    return emitOpError() << "specialized reads the codes in the checkpoint's "
                            "layout; prepared_weights is not taken";
  int64_t kSlices = getKSlices();
  if (kSlices == 1)
    return success();
  if (getWeightsAsB() || getMulticast() != 1)
    return emitOpError() << "k_slices > 1 with specialized needs the weights "
                            "as A and multicast = 1 (the slices' cluster is "
                            "along z), got weights_as_b = "
                         << getWeightsAsB()
                         << ", multicast = " << getMulticast();
  int64_t rows = getSpecializedRows(colTiles, /*weightsAsB=*/false);
  // Every thread's sums, the decoders' too (they take part in the
  // exchange's barriers).
  int64_t parked =
      mTile / 2 * 4 * getSpecializedThreads(mTile, colTiles, false, decoders);
  int64_t staged = stages * getSpecializedStageBytes(mTile, rows);
  if (parked > staged)
    return emitOpError() << "k_slices > 1 parks every thread's m_tile / 2 "
                            "sums in the stages' workgroup memory: "
                         << parked << " bytes, more than the " << staged
                         << " of " << stages << " stages";
  return success();
}

LogicalResult FusedGemmOp::verifyRegisterTiling() {
  int64_t mTile = getMTile(), colTiles = getColTiles(), stages = getStages();
  if (!getWarpgroup())
    return emitOpError() << "specialized is a form of the warpgroup tiling "
                            "(warpgroup is not set)";
  if (getWeightsAsB() || getMulticast() != 1 || getKSlices() != 1)
    return emitOpError() << "weights_in_registers needs the weights as A, "
                            "multicast = 1 and k_slices = 1, got "
                            "weights_as_b = "
                         << getWeightsAsB()
                         << ", multicast = " << getMulticast()
                         << ", k_slices = " << getKSlices();
  if (getWarpsN() != 4 || getSplitK() != 1 ||
      !isRegisterTiling(mTile, colTiles))
    return emitOpError() << "weights_in_registers needs warps_n = 4, split_k "
                            "= 1, m_tile = 64 or 128 (each multiplying lane "
                            "holds m_tile / 2 sums and two K steps' A "
                            "fragments) and col_tiles = 1 or 2, got warps_n = "
                         << getWarpsN() << ", split_k = " << getSplitK()
                         << ", m_tile = " << mTile
                         << ", col_tiles = " << colTiles;
  if (stages < 3 ||
      getRegisterWorkgroupBytes(mTile, stages) > kMaxSpecializedSharedBytes)
    return emitOpError() << "weights_in_registers needs stages = 3 or 4 "
                            "(the K step being multiplied, the one before "
                            "it still in flight, one being loaded) within "
                         << kMaxSpecializedSharedBytes
                         << " bytes of workgroup memory, got " << stages;
  if (getPreparedWeights())
    return emitOpError() << "specialized reads the codes in the checkpoint's "
                            "layout; prepared_weights is not taken";
  return success();
}

int64_t FusedGemmOp::getRegisterStageBytes(int64_t mTile) {
  int64_t stageK = 128, actBytes = 2;
  return mTile * stageK * actBytes;
}

int64_t FusedGemmOp::getRegisterWorkgroupBytes(int64_t mTile, int64_t stages) {
  return stages * (getRegisterStageBytes(mTile) + 2 * kBarrierObjectBytes);
}

int64_t FusedGemmOp::getRegisterStages(int64_t mTile, int64_t colTiles) {
  // One column tile: two blocks per multiprocessor (their registers allow
  // it), each with half its memory.
  int64_t budget = colTiles == 1 ? kMaxSpecializedSharedBytes / 2
                                 : kMaxSpecializedSharedBytes;
  for (int64_t stages = 4; stages >= 3; --stages)
    if (getRegisterWorkgroupBytes(mTile, stages) <= budget)
      return stages;
  return 0;
}

int64_t FusedGemmOp::getSpecializedStageBytes(int64_t mTile, int64_t rows) {
  int64_t actBytes = 2;
  return (rows + mTile) * kSpecializedStageK * actBytes;
}

bool FusedGemmOp::isSpecializedTiling(int64_t mTile, int64_t colTiles,
                                      bool weightsAsB) {
  if (weightsAsB)
    return (mTile == 64 || mTile == 128) && colTiles >= 1 &&
           colTiles <= kMaxSpecializedBColTiles;
  return llvm::is_contained(getSpecializedMTileChoices(), mTile) &&
         (colTiles == 1 || colTiles == 2);
}

int64_t FusedGemmOp::getSpecializedWorkgroupBytes(int64_t mTile, int64_t rows,
                                                  int64_t stages) {
  return stages *
         (getSpecializedStageBytes(mTile, rows) + 2 * kBarrierObjectBytes);
}

int64_t FusedGemmOp::getSpecializedStages(int64_t mTile, int64_t rows,
                                          int64_t decoders) {
  // Each decoding warpgroup fills the stage stages - 2 iterations ahead of
  // its own: 4 stages for one or two, 5 for three.
  for (int64_t stages = 2 + std::max<int64_t>(2, decoders); stages >= 3;
       --stages)
    if ((stages - 2) % decoders == 0 &&
        getSpecializedWorkgroupBytes(mTile, rows, stages) <=
            kMaxSpecializedSharedBytes)
      return stages;
  return 0;
}

int64_t FusedGemmOp::getSpecializedThreads(int64_t mTile, int64_t colTiles,
                                           bool weightsAsB, int64_t decoders) {
  return 128 * (decoders + (weightsAsB ? mTile / 64 : colTiles));
}

int64_t FusedGemmOp::getDecoderGroups() {
  if (std::optional<uint64_t> decoders = getDecoders())
    return *decoders;
  return getSpecializedDecoders(getMTile(), getColTiles(), getWeightsAsB());
}

int64_t FusedGemmOp::getSpecializedDecoders(int64_t mTile, int64_t colTiles,
                                            bool weightsAsB) {
  // Measured on the H100 (bench/README.md, "Weights as B"): with the
  // weights as B a second decoding warpgroup took 0.91 of the time of one
  // in the median (0.72-1.06); with the weights as A, 1.10 for 128 x 1
  // (the default at M = 128) and 0.98 for 256 x 1. It needs the
  // multiplying lanes' accumulators to fit the registers of one more
  // warpgroup: 128 x (m_tile / 64 + 2) threads leave 128 registers a lane
  // at m_tile 128, where 72 accumulators (9 column tiles) fit and 128 do
  // not.
  if (!weightsAsB)
    return 1;
  return mTile <= 64 || 8 * colTiles <= kMaxTwoDecoderAccumulators ? 2 : 1;
}
