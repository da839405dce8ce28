//===- QMatTileOps.td - a lane's share of a kernel tile ----*- tablegen -*-===//
//
// Ops on what one lane holds of a kernel's tile, from the memory loads to
// the matrix instructions and the stores: each names what it loads, the
// register layout its result has or the epilogue it runs, so that the
// kernel lowerings say what they want and the patterns that expand the op
// (qmat-expand-load-tile, qmat-expand-decode-tile, ...) say how.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_TILE_OPS_TD
#define QMAT_TILE_OPS_TD

include "QMatDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def QMat_DecodeTileOp : QMat_Op<"decode_tile",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "Decode a lane's packed 4-bit codes into warp matrix A pairs";
  let description = [{
    Decodes the codes one lane holds of a weight tile, 32 consecutive K
    elements of each of its rows, into the pairs of activation-typed
    weights that the 16x8x16 warp matrix instruction (`qmat.warp_mma`)
    takes as its A operand. Row r's codes are the 16 bytes `codes[r]`
    (two per byte, low nibble first). Its 32 elements form four 8-element
    words; pair 4w + j of row r holds the elements 8w + j and 8w + j + 4,
    which is the order the GEMV also gives the activations, so that the
    permutation of K cancels in the product. Result element [r, p, i] is
    pair p's element i.

    `scales[4r + w]` is the raw block scale (the scales memref's element)
    of word w of row r. int4 with zero points also takes
    `zero_points[4r + w]`, the byte holding word w's u4 zero point, and
    `blocks[w]`, word w's scale block (its parity selects the nibble).
    With 16 scales per row, each pair has its own: `scales[16r + p]`,
    `zero_points[16r + p]` and `blocks[p]` are pair p's. That is the
    warpgroup instruction's A operand, whose lanes first exchange codes so
    that a row's pairs come from 16 words of the K step.
    Words of one block pass the same value, which the expansion converts
    once, as it converts once a scale that several ops of one block share.

    Each pair holds the reference's rounded weight exactly
    (docs/numerics.md), except nvfp4, whose pairs are e2m1 · scale · 2^-7:
    the caller applies 2^7 and the global scale to its fp32 sums.
    `one_multiply` (mxfp4) promises that every scale byte is at most 128,
    which the caller checks with a warp vote: the expansion then takes one
    multiply per pair, 2^(e - 127) times the placed code's power of two, a
    normal number of the activation type there (f16 raises e below 99 to
    99, where every code rounds to zero either way); without it, two
    factors (f16 three) round the exact product once for any scale. `word`, where given,
    selects one word of each row: the result then holds its 4 pairs.

    ```mlir
    %pairs = qmat.decode_tile <nvfp4, block = 16> %codes
        scales %s0, %s0, %s1, %s1 : vector<16xi8>, f8E4M3FN
        -> vector<1x16x2xbf16>
    ```
  }];
  let arguments = (ins QMat_SchemeAttr:$scheme,
                       Variadic<VectorOfLengthAndType<[16], [I8]>>:$codes,
                       Variadic<AnyTypeOf<[F8E4M3FN, F8E8M0FNU, F16, BF16]>>:$scales,
                       Variadic<I8>:$zero_points,
                       Variadic<Index>:$blocks,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<3>]>>:$word,
                       UnitAttr:$one_multiply);
  let results = (outs VectorOfRankAndType<[3], [F16, BF16]>:$pairs);
  let assemblyFormat = [{
    $scheme $codes `scales` $scales
    (`zero_points` $zero_points^ `blocks` $blocks)?
    (`word` $word^)? (`one_multiply` $one_multiply^)? attr-dict `:`
    custom<RepeatedType>(ref($codes), type($codes), ref($scales), type($scales))
    `->` type($pairs)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Words of 8 elements per row, pairs per word and per row.
    static constexpr int64_t kWordsPerRow = 4, kPairsPerWord = 4,
                             kPairsPerRow = kWordsPerRow * kPairsPerWord;
  }];
}

def QMat_DecodeWordsOp : QMat_Op<"decode_words",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "Decode a lane's codes of one weight row into words in K order";
  let description = [{
    Decodes the 32 consecutive K elements one lane holds of a weight row
    (`codes`: 16 bytes of packed 4-bit codes, two per byte with the low
    nibble first, or 32 fp8 bytes) into four words of 8 activation-typed
    weights in K order: result element [w, i] is element 8w + i. Each is
    the reference's rounded weight (docs/numerics.md): the code's exact
    value, minus int4's zero point, times the block scale (and nvfp4's
    `global_scale`, where given) in fp32, rounded once to the activation
    type. That is the operand layout of the matrices that take K in order:
    the 16x16x16 wavefront instruction (`qmat.wave_mma`) takes consecutive
    4-element slices of a word as its A operand, the 16x8x16 warp
    instruction pairs of consecutive elements (fp8), the scalar GEMV whole
    words.

    `scales[w]` is word w's raw block scale (the scales memref's element);
    int4 with zero points also takes `zero_points[w]`, the byte holding
    word w's u4 zero point, and `blocks[w]`, its scale block (its parity
    selects the nibble); int4 without them subtracts 8. Words of one block
    pass the same value, which the expansion converts once. `method` is
    the decode of the codes to fp32 (`qmat.decode`'s rewrites).

    ```mlir
    %words = qmat.decode_words <nvfp4, block = 16> %codes
        scales %s0, %s0, %s1, %s1 global_scale %g method = lookup
        : vector<16xi8>, f8E4M3FN -> vector<4x8xbf16>
    ```
  }];
  let arguments = (ins QMat_SchemeAttr:$scheme,
                       VectorOfLengthAndType<[16, 32], [I8]>:$codes,
                       Variadic<AnyTypeOf<[F8E4M3FN, F8E8M0FNU, F16, BF16, F32]>>:$scales,
                       Variadic<I8>:$zero_points,
                       Variadic<Index>:$blocks,
                       Optional<F32>:$global_scale,
                       QMat_DecodeMethodAttr:$method);
  let results = (outs VectorOfRankAndType<[2], [F16, BF16]>:$words);
  let assemblyFormat = [{
    $scheme $codes `scales` $scales
    (`zero_points` $zero_points^ `blocks` $blocks)?
    (`global_scale` $global_scale^)? `method` `=` $method attr-dict `:`
    type($codes) `,` custom<RepeatedType>(ref($scales), type($scales))
    `->` type($words)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Words per row chunk and elements per word.
    static constexpr int64_t kWords = 4, kWordElements = 8;
  }];
}

def QMat_LoadTileOp : QMat_Op<"load_tile", [AttrSizedOperandSegments]> {
  let summary = "Load a lane's part of a weight tile: codes, scales or zero points";
  let description = [{
    Reads consecutive elements of a quantized weight's codes, block scales
    or zero points into a lane: the element of `source` at `indices` and,
    for a vector result, the elements after it in memory. The last index
    may run past its dimension where a layout addresses several rows from
    its first (the prepared codes' 16-row tiles): the elements read are the
    ones the source's strides place there, which must lie within the
    buffer. `alignment` (bytes, a power of 2) is what the caller promises
    of the first element's address; without it, the element type's.

    `cache` says how the data meets the caches:
    - `cached`: an ordinary load, kept in L1 for the block and its
      neighbours (scales and zero points, which several rows' lanes read);
    - `streaming`: data the kernel reads once (the codes of a weight tile):
      not kept in L1, and the whole 128-byte L2 line fetched on a miss,
      since the next K step of the same row is read by another warp at
      about the same time. A target without such a load (and a result
      other than 16 bytes aligned to 16) reads it as `cached`.

    `base`, where given, is the source's first byte address (its aligned
    pointer plus its offset) as the kernel computed it once for all its
    loads; a streaming load adds its position to it instead of computing
    the base itself (`qmat-expand-load-tile`, which expands the op into the
    target's load).

    ```mlir
    %codes = qmat.load_tile streaming %w[%row, %col] base %base
        {alignment = 16 : i64} : memref<17408x2560xi8> -> vector<16xi8>
    %scale = qmat.load_tile cached %s[%row, %block]
        : memref<17408x320xf8E4M3FN> -> f8E4M3FN
    ```
  }];
  let arguments = (ins QMat_CachePolicyAttr:$cache,
                       Arg<AnyMemRef, "weight data", [MemRead]>:$source,
                       Variadic<Index>:$indices, Optional<Index>:$base,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositivePowerOf2]>>:$alignment);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $cache $source `[` $indices `]` (`base` $base^)? attr-dict `:`
    type($source) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "Type":$type, "CachePolicy":$cache, "Value":$source,
                   "ValueRange":$indices, CArg<"uint64_t", "0">:$alignment,
                   CArg<"Value", "{}">:$base), [{
      build($_builder, $_state, type, cache, source, indices, base,
            alignment ? $_builder.getI64IntegerAttr(alignment)
                      : IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def QMat_StoreTileOp : QMat_Op<"store_tile", [AttrSizedOperandSegments]> {
  let summary = "Store a lane's sums of an output tile through the epilogue";
  let description = [{
    The epilogue of the GEMV and fused-GEMM kernels: sum `i` of the lane
    belongs to the output element (m, n) = (`m` + `m_offsets[i]`,
    `n` + `n_offsets[i]`), and is stored as

        y[m, n] = round(sums[i] * factor + bias[n])

    when m < `num_m`, n < `num_n` and `mask` (where given) holds; other
    elements are not written. The product and the bias addition are fp32;
    the result is rounded once, to nearest even, to y's element type. Without
    `factor` the sum is not multiplied; without `bias` nothing is added.
    The offsets are the lane's part of the matrix instruction's result
    layout (the 16x8 accumulator of `qmat.warp_mma`, the 16x16 one of
    `qmat.wave_mma`, or one sum per activation row), so that the op holds
    no layout of its own. `qmat-expand-store-tile` expands it element by
    element, in order.

    ```mlir
    qmat.store_tile %s0, %s1 to %y[%m, %n] offsets m [0, 1] n [0, 0]
        bounds %num_m, %num_n factor %f bias %b
        : f32, f32 to memref<?x?xbf16>, memref<?xbf16>
    ```
  }];
  let arguments = (ins Variadic<F32>:$sums,
                       Arg<MemRefRankOf<[F16, BF16], [2]>, "output [M, N]", [MemWrite]>:$y,
                       Index:$m, Index:$n,
                       DenseI64ArrayAttr:$m_offsets,
                       DenseI64ArrayAttr:$n_offsets,
                       Index:$num_m, Index:$num_n,
                       Optional<F32>:$factor,
                       Arg<Optional<MemRefRankOf<[F16, BF16], [1]>>, "bias [N]", [MemRead]>:$bias,
                       Optional<I1>:$mask);
  let assemblyFormat = [{
    $sums `to` $y `[` $m `,` $n `]` `offsets` `m` $m_offsets `n` $n_offsets
    `bounds` $num_m `,` $num_n
    (`factor` $factor^)? (`bias` $bias^)? (`mask` $mask^)? attr-dict `:`
    type($sums) `to` type($y) (`,` type($bias)^)?
  }];
  let hasVerifier = 1;
}

def QMat_ReduceKSlicesOp : QMat_Op<"reduce_k_slices"> {
  let summary = "Add the partial sums of a cluster's blocks over K into its first block";
  let description = [{
    The reduction of a fused GEMM whose K range is split across the
    `slices` blocks of a thread-block cluster, block `rank` (its rank in
    the cluster) holding the sums of K slice `rank`. Thread `thread` of
    `threads` parks its `sums` (G of them) in its block's workgroup buffer
    `partials`, sum g at element

        4 * (g * threads + thread)

    (after a block barrier: the buffer overlays memory the block's warps
    may still be reading); after a cluster barrier the threads of block 0
    add the same thread's sums of blocks 1 .. slices - 1, in rank order,
    and a second cluster barrier keeps every block's buffer alive until
    then. The results are the totals in block 0 and the thread's own sums
    elsewhere. The order of the additions is fixed, so the totals do not
    depend on scheduling.

    ```mlir
    %t0, %t1 = qmat.reduce_k_slices %s0, %s1 through %partials rank %r
        slices 4 thread %tid of 128
        : vector<4xf32>, vector<4xf32>
        through memref<1024xf32, #gpu.address_space<workgroup>>
        -> vector<4xf32>, vector<4xf32>
    ```
  }];
  let arguments = (ins Variadic<VectorOfLengthAndType<[4], [F32]>>:$sums,
                       Arg<MemRefRankOf<[F32], [1]>, "partial sums",
                           [MemRead, MemWrite]>:$partials,
                       Index:$rank, Index:$thread,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$slices,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$threads);
  let results = (outs Variadic<VectorOfLengthAndType<[4], [F32]>>:$totals);
  let assemblyFormat = [{
    $sums `through` $partials `rank` $rank `slices` $slices
    `thread` $thread `of` $threads
    attr-dict `:` type($sums) `through` type($partials) `->` type($totals)
  }];
  let hasVerifier = 1;
}

def QMat_ReduceSplitKOp : QMat_Op<"reduce_split_k", [
    AttrSizedOperandSegments, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Add the partial sums of a block's K slices, then run the "
                "epilogue in the first slice";
  let description = [{
    The split-K reduction of the GEMV and fused-GEMM kernels. The block's
    warps (or wavefronts) form `slices` K slices of `columns` warps each:
    warp w is column w % columns of slice w / columns. The lane of warp
    `warp` holds `sums`, its partial sums, and parks sum g at element

        4 * ((warp * G + g) * lane_slots + lane_slot)

    of the workgroup buffer `partials` (G the number of sums); after a
    barrier, the lanes of slice 0 add those of the warps of slices 1 ..
    slices - 1 in their column, in slice order, and run the `epilogue`
    region with the totals as its arguments. Other lanes run nothing after
    the barrier. Where `live` is given, only lanes where it holds park their
    sums and run the epilogue (lanes that hold nothing to store). `fenced`
    puts a barrier before the parking: the buffer overlays memory that
    other warps may still be reading.

    ```mlir
    qmat.reduce_split_k %s0, %s1 through %partials warp %w slices 4
        columns 1 lane %lane of 32 fenced
        : vector<4xf32>, vector<4xf32>
        through memref<1024xf32, #gpu.address_space<workgroup>> {
    ^bb0(%t0: vector<4xf32>, %t1: vector<4xf32>):
      ...
    }
    ```
  }];
  let arguments = (ins Variadic<VectorOfLengthAndType<[4], [F32]>>:$sums,
                       Arg<MemRefRankOf<[F32], [1]>, "partial sums",
                           [MemRead, MemWrite]>:$partials,
                       Index:$warp, Index:$lane_slot, Optional<I1>:$live,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$slices,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$columns,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$lane_slots,
                       UnitAttr:$fenced);
  let regions = (region SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $sums `through` $partials `warp` $warp `slices` $slices
    `columns` $columns `lane` $lane_slot `of` $lane_slots
    (`live` $live^)? (`fenced` $fenced^)?
    attr-dict `:` type($sums) `through` type($partials) $epilogue
  }];
  let hasVerifier = 1;
}

def QMat_YieldOp : QMat_Op<"yield", [Pure, Terminator,
                                     HasParent<"ReduceSplitKOp">]> {
  let summary = "Ends the epilogue of qmat.reduce_split_k";
  let assemblyFormat = "attr-dict";
}

#endif // QMAT_TILE_OPS_TD
