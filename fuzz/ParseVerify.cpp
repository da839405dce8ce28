//===- ParseVerify.cpp - Fuzz the parser and verifiers of qmat IR ---------===//
//
// Any string: parsed as a module in qmat-opt's context, then verified (the
// parser does so). Every attribute, type and op verifier of the qmat dialect
// runs on whatever parses.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static qmat_fuzz::SharedContext shared;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      qmat_fuzz::parseModule(shared.get(), text);
  (void)module;
  return 0;
}
