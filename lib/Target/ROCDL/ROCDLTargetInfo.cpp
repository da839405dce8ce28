//===- ROCDLTargetInfo.cpp - AMD targets (gfx942, gfx950) -----------------===//
//
// What exists so far: the dequantization kernels with the integer decodes
// (magic-bias e2m1 and u4, arithmetic e4m3) and the scalar GEMV, lowered
// through convert-gpu-to-rocdl to AMDGPU code for 64-lane wavefronts. Not
// yet: the byte lookup (v_perm_b32 has per-byte selectors and reads signs
// from odd bytes only, so qmat.byte_perm's nibble selectors need a
// translation), gfx950's native scaled fp4 conversion, a matrix-core GEMV
// and a HIP launcher (qmat-aot refuses AMD targets).
//
//===----------------------------------------------------------------------===//

#include "qmat/Target/TargetInfo.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::qmat;

namespace {

class ROCDLTargetInfo final : public TargetInfo {
public:
  explicit ROCDLTargetInfo(Chip chip) : chip(chip) {}

  std::optional<Chip> getChip() const override { return chip; }
  unsigned getWarpSize() const override { return 64; }

  bool supportsDecode(ElementFormat format,
                      DecodeMethod method) const override {
    if (method == DecodeMethod::lookup || method == DecodeMethod::native)
      return false;
    return TargetInfo::supportsDecode(format, method);
  }

  DecodeMethod getDefaultDecode(ElementFormat format) const override {
    return format == ElementFormat::e4m3 ? DecodeMethod::arith
                                         : DecodeMethod::magic_bias;
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<ROCDL::ROCDLDialect, LLVM::LLVMDialect>();
  }

  void
  populateLowerToTargetPatterns(RewritePatternSet &patterns) const override {}

  Attribute getGpuModuleTarget(MLIRContext *context) const override {
    context->getOrLoadDialect<ROCDL::ROCDLDialect>();
    return ROCDL::ROCDLTargetAttr::get(
        context, /*optLevel=*/3, "amdgcn-amd-amdhsa", stringifyChip(chip));
  }

  /// $QMAT_AMDGPU_TOOLKIT, else the build tree's directory whose
  /// llvm/bin/ld.lld is LLVM 22's linker (lib/Target/CMakeLists.txt).
  std::string getBinaryToolkitPath() const override {
    if (const char *dir = std::getenv("QMAT_AMDGPU_TOOLKIT"))
      return dir;
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
