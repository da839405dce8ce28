//===- DecisionLog.h - QMAT_LOG for the pass pipelines ----------*- C++ -*-===//
//
// What the tools log of a pipeline run at QMAT_LOG's level: at info the
// decisions the strategy passes attach (each matmul's #qmat.plan after
// qmat-select-strategy, each kernel op's #qmat.kernel_config after
// qmat-configure-kernels), at debug also every pass as it starts, with the
// op it runs on.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_PIPELINES_DECISIONLOG_H
#define QMAT_PIPELINES_DECISIONLOG_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::qmat {

enum class LogLevel { off, info, debug };

/// QMAT_LOG's level (off, info or debug); `unset` where it is not set. Any
/// other value is reported on stderr, naming `tool`, and taken as `unset`.
LogLevel getLogLevel(llvm::StringRef tool, LogLevel unset);

/// Adds to `pm` the instrumentation that logs its decisions (and at debug
/// its passes) to `os`, each line starting with `tool`; nothing at off.
void addDecisionLog(PassManager &pm, LogLevel level, llvm::StringRef tool,
                    llvm::raw_ostream &os);

} // namespace mlir::qmat

#endif // QMAT_PIPELINES_DECISIONLOG_H
