//===- KernelConfig.h - How each decode-path kernel is built ----*- C++ -*-===//
//
// The one strategy for the decode-path kernels: given an op's tiling and a
// target, the #qmat.kernel_config the lowering builds (matrix instruction,
// decode, layout, register budget). qmat-configure-kernels attaches it;
// nothing after it decides these again.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_TRANSFORMS_KERNELCONFIG_H
#define QMAT_TRANSFORMS_KERNELCONFIG_H

#include "qmat/AOT/GemvPolicy.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"

namespace mlir::qmat {

class TargetInfo;

/// The config of a GEMV variant and of a fused GEMM tiling on `target`.
KernelConfigAttr getKernelConfig(GemvOp op, const TargetInfo &target);
KernelConfigAttr getKernelConfig(FusedGemmOp op, const TargetInfo &target);

/// What the launcher's run-time policy knows of a GEMV variant beyond its
/// tiling (qmat_policy::GemvVariantDesc): when two or more column tiles
/// pay, and whether split-K 1 wins on many-tile layers.
struct GemvPolicyTraits {
  qmat_policy::WideTiles wideTiles = qmat_policy::WideTiles::never;
  bool unsplitOnManyTiles = false;
};
/// The traits of a variant of a `scheme` layer (`bf16` activations,
/// `prepared` codes) built by `config`, on an NVIDIA target (`nvidia`) or
/// not, of the whole-line tier (`wholeLines`) or not.
GemvPolicyTraits getGemvPolicyTraits(SchemeKind scheme, bool bf16,
                                     bool prepared, bool nvidia,
                                     bool wholeLines, KernelConfigAttr config);
/// The same, from the config's matrix instruction and decode.
GemvPolicyTraits getGemvPolicyTraits(SchemeKind scheme, bool bf16,
                                     bool prepared, bool nvidia,
                                     bool wholeLines, MatrixOp matrix,
                                     DecodeMethod decode);

/// The matrix instruction a GEMV kernel takes on `target`: the scalar loop
/// without `tensorCore`, else the target's GEMV instruction.
MatrixOp getGemvMatrix(bool tensorCore, const TargetInfo &target);

/// The default GEMV decode of `format` on targets with the 16x8x16 warp
/// matrix instruction: e2m1 and u4 decode by the magic-bias shift.
DecodeMethod getDefaultGemvDecode(ElementFormat format);
/// getDefaultGemvDecode, except that e4m3 takes the target's conversion
/// instruction where it has one (two codes per instruction, exact).
DecodeMethod getDefaultGemvDecode(ElementFormat format,
                                  const TargetInfo &target);
/// The fused GEMM's default decode of `format` on `target`: the GEMV's,
/// except that e2m1 takes the target's conversion instruction where it has
/// one (Blackwell).
DecodeMethod getDefaultFusedGemmDecode(ElementFormat format,
                                       const TargetInfo &target);

} // namespace mlir::qmat

#endif // QMAT_TRANSFORMS_KERNELCONFIG_H
