//===- InitAll.cpp - Register everything qmat provides --------------------===//

#include "qmat/InitAll.h"
#include "qmat/Dialect/QMat/IR/QMatDialect.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::qmat::registerAllDialects(DialectRegistry &registry) {
  registry.insert<QMatDialect>();
}

void mlir::qmat::registerAllPassesAndPipelines() {}
