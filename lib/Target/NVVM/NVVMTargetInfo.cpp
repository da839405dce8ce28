//===- NVVMTargetInfo.cpp - NVIDIA targets (sm_80 .. sm_120) --------------===//

#include "qmat/Target/TargetInfo.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

class NVVMTargetInfo final : public TargetInfo {
public:
  explicit NVVMTargetInfo(Chip chip) : chip(chip) {}

  std::optional<Chip> getChip() const override { return chip; }
  unsigned getWarpSize() const override { return 32; }

  /// Blackwell (sm_100, sm_120) converts e2m1 pairs in hardware; before it
  /// the conversion intrinsic is a branchy software emulation.
  bool hasNativeFp4() const {
    return chip == Chip::sm_100 || chip == Chip::sm_120;
  }

  bool supportsDecode(ElementFormat format,
                      DecodeMethod method) const override {
    if (method == DecodeMethod::native)
      return (format == ElementFormat::e2m1 && hasNativeFp4()) ||
             (format == ElementFormat::e4m3 && chip != Chip::sm_80);
    return TargetInfo::supportsDecode(format, method);
  }

  DecodeMethod getDefaultDecode(ElementFormat format) const override {
    switch (format) {
    case ElementFormat::e2m1:
      return hasNativeFp4() ? DecodeMethod::native : DecodeMethod::lookup;
    case ElementFormat::u4:
      return DecodeMethod::magic_bias;
    case ElementFormat::e4m3:
      return DecodeMethod::arith;
    }
    return DecodeMethod::arith;
  }

  /// cvt.rn.{f16,bf16}.f32 return the canonical NaN 0x7FFF for every NaN
  /// input: every dequant kernel matched the reference bit for bit on the
  /// H200 with NaN scales and NaN global scales (bench/README.md,
  /// "Measurements behind the compiler's choices").
  bool truncationCanonicalizesNaN() const override { return true; }

  /// Threads one SM holds at once: 1536 on sm_89 and sm_120, 2048 on the
  /// data-centre parts.
  int64_t maxThreadsPerSM() const {
    return chip == Chip::sm_89 || chip == Chip::sm_120 ? 1536 : 2048;
  }

  /// Asks ptxas for a register budget that keeps `residentThreads` (0: a
  /// full SM) resident (.minnctapersm). Callers opt in per kernel: on the
  /// H200 the dequant kernel ran at 75% occupancy with 40 registers and got
  /// slower, not faster, when squeezed to 32 (a spill).
  void annotateKernel(Operation *kernel, int64_t threads,
                      int64_t residentThreads) const override {
    // Resident blocks per SM stop at 32 (24 on sm_89/sm_120) whatever the
    // block size.
    int64_t maxBlocks = maxThreadsPerSM() == 1536 ? 24 : 32;
    int64_t resident = residentThreads > 0
                           ? std::min(residentThreads, maxThreadsPerSM())
                           : maxThreadsPerSM();
    int64_t blocks = std::min(resident / threads, maxBlocks);
    if (blocks > 0)
      kernel->setAttr(
          "nvvm.minctasm",
          IntegerAttr::get(IntegerType::get(kernel->getContext(), 32), blocks));
  }

  Value emitNativeFp4x2ToF16x2(OpBuilder &builder, Location loc,
                               Value packedByte) const override {
    auto type = VectorType::get({2}, builder.getF16Type());
    return NVVM::ConvertF4x2ToF16x2Op::create(
        builder, loc, type, packedByte, builder.getBoolAttr(false),
        TypeAttr::get(builder.getType<Float4E2M1FNType>()));
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry
        .insert<NVVM::NVVMDialect, LLVM::LLVMDialect, nvgpu::NVGPUDialect>();
  }

  bool hasWarpMma16x8x16() const override { return true; }

  /// cvt.rn.f16x2.e4m3x2 exists from sm_89 (Ada) on.
  Value emitE4M3x2ToF16x2(OpBuilder &builder, Location loc,
                          Value bytes) const override {
    if (chip == Chip::sm_80)
      return Value();
    auto type = VectorType::get({2}, builder.getF16Type());
    return NVVM::ConvertF8x2ToF16x2Op::create(
        builder, loc, type, bytes, builder.getBoolAttr(false),
        TypeAttr::get(builder.getType<Float8E4M3FNType>()));
  }

  /// wgmma.mma_async exists on sm_90a alone.
  bool hasWarpgroupMma() const override { return chip == Chip::sm_90a; }

  /// qmat.load_streaming keeps its data out of L1 (LoadStreamingToPtx).
  bool hasStreamingLoad() const override { return true; }

  /// cp.async (sm_80 and later): qmat.async_copy and its groups
  /// (NVVMPatterns.cpp).
  bool hasAsyncCopy() const override { return true; }

  /// Thread-block clusters and distributed workgroup memory: sm_90 on.
  bool hasBlockClusters() const override {
    return chip != Chip::sm_80 && chip != Chip::sm_89;
  }

  /// `.reqnctapercluster` (and `.explicitcluster`) with `blocks` in
  /// `dimension`: the launch keeps its grid, which the cluster's size
  /// divides.
  void annotateClusterBlocks(Operation *kernel, unsigned dimension,
                             int64_t blocks) const override {
    SmallVector<int32_t, 3> dims = {1, 1, 1};
    dims[dimension] = int32_t(blocks);
    kernel->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                    DenseI32ArrayAttr::get(kernel->getContext(), dims));
  }

  /// The full mask: the GEMV calls it where the whole warp runs (its
  /// matrix instructions need that too).
  Value emitWarpAll(OpBuilder &builder, Location loc,
                    Value predicate) const override {
    Value fullWarp =
        arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), -1);
    return NVVM::VoteSyncOp::create(builder, loc, builder.getI1Type(), fullWarp,
                                    predicate, NVVM::VoteSyncKind::all);
  }

  void
  populateLowerToTargetPatterns(RewritePatternSet &patterns) const override {
    populateQMatToNVVMPatterns(patterns, hasWarpgroupMma(), hasBlockClusters());
  }

  /// The arch-specific (`a`) variants carry the Blackwell conversions.
  std::string getChipString() const {
    switch (chip) {
    case Chip::sm_100:
      return "sm_100a";
    case Chip::sm_120:
      return "sm_120a";
    default:
      return stringifyChip(chip).str();
    }
  }

  /// The PTX version the chip's instructions need: the e2m1 conversions 8.8,
  /// cvt.rn.f16x2.e4m3x2 8.1 on sm_89 (the NVPTX backend cannot select it
  /// below that and aborts), 8.0 otherwise.
  StringRef getPtxFeature() const {
    if (hasNativeFp4())
      return "+ptx88";
    return chip == Chip::sm_89 ? "+ptx81" : "+ptx80";
  }

  Attribute getGpuModuleTarget(MLIRContext *context) const override {
    context->getOrLoadDialect<NVVM::NVVMDialect>();
    return NVVM::NVVMTargetAttr::get(context, /*optLevel=*/3,
                                     "nvptx64-nvidia-cuda", getChipString(),
                                     getPtxFeature());
  }

  void buildGpuModuleToLLVMPipeline(OpPassManager &pm) const override {
    ConvertGpuOpsToNVVMOpsOptions options;
    options.indexBitwidth = 64;
    // nvgpu's ops first: their NVVM forms then lower with everything else.
    pm.nest<gpu::GPUModuleOp>().addPass(createConvertNVGPUToNVVMPass());
    addGpuModuleLowering(pm, createConvertGpuOpsToNVVMOps(options));
  }

private:
  Chip chip;
};

} // namespace

std::unique_ptr<TargetInfo> mlir::qmat::createNVVMTargetInfo(Chip chip) {
  return std::make_unique<NVVMTargetInfo>(chip);
}
