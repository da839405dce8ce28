//===- FuzzCommon.cpp - Shared set-up of the qmat fuzz targets ------------===//

#include "FuzzCommon.h"

#include "llvm/ADT/StringSet.h"

bool qmat_fuzz::holdsOnlyQMatInput(mlir::ModuleOp module) {
  static const llvm::StringSet<> allowed = {"builtin", "func", "qmat", "arith",
                                            "memref"};
  bool only = true;
  module->walk([&](mlir::Operation *op) {
    if (!allowed.contains(op->getName().getDialectNamespace())) {
      only = false;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return only;
}
