//===- TensorMapParams.cpp - A kernel's tensor maps as by-value params ----===//

#include "qmat/Dialect/QMat/IR/QMatDialect.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATTENSORMAPPARAMS
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// The bytes and alignment of a CUtensorMap.
constexpr int64_t kTensorMapBytes = 128, kTensorMapAlign = 64;

struct QMatTensorMapParamsPass
    : qmat::impl::QMatTensorMapParamsBase<QMatTensorMapParamsPass> {
  void runOnOperation() override {
    StringRef name = QMatDialect::getTensorMapArgsAttrName();
    WalkResult result = getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto maps = func->getAttrOfType<IntegerAttr>(name);
      if (!maps)
        return WalkResult::advance();
      int64_t count = maps.getInt();
      unsigned args = func.getNumArguments();
      if (count < 1 || count > args ||
          llvm::any_of(func.getArgumentTypes().take_back(count),
                       [](Type t) { return !isa<LLVM::LLVMPointerType>(t); })) {
        func.emitOpError() << name << " = " << count
                           << " needs the kernel's last " << count
                           << " arguments to be pointers";
        return WalkResult::interrupt();
      }
      Builder b(func.getContext());
      auto bytes = LLVM::LLVMArrayType::get(b.getI8Type(), kTensorMapBytes);
      for (unsigned i = args - count; i < args; ++i) {
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(bytes));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(kTensorMapAlign));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
      func->removeAttr(name);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
