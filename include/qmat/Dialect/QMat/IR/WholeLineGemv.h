//===- WholeLineGemv.h - When the GEMV reads whole lines --------*- C++ -*-===//
//
// The legality of the tensor-core GEMV's whole-line layout
// (GemvKernelSpec::wholeLines), asked by qmat-expand-gemv and qmat-aot of a
// layer's variants and by the lowering of each qmat.gemv; header-only so
// that neither library links the other.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_DIALECT_QMAT_IR_WHOLELINEGEMV_H
#define QMAT_DIALECT_QMAT_IR_WHOLELINEGEMV_H

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

/// Whether a tensor-core GEMV on the 16x8x16 mapping takes the whole-line
/// layout (GemvKernelSpec::wholeLines): nvfp4 or mxfp4 (packed decode), K a
/// multiple of 256, at most kWholeLineGemvMaxM rows and
/// kWholeLineGemvMaxColTiles tiles. Against the 16-row layout at up to 4
/// rows it is faster for nvfp4 (17408 x 5120 7 % at M = 1) and for mxfp4
/// at 17408 x 5120 (its lm_head even), slower for int4 (not taken); at 8
/// rows, where half of each matrix instruction pairs rows with the other K
/// half, it is slower on every layer (bench/README.md, "Measurements behind
/// the compiler's choices").
/// Measured on the H200 only: the other NVIDIA targets (sm_80, sm_89,
/// sm_100, sm_120) run the same PTX mapping unmeasured.
inline bool isWholeLineGemv(SchemeKind scheme, bool tensorCore,
                            DecodeMethod decode, int64_t k, int64_t maxM,
                            int64_t colTiles) {
  bool fp4 = scheme == SchemeKind::nvfp4 || scheme == SchemeKind::mxfp4;
  return fp4 && tensorCore && decode == DecodeMethod::magic_bias &&
         k % 256 == 0 && maxM <= kWholeLineGemvMaxM &&
         colTiles <= kWholeLineGemvMaxColTiles;
}

} // namespace mlir::qmat

#endif // QMAT_DIALECT_QMAT_IR_WHOLELINEGEMV_H
