//===- ROCDLTargetInfo.cpp - AMD targets (gfx942, gfx950) -----------------===//
//
// MI300 (gfx942) and MI355 (gfx950), 64-lane wavefronts, lowered through
// convert-gpu-to-rocdl and serialized to hsaco by LLVM's AMDGPU backend and
// ld.lld. Decodes: the magic-bias e2m1 and u4 rewrites (the defaults), the
// byte lookup through v_perm_b32 (BytePermToPerm.cpp translates prmt
// selectors), arithmetic e4m3, and on gfx950 the native
// v_cvt_scalef32_pk_f16_fp4. The defaults are the magic bias because no
// AMD hardware was available to measure the lookup or the native
// conversion against it (docs/amd.md). The decode GEMV uses v_mfma
// 16x16x16 where K % 128 == 0 (qmat.wave_mma), a dot product
// otherwise.
//
//===----------------------------------------------------------------------===//

#include "qmat/Target/TargetInfo.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::qmat;

namespace {

class ROCDLTargetInfo final : public TargetInfo {
public:
  explicit ROCDLTargetInfo(Chip chip) : chip(chip) {}

  std::optional<Chip> getChip() const override { return chip; }
  unsigned getWarpSize() const override { return 64; }

  /// gfx950 (MI355) converts packed e2m1 in hardware
  /// (v_cvt_scalef32_pk_f16_fp4); gfx942 has no fp4 conversion.
  bool hasNativeFp4() const { return chip == Chip::gfx950; }

  bool supportsDecode(ElementFormat format,
                      DecodeMethod method) const override {
    if (method == DecodeMethod::native)
      return format == ElementFormat::e2m1 && hasNativeFp4();
    return TargetInfo::supportsDecode(format, method);
  }

  DecodeMethod getDefaultDecode(ElementFormat format) const override {
    return format == ElementFormat::e4m3 ? DecodeMethod::arith
                                         : DecodeMethod::magic_bias;
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<ROCDL::ROCDLDialect, LLVM::LLVMDialect,
                    amdgpu::AMDGPUDialect>();
  }

  /// v_mfma_f32_16x16x16_{f16,bf16} on both (WaveMmaToMfma.cpp).
  bool hasWaveMma16x16x16() const override { return true; }

  /// The conversion multiplies by the exponent of an fp32 scale; 1.0 makes
  /// it the plain e2m1 -> f16 conversion (every e2m1 value is an f16), so
  /// the block scale is applied afterwards exactly as in the other decodes.
  Value emitNativeFp4x2ToF16x2(OpBuilder &builder, Location loc,
                               Value packedByte) const override {
    Value word =
        arith::ExtUIOp::create(builder, loc, builder.getI32Type(), packedByte);
    Value one = arith::ConstantFloatOp::create(
        builder, loc, builder.getF32Type(), APFloat(1.0f));
    return ROCDL::CvtScaleF32PkF16Fp4Op::create(
        builder, loc, VectorType::get({2}, builder.getF16Type()), word, one,
        /*srcSelIndex=*/0u);
  }

  void
  populateLowerToTargetPatterns(RewritePatternSet &patterns) const override {
    populateBytePermToAMDGCNPermPatterns(patterns, /*emulateOnHost=*/false);
    populateWaveMmaToAMDGPUPatterns(patterns);
    populateGenericLowerToTargetPatterns(patterns);
  }

  Attribute getGpuModuleTarget(MLIRContext *context) const override {
    context->getOrLoadDialect<ROCDL::ROCDLDialect>();
    return ROCDL::ROCDLTargetAttr::get(
        context, /*optLevel=*/3, "amdgcn-amd-amdhsa", stringifyChip(chip));
  }

  /// $QMAT_AMDGPU_TOOLKIT; else, for an installed tool, the toolkit
  /// directory installed with it (<prefix>/lib/qmat/amdgpu-toolkit), so
  /// that the install works without the build tree; else the build tree's.
  /// Either holds llvm/bin/ld.lld, LLVM 22's linker
  /// (lib/Target/CMakeLists.txt).
  std::string getBinaryToolkitPath() const override {
    if (const char *dir = std::getenv("QMAT_AMDGPU_TOOLKIT"))
      return dir;
    std::string executable = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    if (!executable.empty()) {
      SmallString<256> installed(llvm::sys::path::parent_path(executable));
      llvm::sys::path::append(installed, QMAT_AMDGPU_TOOLKIT_FROM_BINDIR);
      llvm::sys::path::remove_dots(installed, /*remove_dot_dot=*/true);
      SmallString<256> linker(installed);
      llvm::sys::path::append(linker, "llvm", "bin", "ld.lld");
      if (llvm::sys::fs::can_execute(linker))
        return std::string(installed);
    }
    return QMAT_AMDGPU_TOOLKIT_DIR;
  }

  void buildGpuModuleToLLVMPipeline(OpPassManager &pm) const override {
    ConvertGpuOpsToROCDLOpsOptions options;
    options.chipset = stringifyChip(chip).str();
    options.indexBitwidth = 64;
    addGpuModuleLowering(pm, createConvertGpuOpsToROCDLOps(options));
  }

private:
  Chip chip;
};

} // namespace

std::unique_ptr<TargetInfo> mlir::qmat::createROCDLTargetInfo(Chip chip) {
  return std::make_unique<ROCDLTargetInfo>(chip);
}
