//===- TargetInfo.cpp - Target lookup -------------------------------------===//

#include "qmat/Target/TargetInfo.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::qmat;

TargetInfo::~TargetInfo() = default;

void mlir::qmat::addGpuModuleLowering(OpPassManager &pm,
                                      std::unique_ptr<Pass> vendorConversion) {
  // The conversion to the vendor's dialect needs the whole gpu.module (it
  // turns gpu.func into llvm.func); the passes around it run per kernel, so
  // the pass manager runs them on every kernel in parallel.
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.nest<gpu::GPUFuncOp>().addPass(createSCFToControlFlowPass());
  gpuPm.addPass(std::move(vendorConversion));
  OpPassManager &llvmFuncPm = gpuPm.nest<LLVM::LLVMFuncOp>();
  llvmFuncPm.addPass(createCanonicalizerPass());
  llvmFuncPm.addPass(createCSEPass());
  llvmFuncPm.addPass(createReconcileUnrealizedCastsPass());
}

bool TargetInfo::supportsDecode(ElementFormat format,
                                DecodeMethod method) const {
  switch (method) {
  case DecodeMethod::arith:
    return true;
  case DecodeMethod::lookup:
    return format == ElementFormat::e2m1;
  case DecodeMethod::magic_bias:
    return format != ElementFormat::e4m3;
  case DecodeMethod::native:
    return false;
  }
  return false;
}

std::unique_ptr<TargetInfo>
mlir::qmat::lookupTargetInfoOrEmit(Operation *anchor, StringRef name) {
  std::string error;
  auto info = lookupTargetInfo(name, error);
  if (!info)
    emitError(anchor->getLoc()) << error;
  return info;
}

std::unique_ptr<TargetInfo>
mlir::qmat::lookupGpuTargetInfoOrEmit(Operation *anchor, StringRef name,
                                      StringRef pass) {
  std::string error;
  auto info = lookupTargetInfo(name, error);
  if (!info)
    emitError(anchor->getLoc()) << error;
  else if (!info->getChip())
    emitError(anchor->getLoc()) << pass << " needs a GPU target";
  return info && info->getChip() ? std::move(info) : nullptr;
}

Value TargetInfo::emitNativeFp4x2ToF16x2(OpBuilder &builder, Location loc,
                                         Value packedByte) const {
  llvm_unreachable("target has no native fp4 conversion");
}

std::unique_ptr<TargetInfo> mlir::qmat::createTargetInfo(Chip chip) {
  if (isNVIDIAChip(chip))
    return createNVVMTargetInfo(chip);
  return createROCDLTargetInfo(chip);
}

std::unique_ptr<TargetInfo> mlir::qmat::lookupTargetInfo(StringRef name,
                                                         std::string &error) {
  if (name == "host")
    return createHostTargetInfo();
  if (name == "host-amdgcn")
    return createROCDLHostModelTargetInfo();
  std::optional<Chip> chip = symbolizeChip(name);
  if (!chip) {
    error = ("unknown target '" + name +
             "' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942, "
             "gfx950, host or host-amdgcn)")
                .str();
    return nullptr;
  }
  auto info = createTargetInfo(*chip);
  if (!info)
    error =
        ("target '" + name + "' has no code generator in this build yet").str();
  return info;
}

namespace {
/// (if_set & mask) | (if_clear & ~mask).
struct BitSelectToArith : OpRewritePattern<BitSelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BitSelectOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    uint32_t mask = op.getMask();
    auto constant = [&](uint32_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, i32,
                                          int64_t(int32_t(v)));
    };
    rewriter.replaceOpWithNewOp<arith::OrIOp>(
        op, arith::AndIOp::create(rewriter, loc, op.getIfSet(), constant(mask)),
        arith::AndIOp::create(rewriter, loc, op.getIfClear(), constant(~mask)));
    return success();
  }
};
/// The value itself: no compiler in the way to keep from moving it.
struct PinnedCopyToValue : OpRewritePattern<PinnedCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PinnedCopyOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getValue());
    return success();
  }
};
/// A plain 16-byte load from the address.
struct LoadStreamingToLoad : OpRewritePattern<LoadStreamingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadStreamingOp op,
                                PatternRewriter &rewriter) const override {
    Value pointer = LLVM::IntToPtrOp::create(
        rewriter, op.getLoc(),
        LLVM::LLVMPointerType::get(rewriter.getContext()), op.getAddress());
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, op.getType(), pointer,
                                              /*alignment=*/16);
    return success();
  }
};
} // namespace

void mlir::qmat::populateGenericLowerToTargetPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BitSelectToArith, LoadStreamingToLoad, PinnedCopyToValue>(
      patterns.getContext());
}
