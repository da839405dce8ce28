//===- FusedGemm.h - Limits of the fused dequant-GEMM -----------*- C++ -*-===//
//
// Plain constants shared by the verifier of qmat.fused_gemm, the variant
// set (FusedGemmVariants.h) and the kernel builder, so that what verifies
// is what compiles.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_DIALECT_QMAT_IR_FUSEDGEMM_H
#define QMAT_DIALECT_QMAT_IR_FUSEDGEMM_H

#include <cstdint>

namespace mlir::qmat {

/// The largest fused_max_m a plan takes: every M the launcher accepts.
constexpr int64_t kMaxFusedMaxM = 2147483647;
/// Threads of one fused block (warps_n x split_k warps of 32).
constexpr int64_t kMaxFusedBlockThreads = 512;
/// fp32 accumulators one lane holds (col_tiles x m_tile / 8 x 4): beyond
/// this the kernel spills.
constexpr int64_t kMaxFusedAccumulators = 64;
/// The static workgroup memory CUDA allows without an opt-in (the warp
/// form's limit).
constexpr int64_t kMaxFusedSharedBytes = 48 * 1024;
/// The warpgroup form's dynamic workgroup memory: two such blocks fit in an
/// sm_90 multiprocessor's 228 KB (each block also takes 1 KB of its own).
constexpr int64_t kMaxWarpgroupSharedBytes = 112 * 1024;
/// The specialized warpgroup form's: one block per sm_90 multiprocessor,
/// which gives a block up to 227 KB.
constexpr int64_t kMaxSpecializedSharedBytes = 227 * 1024;
/// K elements of one stage of the specialized form.
constexpr int64_t kSpecializedStageK = 64;
/// The specialized form's largest m_tile (the widest warpgroup
/// instruction; each multiplying lane holds m_tile / 2 accumulators).
constexpr int64_t kMaxSpecializedMTile = 256;
/// The `weights_as_b` form's most column tiles: 16 x 16 weight rows, the
/// widest N of the warpgroup instruction.
constexpr int64_t kMaxSpecializedBColTiles = 16;
/// The most accumulators a multiplying lane of the `weights_as_b` form with
/// m_tile 128 holds where the block has two decoding warpgroups (512
/// threads: 128 registers a lane).
constexpr int64_t kMaxTwoDecoderAccumulators = 72;
/// The most decoding warpgroups of the specialized form: with one
/// multiplying warpgroup, 512 threads leave 128 registers a lane.
constexpr int64_t kMaxSpecializedDecoders = 3;
/// Whether each block of a `multicast`-block cluster loads whole 8-row
/// swizzle atoms of an m_tile-row stage (m_tile / multicast rows).
constexpr bool isWholeMulticastShare(int64_t mTile, int64_t multicast) {
  return multicast > 0 && mTile % (8 * multicast) == 0;
}
/// Bytes of one barrier object (an mbarrier's 64-bit state); the
/// specialized form keeps two per stage after its decoded weights.
constexpr int64_t kBarrierObjectBytes = 8;

} // namespace mlir::qmat

#endif // QMAT_DIALECT_QMAT_IR_FUSEDGEMM_H
