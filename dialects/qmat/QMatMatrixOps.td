//===- QMatMatrixOps.td - matrix instructions as qmat ops --*- tablegen -*-===//
//
// The matrix instructions, their ordering pieces and the asynchronous
// copies that the kernel lowerings build, as ops: each target lowers the ones it has in
// qmat-lower-to-target (QMat_InstructionOp), and the kernels stay readable in the IR before that
// (TargetInfo::has* says which ones a target has).
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_MATRIX_OPS_TD
#define QMAT_MATRIX_OPS_TD

include "QMatDialect.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def QMat_HalfPair : VectorOfLengthAndType<[2], [F16, BF16]>;

def QMat_WarpMmaOp : QMat_InstructionOp<"warp_mma",
    [Pure, AttrSizedOperandSegments, InferTypeOpAdaptor]> {
  let summary = "A warp's 16x8x16 matrix multiply-accumulate into fp32";
  let description = [{
    `acc` + A · B for one warp of 32 lanes, A a 16x16 tile of f16 or bf16
    (rows x K), B a 16x8 tile (K x columns), the sums in fp32, every lane
    holding the pieces PTX's `mma.m16n8k16` gives it: lane l holds A rows
    r = l/4 and r + 8 at K positions 2(l%4) + {0, 1} (the first pair) and
    2(l%4) + {8, 9} (the second), B column l/4 at the same K positions, and
    the sums of rows r and r + 8 at columns 2(l%4) + {0, 1}.

    `a` is four pairs (row r first pair, row r + 8 first pair, row r second
    pair, row r + 8 second pair), `b` two pairs (first, second), `acc` and
    the results four f32 (row r's two columns, then row r + 8's). Every lane
    of the warp must execute it. NVIDIA lowers it to
    `mma.sync.aligned.m16n8k16.row.col.f32`; the other targets have no such
    instruction.

    ```mlir
    %d:4 = qmat.warp_mma [%a0, %a1, %a2, %a3] * [%b0, %b1]
        + [%c0, %c1, %c2, %c3] : vector<2xbf16>
    ```
  }];
  let arguments = (ins Variadic<QMat_HalfPair>:$a, Variadic<QMat_HalfPair>:$b,
                       Variadic<F32>:$acc);
  let results = (outs Variadic<F32>:$sums);
  let assemblyFormat = [{
    ` ` `[` $a `]` `*` `[` $b `]` `+` `[` $acc `]` attr-dict `:`
    custom<RepeatedType>(ref($a), type($a), ref($b), type($b), ref($acc), type($acc))
  }];
  let hasVerifier = 1;
}

def QMat_WaveMmaOp : QMat_InstructionOp<"wave_mma", [Pure, AllTypesMatch<["a", "b"]>,
                                          AllTypesMatch<["acc", "sums"]>]> {
  let summary = "A wavefront's 16x16x16 matrix multiply-accumulate into fp32";
  let description = [{
    `acc` + A · B for one wavefront of 64 lanes, A a 16x16 tile of f16 or
    bf16 (rows x K), B 16x16 (K x columns), the sums in fp32, every lane
    holding the pieces CDNA's `v_mfma_f32_16x16x16` gives it: lane l holds
    A row l % 16 and B column l % 16 at K positions 4 (l / 16) + {0..3},
    and the sums of column l % 16 at rows 4 (l / 16) + {0..3}. Every lane
    of the wavefront must execute it. AMD lowers it to `amdgpu.mfma`; the
    other targets have no such instruction.

    ```mlir
    %d = qmat.wave_mma %a * %b + %c : vector<4xbf16>, vector<4xf32>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[4], [F16, BF16]>:$a,
                       VectorOfLengthAndType<[4], [F16, BF16]>:$b,
                       VectorOfLengthAndType<[4], [F32]>:$acc);
  let results = (outs VectorOfLengthAndType<[4], [F32]>:$sums);
  let assemblyFormat =
      "$a `*` $b `+` $acc attr-dict `:` type($a) `,` type($acc)";
}

def QMat_WarpgroupMmaOp : QMat_InstructionOp<"warpgroup_mma",
    [AttrSizedOperandSegments, InferTypeOpAdaptor,
     MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Starts a warpgroup's asynchronous 64xNx16 matrix multiply-accumulate";
  let description = [{
    Starts `acc` + A · B for a warpgroup (four consecutive warps, the first
    warp's index a multiple of 4): A a 64x16 tile of f16 or bf16 held in
    registers, B a 16xN tile in workgroup memory named by the i64 matrix
    descriptor `b` (K-major, not swizzled), N = 2 · |acc|. Warp w of the
    group holds A rows 16w .. 16w + 15 as `qmat.warp_mma`'s `a` and their
    sums as that op's `acc`, one group of four per 8 columns. The results
    may be passed to further such ops of the same shape and read otherwise
    only after `qmat.warpgroup_wait`; registers written before it must pass
    `qmat.warpgroup_fence`. It reads workgroup memory and stays in order
    with the other warpgroup ops. NVIDIA (sm_90a) lowers it to
    `wgmma.mma_async.sync.aligned.m64nNk16.f32`.

    ```mlir
    %d:4 = qmat.warpgroup_mma [%a0, %a1, %a2, %a3] * %desc
        + [%c0, %c1, %c2, %c3] : vector<2xbf16>
    ```
  }];
  let arguments = (ins Variadic<QMat_HalfPair>:$a, I64:$b, Variadic<F32>:$acc);
  let results = (outs Variadic<F32>:$sums);
  let assemblyFormat = [{
    ` ` `[` $a `]` `*` $b `+` `[` $acc `]` attr-dict `:`
    custom<RepeatedType>(ref($a), type($a), ref($acc), type($acc))
  }];
  let hasVerifier = 1;
}

def QMat_WarpgroupMmaSharedOp : QMat_InstructionOp<"warpgroup_mma_shared",
    [InferTypeOpAdaptor, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Starts a warpgroup's asynchronous 64xNx16 multiply-accumulate of two tiles in workgroup memory";
  let description = [{
    As `qmat.warpgroup_mma`, with A also in workgroup memory: `a` is the i64
    matrix descriptor of the 64x16 A tile and `b` that of the 16xN B tile,
    both K-major and not swizzled, of `element_type` (f16 or bf16); N = 2 ·
    |acc|, and warp w of the group holds the sums of A rows 16w .. 16w + 15,
    one group of four per 8 columns. Stores to either tile must pass
    `qmat.async_proxy_fence` and a barrier first. NVIDIA (sm_90a) lowers it
    to `wgmma.mma_async.sync.aligned.m64nNk16.f32` with two descriptors.

    ```mlir
    %d:4 = qmat.warpgroup_mma_shared %descA * %descB
        + [%c0, %c1, %c2, %c3] : bf16, f32
    ```
  }];
  let arguments = (ins I64:$a, I64:$b, Variadic<F32>:$acc,
                       TypeAttrOf<AnyTypeOf<[F16, BF16]>>:$element_type);
  let results = (outs Variadic<F32>:$sums);
  let assemblyFormat = [{
    $a `*` $b `+` `[` $acc `]` attr-dict `:` $element_type `,`
    custom<RepeatedType>(ref($acc), type($acc))
  }];
  let hasVerifier = 1;
}

def QMat_WarpgroupFenceOp : QMat_InstructionOp<"warpgroup_fence",
    [InferTypeOpAdaptor, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Orders register writes before the warpgroup's next matrix ops";
  let description = [{
    The registers of `values` (i32, f32 or pairs of f16 / bf16), written by
    ordinary instructions, become readable by the `qmat.warpgroup_mma` ops
    that follow; pass them the results. NVIDIA lowers it to
    `wgmma.fence.sync.aligned` with the values tied through it.

    ```mlir
    %v:2 = qmat.warpgroup_fence %a0, %c0 : vector<2xbf16>, f32
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[I32, F32, QMat_HalfPair]>>:$values);
  let results = (outs Variadic<AnyTypeOf<[I32, F32, QMat_HalfPair]>>:$fenced);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def QMat_WarpgroupCommitOp : QMat_InstructionOp<"warpgroup_commit",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Closes the batch of matrix ops the warpgroup started";
  let description = [{
    The `qmat.warpgroup_mma` ops started since the last commit become one
    batch, which `qmat.warpgroup_wait` counts. NVIDIA lowers it to
    `wgmma.commit_group.sync.aligned`.
  }];
  let assemblyFormat = "attr-dict";
}

def QMat_WarpgroupWaitOp : QMat_InstructionOp<"warpgroup_wait",
    [InferTypeOpAdaptor, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits until at most `pending` batches of matrix ops are in flight";
  let description = [{
    Returns `sums` (f32 results of `qmat.warpgroup_mma`) readable once at
    most `pending` committed batches remain in flight. NVIDIA lowers it to
    `wgmma.wait_group.sync.aligned pending` with the sums tied through it.

    ```mlir
    %s:4 = qmat.warpgroup_wait 1, %d0, %d1, %d2, %d3 : f32
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending,
                       Variadic<F32>:$sums);
  let results = (outs Variadic<F32>:$ready);
  let assemblyFormat = [{
    $pending (`,` $sums^ `:` custom<RepeatedType>(ref($sums), type($sums)))?
    attr-dict
  }];
}

def QMat_AsyncProxyFenceOp : QMat_InstructionOp<"async_proxy_fence",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Makes this thread's workgroup-memory stores visible to matrix ops";
  let description = [{
    This thread's earlier stores to workgroup memory become visible to
    asynchronous matrix ops (`qmat.warpgroup_mma`); a barrier then shares
    that with the block. NVIDIA lowers it to
    `fence.proxy.async.shared::cta`.
  }];
  let assemblyFormat = "attr-dict";
}

def QMat_PinnedCopyOp : QMat_InstructionOp<"pinned_copy",
    [MemoryEffects<[MemWrite]>, AllTypesMatch<["value", "copy"]>]> {
  let summary = "A copy the compiler neither hoists nor merges across arms";
  let description = [{
    `value`, through a copy that stays where it is and apart from the copy
    of another `arm`, so that the two arms of a branch keep their own
    arithmetic on it instead of sharing it above the branch (where all of
    it would be live at once). NVIDIA lowers it to a `mov.b32` the compiler
    keeps (ptxas removes it); the other targets to `value` itself.

    ```mlir
    %p = qmat.pinned_copy %v arm 1 : i32
    ```
  }];
  let arguments = (ins I32:$value, I32Attr:$arm);
  let results = (outs I32:$copy);
  let assemblyFormat = "$value `arm` $arm attr-dict `:` type($value)";
}

def QMat_AsyncCopyOp : QMat_InstructionOp<"async_copy",
    [AttrSizedOperandSegments, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Starts a 16-byte copy from global to workgroup memory";
  let description = [{
    Starts copying 16 bytes (`elements` elements of the memrefs' element
    type) from `src`[`src_indices`] (global memory) to
    `dst`[`dst_indices`] (workgroup memory), both 16-byte aligned, without
    keeping them in L1. With `src_elements` (0 to `elements`, at run time),
    only that many are read and the rest of the 16 bytes are zeros: a copy
    of 0 elements reads nothing. The copies a thread started since its last
    `qmat.async_commit` form a group; `qmat.async_wait` makes a group's
    bytes visible to the thread. NVIDIA (sm_80 on) lowers it to
    `nvgpu.device_async_copy` with `bypassL1` (cp.async.cg).

    ```mlir
    qmat.async_copy %a[%m, %k], %staged[%offset], 8
        : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
    qmat.async_copy %a[%m, %k], %staged[%offset], 8, %read
        : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins AnyMemRef:$src, Variadic<Index>:$src_indices,
                       AnyMemRef:$dst, Variadic<Index>:$dst_indices,
                       ConfinedAttr<I64Attr, [IntPositive]>:$elements,
                       Optional<Index>:$src_elements);
  let assemblyFormat = [{
    $src `[` $src_indices `]` `,` $dst `[` $dst_indices `]` `,` $elements
    (`,` $src_elements^)? attr-dict `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
}

def QMat_AsyncCommitOp : QMat_InstructionOp<"async_commit",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Closes the thread's current group of asynchronous copies";
  let description = [{
    The `qmat.async_copy` ops the thread started since its last commit
    (possibly none) become one group, which `qmat.async_wait` counts.
    NVIDIA lowers it to `nvvm.cp.async.commit.group`.
  }];
  let assemblyFormat = "attr-dict";
}

def QMat_AsyncWaitOp : QMat_InstructionOp<"async_wait",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits until at most `pending` groups of copies are in flight";
  let description = [{
    Waits until at most `pending` of the thread's most recent groups of
    `qmat.async_copy` are still in flight; the bytes of the others are then
    visible to this thread (a barrier makes them visible to the block).
    NVIDIA lowers it to `nvvm.cp.async.wait.group`.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def QMat_WorkgroupBarriers : MemRefRankOf<[I64], [1]>;
def QMat_Pointer
    : Type<CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self)">,
           "LLVM pointer", "::mlir::LLVM::LLVMPointerType">,
      BuildableType<"::mlir::LLVM::LLVMPointerType::get($_builder.getContext())">;

def QMat_MBarrierInitOp : QMat_InstructionOp<"mbarrier_init",
    [MemoryEffects<[MemWrite]>]> {
  let summary = "Sets up a barrier object in workgroup memory";
  let description = [{
    Element `index` of `barriers` (i64 elements in workgroup memory) becomes
    a barrier object in its phase 0 that completes a phase once `count`
    arrivals (`qmat.mbarrier_arrive`) and the bytes they announced
    (`expect`, landed by `qmat.tensor_load`) are in. One thread sets it up;
    a block barrier then publishes it. NVIDIA (sm_90 on) lowers it to
    `mbarrier.init.shared::cta.b64`.

    ```mlir
    qmat.mbarrier_init %barriers[%i], 129
        : memref<8xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins QMat_WorkgroupBarriers:$barriers, Index:$index,
                       I64Attr:$count);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $count attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def QMat_MBarrierArriveOp : QMat_InstructionOp<"mbarrier_arrive",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Arrives at a barrier object, possibly announcing bytes to come";
  let description = [{
    Counts one arrival of this thread at barrier object `index` of
    `barriers` and goes on; with `expect`, first announces that many bytes
    of asynchronous tensor loads that the current phase also waits for. The
    thread's earlier stores to workgroup memory are visible to the threads
    that see the phase complete. NVIDIA (sm_90 on) lowers it to
    `mbarrier.arrive[.expect_tx].shared::cta.b64`.

    ```mlir
    qmat.mbarrier_arrive %barriers[%i] expect 16384
        : memref<8xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins QMat_WorkgroupBarriers:$barriers, Index:$index,
                       OptionalAttr<I64Attr>:$expect);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`expect` $expect^)? attr-dict `:`
    type($barriers)
  }];
  let hasVerifier = 1;
}

def QMat_MBarrierWaitOp : QMat_InstructionOp<"mbarrier_wait",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits until a barrier object completes the phase of a parity";
  let description = [{
    Waits until barrier object `index` of `barriers` has completed its
    latest phase of parity `parity` (0 for phases 0, 2, ..., 1 for 1, 3,
    ...); the stores and tensor loads its arrivals covered are then
    visible. Any number of threads may wait, without arriving. NVIDIA
    (sm_90 on) lowers it to a loop on `mbarrier.try_wait.parity`.

    ```mlir
    qmat.mbarrier_wait %barriers[%i], %parity
        : memref<8xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins QMat_WorkgroupBarriers:$barriers, Index:$index,
                       I32:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def QMat_ClusterBarrierOp : QMat_InstructionOp<"cluster_barrier",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits until every thread of the block's cluster arrives";
  let description = [{
    A barrier over every thread of every block of the thread-block cluster
    (every thread reaches it): the workgroup-memory stores of each thread
    before it are visible to the loads of every thread of the cluster after
    it (`qmat.load_cluster_peer`). NVIDIA (sm_90 on) lowers it to
    `barrier.cluster.arrive.aligned` (release) and
    `barrier.cluster.wait.aligned` (acquire).

    ```mlir
    qmat.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def QMat_MBarrierArriveClusterOp : QMat_InstructionOp<"mbarrier_arrive_cluster",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Arrives at a barrier object of a block of the cluster";
  let description = [{
    Counts one arrival of this thread at barrier object `index` of
    `barriers` as the block of rank `rank` in this block's thread-block
    cluster holds it (its buffer at the same offset; this block's own for
    its own rank), with release semantics at cluster scope: the block that
    sees the phase complete may overwrite what this thread read before. The
    block of that rank must not have exited, and its barrier objects must
    have been set up before a `qmat.cluster_barrier` both passed. NVIDIA
    (sm_90 on) lowers it to `mapa.shared::cluster` and
    `mbarrier.arrive.release.cluster.shared::cluster.b64`.

    ```mlir
    qmat.mbarrier_arrive_cluster %barriers[%i] rank %r
        : memref<8xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins QMat_WorkgroupBarriers:$barriers, Index:$index,
                       Index:$rank);
  let assemblyFormat = [{
    $barriers `[` $index `]` `rank` $rank attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def QMat_MBarrierInitFenceOp : QMat_InstructionOp<"mbarrier_init_fence",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Makes this thread's barrier set-ups visible to the cluster";
  let description = [{
    The barrier objects this thread set up (`qmat.mbarrier_init`) become
    visible to the other blocks of its cluster, which arrive at them
    (`qmat.mbarrier_arrive_cluster`) or complete their bytes
    (`qmat.tensor_load ... multicast`), once a `qmat.cluster_barrier`
    follows. NVIDIA (sm_90 on) lowers it to
    `fence.mbarrier_init.release.cluster`.
  }];
  let assemblyFormat = "attr-dict";
}

def QMat_LoadClusterPeerOp : QMat_InstructionOp<"load_cluster_peer",
    [MemoryEffects<[MemRead]>]> {
  let summary = "Four floats of another block's workgroup memory in the cluster";
  let description = [{
    The 16 bytes (16-byte aligned) at element `index` of `source`, a
    workgroup buffer, as the block of rank `rank` in this block's
    thread-block cluster holds them (its buffer at the same offset). The
    block of that rank must not have exited, and its stores are visible
    only after a `qmat.cluster_barrier` that both passed. NVIDIA (sm_90 on)
    lowers it to `mapa.shared::cluster` and `ld.shared::cluster.v4.f32`.

    ```mlir
    %v = qmat.load_cluster_peer %partials[%i] rank %r
        : memref<4096xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
    ```
  }];
  let arguments = (ins MemRefRankOf<[F32], [1]>:$source, Index:$index,
                       Index:$rank);
  let results = (outs VectorOfLengthAndType<[4], [F32]>:$result);
  let assemblyFormat = [{
    $source `[` $index `]` `rank` $rank attr-dict `:` type($source) `->`
    type($result)
  }];  let hasVerifier = 1;
}

def QMat_TensorLoadOp : QMat_InstructionOp<"tensor_load",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Starts a copy of a 2-D tile of global memory through a tensor map";
  let description = [{
    Starts copying the `box` tile (inner dimension first) at coordinates
    (`inner`, `outer`) of the tensor that `map` describes (a tensor map
    passed to the kernel by value, `qmat.tensor_map`) to `dst`[`offset`]
    (workgroup memory, as the map lays it out: swizzled if the map is),
    zeros where the tile leaves the tensor. Its bytes count towards the
    phase of barrier object `index` of `barriers` that announced them
    (`qmat.mbarrier_arrive ... expect`). With `multicast` (a mask of ranks
    in the block's thread-block cluster) the tile lands at the same offset
    of `dst` in every block of the mask, its bytes counting towards the
    barrier object at the same offset in each; their barrier objects must
    have been set up before a `qmat.cluster_barrier` all passed. NVIDIA
    (sm_90 on) lowers it to `cp.async.bulk.tensor.2d` with
    `mbarrier::complete_tx::bytes` (and `.multicast::cluster`).

    ```mlir
    qmat.tensor_load %map[%k, %m] box [64, 128], %staged[%offset],
        %barriers[%i] : memref<65536xbf16, #gpu.address_space<workgroup>>,
        memref<8xi64, #gpu.address_space<workgroup>>
    qmat.tensor_load %map[%k, %m] box [64, 64] multicast 3, %staged[%offset],
        %barriers[%i] : memref<65536xbf16, #gpu.address_space<workgroup>>,
        memref<8xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins QMat_Pointer:$map, Index:$inner, Index:$outer,
                       DenseI64ArrayAttr:$box, MemRefRankOf<[AnyType], [1]>:$dst,
                       Index:$offset, QMat_WorkgroupBarriers:$barriers,
                       Index:$index, OptionalAttr<I64Attr>:$multicast);
  let assemblyFormat = [{
    $map `[` $inner `,` $outer `]` `box` $box (`multicast` $multicast^)? `,`
    $dst `[` $offset `]` `,` $barriers `[` $index `]` attr-dict `:`
    type($map) `,` type($dst) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

#endif // QMAT_MATRIX_OPS_TD
