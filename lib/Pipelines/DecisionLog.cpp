//===- DecisionLog.cpp - QMAT_LOG for the pass pipelines ------------------===//
//
// A pass instrumentation: after qmat-select-strategy each matmul's plan,
// after qmat-configure-kernels each kernel op's config, one line each,
// named by the function that holds the op; at debug a line per pass before
// it runs. Nested pass managers run on several threads: lines are written
// whole under a lock.
//
//===----------------------------------------------------------------------===//

#include "qmat/Pipelines/DecisionLog.h"
#include "qmat/Conversion/QMatToGPU/GemvKernelBuilder.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"

#include <cstdlib>
#include <mutex>

using namespace mlir;
using namespace mlir::qmat;

LogLevel mlir::qmat::getLogLevel(StringRef tool, LogLevel unset) {
  const char *value = std::getenv("QMAT_LOG");
  StringRef level = value ? value : "";
  if (level == "off")
    return LogLevel::off;
  if (level == "info")
    return LogLevel::info;
  if (level == "debug")
    return LogLevel::debug;
  if (!level.empty())
    llvm::errs() << tool << ": QMAT_LOG=" << level
                 << " is not off, info or debug; logging at "
                 << (unset == LogLevel::off    ? "off"
                     : unset == LogLevel::info ? "info"
                                               : "debug")
                 << "\n";
  return unset;
}

namespace {

class DecisionLog : public PassInstrumentation {
public:
  DecisionLog(LogLevel level, StringRef tool, raw_ostream &os)
      : level(level), tool(tool.str()), os(os) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    // Pass managers nested in the pipeline run as adaptors without a name.
    if (level != LogLevel::debug || pass->getArgument().empty())
      return;
    std::string line;
    llvm::raw_string_ostream(line)
        << tool << ": " << pass->getArgument() << " on " << op->getName()
        << symbolOf(op) << "\n";
    write(line);
  }

  void runAfterPass(Pass *pass, Operation *op) override {
    StringRef argument = pass->getArgument();
    if (argument == "qmat-select-strategy")
      logDecisions(argument, op,
                   [](Operation *op) -> std::optional<std::string> {
                     auto matmul = dyn_cast<MatmulOp>(op);
                     if (!matmul)
                       return std::nullopt;
                     return describe(matmul.getPlanAttr());
                   });
    else if (argument == "qmat-configure-kernels")
      logDecisions(argument, op,
                   [](Operation *op) -> std::optional<std::string> {
                     if (auto gemv = dyn_cast<GemvOp>(op))
                       return describeKernel(gemv);
                     if (auto fused = dyn_cast<FusedGemmOp>(op))
                       return describeKernel(fused);
                     return std::nullopt;
                   });
  }

private:
  /// " @name" of `op` or the function around it, where there is one.
  static std::string symbolOf(Operation *op) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      func = op->getParentOfType<func::FuncOp>();
    return func ? (" @" + func.getSymName()).str() : std::string();
  }

  static std::string describe(Attribute attr) {
    if (!attr)
      return "none";
    std::string text;
    llvm::raw_string_ostream(text) << attr;
    return text;
  }
  /// The kernel the op will be built as (its name says the tiling), and
  /// its config.
  template <typename OpT> static std::string describeKernel(OpT op) {
    KernelConfigAttr config = op.getConfigAttr();
    if (!config)
      return "no config";
    return GemvKernelSpec::get(op, config).getKernelName() + " " +
           describe(config);
  }

  /// A line for each op under `root` that `decision` describes.
  void
  logDecisions(StringRef pass, Operation *root,
               function_ref<std::optional<std::string>(Operation *)> decision) {
    std::string lines;
    llvm::raw_string_ostream out(lines);
    root->walk([&](Operation *op) {
      if (std::optional<std::string> text = decision(op))
        out << tool << ": " << pass << ":" << symbolOf(op) << ": "
            << op->getName() << " " << *text << "\n";
    });
    write(lines);
  }

  void write(StringRef text) {
    if (text.empty())
      return;
    std::lock_guard<std::mutex> lock(mutex);
    os << text;
    os.flush();
  }

  LogLevel level;
  std::string tool;
  raw_ostream &os;
  std::mutex mutex;
};

} // namespace

void mlir::qmat::addDecisionLog(PassManager &pm, LogLevel level, StringRef tool,
                                raw_ostream &os) {
  if (level != LogLevel::off)
    pm.addInstrumentation(std::make_unique<DecisionLog>(level, tool, os));
}
