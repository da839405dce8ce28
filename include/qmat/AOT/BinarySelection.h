//===- BinarySelection.h - Which binary of a bundle a GPU loads -*- C++ -*-===//
//
// Plain C++ with no dependencies: qmat-aot writes this file verbatim into
// every generated CUDA launcher, uses it for the manifest, and the unit
// tests include it, so the rule the tests check is the one that ships.
//
// NVIDIA's compatibility rules, for a compute capability written as
// 10 * major + minor (sm_86: 86, sm_120: 120):
//  - a cubin built for sm_XY runs on devices of major X and minor >= Y;
//  - a cubin of an arch-specific target (sm_90a, sm_100a, ...) runs on that
//    exact compute capability only;
//  - PTX for sm_XY is compiled by the driver for any device of compute
//    capability >= XY (PTX of an `a` target on that exact one only).
// A device takes the newest cubin that runs on it (an `a` one before the
// portable one of the same compute capability: it is the more specific
// build), and only without one the newest PTX that runs on it, since a JIT
// compilation costs time at the first load.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_AOT_BINARYSELECTION_H
#define QMAT_AOT_BINARYSELECTION_H

#include <initializer_list>

namespace qmat_select {

/// One target of a bundle.
struct BinaryDesc {
  /// 10 * major + minor of the target: 80 for sm_80, 100 for sm_100a.
  int computeCapability;
  /// sm_90a-style code, which runs on its exact compute capability only.
  bool archSpecific;
  /// Whether the target's PTX is in the bundle too (--emit=ptx).
  bool hasPtx;
};

enum class BinaryKind { none, cubin, ptx };

/// What a device loads: the index of the chosen target and which of its
/// binaries, or {-1, none}.
struct Selection {
  int index;
  BinaryKind kind;
};

inline int majorOf(int computeCapability) { return computeCapability / 10; }

/// Whether the cubin of `target` runs on a device of `device` (10 * major +
/// minor).
inline bool cubinRunsOn(const BinaryDesc &target, int device) {
  if (target.archSpecific)
    return target.computeCapability == device;
  return majorOf(target.computeCapability) == majorOf(device) &&
         target.computeCapability <= device;
}

/// Whether the driver compiles the PTX of `target` for `device`.
inline bool ptxRunsOn(const BinaryDesc &target, int device) {
  if (!target.hasPtx)
    return false;
  if (target.archSpecific)
    return target.computeCapability == device;
  return target.computeCapability <= device;
}

/// Whether `a` is the better of two cubins (or two PTX) that both run: the
/// newer target, and at equal compute capability the arch-specific one.
inline bool isBetter(const BinaryDesc &a, const BinaryDesc &b) {
  if (a.computeCapability != b.computeCapability)
    return a.computeCapability > b.computeCapability;
  return a.archSpecific && !b.archSpecific;
}

/// The binary a device of `device` loads from `count` targets: the best
/// cubin that runs on it, else the best PTX, else none. Of equals, the first.
inline Selection selectBinary(int device, const BinaryDesc *targets,
                              int count) {
  for (BinaryKind kind : {BinaryKind::cubin, BinaryKind::ptx}) {
    int best = -1;
    for (int i = 0; i < count; ++i) {
      bool runs = kind == BinaryKind::cubin ? cubinRunsOn(targets[i], device)
                                            : ptxRunsOn(targets[i], device);
      if (runs && (best < 0 || isBetter(targets[i], targets[best])))
        best = i;
    }
    if (best >= 0)
      return {best, kind};
  }
  return {-1, BinaryKind::none};
}

/// The compute capabilities of the NVIDIA GPUs qmat generates code for,
/// oldest first: the devices the manifest lists for each binary. (A class
/// member marked maybe_unused, so that a launcher, where it has internal
/// linkage and is never read, is not warned about it.)
struct KnownDevices {
  [[maybe_unused]] static constexpr int values[] = {80,  86,  87,  88,  89, 90,
                                                    100, 103, 110, 120, 121};
};

} // namespace qmat_select

#endif // QMAT_AOT_BINARYSELECTION_H
