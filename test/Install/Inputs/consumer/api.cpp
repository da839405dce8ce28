// A C++ user of qmat's installed libraries: the bundle API's helpers and
// the dialect, loaded into a context of the MLIR qmat was built against.
#include "qmat/AOT/Bundle.h"
#include "qmat/AOT/Targets.h"
#include "qmat/Dialect/QMat/IR/QMatDialect.h"
#include "qmat/Version.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdio>

int main() {
  std::printf("version %s\n", QMAT_VERSION);
  std::printf("symbol %s\n", mlir::qmat::getLayerSymbol("blocks.0.up").c_str());
  std::printf("scratch %lld\n",
              static_cast<long long>(*mlir::qmat::computeScratchBytes(32, 64)));
  std::printf("sm_75: %s\n", mlir::qmat::checkTargetName("sm_75").c_str());
  mlir::MLIRContext context;
  auto *dialect = context.getOrLoadDialect<mlir::qmat::QMatDialect>();
  std::printf("dialect %s\n", dialect->getNamespace().str().c_str());
  return 0;
}
