//===- Passes.td - qmat conversion passes ------------------*- tablegen -*-===//

#ifndef QMAT_CONVERSION_PASSES_TD
#define QMAT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def QMatLowerDequantToGPU : Pass<"qmat-lower-dequant-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Outline qmat.dequantize into gpu.func kernels and launches";
  let description = [{
    Each `qmat.dequantize` becomes a `gpu.func` in the module's
    `@qmat_kernels` gpu.module (tagged with the target's serialization
    attribute) and a `gpu.launch_func`. vec8: one thread per 8-element K
    chunk, the row from the block index, one 128-bit store per thread;
    scalar: one thread per packed byte.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU">,
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"0",
           "Threads per block; 0 picks one that divides the row's work">,
    Option<"persistentBlocks", "persistent-blocks", "int64_t", /*default=*/"0",
           "When positive, launch at most this many blocks along the rows, "
           "each looping over rows with the next row's loads in flight">,
    Option<"occupancyHints", "occupancy-hints", "bool", /*default=*/"false",
           "Let the target add occupancy hints (register budgets) to kernels; "
           "off by default: on the H200 the 32-register budget spilled and "
           "cost 4% (bench/README.md)">,
    Option<"itemsPerThread", "items-per-thread", "int64_t", /*default=*/"0",
           "Work items per thread; 0 picks the largest of 1..8 that divides "
           "the row's work per block">,
  ];
}

def QMatLowerGemvToGPU : Pass<"qmat-lower-gemv-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Outline qmat.gemv and qmat.fused_gemm into gpu.func kernels and launches";
  let description = [{
    Each `qmat.gemv` becomes a `gpu.func` in `@qmat_kernels` and a
    `gpu.launch_func`. With `tensor_core`, a block of `32 * split_k` threads
    owns `16 * col_tiles` weight rows: lanes decode their weights straight
    into the A operand of the target's 16x8x16 warp matrix instruction, the
    activations form B, and split-K partial sums meet in workgroup memory.
    Without it, one warp per weight row decodes element by element and
    reduces with shuffles. Each `qmat.fused_gemm` is the same tensor-core
    kernel with `warps_n` weight tiles per block and the grid tiled over M
    (`m_tile` rows per block). The instruction, decode, layout and register
    budget are the op's `#qmat.kernel_config` (qmat-configure-kernels); an
    op without one, or with one its target cannot build, is refused.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU">,
  ];
}

def QMatLowerDequantToLoops : Pass<"qmat-lower-dequant-to-loops", "::mlir::func::FuncOp"> {
  let summary = "Lower qmat.dequantize to host loops over the kernels' bodies";
  let description = [{
    Emits, for each thread of the GPU kernel, the very same arithmetic inside
    scf.for loops, so that the kernels' exactness is checked on the CPU.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def QMatExpandLoadTile : Pass<"qmat-expand-load-tile"> {
  let summary = "Expand qmat.load_tile into the target's loads";
  let description = [{
    Rewrites every `qmat.load_tile` into a load of the target. A streaming
    load of 16 bytes aligned to 16, on a target that has a load bypassing
    L1 (`qmat.load_streaming`), becomes the global address of its first
    byte (the op's base, or else the source's aligned pointer plus its
    offset, computed once per source before the function's first memory
    access; plus the indices times the strides, where an index that is the
    constant 0 adds nothing) and that load; every other
    load a `vector.load` or `memref.load` of the source at the indices,
    with the op's alignment.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target (a GPU name, or host)">,
  ];
}

def QMatExpandDecodeTile : Pass<"qmat-expand-decode-tile"> {
  let summary = "Expand qmat.decode_tile and qmat.decode_words into arithmetic";
  let description = [{
    Rewrites every `qmat.decode_tile` into the bit placement of the packed
    fp4 codes (`qmat.bit_select`, masks and shifts) or int4's nibbles under
    a magic bias, then the packed multiplies by the block factors, two
    16-bit halves of a 32-bit register at a time (TileDecode.h). Each
    distinct scale is converted once per block: decode ops of one block
    that take the same scales (a step decoded word by word) share the
    factors that the first of them computes. Every `qmat.decode_words`
    becomes the reference's arithmetic through fp32: the codes' exact
    values (`qmat.decode`), minus int4's zero point, times the block scale
    and nvfp4's global scale, rounded once per word.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target (a GPU name, or host)">,
  ];
}

def QMatExpandReduceSplitK : Pass<"qmat-expand-reduce-split-k"> {
  let summary = "Expand qmat.reduce_split_k and qmat.reduce_k_slices into "
                "the exchange of partial sums";
  let description = [{
    Rewrites every `qmat.reduce_split_k` into the stores of each lane's
    partial sums to its warp's slot of workgroup memory, a barrier, and,
    under the condition that the lane is in the first K slice, the loads
    and additions of the other slices' sums in slice order followed by the
    op's epilogue; and every `qmat.reduce_k_slices` into the same exchange
    across the blocks of a cluster: the stores of the other blocks' sums,
    a cluster barrier, the first block's loads of their sums in rank order
    (`qmat.load_cluster_peer`) and additions, a second cluster barrier.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def QMatExpandStoreTile : Pass<"qmat-expand-store-tile"> {
  let summary = "Expand qmat.store_tile into the epilogue's guarded stores";
  let description = [{
    Rewrites every `qmat.store_tile` into, per sum and in order, its output
    position, the bounds (and mask) check, and under it the multiply by the
    factor, the bias addition in fp32, the rounding to the output type and
    the store.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def QMatLowerToTarget : Pass<"qmat-lower-to-target"> {
  let summary = "Lower qmat's instruction-level ops to the target's instructions";
  let description = [{
    Each target lowers the qmat ops it has an instruction for through its
    own patterns (TargetInfo::populateLowerToTargetPatterns):
    `qmat.byte_perm` becomes `nvvm.prmt` on NVIDIA, `v_perm_b32` on AMD and
    shifts on the host; `qmat.bit_select`, `qmat.load_streaming` and
    `qmat.pinned_copy` become inline PTX on NVIDIA and plain arithmetic,
    loads or the value elsewhere; `qmat.warp_mma` becomes `nvvm.mma.sync`,
    the warpgroup ops inline `wgmma` PTX (sm_90a), the asynchronous copies
    `nvgpu.device_async_copy` and NVVM's cp.async groups, the barrier
    objects and tensor loads inline `mbarrier` and `cp.async.bulk.tensor`
    PTX (sm_90a), `qmat.wave_mma` `amdgpu.mfma`. An op the target has no
    instruction for is an error naming the op and the target.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target (a GPU name, or host)">,
  ];
}

#endif // QMAT_CONVERSION_PASSES_TD
