//===- InputNesting.h - The bracket depth qmat's tools parse ----*- C++ -*-===//
//
// MLIR's parser recurses once per nested region, attribute or type, so a
// file nested deep enough overflows the stack before any diagnostic can be
// given (on the default 8 MB stack qmat-opt crashed at 5,000 nested regions
// and at 10,000 nested arrays). qmat-opt and qmat-aot read files from
// elsewhere: they refuse such a file, naming the place, before parsing it.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_SUPPORT_INPUTNESTING_H
#define QMAT_SUPPORT_INPUTNESTING_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::qmat {

/// The deepest nesting of brackets ({, [, ( and <, which open every region,
/// attribute and type that nests) the tools accept: a model's IR nests a
/// few dozen deep, and 2,000 nested regions (4,000 brackets) still parsed.
constexpr unsigned kMaxInputNesting = 1024;

/// The first bracket of `text` that opens a level deeper than `limit`,
/// outside string literals and comments (`->`, `<=` and `>=` are not
/// brackets); null where there is none.
const char *findExcessiveNesting(llvm::StringRef text,
                                 unsigned limit = kMaxInputNesting);

/// The error the tools give at that bracket.
std::string getExcessiveNestingMessage();

} // namespace mlir::qmat

#endif // QMAT_SUPPORT_INPUTNESTING_H
