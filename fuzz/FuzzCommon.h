//===- FuzzCommon.h - Shared set-up of the qmat fuzz targets ----*- C++ -*-===//
//
// Every target parses its input the way qmat-opt and qmat-aot do: a fresh
// context (no state carried between inputs, so that a crash reproduces from
// its input alone) holding the registry qmat-opt builds, with every
// diagnostic swallowed (a diagnostic is a correct answer, not a finding).
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_FUZZ_FUZZCOMMON_H
#define QMAT_FUZZ_FUZZCOMMON_H

#include "qmat/InitAll.h"
#include "qmat/Pipelines/Pipelines.h"
#include "qmat/Support/InputNesting.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace qmat_fuzz {

/// The registry of qmat-opt, built once: copying it into each input's
/// context is cheap, registering every dialect and extension is not.
inline const mlir::DialectRegistry &getRegistry() {
  static const mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    mlir::registerAllDialects(*r);
    mlir::registerAllExtensions(*r);
    mlir::registerAllToLLVMIRTranslations(*r);
    mlir::qmat::registerAllDialects(*r);
    return r;
  }();
  return *registry;
}

/// One input's context: single-threaded, so that a report's stack is the
/// failing code's and the rate is not spent starting worker threads.
struct FuzzContext {
  mlir::MLIRContext context{getRegistry(),
                            mlir::MLIRContext::Threading::DISABLED};
  mlir::ScopedDiagnosticHandler swallow{
      &context, [](mlir::Diagnostic &) { return mlir::success(); }};
};

/// The parse target's context, shared by 1000 inputs in a row: setting up
/// a context with every dialect's registration costs more than parsing a
/// small input, and a fresh one every 1000 keeps the uniquer's tables (which
/// only grow) small. A finding reproduces from its input alone all the
/// same: the parser keeps no state between modules.
class SharedContext {
public:
  mlir::MLIRContext &get() {
    if (!fuzz || ++uses % 1000 == 0)
      fuzz = std::make_unique<FuzzContext>();
    return fuzz->context;
  }

private:
  std::unique_ptr<FuzzContext> fuzz;
  unsigned uses = 0;
};

/// Parses (and verifies) `text` as a module; null on a diagnostic, or where
/// the tools refuse it unparsed (nested past kMaxInputNesting).
/// The text is copied first: MLIR's lexer reads up to a terminating NUL, as
/// every buffer a tool reads from a file has (libFuzzer's has none).
inline mlir::OwningOpRef<mlir::ModuleOp> parseModule(mlir::MLIRContext &ctx,
                                                     llvm::StringRef text) {
  if (mlir::qmat::findExcessiveNesting(text))
    return nullptr;
  std::string terminated = text.str();
  mlir::ParserConfig config(&ctx, /*verifyAfterParse=*/true);
  return mlir::parseSourceString<mlir::ModuleOp>(terminated, config);
}

/// The prefix of a first line that sets the pipeline options, so that the
/// fuzzer mutates the options together with the IR:
///   // qmat-fuzz-options: target=gfx942 gemv-max-m=4
constexpr llvm::StringLiteral kOptionsPrefix = "// qmat-fuzz-options:";

/// Reads the options line of `text` (if any) into `options`; false when the
/// options themselves are refused (a diagnostic, as the driver's).
inline bool parseOptions(llvm::StringRef text,
                         mlir::qmat::GpuPipelineOptions &options) {
  if (!text.starts_with(kOptionsPrefix))
    return true;
  llvm::StringRef line = text.take_until([](char c) { return c == '\n'; });
  line = line.drop_front(kOptionsPrefix.size()).trim();
  return mlir::succeeded(options.parseFromString(line, llvm::nulls()));
}

/// True when every op of `module` is from a dialect a qmat input holds
/// (builtin, func, qmat, arith, memref). The pipeline targets fuzz qmat's
/// passes; other dialects' ops would mostly fuzz upstream conversions that
/// qmat never feeds them.
bool holdsOnlyQMatInput(mlir::ModuleOp module);

} // namespace qmat_fuzz

#endif // QMAT_FUZZ_FUZZCOMMON_H
