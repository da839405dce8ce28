//===- PtxMerge.h - Join PTX modules compiled apart -------------*- C++ -*-===//
//
// qmat-serialize-kernels-to-ptx compiles each kernel of a gpu.module to PTX
// on its own, on every core, and a target ships one PTX module (the cubin's
// source and the driver's JIT input). mergePtxModules joins those modules: one
// header, each module-scope declaration once, then every function in the order
// given. Plain C++, so that it is unit-tested without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_LIB_TRANSFORMS_PTXMERGE_H
#define QMAT_LIB_TRANSFORMS_PTXMERGE_H

#include <string>
#include <vector>

namespace mlir::qmat {

/// The PTX modules `modules` as one, or an empty string with `error` set:
/// when their headers (.version, .target, .address_size) differ, when one
/// symbol is declared or defined differently in two modules, when a text is
/// not PTX of the form LLVM's NVPTX back end prints (a header, then
/// module-scope statements ending in ';' and functions ending in '}').
/// Identical statements (a shared external declaration, a function two
/// modules both define) are kept once. Comments outside functions are
/// dropped; the order is the modules' order, declarations first.
std::string mergePtxModules(const std::vector<std::string> &modules,
                            std::string &error);

} // namespace mlir::qmat

#endif // QMAT_LIB_TRANSFORMS_PTXMERGE_H
