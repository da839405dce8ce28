//===- GemvKernelBuilder.cpp - GEMV kernel specs --------------------------===//
//
// GemvKernelSpec (what a qmat.gemv or qmat.fused_gemm and its kernel config
// ask of the kernel) and the choice of emitter: the wavefront matrix-core
// one where the target has its instruction, else the tensor-core one for
// tensor-core specs, else the scalar one (GemvEmitter.h).
//
//===----------------------------------------------------------------------===//

#include "GemvEmitter.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qmat;
using namespace mlir::qmat::gemv;

/// The fields qmat.gemv and qmat.fused_gemm share.
template <typename OpT>
static GemvKernelSpec getOperandSpec(OpT op, KernelConfigAttr config) {
  GemvKernelSpec spec;
  spec.scheme = op.getScheme();
  spec.k = op.getK();
  spec.actType = op.getActType();
  spec.splitK = op.getSplitK();
  spec.colTiles = op.getColTiles();
  spec.decode = config.getDecode();
  spec.hasZeroPoints = static_cast<bool>(op.getZeroPoints());
  spec.hasBias = static_cast<bool>(op.getBias());
  spec.preparedWeights = op.getPreparedWeights();
  spec.wholeBlocksOnly = config.getWholeBlocks();
  return spec;
}

GemvKernelSpec GemvKernelSpec::get(GemvOp op, KernelConfigAttr config) {
  GemvKernelSpec spec = getOperandSpec(op, config);
  spec.maxM = op.getMaxM();
  spec.tensorCore = config.getMatrix() != MatrixOp::scalar;
  spec.wholeLines = config.getWholeLines();
  spec.halfSteps = config.getHalfSteps();
  return spec;
}

GemvKernelSpec GemvKernelSpec::get(FusedGemmOp op, KernelConfigAttr config) {
  GemvKernelSpec spec = getOperandSpec(op, config);
  spec.maxM = op.getMTile();
  spec.tensorCore = true;
  spec.mTiled = true;
  spec.warpsN = op.getWarpsN();
  spec.stages = op.getStages();
  spec.kSlices = op.getKSlices();
  spec.multicast = op.getMulticast();
  spec.warpgroup = config.getMatrix() == MatrixOp::wgmma_64xnx16;
  spec.dynamicShared = op.getWarpgroup();
  spec.specialized = spec.warpgroup && op.getSpecialized();
  spec.weightsAsB = spec.specialized && op.getWeightsAsB();
  spec.registerWeights = spec.specialized && op.getWeightsInRegisters();
  if (spec.specialized && !spec.registerWeights)
    spec.decoderGroups = op.getDecoderGroups();
  return spec;
}

int64_t GemvKernelSpec::getThreads(unsigned warpSize) const {
  if (registerWeights)
    return FusedGemmOp::getRegisterThreads(colTiles);
  if (specialized)
    return FusedGemmOp::getSpecializedThreads(maxM, colTiles, weightsAsB,
                                              decoderGroups);
  return tensorCore ? warpSize * splitK * warpsN
                    : warpSize * kScalarRowsPerBlock;
}

int64_t GemvKernelSpec::getRowsPerBlock() const {
  return tensorCore ? 16 * colTiles * warpsN : kScalarRowsPerBlock;
}

int64_t GemvKernelSpec::getSharedBytes() const {
  if (registerWeights)
    return FusedGemmOp::getRegisterWorkgroupBytes(maxM, stages);
  if (specialized)
    return FusedGemmOp::getSpecializedWorkgroupBytes(maxM, getRowsPerBlock(),
                                                     stages);
  if (mTiled)
    return FusedGemmOp::getWorkgroupBytes(maxM, warpsN, splitK, colTiles,
                                          stages, warpgroup, kSlices);
  return tensorCore
             ? GemvOp::getPartialSumBytes(splitK, colTiles, maxM, wholeLines)
             : 0;
}

bool mlir::qmat::isPackedGemvDecode(SchemeKind scheme, bool tensorCore,
                                    DecodeMethod decode) {
  if (!tensorCore || decode != DecodeMethod::magic_bias)
    return false;
  switch (scheme) {
  case SchemeKind::nvfp4:
  case SchemeKind::int4:
  case SchemeKind::mxfp4:
    return true;
  case SchemeKind::fp8:
    return false;
  }
  llvm_unreachable("unknown scheme");
}

bool GemvKernelSpec::usesPackedDecode() const {
  return isPackedGemvDecode(scheme.getKind(), tensorCore, decode);
}

bool mlir::qmat::isChunkedGemvDot(bool tensorCore, int64_t k,
                                  int64_t blockSize) {
  return !tensorCore && k % kLaneK == 0 && blockSize % 8 == 0;
}

bool GemvKernelSpec::usesChunkedDot() const {
  return isChunkedGemvDot(tensorCore, k, scheme.getBlockSize());
}

int64_t mlir::qmat::getGemvScaleLoadElements(bool tensorCore, int64_t k,
                                             int64_t blockSize) {
  bool chunked = tensorCore || isChunkedGemvDot(tensorCore, k, blockSize);
  if (!chunked || blockSize >= kLaneK || kLaneK % blockSize != 0)
    return 1;
  return kLaneK / blockSize;
}

int64_t GemvKernelSpec::getScaleLoadElements() const {
  return getGemvScaleLoadElements(tensorCore, k, scheme.getBlockSize());
}

std::string GemvKernelSpec::getKernelName() const {
  std::string act = actType.isF16() ? "f16" : "bf16";
  if (mTiled)
    return llvm::formatv(
               "fused_{0}_bs{1}_k{2}_{3}_{4}{5}{6}_mt{7}_w{8}_s{9}_c{10}{11}{"
               "12}{13}",
               stringifySchemeKind(scheme.getKind()), scheme.getBlockSize(), k,
               act, stringifyDecodeMethod(decode), hasZeroPoints ? "_zp" : "",
               hasBias ? "_bias" : "", maxM, warpsN, splitK, colTiles,
               stages > 1 ? "_p" + std::to_string(stages) : std::string(),
               preparedWeights ? "_prepared" : "",
               wholeBlocksOnly ? "_full" : "")
               .str() +
           (warpgroup ? "_wg" : "") + (specialized ? "_ws" : "") +
           (weightsAsB ? "b" : "") + (registerWeights ? "r" : "") +
           (kSlices > 1 ? "_k" + std::to_string(kSlices) : std::string()) +
           (multicast > 1 ? "_x" + std::to_string(multicast) : std::string()) +
           (specialized && !registerWeights &&
                    decoderGroups != FusedGemmOp::getSpecializedDecoders(
                                         maxM, colTiles, weightsAsB)
                ? "_d" + std::to_string(decoderGroups)
                : std::string());
  return llvm::formatv(
             "gemv_{0}_bs{1}_k{2}_{3}_{4}_{5}{6}{7}_m{8}_s{9}_c{10}{11}{12}{13}"
             "{14}",
             stringifySchemeKind(scheme.getKind()), scheme.getBlockSize(), k,
             act, tensorCore ? "tc" : (usesChunkedDot() ? "dot" : "scalar"),
             stringifyDecodeMethod(decode), hasZeroPoints ? "_zp" : "",
             hasBias ? "_bias" : "", maxM, splitK, colTiles,
             wholeLines ? "_lines" : "", halfSteps ? "_halves" : "",
             preparedWeights ? "_prepared" : "", wholeBlocksOnly ? "_full" : "")
      .str();
}

void mlir::qmat::emitGemvKernelBody(OpBuilder &builder, Location loc,
                                    const GemvKernelSpec &spec,
                                    const GemvBuffers &buffers,
                                    const TargetInfo &target) {
  if (spec.specialized)
    emitSpecializedFusedGemm(builder, loc, spec, buffers, target);
  else if (spec.tensorCore && target.hasWaveMma16x16x16())
    emitWaveMmaGemv(builder, loc, spec, buffers, target);
  else if (spec.tensorCore)
    emitTensorCoreGemv(builder, loc, spec, buffers, target);
  else
    emitScalarGemv(builder, loc, spec, buffers, target);
}
