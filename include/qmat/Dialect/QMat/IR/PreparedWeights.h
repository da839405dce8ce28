//===- PreparedWeights.h - The prepared code layout -------------*- C++ -*-===//
//
// The weight-code layout a layer can take instead of the checkpoint's
// row-major one (`prepared_weights` on qmat.gemv and qmat.dequantize, asked
// for through #qmat.plan): the codes of each 16-row tile and 128-element K
// step (16 rows x 64 bytes) are one contiguous kilobyte in which row g + 8h
// of the tile keeps its four 16-byte pieces at 512h + 16 (4g + t), so that
// a 16-row GEMV lane (g, t) loads piece t of rows g and g + 8 and the warp's
// load reads 512 contiguous bytes. A permutation of 16-byte pieces: the
// prepared buffer has the checkpoint's size, and the rows of tile T stay
// bytes [T * 8K, (T + 1) * 8K), so a slice of rows starting at a multiple
// of 16 is a slice of the buffer. Header-only: the dialect, the kernel
// builders and the launcher share it.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_DIALECT_QMAT_IR_PREPAREDWEIGHTS_H
#define QMAT_DIALECT_QMAT_IR_PREPAREDWEIGHTS_H

#include <cstdint>

namespace mlir::qmat {

/// Rows of a prepared tile, bytes of one of its rows per K step, and bytes
/// of one lane's piece.
constexpr int64_t kPreparedTileRows = 16;
constexpr int64_t kPreparedStepBytes = 64;
constexpr int64_t kPreparedPieceBytes = 16;

/// Whether a packed 4-bit layer of N rows (dynamic: -1, a tile slice) and
/// reduction length K can take the prepared layout: K a multiple of the
/// 128-element step and N of the tile.
constexpr bool canPrepareWeights(bool packed, int64_t n, int64_t k) {
  return packed && k % (2 * kPreparedStepBytes) == 0 &&
         (n < 0 || n % kPreparedTileRows == 0);
}

/// The prepared offset of byte `byte` of code row `row` (K elements per
/// row, K / 2 bytes).
constexpr int64_t getPreparedCodeOffset(int64_t row, int64_t byte, int64_t k) {
  int64_t tile = row / kPreparedTileRows, inTile = row % kPreparedTileRows;
  int64_t half = inTile / 8, g = inTile % 8;
  int64_t step = byte / kPreparedStepBytes;
  int64_t piece = byte % kPreparedStepBytes / kPreparedPieceBytes;
  return tile * kPreparedTileRows * (k / 2) +
         step * kPreparedTileRows * kPreparedStepBytes +
         half * 8 * kPreparedStepBytes + (4 * g + piece) * kPreparedPieceBytes +
         byte % kPreparedPieceBytes;
}

} // namespace mlir::qmat

#endif // QMAT_DIALECT_QMAT_IR_PREPAREDWEIGHTS_H
