//===- ExternDynamicSharedMemory.cpp - Dynamic workgroup memory as extern -===//

#include "qmat/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATEXTERNDYNAMICSHAREDMEMORY
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;

namespace {

struct QMatExternDynamicSharedMemoryPass
    : qmat::impl::QMatExternDynamicSharedMemoryBase<
          QMatExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    // Workgroup memory's LLVM address space on NVPTX and AMDGPU alike.
    constexpr unsigned workgroup = 3;
    constexpr uint64_t kSwizzleAtomBytes = 1024;
    ArrayAttr targets = getOperation().getTargetsAttr();
    bool nvidia = targets && llvm::any_of(targets, [](Attribute target) {
                    return isa<NVVM::NVVMTargetAttr>(target);
                  });
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      // Only the zero-sized arrays the dynamic memory's lowering makes: a
      // static allocation always has elements.
      if (!array || array.getNumElements() != 0 ||
          global.getAddrSpace() != workgroup || global.getValueOrNull() ||
          !global.getInitializerRegion().empty())
        continue;
      global.setLinkage(LLVM::Linkage::External);
      // NVIDIA's warpgroup instruction reads 128-byte-swizzled tiles (the
      // fused GEMM's specialized form) that start at 1024-byte boundaries
      // of it.
      if (nvidia && global.getAlignment().value_or(0) < kSwizzleAtomBytes)
        global.setAlignment(kSwizzleAtomBytes);
    }
  }
};

} // namespace
