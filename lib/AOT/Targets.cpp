//===- Targets.cpp - The GPU targets qmat-aot builds bundles for ----------===//

#include "qmat/AOT/Targets.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

// Kernel classes: sm_80 has neither the e4m3 pair conversion (sm_89 on) nor
// the e2m1 one (arch-specific Blackwell code only), so sm_86/87/88 build its
// kernels. The portable Blackwell targets take the class of their SM size
// without the e2m1 conversion: sm_90's (2048 threads per SM) for sm_100,
// sm_103 and sm_110, sm_89's (1536) for sm_120 and sm_121. PTX versions are
// the lowest that ptxas 13 and LLVM 22 accept for each target, raised to the
// class's (8.1 for sm_89's e4m3 conversion, 8.8 for the e2m1 one).
const NvidiaTarget kNvidiaTargets[] = {
    {"sm_80", 80, false, Chip::sm_80, "+ptx80"},
    {"sm_86", 86, false, Chip::sm_80, "+ptx80"},
    {"sm_87", 87, false, Chip::sm_80, "+ptx80"},
    {"sm_88", 88, false, Chip::sm_80, "+ptx90"},
    {"sm_89", 89, false, Chip::sm_89, "+ptx81"},
    {"sm_90", 90, false, Chip::sm_90, "+ptx80"},
    {"sm_90a", 90, true, Chip::sm_90a, "+ptx80"},
    {"sm_100", 100, false, Chip::sm_90, "+ptx86"},
    {"sm_100a", 100, true, Chip::sm_100, "+ptx88"},
    {"sm_103", 103, false, Chip::sm_90, "+ptx88"},
    {"sm_103a", 103, true, Chip::sm_100, "+ptx88"},
    {"sm_110", 110, false, Chip::sm_90, "+ptx90"},
    {"sm_110a", 110, true, Chip::sm_100, "+ptx90"},
    {"sm_120", 120, false, Chip::sm_89, "+ptx87"},
    {"sm_120a", 120, true, Chip::sm_120, "+ptx88"},
    {"sm_121", 121, false, Chip::sm_89, "+ptx88"},
    {"sm_121a", 121, true, Chip::sm_120, "+ptx88"},
};

} // namespace

ArrayRef<NvidiaTarget> mlir::qmat::getNvidiaTargets() { return kNvidiaTargets; }

const NvidiaTarget *mlir::qmat::lookupNvidiaTarget(StringRef name) {
  for (const NvidiaTarget &target : kNvidiaTargets)
    if (target.name == name)
      return &target;
  return nullptr;
}

std::string mlir::qmat::getTargetNameList() {
  std::string list;
  for (const NvidiaTarget &target : kNvidiaTargets)
    list += target.name.str() + ", ";
  return list + "gfx942, gfx950";
}

std::string mlir::qmat::checkTargetName(StringRef name) {
  if (lookupNvidiaTarget(name))
    return {};
  std::optional<Chip> chip = symbolizeChip(name);
  if (chip && !isNVIDIAChip(*chip))
    return {};
  if (name == "sm_101" || name == "sm_101a")
    return ("'" + name + "' is called sm_110" + name.drop_front(6) +
            " since CUDA 13")
        .str();
  if (name.starts_with("sm_") && name.ends_with("f"))
    return ("'" + name + "' is a family target; take its portable form (" +
            name.drop_back() + ") or its arch-specific one (" +
            name.drop_back() + "a)")
        .str();
  return ("unknown target '" + name + "' (expected " + getTargetNameList() +
          ")")
      .str();
}
