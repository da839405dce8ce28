//===- Targets.h - The GPU targets qmat-aot builds bundles for --*- C++ -*-===//
//
// qmat-aot names its targets as ptxas and the CUDA runtime do (sm_86,
// sm_90a, sm_120). The kernels of a target come from the code generator of
// the newest qmat chip whose instructions that target has (its kernel
// class), compiled for the target itself: sm_86 runs sm_80-class kernels
// built as sm_86 code, sm_100 (portable across 10.x) sm_90-class ones, and
// only sm_100a, whose code runs on 10.0 alone, Blackwell's fp4 conversions.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_AOT_TARGETS_H
#define QMAT_AOT_TARGETS_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::qmat {

/// An NVIDIA target of a bundle.
struct NvidiaTarget {
  /// The name ptxas takes: "sm_90a".
  llvm::StringLiteral name;
  /// 10 * major + minor: 90.
  int computeCapability;
  /// sm_90a-style: its cubin runs on that compute capability only.
  bool archSpecific;
  /// The qmat chip whose code generator builds the kernels.
  Chip kernelClass;
  /// The PTX ISA version: the newer of what the kernel class's instructions
  /// and the target itself need.
  llvm::StringLiteral ptxFeature;
};

/// Every NVIDIA target qmat-aot accepts, oldest first.
llvm::ArrayRef<NvidiaTarget> getNvidiaTargets();
/// The NVIDIA target of that name; null when it is none.
const NvidiaTarget *lookupNvidiaTarget(llvm::StringRef name);

/// The accepted target names, comma separated ("sm_80, sm_86, ...,
/// gfx950"), for help texts and messages.
std::string getTargetNameList();

/// Checks a --target value: empty when `name` is an NVIDIA or AMD target
/// qmat-aot builds, else why not.
std::string checkTargetName(llvm::StringRef name);

} // namespace mlir::qmat

#endif // QMAT_AOT_TARGETS_H
