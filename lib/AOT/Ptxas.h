//===- Ptxas.h - PTX to cubin through the toolkit's ptxas ------*- C++ -*-===//
//
// qmat-aot lowers each NVIDIA target to PTX once and assembles the cubin from
// that PTX itself: the PTX that ships for the driver's JIT and the cubin are
// then one compilation, not two, and ptxas runs as a process of its own while
// the next target is lowered.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_LIB_AOT_PTXAS_H
#define QMAT_LIB_AOT_PTXAS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::qmat {

/// The result of one ptxas run: the cubin, or why there is none.
struct PtxasResult {
  std::string cubin;
  std::string error; // empty on success
  double seconds = 0; // wall time of the ptxas run
};

/// Assembles `ptx` for `chip` ("sm_90a") at `optLevel` with the ptxas of
/// `toolkitPath` (<toolkit>/bin/ptxas; PATH when empty or absent there).
/// ptxas spreads its optimizations over the machine's cores. Thread-safe: it
/// touches no MLIR state, so it may run beside the next target's lowering.
PtxasResult assemblePtx(const std::string &ptx, const std::string &chip,
                        int optLevel, const std::string &toolkitPath);

} // namespace mlir::qmat

#endif // QMAT_LIB_AOT_PTXAS_H
