//===- Ptxas.cpp - PTX to cubin through the toolkit's ptxas ---------------===//

#include "Ptxas.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir::qmat;

namespace {

std::string findPtxas(const std::string &toolkitPath) {
  if (!toolkitPath.empty()) {
    llvm::SmallString<256> path(toolkitPath);
    llvm::sys::path::append(path, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
  }
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return {};
}

/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
  std::string create(llvm::StringRef suffix) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("qmat-ptxas", suffix, path))
      return "cannot create a temporary file: " + ec.message();
    remover.emplace(path);
    return {};
  }
};

} // namespace

PtxasResult mlir::qmat::assemblePtx(const std::string &ptx,
                                    const std::string &chip, int optLevel,
                                    const std::string &toolkitPath) {
  PtxasResult result;
  std::string ptxas = findPtxas(toolkitPath);
  if (ptxas.empty()) {
    result.error =
        "no ptxas in " + (toolkitPath.empty() ? std::string("PATH")
                                              : toolkitPath + "/bin or PATH");
    return result;
  }
  TempFile input, output, log;
  for (auto [file, suffix] :
       {std::pair{&input, "ptx"}, {&output, "cubin"}, {&log, "log"}})
    if (std::string error = file->create(suffix); !error.empty()) {
      result.error = error;
      return result;
    }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input.path, ec);
    if (!ec)
      os << ptx;
    if (ec || os.has_error()) {
      result.error = "cannot write " + std::string(input.path);
      return result;
    }
  }
  std::string level = std::to_string(optLevel);
  // --split-compile 0: ptxas optimizes the kernels on every core.
  llvm::StringRef args[] = {
      "ptxas",     "-arch",       chip,  input.path,        "-o",
      output.path, "--opt-level", level, "--split-compile", "0"};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, /*Env=*/std::nullopt,
                                     redirects, /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &message);
  if (rc != 0) {
    result.error = "ptxas (" + ptxas + ") failed";
    if (!message.empty())
      result.error += ": " + message;
    if (auto text = llvm::MemoryBuffer::getFile(log.path))
      result.error += "\n" + (*text)->getBuffer().rtrim().str();
    return result;
  }
  auto cubin = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin) {
    result.error = "cannot read " + std::string(output.path) + ": " +
                   cubin.getError().message();
    return result;
  }
  result.cubin = (*cubin)->getBuffer().str();
  return result;
}
