//===- QMatOps.td - qmat operations ------------------------*- tablegen -*-===//

#ifndef QMAT_OPS_TD
#define QMAT_OPS_TD

include "QMatAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"
include "QMatMatrixOps.td"
include "QMatTileOps.td"


def QMat_MatmulOp : QMat_Op<"matmul", [AttrSizedOperandSegments]> {
  let summary = "One block-quantized linear layer: Y = A · Wᵀ (+ bias)";
  let description = [{
    The user-facing op, one per linear layer. `A` is [M, K] with M dynamic,
    the weight W [N, K] is given as packed codes plus block scales in the
    layout of `scheme`, and `Y` is [M, N] in the activation type. Products
    accumulate in fp32.

    ```mlir
    qmat.matmul <nvfp4, block = 16>
        ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x4xf8E4M3FN>)
        global_scale(%g : memref<f32>) bias(%b : memref<32xf16>)
        outs(%y : memref<?x32xf16>)
    ```
  }];
  let arguments = (ins
      QMat_SchemeAttr:$scheme,
      Arg<AnyMemRef, "activations [M, K]", [MemRead]>:$a,
      Arg<AnyMemRef, "packed weight codes", [MemRead]>:$weights,
      Arg<AnyMemRef, "block scales [N, ceil(K/bs)]", [MemRead]>:$scales,
      Arg<Optional<AnyMemRef>, "nvfp4 global scale", [MemRead]>:$global_scale,
      Arg<Optional<AnyMemRef>, "int4 zero points", [MemRead]>:$zero_points,
      Arg<Optional<AnyMemRef>, "bias [N]", [MemRead]>:$bias,
      Arg<AnyMemRef, "output [M, N]", [MemWrite]>:$y,
      OptionalAttr<QMat_PlanAttr>:$plan);
  let assemblyFormat = [{
    $scheme `ins` `(` $a `,` $weights `,` $scales `:` type($a) `,`
        type($weights) `,` type($scales) `)`
    (`global_scale` `(` $global_scale^ `:` type($global_scale) `)`)?
    (`zero_points` `(` $zero_points^ `:` type($zero_points) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $y `:` type($y) `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getN();
    int64_t getK();
    Type getActType();
  }];
}

def QMat_DequantizeOp : QMat_Op<"dequantize", [AttrSizedOperandSegments]> {
  let summary = "Expand a quantized weight into an [N, K] scratch buffer";
  let description = [{
    Writes the reference dequantization (docs/numerics.md) of every element of W into
    `scratch`, bit for bit. N may be dynamic so that one kernel serves every
    N tile of a scratch-capped prefill. `kernel` and `decode` record the
    chosen thread mapping and element decode once a pass has chosen them.

    ```mlir
    qmat.dequantize <nvfp4, block = 16>
        ins(%w, %s : memref<?x32xi8>, memref<?x4xf8E4M3FN>)
        global_scale(%g : memref<f32>)
        outs(%scratch : memref<?x64xbf16>) kernel = vec8 decode = lookup
    ```
  }];
  let arguments = (ins
      QMat_SchemeAttr:$scheme,
      Arg<AnyMemRef, "packed weight codes", [MemRead]>:$weights,
      Arg<AnyMemRef, "block scales", [MemRead]>:$scales,
      Arg<Optional<AnyMemRef>, "nvfp4 global scale", [MemRead]>:$global_scale,
      Arg<Optional<AnyMemRef>, "int4 zero points", [MemRead]>:$zero_points,
      Arg<AnyMemRef, "dequantized weights [N, K]", [MemWrite]>:$scratch,
      OptionalAttr<QMat_DequantKernelAttr>:$kernel,
      OptionalAttr<QMat_DecodeMethodAttr>:$decode,
      UnitAttr:$prepared_weights);
  let assemblyFormat = [{
    $scheme `ins` `(` $weights `,` $scales `:` type($weights) `,`
        type($scales) `)`
    (`global_scale` `(` $global_scale^ `:` type($global_scale) `)`)?
    (`zero_points` `(` $zero_points^ `:` type($zero_points) `)`)?
    `outs` `(` $scratch `:` type($scratch) `)`
    (`kernel` `=` $kernel^)?
    (`decode` `=` $decode^)?
    (`prepared_weights` $prepared_weights^)? attr-dict
  }];
  let hasVerifier = 1;
}

def QMat_GemmOp : QMat_Op<"gemm"> {
  let summary = "Dense Y = A · Bᵀ (+ bias) through the vendor BLAS";
  let description = [{
    The prefill GEMM on dequantized weights: A [M, K], B [N, K] and Y [M, N]
    share the activation type, accumulation is fp32. Lowered to a library
    call (cuBLASLt) by the launcher, never to a generated kernel.

    ```mlir
    qmat.gemm ins(%a, %b : memref<?x64xf16>, memref<32x64xf16>)
        outs(%y : memref<?x32xf16>)
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "activations [M, K]", [MemRead]>:$a,
                       Arg<AnyMemRef, "weights [N, K]", [MemRead]>:$b,
                       Arg<Optional<AnyMemRef>, "bias [N]", [MemRead]>:$bias,
                       Arg<AnyMemRef, "output [M, N]", [MemWrite]>:$y);
  let assemblyFormat = [{
    `ins` `(` $a `,` $b `:` type($a) `,` type($b) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $y `:` type($y) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def QMat_GemvOp : QMat_Op<"gemv", [AttrSizedOperandSegments]> {
  let summary = "Decode-path matmul for small M, weights decoded in registers";
  let description = [{
    Y = A · Wᵀ (+ bias) for M ≤ `max_m`, reading every weight byte once.
    With `tensor_core`, warps multiply 16-row weight tiles (decoded straight
    into the A operand of a warp matrix instruction) by the activations (the
    B operand); `split_k` warps share one tile's K range and reduce in
    shared memory, and `col_tiles` is the number of 16-row tiles one block
    owns. Without it, one warp per row decodes element by element and
    reduces with shuffles (any K and block size; split_k = col_tiles = 1).
    `config` (`#qmat.kernel_config`, attached by `qmat-configure-kernels`)
    says how the lowering builds the kernel for its target.

    ```mlir
    qmat.gemv <fp8, block = 128>
        ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
        outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 2 col_tiles = 1 tensor_core
    ```
  }];
  let arguments = (ins
      QMat_SchemeAttr:$scheme,
      Arg<AnyMemRef, "activations [M, K]", [MemRead]>:$a,
      Arg<AnyMemRef, "packed weight codes", [MemRead]>:$weights,
      Arg<AnyMemRef, "block scales", [MemRead]>:$scales,
      Arg<Optional<AnyMemRef>, "nvfp4 global scale", [MemRead]>:$global_scale,
      Arg<Optional<AnyMemRef>, "int4 zero points", [MemRead]>:$zero_points,
      Arg<Optional<AnyMemRef>, "bias [N]", [MemRead]>:$bias,
      Arg<AnyMemRef, "output [M, N]", [MemWrite]>:$y,
      I64Attr:$max_m, I64Attr:$split_k, I64Attr:$col_tiles,
      UnitAttr:$tensor_core, OptionalAttr<QMat_DecodeMethodAttr>:$decode,
      UnitAttr:$prepared_weights,
      OptionalAttr<QMat_KernelConfigAttr>:$config);
  let assemblyFormat = [{
    $scheme `ins` `(` $a `,` $weights `,` $scales `:` type($a) `,`
        type($weights) `,` type($scales) `)`
    (`global_scale` `(` $global_scale^ `:` type($global_scale) `)`)?
    (`zero_points` `(` $zero_points^ `:` type($zero_points) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $y `:` type($y) `)`
    `max_m` `=` $max_m `split_k` `=` $split_k `col_tiles` `=` $col_tiles
    (`tensor_core` $tensor_core^)? (`decode` `=` $decode^)?
    (`prepared_weights` $prepared_weights^)?
    (`config` `=` qualified($config)^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getK();
    Type getActType();
    /// Bytes of workgroup memory the split-K reduction of a tensor-core
    /// variant needs: every warp parks 4 fp32 sums per lane per 16 x 8
    /// tile (0 without split-K). `wholeLines`: the layout of
    /// GemvKernelSpec::wholeLines, two 16 x 8 tiles per column tile and
    /// one per 4 activation rows.
    static int64_t getPartialSumBytes(int64_t splitK, int64_t colTiles,
                                      int64_t maxM, bool wholeLines = false);
    /// The split-K factors and column-tile counts a variant may take (the
    /// verifier's rule, also qmat-expand-gemv's options').
    static ArrayRef<int64_t> getSplitKChoices();
    static ArrayRef<int64_t> getColTileChoices();
    /// The largest static workgroup allocation CUDA and HIP allow.
    static constexpr int64_t kMaxSharedBytes = 48 * 1024;
    /// Threads per block of a variant: 16 warps of 32 or 8 wavefronts of
    /// 64 (a 1024-lane block leaves each CDNA lane 128 registers, and the
    /// 64-lane matrix GEMV with 4 column tiles spilled there).
    static constexpr int64_t kMaxBlockThreads = 512;
  }];
}

def QMat_TensorMapOp : QMat_Op<"tensor_map", [Pure]> {
  let summary = "The tensor map through which a kernel loads tiles of a matrix";
  let description = [{
    Describes `source` (a row-major [rows, cols] matrix of f16 or bf16 in
    global memory) for `qmat.tensor_load`: tiles of `box` = [cols, rows]
    elements (inner dimension first), each row of a tile 128 bytes and laid
    out with the 128-byte swizzle in workgroup memory (16-byte chunk c of
    tile row r at chunk c ^ (r % 8)), zeros where a tile leaves the matrix.
    The result is what a kernel argument receives: the host makes the map
    per launch (the NVIDIA launcher through `cuTensorMapEncodeTiled`) and
    passes its 128 bytes by value.

    ```mlir
    %map = qmat.tensor_map %a box [64, 128] : memref<?x5120xbf16>
    ```
  }];
  let arguments = (ins MemRefRankOf<[F16, BF16], [2]>:$source,
                       DenseI64ArrayAttr:$box);
  let results = (outs QMat_Pointer:$map);
  let assemblyFormat = "$source `box` $box attr-dict `:` type($source)";
  let hasVerifier = 1;
}

def QMat_FusedGemmOp : QMat_Op<"fused_gemm", [AttrSizedOperandSegments]> {
  let summary = "Dequant-GEMM for M above the GEMV, weights decoded in the main loop";
  let description = [{
    Y = A · Wᵀ (+ bias) for any M, without a dequantized scratch: each block
    owns `warps_n` x `col_tiles` 16-row weight tiles and `m_tile` activation
    rows (the grid covers M in tiles of `m_tile`). Every weight byte a block
    needs is read once and decoded in registers by the same decode as the
    tensor-core `qmat.gemv`, straight into the A operand of the warp matrix
    instruction; the activations are its B operand. `split_k` warps share
    one tile's K range and reduce in shared memory in a fixed order, so the
    result does not depend on scheduling. With `stages` > 1 the main loop is
    a software pipeline: the activations of the next `stages` - 1 K steps
    are in flight as asynchronous copies into workgroup memory while a step
    is multiplied, and the next step's weights are loaded into registers
    before the current step's are decoded.
    `k_slices` (> 1, sm_90 on) splits K once more, across the blocks of a
    thread-block cluster: the grid's z dimension holds `k_slices` blocks
    per tile, each on its own contiguous K range, and the cluster's first
    block adds the others' sums, in rank order, through their workgroup
    memory before its epilogue (`qmat.reduce_k_slices`). It gives a layer
    of few weight rows more blocks than weight tiles, with no workspace and
    the same bits on every run.

    `warpgroup` asks for the warpgroup matrix instruction (wgmma on sm_90a):
    each four warps of a block (`warps_n` = 4 or 8, `stages` 3 or 4) hold
    the A operand of one 64-row instruction per column tile, each warp its
    16 rows decoded in registers by the same decode as above, in the
    instruction's own K order (the four lanes that read a row's 64 bytes of
    codes exchange them first), and the instructions read the activations
    from workgroup memory, `m_tile` of them per K16 step. Asynchronous
    copies bring the activations there from A unchanged, and each lane's
    codes beside them, `stages` - 2 K steps ahead; a step's instructions
    run while the warps decode the next step. The stages take dynamic
    workgroup memory (up to 112 KB, so that two blocks share an sm_90
    multiprocessor). It takes the packed decodes (nvfp4, mxfp4, int4). Targets without that
    instruction, and fp8, build the same tiling from warp instructions; the
    decoded weights and the fp32 accumulation are the same either way.
    `specialized` (with `warpgroup`, sm_90a, packed decodes) divides the
    block's warps by role instead: one warpgroup per column tile multiplies
    (its 64-row instructions, `warps_n` = 4, `split_k` = 1, the column
    tiles sharing the activations) and one warpgroup decodes, into
    workgroup memory, the weights the instructions read from there as their
    A operand, beside the activations it brings in through A's tensor map;
    `stages` (3 or 4) such tiles of 64 K elements circulate between them
    through barrier objects, so that the decode of later stages runs while
    the instructions multiply earlier ones. Its memory is dynamic, up to a
    multiprocessor's 227 KB.
    `weights_as_b` (with `specialized`) swaps the instruction's operands:
    the activations are A (one warpgroup per 64 of the `m_tile` tokens,
    one 64-token instruction each) and the decoded weights B, whose N runs
    over the block's 16 x `col_tiles` weight rows (`warps_n` = 1, col_tiles
    1 .. 16), so that a block's rows are any multiple of 16 up to 256 and
    the grid can be sized to the multiprocessors rather than to 64-row
    steps.
    `multicast` (> 1, with `specialized`) makes each `multicast` blocks of
    neighbouring weight rows, which read the same activations, a
    thread-block cluster along the grid's y dimension: each block brings in
    `m_tile` / `multicast` rows of every stage's activations and the tensor
    copy delivers them to every block of the cluster, so that the
    activations cross the L2 once per cluster instead of once per block.
    A block refills a stage only once every block of its cluster is done
    with it.
    `weights_in_registers` (with `specialized`, the weights as A) keeps the
    decoded weights in the multiplying warps' registers, as the
    instruction's register A operand, instead of passing them through
    workgroup memory: each multiplying warpgroup decodes its own 64 rows
    (the quad exchange and decode of `warpgroup`) while its instructions on
    the previous K step run, and the block's first thread brings in the
    activations. A stage then holds 128 K elements of activations (two
    tensor loads of 64 columns), `stages` 3 or 4 of them; `m_tile` 64 or
    128, `col_tiles` 1 or 2, `multicast` and `k_slices` 1.
    `decoders` (with `specialized`, the decoded weights in workgroup
    memory) sets how many warpgroups decode, 1 to 3, in place of the
    tiling's default (getSpecializedDecoders): each takes every
    `decoders`-th stage, so `stages` - 2 is a multiple of it.
    `config` (`#qmat.kernel_config`, attached by `qmat-configure-kernels`)
    says which instruction the lowering uses.

    ```mlir
    qmat.fused_gemm <nvfp4, block = 16>
        ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
        global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
        m_tile = 32 warps_n = 2 split_k = 1 col_tiles = 2 stages = 3
    ```
  }];
  let arguments = (ins
      QMat_SchemeAttr:$scheme,
      Arg<AnyMemRef, "activations [M, K]", [MemRead]>:$a,
      Arg<AnyMemRef, "packed weight codes", [MemRead]>:$weights,
      Arg<AnyMemRef, "block scales", [MemRead]>:$scales,
      Arg<Optional<AnyMemRef>, "nvfp4 global scale", [MemRead]>:$global_scale,
      Arg<Optional<AnyMemRef>, "int4 zero points", [MemRead]>:$zero_points,
      Arg<Optional<AnyMemRef>, "bias [N]", [MemRead]>:$bias,
      Arg<AnyMemRef, "output [M, N]", [MemWrite]>:$y,
      I64Attr:$m_tile, I64Attr:$warps_n, I64Attr:$split_k, I64Attr:$col_tiles,
      DefaultValuedAttr<I64Attr, "1">:$stages,
      DefaultValuedAttr<I64Attr, "1">:$k_slices,
      OptionalAttr<QMat_DecodeMethodAttr>:$decode,
      UnitAttr:$prepared_weights, UnitAttr:$warpgroup, UnitAttr:$specialized,
      UnitAttr:$weights_as_b, DefaultValuedAttr<I64Attr, "1">:$multicast,
      UnitAttr:$weights_in_registers, OptionalAttr<I64Attr>:$decoders,
      OptionalAttr<QMat_KernelConfigAttr>:$config);
  let assemblyFormat = [{
    $scheme `ins` `(` $a `,` $weights `,` $scales `:` type($a) `,`
        type($weights) `,` type($scales) `)`
    (`global_scale` `(` $global_scale^ `:` type($global_scale) `)`)?
    (`zero_points` `(` $zero_points^ `:` type($zero_points) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $y `:` type($y) `)`
    `m_tile` `=` $m_tile `warps_n` `=` $warps_n `split_k` `=` $split_k
    `col_tiles` `=` $col_tiles (`stages` `=` $stages^)?
    (`k_slices` `=` $k_slices^)?
    (`decode` `=` $decode^)? (`prepared_weights` $prepared_weights^)?
    (`warpgroup` $warpgroup^)? (`specialized` $specialized^)?
    (`weights_as_b` $weights_as_b^)? (`multicast` `=` $multicast^)?
    (`weights_in_registers` $weights_in_registers^)?
    (`decoders` `=` $decoders^)?
    (`config` `=` qualified($config)^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getK();
    Type getActType();
    /// The values each tiling attribute may take (the verifier's rule).
    static ArrayRef<int64_t> getMTileChoices();
    /// The m_tile values of the specialized form with the weights as A
    /// (the multiplying instruction's N).
    static ArrayRef<int64_t> getSpecializedMTileChoices();
    static ArrayRef<int64_t> getWarpsNChoices();
    static ArrayRef<int64_t> getSplitKChoices();
    static ArrayRef<int64_t> getStagesChoices();
    /// The values k_slices may take (thread-block clusters of up to 8
    /// blocks, the portable size).
    static ArrayRef<int64_t> getKSliceChoices();
    /// The values multicast may take (blocks of a cluster sharing each
    /// stage's activations).
    static ArrayRef<int64_t> getMulticastChoices();
    /// `k_slices` > 1: bytes of workgroup memory a block parks its sums in
    /// (every thread's 4 x col_tiles x m_tile / 8 sums).
    static int64_t getKSliceBytes(int64_t mTile, int64_t warpsN,
                                  int64_t splitK, int64_t colTiles);
    /// Whether `warpgroup` may take that tiling: whole warpgroups (warps_n
    /// 4 or 8), one 64-row instruction per column tile (col_tiles 1 or 2),
    /// three or four staged tiles.
    static bool isWarpgroupTiling(int64_t warpsN, int64_t colTiles,
                                  int64_t stages);
    /// The stages a warpgroup tiling is built with: the most, up to 4, whose
    /// tiles fit the workgroup memory a warpgroup block may have (below 3:
    /// none).
    static int64_t getWarpgroupStages(int64_t mTile, int64_t warpsN,
                                      int64_t splitK, int64_t colTiles);
    /// Bytes of workgroup memory a block needs: `stages` tiles of staged
    /// activations, each split_k K steps of m_tile rows of 128 elements,
    /// and with `warpgroup` each stage's weight codes after them
    /// (getStagedCodeBytes); the split-K reduction reuses the memory after
    /// the loop (every warp parks 4 fp32 sums per lane per 16 x 8 tile).
    static int64_t getWorkgroupBytes(int64_t mTile, int64_t warpsN,
                                     int64_t splitK, int64_t colTiles,
                                     int64_t stages, bool warpgroup = false,
                                     int64_t kSlices = 1);
    /// Bytes of one staged tile of activations (split_k K steps of m_tile
    /// rows of 128 two-byte elements).
    static int64_t getStagedActivationBytes(int64_t mTile, int64_t splitK);
    /// `warpgroup`: bytes of one stage's weight codes, 16 per lane and
    /// weight row it decodes (2 x col_tiles rows per lane).
    static int64_t getStagedCodeBytes(int64_t warpsN, int64_t splitK,
                                      int64_t colTiles);
    /// The workgroup memory a block of this form may have: 48 KB of static
    /// memory for the warp form; the warpgroup form's is dynamic, as much as
    /// lets two blocks share an sm_90 multiprocessor.
    static int64_t getMaxWorkgroupBytes(bool warpgroup);
    /// `specialized`: bytes of one stage (the decoded weights of `rows`
    /// weight rows, 16 x warps_n x col_tiles, and m_tile activation rows, 64
    /// K elements each), the whole pipeline's (its stages, then two 8-byte
    /// barrier objects per stage), and the stages built: the most, up to 4,
    /// that fit a multiprocessor's workgroup memory (below 3: none).
    static int64_t getSpecializedStageBytes(int64_t mTile, int64_t rows);
    /// `specialized`: whether it takes that tiling. Weights as A: m_tile
    /// one of getSpecializedMTileChoices (the multiplying lanes hold m_tile / 2
    /// accumulators) and col_tiles 1 or 2 (a multiplying warpgroup per
    /// 64-row column tile). `weightsAsB`: m_tile 64 or 128 (a
    /// multiplying warpgroup per 64 tokens) and col_tiles 1 .. 16 (the
    /// instruction's N, 16 x col_tiles weight rows, at most 256).
    static bool isSpecializedTiling(int64_t mTile, int64_t colTiles,
                                    bool weightsAsB = false);
    static int64_t getSpecializedWorkgroupBytes(int64_t mTile, int64_t rows,
                                                int64_t stages);
    /// `specialized`: the most stages that fit the workgroup memory where
    /// stages - 2 is a multiple of `decoders` (4 for one or two, 5 for
    /// three); 0 where three do not fit.
    static int64_t getSpecializedStages(int64_t mTile, int64_t rows,
                                        int64_t decoders);
    /// `specialized`: threads per block, the multiplying warpgroups (one per
    /// column tile, or with `weightsAsB` one per 64 tokens) and the
    /// decoding ones (getSpecializedDecoders).
    static int64_t getSpecializedThreads(int64_t mTile, int64_t colTiles,
                                         bool weightsAsB, int64_t decoders);
    /// `specialized`: this op's decoding warpgroups, `decoders` or the
    /// tiling's default.
    int64_t getDecoderGroups();
    /// `specialized`: decoding warpgroups, which take the stages in turn.
    static int64_t getSpecializedDecoders(int64_t mTile, int64_t colTiles,
                                          bool weightsAsB);
    /// `specialized`: weight rows per block (16 x warps_n x col_tiles).
    static int64_t getSpecializedRows(int64_t colTiles, bool weightsAsB) {
      return (weightsAsB ? 16 : 64) * colTiles;
    }
    /// `weights_in_registers`: bytes of one stage (m_tile activation rows
    /// of 128 K elements), the whole pipeline's (its stages, then two
    /// barrier objects per stage), the stages built (the most, up to 4,
    /// that fit: with one column tile, half a multiprocessor's memory, so
    /// that two blocks share it; below 3: none) and threads per block (a
    /// multiplying warpgroup per column tile).
    static int64_t getRegisterStageBytes(int64_t mTile);
    static int64_t getRegisterWorkgroupBytes(int64_t mTile, int64_t stages);
    static int64_t getRegisterStages(int64_t mTile, int64_t colTiles);
    static int64_t getRegisterThreads(int64_t colTiles) {
      return 128 * colTiles;
    }
    /// `weights_in_registers`: whether it takes that tiling (m_tile 64 or
    /// 128: each multiplying lane holds m_tile / 2 sums besides two K
    /// steps' A fragments; col_tiles 1 or 2).
    static bool isRegisterTiling(int64_t mTile, int64_t colTiles) {
      return (mTile == 64 || mTile == 128) && (colTiles == 1 || colTiles == 2);
    }
    /// The verifier's rules of the specialized form.
    LogicalResult verifySpecializedTiling();
    LogicalResult verifyRegisterTiling();
  }];
}

def QMat_DecodeOp : QMat_Op<"decode", [Pure]> {
  let summary = "Decode quantized element codes into floating-point values";
  let description = [{
    Turns the codes of `format` into values of the result element type,
    exactly, then multiplied by 2^-`exponent_bias`. Packed 4-bit formats take
    one byte per two results, low nibble first; e4m3 takes one byte per
    result. A non-zero `exponent_bias` is the magic-bias rewrite: the caller
    folds 2^`exponent_bias` into its scale, which is exact because every
    decoded value stays representable.

    ```mlir
    %v = qmat.decode e2m1 %codes : vector<4xi8> -> vector<8xf16>
    %w = qmat.decode e2m1 %codes exponent_bias = 14 method = magic_bias
        : vector<4xi8> -> vector<8xf16>
    ```
  }];
  let arguments = (ins QMat_ElementFormatAttr:$format, VectorOfRankAndType<[1], [I8]>:$codes,
                       DefaultValuedAttr<I64Attr, "0">:$exponent_bias,
                       OptionalAttr<QMat_DecodeMethodAttr>:$method);
  let results = (outs VectorOfRankAndType<[1], [F16, BF16, F32]>:$values);
  let assemblyFormat = [{
    $format $codes (`exponent_bias` `=` $exponent_bias^)?
    (`method` `=` $method^)? attr-dict `:` type($codes) `->` type($values)
  }];
  let hasVerifier = 1;
}

def QMat_BytePermOp : QMat_InstructionOp<"byte_perm", [Pure]> {
  let summary = "Select four bytes out of eight (vendor-neutral byte permute)";
  let description = [{
    Byte i of the result is byte `selector[4i+2 : 4i]` of the 8-byte value
    {`high`, `low`} (bytes 0-3 from `low`, 4-7 from `high`); when bit
    `4i+3` of the selector is set, the selected byte's sign bit is
    replicated over the whole result byte instead. Only the low 16 bits of
    the selector are read. This is exactly PTX `prmt.b32` in its default
    mode; the ROCDL lowering rewrites the selector for `v_perm_b32`, and the
    host lowering is plain shifts and selects, so that one decode rewrite can
    be proven exact on the CPU and then run on every GPU.

    ```mlir
    %r = qmat.byte_perm %low, %high, %sel : i32
    ```
  }];
  let arguments = (ins I32:$low, I32:$high, I32:$selector);
  let results = (outs I32:$result);
  let assemblyFormat = "$low `,` $high `,` $selector attr-dict `:` type($result)";
}

def QMat_BitSelectOp : QMat_InstructionOp<"bit_select", [Pure]> {
  let summary = "Each bit of one word where a constant mask is set, of another elsewhere";
  let description = [{
    `(if_set & mask) | (if_clear & ~mask)` on i32, the mask a constant. The
    packed fp4 decode of the tensor-core GEMV builds its sign-and-magnitude
    words with it (PackedFp4Placement.h). NVIDIA lowers it to one
    `lop3.b32` whose immediate operand is the mask; the other targets and
    the host to `arith.andi` / `arith.ori`.

    ```mlir
    %r = qmat.bit_select %if_set, %if_clear mask 31326716 : i32
    ```
  }];
  let arguments = (ins I32:$if_set, I32:$if_clear, I32Attr:$mask);
  let results = (outs I32:$result);
  let assemblyFormat =
      "$if_set `,` $if_clear `mask` $mask attr-dict `:` type($result)";
}

def QMat_LoadStreamingOp : QMat_InstructionOp<"load_streaming", [Pure]> {
  let summary = "16 bytes of global memory that the kernel reads once";
  let description = [{
    The 16 bytes at global byte address `address` (16-byte aligned), for
    data a kernel reads once and never writes, such as a GEMV's weight
    codes: not kept in L1, which is left to data read again, and the whole
    128-byte L2 line fetched on a miss (the neighbouring K step is read by
    another warp of the block at about the same time). The op has no side
    effects, so the compiler may merge, drop or move it as it would
    arithmetic: only right for memory nothing writes while the kernel runs.
    NVIDIA lowers it to `ld.global.L1::no_allocate.L2::128B.v4.b32`; other
    targets to a plain 16-byte load.

    ```mlir
    %codes = qmat.load_streaming %address : vector<16xi8>
    ```
  }];
  let arguments = (ins I64:$address);
  let results = (outs VectorOfLengthAndType<[16], [I8]>:$result);
  let assemblyFormat = "$address attr-dict `:` type($result)";
}

#endif // QMAT_OPS_TD
