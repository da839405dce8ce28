//===- InitAll.cpp - Register everything qmat provides --------------------===//

#include "qmat/InitAll.h"
#include "qmat/Conversion/Passes.h"
#include "qmat/Dialect/QMat/IR/QMatDialect.h"
#include "qmat/Pipelines/Pipelines.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::qmat::registerAllDialects(DialectRegistry &registry) {
  registry.insert<QMatDialect>();
}

void mlir::qmat::registerAllPassesAndPipelines() {
  registerQMatTransformsPasses();
  registerQMatConversionPasses();
  registerPipelines();
}
