//===- InitAll.h - Register everything qmat provides ------------*- C++ -*-===//

#ifndef QMAT_INITALL_H
#define QMAT_INITALL_H

namespace mlir {
class DialectRegistry;
namespace qmat {

/// The qmat dialect and the external models its pipelines rely on.
void registerAllDialects(DialectRegistry &registry);

/// Every qmat pass and every named qmat pipeline.
void registerAllPassesAndPipelines();

} // namespace qmat
} // namespace mlir

#endif // QMAT_INITALL_H
