//===- GemvLayouts.h - The tensor-core GEMV's layouts -----------*- C++ -*-===//
//
// Where each layout of the 16x8x16 GEMV kernel is legal (what the kernel
// builder implements): the whole-line layout and the half steps of
// #qmat.kernel_config. The verifier checks a config against these rules,
// qmat-configure-kernels and qmat-expand-gemv ask them before choosing;
// header-only so that neither library links the other.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_DIALECT_QMAT_IR_GEMVLAYOUTS_H
#define QMAT_DIALECT_QMAT_IR_GEMVLAYOUTS_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"

namespace mlir::qmat {

/// Activation rows and column tiles the whole-line layout takes at most:
/// its accumulators grow with 2 x col_tiles x ceil(M / 4), and ptxas gave
/// the 4-row, 4-tile kernel 199 registers.
constexpr int64_t kWholeLineGemvMaxM = 4;
constexpr int64_t kWholeLineGemvMaxColTiles = 2;

/// Activation rows per matrix-instruction group (the instruction's N): 8, or
/// 4 in the whole-line layout, whose other 4 columns pair each row with the
/// other K half.
constexpr int64_t getGemvRowsPerGroup(bool wholeLines) {
  return wholeLines ? 4 : 8;
}
/// 16 x 8 matrix tiles per 16-row column tile: one, or in the whole-line
/// layout one per 8-row half.
constexpr int64_t getGemvMmaTilesPerColTile(bool wholeLines) {
  return wholeLines ? 2 : 1;
}

/// Whether a tensor-core GEMV on the 16x8x16 mapping can take the whole-line
/// layout: nvfp4 or mxfp4 (the packed fp4 decode), K a multiple of 256 (its
/// K step), at most kWholeLineGemvMaxM rows and kWholeLineGemvMaxColTiles
/// tiles (its registers).
inline bool isWholeLineGemv(SchemeKind scheme, bool tensorCore,
                            DecodeMethod decode, int64_t k, int64_t maxM,
                            int64_t colTiles) {
  bool fp4 = scheme == SchemeKind::nvfp4 || scheme == SchemeKind::mxfp4;
  return fp4 && tensorCore && decode == DecodeMethod::magic_bias &&
         k % 256 == 0 && maxM <= kWholeLineGemvMaxM &&
         colTiles <= kWholeLineGemvMaxColTiles;
}

/// Whether a tensor-core GEMV on the 16x8x16 mapping can walk each K step in
/// two halves of its column tiles: the 16-row layout (not whole lines) of
/// four or more tiles, the packed fp4 decode (nvfp4, mxfp4) and bf16
/// activations.
inline bool isHalfStepGemv(SchemeKind scheme, DecodeMethod decode, bool bf16,
                           int64_t colTiles, bool wholeLines) {
  bool fp4 = scheme == SchemeKind::nvfp4 || scheme == SchemeKind::mxfp4;
  return fp4 && decode == DecodeMethod::magic_bias && bf16 && colTiles >= 4 &&
         !wholeLines;
}

} // namespace mlir::qmat

#endif // QMAT_DIALECT_QMAT_IR_GEMVLAYOUTS_H
