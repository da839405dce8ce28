//===- Passes.td - qmat transformation passes --------------*- tablegen -*-===//

#ifndef QMAT_TRANSFORMS_PASSES_TD
#define QMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def QMatSelectStrategy : Pass<"qmat-select-strategy"> {
  let summary = "Choose, per matmul and target, the decode and prefill strategies";
  let description = [{
    Records a `#qmat.plan` on every `qmat.matmul`: rows up to `gemv-max-m`
    take the decode GEMV (tensor-core where legal, scalar otherwise), larger
    M dequantizes into an N-tiled scratch under `scratch-cap-mib` and calls
    the vendor GEMM. The element decode is the target's fastest exact
    rewrite unless `force-decode` names one. With `prepared-weights`, layers
    of packed 4-bit codes whose K is a multiple of 128 and N of 16, and
    whose small M takes the tensor-core GEMV or the prefill path, are
    planned with their codes in the prepared layout (N tiles of a multiple
    of 16 rows).
  }];
  let dependentDialects = ["::mlir::qmat::QMatDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU (sm_80, sm_89, sm_90, sm_100, sm_120, gfx942, gfx950)">,
    Option<"gemvMaxM", "gemv-max-m", "int64_t", /*default=*/"8",
           "Largest M served by the decode GEMV">,
    Option<"scratchCapMiB", "scratch-cap-mib", "int64_t", /*default=*/"256",
           "Cap on the dequantized scratch, in MiB">,
    Option<"forceDequant", "force-dequant", "std::string", /*default=*/"\"auto\"",
           "Dequant kernel: auto, vec8 or scalar">,
    Option<"forceDecode", "force-decode", "std::string", /*default=*/"\"auto\"",
           "Element decode: auto, arith, lookup, magic_bias or native">,
    Option<"preparedWeights", "prepared-weights", "bool", /*default=*/"false",
           "Plan the prepared code layout (PreparedWeights.h) for every "
           "layer that can take it">,
    Option<"fusedMaxM", "fused-max-m", "int64_t", /*default=*/"-1",
           "Largest M served by the fused dequant-GEMM (0: none, larger M "
           "dequantizes into scratch; -1: the target's default, 256 where "
           "the specialized warpgroup form is compiled (sm_90a, packed "
           "schemes, the checkpoint's code layout), else 128 where it has "
           "the kernel)">,
  ];
}

def QMatExpandPrefill : Pass<"qmat-expand-prefill", "::mlir::func::FuncOp"> {
  let summary = "Expand planned matmuls into N-tiled dequantize + GEMM";
  let description = [{
    Rewrites each planned `qmat.matmul` into a loop over N tiles of
    `tile_rows` rows: `qmat.dequantize` of the tile into the scratch, then
    `qmat.gemm` writing Y at the tile's column offset. Row-major [M, N] is
    column-major [N, M] to a BLAS, so a tile of Y is a plain pointer offset.
    The scratch is a function argument: the launcher owns the workspace.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def QMatExpandGemv : Pass<"qmat-expand-gemv", "::mlir::func::FuncOp"> {
  let summary = "Dispatch M to the compiled GEMV and fused GEMM variants";
  let description = [{
    Wraps each planned `qmat.matmul` whose plan has a small-M path in an
    `scf.if` on M <= gemv_max_m: the small side switches over the compiled
    `qmat.gemv` variants on a new `{qmat.gemv_variant}` index argument (the
    launcher's dispatch policy picks it at run time). Where the plan has a
    fused path, the other side is a second `scf.if` on M <= fused_max_m
    switching over the `qmat.fused_gemm` variants on a
    `{qmat.fused_variant}` argument. What remains keeps the matmul for
    `qmat-expand-prefill`.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    ListOption<"splitK", "split-k", "int64_t",
               "Split-K factors compiled (default 1,2,4,8,16, and 3 for "
               "whole-line kernels)">,
    ListOption<"colTiles", "col-tiles", "int64_t",
               "Column tiles per block compiled (default 1,2,4)">,
    Option<"allGemvVariants", "all-gemv-variants", "bool", /*default=*/"false",
           "Compile every GEMV variant of those lists, not only those the "
           "launcher's policy can choose for the layer's N and K">,
    ListOption<"fusedVariants", "fused-variants", "int64_t",
               "Fused GEMM tilings compiled, as (m_tile, warps_n, split_k, "
               "col_tiles, stages) quintuples (default: the built-in set)">,
    ListOption<"fusedWarpgroupVariants", "fused-warpgroup-variants", "int64_t",
               "Fused GEMM tilings compiled with the warpgroup instruction, "
               "as (m_tile, warps_n, split_k, col_tiles) quadruples (stages: "
               "the most of 3-4 whose activations and codes fit in 112 KB; "
               "default none)">,
    ListOption<"fusedSpecializedVariants", "fused-specialized-variants",
               "int64_t",
               "Fused GEMM tilings of the specialized warpgroup form, as "
               "(m_tile, col_tiles) pairs (stages: the most of 3-4 that fit "
               "in 227 KB; default 128,1,256,1 where the target has the "
               "warpgroup instruction and fused_max_m > 128, and 256,2 "
               "where fused_max_m >= 512; else none; a list of either "
               "specialized form replaces both defaults)">,
    ListOption<"fusedSpecializedBVariants", "fused-specialized-b-variants",
               "int64_t",
               "Fused GEMM tilings of the specialized form with the weights "
               "as the warpgroup instruction's B operand, as (m_tile, "
               "col_tiles) pairs of 16-row column tiles (default 64,9,128,9 "
               "with the other specialized defaults, else none)">,
    Option<"noSlicedDefaults", "no-sliced-defaults", "bool",
           /*default=*/"false",
           "Compile no default K-sliced tiling (a bundle whose launcher "
           "table also serves a target without clusters)">,
    ListOption<"fusedSlicedVariants", "fused-sliced-variants", "int64_t",
               "Fused GEMM warp tilings whose K range is split across the "
               "blocks of a thread-block cluster, as (m_tile, warps_n, "
               "split_k, col_tiles, stages, k_slices) sextuples (sm_90 on; "
               "default none)">,
    ListOption<"fusedMulticastVariants", "fused-multicast-variants",
               "int64_t",
               "Fused GEMM tilings of the specialized form whose clusters of "
               "blocks share each stage's activations, as (m_tile, "
               "col_tiles, weights_as_b, multicast) quadruples (sm_90a; "
               "default none)">,
    ListOption<"fusedSpecializedSlicedVariants",
               "fused-specialized-sliced-variants", "int64_t",
               "Fused GEMM tilings of the specialized form whose K range is "
               "split across the blocks of a thread-block cluster, as "
               "(m_tile, col_tiles, k_slices) triples (sm_90a; default "
               "128,1,2 with the other specialized defaults where N is under "
               "160 x 64 rows and K at least 256 x 64; else none)">,
    ListOption<"fusedRegisterVariants", "fused-register-variants", "int64_t",
               "Fused GEMM tilings of the specialized form with the decoded "
               "weights in the multiplying warps' registers (the "
               "instruction's register A operand), as (m_tile, col_tiles) "
               "pairs (sm_90a; default none)">,
    ListOption<"fusedDecoderVariants", "fused-decoder-variants", "int64_t",
               "Fused GEMM tilings of the specialized form with a count of "
               "decoding warpgroups other than the tiling's default, as "
               "(m_tile, col_tiles, weights_as_b, decoders) quadruples "
               "(sm_90a; default none)">,
  ];
}

def QMatConfigureKernels : Pass<"qmat-configure-kernels"> {
  let summary = "Attach each GEMV and fused GEMM its #qmat.kernel_config";
  let description = [{
    Decides, for every `qmat.gemv` and `qmat.fused_gemm` without a `config`,
    how the lowering builds its kernel on `target`: the matrix instruction
    (the warp's 16x8x16, the wavefront's 16x16x16, the warpgroup's 64xNx16
    where the fused GEMM asks for it and the target has it, or none), the
    element decode (the op's, else the target's default), the GEMV's
    whole-line layout or half steps, whole blocks (no partial-block branch,
    for prepared codes whose N is a multiple of a block's rows) and a
    register budget. This pass is the only one that names chips or weighs
    measurements; an op that already has a config keeps it.
  }];
  let dependentDialects = ["::mlir::qmat::QMatDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU (sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942, gfx950)">,
  ];
}

def QMatVectorizeDequant : Pass<"qmat-vectorize-dequant"> {
  let summary = "Pick the vec8 dequant kernel where legal, scalar elsewhere";
  let description = [{
    vec8 needs K % 8 == 0 and an even block size: with an odd block the two
    nibbles of one byte can fall in two scale blocks. The scalar kernel is
    the fallback and produces the same bits.
  }];
  let options = [
    Option<"force", "force", "std::string", /*default=*/"\"auto\"",
           "auto, vec8 or scalar (an illegal vec8 is an error)">,
  ];
}

def QMatRewriteDecode : Pass<"qmat-rewrite-decode"> {
  let summary = "Rewrite qmat.decode into the target's exact decode sequence";
  let description = [{
    Expands every `qmat.decode` into integer and floating-point arithmetic
    plus vendor-neutral `qmat.byte_perm`, following its `method` (or the
    target's default, or `force`): a byte lookup, the magic-bias shift, the
    native conversion where the target has one, or plain arithmetic.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target (a GPU name, or host)">,
    Option<"force", "force", "std::string", /*default=*/"\"auto\"",
           "auto, arith, lookup, magic_bias or native">,
  ];
}

def QMatPrintGpuAssembly : Pass<"qmat-print-gpu-assembly", "::mlir::ModuleOp"> {
  let summary = "Print the assembly (PTX, AMDGPU ISA) held by gpu.binary ops";
  let description = [{
    Writes the text of every assembly-format `gpu.object` to stdout, one
    block per object headed by `// qmat-gpu-assembly @<binary> <target>`,
    so that lit can FileCheck the generated instructions.
  }];
}

def QMatExternDynamicSharedMemory
    : Pass<"qmat-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic workgroup memory of a launch external";
  let description = [{
    `gpu.dynamic_shared_memory` lowers to a zero-sized workgroup-memory
    `llvm.mlir.global` with internal linkage, which the NVPTX backend emits
    as a one-byte static variable (`.shared .b8 x;`): the launch's dynamic
    memory then starts after it, and the kernel's last bytes would lie past
    the allocation. With external linkage and no initializer the backends
    emit what CUDA and HIP define as the dynamic memory
    (`.extern .shared .b8 x[];` on NVPTX), starting at its first byte. On
    NVIDIA it is aligned to 1024 bytes, where the warpgroup instruction's
    128-byte-swizzled tiles start.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def QMatTensorMapParams
    : Pass<"qmat-tensor-map-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass a kernel's tensor maps by value";
  let description = [{
    A kernel whose last N arguments are tensor maps (`qmat.tensor_map_args
    = N`, set by the kernel lowerings) takes each as a 128-byte,
    64-byte-aligned parameter that it reads in place: after the lowering to
    NVVM those `llvm.ptr` arguments get `llvm.byval`, `llvm.align = 64` and
    `nvvm.grid_constant`, so that their address is the parameter's own
    (what `cp.async.bulk.tensor` reads the map from) and the launch copies
    the map's bytes (`cuLaunchKernel` with a pointer to a CUtensorMap). A
    kernel whose arguments do not end in as many pointers is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def QMatSerializeKernelsToPtx
    : Pass<"qmat-serialize-kernels-to-ptx", "::mlir::ModuleOp"> {
  let summary = "Compile each kernel of the NVVM gpu.modules to PTX in "
                "parallel, joined into a gpu.binary";
  let description = [{
    What `gpu-module-to-binary{format=isa}` makes of a gpu.module with one
    `#nvvm.target`: a `gpu.binary` of the same name holding the module's PTX.
    LLVM compiles one module on one thread, and the NVPTX back end's work
    grows with the kernels a module holds (a model's bundle has tens of
    kernels per target), so this pass translates and compiles each kernel,
    with the symbols it references, as a module of its own on the context's
    threads, then joins the PTX modules: one header, each module-scope
    declaration once, the kernels in the gpu.module's order. Each kernel's
    PTX is the one its own module gives; where two kernels' modules declare
    one symbol differently the whole gpu.module is compiled at once instead.
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", "\"\"",
           "CUDA toolkit path handed to the NVVM target's serialization">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // QMAT_TRANSFORMS_PASSES_TD
