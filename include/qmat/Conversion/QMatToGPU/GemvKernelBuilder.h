//===- GemvKernelBuilder.h - Decode-path GEMV kernels -----------*- C++ -*-===//
//
// The body of a small-M matmul kernel: every weight byte is read once and
// decoded in registers. The tensor-core variant feeds the decoded weights to
// a warp matrix instruction (qmat.warp_mma) as the A
// operand and the activations as B; the scalar variant decodes element by
// element for shapes the tensor-core mapping cannot take.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_CONVERSION_QMATTOGPU_GEMVKERNELBUILDER_H
#define QMAT_CONVERSION_QMATTOGPU_GEMVKERNELBUILDER_H

#include "qmat/Dialect/QMat/IR/GemvLayouts.h"
#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::qmat {

class TargetInfo;

/// What a GEMV kernel is specialised on.
struct GemvKernelSpec {
  SchemeAttr scheme;
  int64_t k = 0;
  Type actType;
  /// Activation rows one launch handles (getRowGroups() groups).
  int64_t maxM = 8;
  int64_t splitK = 1;
  int64_t colTiles = 1;
  bool tensorCore = false;
  DecodeMethod decode = DecodeMethod::arith;
  bool hasZeroPoints = false;
  bool hasBias = false;
  /// The whole-line layout of the 16x8x16 GEMV (the config's whole_lines):
  /// a column tile is two 8-row halves walked in 256-element K steps, whose
  /// A rows g and g + 4 take the two 64-byte halves of one weight row's
  /// 128-byte line, so that a code load reads 4 rows x 128 bytes instead of
  /// 8 rows x 64 (half the L2 requests; a kernel that only reads the
  /// lm_head's codes in the two shapes measured 4.59 against 4.24 TB/s on
  /// the H200, bench/gemv/row_access.cu); activation rows g % 4 (+ 4 per
  /// group) take the matching K half.
  bool wholeLines = false;
  /// Each K step in two halves of the column tiles, each half's code and
  /// scale loads issued before its arithmetic, the activations loaded once
  /// (the config's half_steps).
  bool halfSteps = false;
  /// The codes are in the prepared layout (PreparedWeights.h).
  bool preparedWeights = false;
  /// Every block of the launch is whole (the config's whole_blocks): no
  /// loop for a partial last block.
  bool wholeBlocksOnly = false;
  /// The fused dequant-GEMM (qmat.fused_gemm): a block of warpsN x splitK
  /// warps, warp w owning weight tile (w % warpsN) and K slice (w /
  /// warpsN); blockIdx.x walks M in tiles of maxM rows and blockIdx.y the
  /// weight rows, so that the blocks that read one weight tile run side by
  /// side. The activations of each 8-element word are loaded where that
  /// word is multiplied, which keeps one word per row group live.
  bool mTiled = false;
  int64_t warpsN = 1;
  /// mTiled: tiles of staged activations in the main loop's pipeline
  /// (qmat.fused_gemm's `stages`); above 1 they are filled by asynchronous
  /// copies stages - 1 K steps ahead, and each step's weights are loaded
  /// one step ahead into registers.
  int64_t stages = 1;
  /// mTiled: the four warps multiply through the warpgroup matrix
  /// instruction (the config's wgmma_64xnx16); the activations and the
  /// weight codes arrive through workgroup memory, copied asynchronously
  /// stages - 1 K steps ahead.
  bool warpgroup = false;
  /// mTiled: a warpgroup tiling (qmat.fused_gemm's `warpgroup`, whichever
  /// instruction builds it): its stages take dynamic workgroup memory, which
  /// may exceed the 48 KB of a static allocation.
  bool dynamicShared = false;
  /// mTiled with warpgroup: qmat.fused_gemm's `specialized` form (one
  /// warpgroup multiplies, colTiles warpgroups decode into workgroup
  /// memory; emitSpecializedFusedGemm).
  bool specialized = false;
  /// specialized with the weights as the instruction's B operand
  /// (qmat.fused_gemm's `weights_as_b`: a multiplying warpgroup per 64
  /// tokens, 16 x colTiles weight rows per block).
  bool weightsAsB = false;
  /// specialized with the decoded weights in the multiplying warps'
  /// registers (qmat.fused_gemm's `weights_in_registers`: no decoding
  /// warpgroup; one warp brings the activations in, 128 K elements a stage).
  bool registerWeights = false;
  /// specialized: decoding warpgroups (FusedGemmOp::getDecoderGroups; a
  /// count other than the tiling's default names the kernel _d<count>).
  int64_t decoderGroups = 1;
  /// mTiled: blocks of a cluster (the grid's z dimension) that split K
  /// among them (qmat.fused_gemm's `k_slices`).
  int64_t kSlices = 1;
  /// specialized: blocks of a cluster along the grid's y dimension that
  /// share each stage's activations (qmat.fused_gemm's `multicast`).
  int64_t multicast = 1;

  /// The kernel of `op` as `config` (its #qmat.kernel_config) says.
  static GemvKernelSpec get(GemvOp op, KernelConfigAttr config);
  static GemvKernelSpec get(FusedGemmOp op, KernelConfigAttr config);

  /// Groups of activation rows, one matrix instruction's N each: 8 rows,
  /// or 4 in the whole-line layout (whose other 4 columns pair each row
  /// with the other K half).
  int64_t getRowGroups() const {
    int64_t rows = getGemvRowsPerGroup(wholeLines);
    return (maxM + rows - 1) / rows;
  }
  int64_t getThreads(unsigned warpSize) const;
  /// Weight rows (output columns) one block produces.
  int64_t getRowsPerBlock() const;
  /// Bytes of workgroup memory for the split-K reduction.
  int64_t getSharedBytes() const;
  /// Whether the weights are decoded straight into pairs of the activation
  /// type (isPackedGemvDecode) rather than through fp32.
  bool usesPackedDecode() const;
  /// Whether the scalar GEMV walks K in 32-element chunks (16-byte code
  /// loads, 8-wide products): K % 32 == 0 and a block that is a multiple
  /// of 8, so that every 8-element word has one scale.
  bool usesChunkedDot() const;
  /// getGemvScaleLoadElements for this kernel.
  int64_t getScaleLoadElements() const;
  std::string getKernelName() const;
};

/// The operands of one GEMV kernel (memrefs; the global scale not loaded).
struct GemvBuffers {
  Value a, weights, scales, globalScale, zeroPoints, bias, y;
  /// Workgroup memory for the split-K partial sums, or null.
  Value partials;
  /// The fused GEMM's staged activations (1-D, the activation type), the
  /// same workgroup memory as `partials`.
  Value stagedActivations;
  /// The warpgroup form's staged weight codes (1-D i8), after every stage's
  /// activations (FusedGemmOp::getStagedCodeBytes per stage).
  Value stagedCodes;
  /// The specialized form's decoded weights (1-D, the activation type),
  /// after every stage's activations; its barrier objects (1-D i64, `full`
  /// of every stage, then `empty`), after every stage's weights; and the
  /// tensor map of A it loads the activations through (the kernel's last
  /// argument).
  Value decodedWeights, stageBarriers, activationMap;
};

/// Emits the kernel body at the builder's insertion point (inside a
/// gpu.func whose block size is spec.getThreads()).
void emitGemvKernelBody(OpBuilder &builder, Location loc,
                        const GemvKernelSpec &spec, const GemvBuffers &buffers,
                        const TargetInfo &target);

/// Whether a tensor-core GEMV decodes its weights straight into pairs of the
/// activation type, each pair rounded as the reference rounds it, instead
/// of through fp32: the magic-bias decode of nvfp4, mxfp4 and int4.
bool isPackedGemvDecode(SchemeKind scheme, bool tensorCore,
                        DecodeMethod decode);

/// Whether the non-tensor-core GEMV of a layer walks K in 32-element chunks
/// (GemvKernelSpec::usesChunkedDot): 16-byte loads of codes and activations.
bool isChunkedGemvDot(bool tensorCore, int64_t k, int64_t blockSize);

/// Scale elements of one weight row that one GEMV load reads: every block of
/// a 32-element chunk where a chunk spans several (block size 16: nvfp4),
/// else 1. Only kernels that walk K in such chunks (the tensor-core GEMV
/// and the chunked dot) pair them. The launcher requires the scales to be
/// aligned to that many elements.
int64_t getGemvScaleLoadElements(bool tensorCore, int64_t k, int64_t blockSize);

} // namespace mlir::qmat

#endif // QMAT_CONVERSION_QMATTOGPU_GEMVKERNELBUILDER_H
