//===- QMatAttrs.td - qmat attributes ----------------------*- tablegen -*-===//

#ifndef QMAT_ATTRS_TD
#define QMAT_ATTRS_TD

include "QMatDialect.td"
include "QMatEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class QMat_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<QMat_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def QMat_SchemeKindAttr : EnumAttr<QMat_Dialect, QMat_SchemeKind, "scheme_kind">;
def QMat_ChipAttr : EnumAttr<QMat_Dialect, QMat_Chip, "chip">;
def QMat_ElementFormatAttr : EnumAttr<QMat_Dialect, QMat_ElementFormat, "element_format">;
def QMat_DequantKernelAttr : EnumAttr<QMat_Dialect, QMat_DequantKernel, "dequant_kernel">;
def QMat_DecodeMethodAttr : EnumAttr<QMat_Dialect, QMat_DecodeMethod, "decode_method">;
def QMat_DecodePathAttr : EnumAttr<QMat_Dialect, QMat_DecodePath, "decode_path">;

def QMat_MatrixOpAttr : EnumAttr<QMat_Dialect, QMat_MatrixOp, "matrix_op">;
def QMat_CachePolicyAttr : EnumAttr<QMat_Dialect, QMat_CachePolicy, "cache_policy">;
def QMat_SchemeAttr : QMat_Attr<"Scheme", "scheme"> {
  let summary = "A block quantization scheme and its block size along K";
  let description = [{
    `#qmat.scheme<nvfp4, block = 16>`. The scheme fixes the element code,
    the block-scale format and the optional extras (global scale for nvfp4,
    zero points for int4); the block size is the number of consecutive K
    elements that share one scale.
  }];
  let parameters = (ins EnumParameter<QMat_SchemeKind>:$kind,
                        "int64_t":$blockSize);
  let assemblyFormat = "`<` $kind `,` `block` `=` $blockSize `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Two 4-bit codes share one byte (nvfp4, mxfp4, int4).
    bool isPacked() const;
    /// Number of scale columns for a reduction length K.
    int64_t getNumBlocks(int64_t k) const;
    /// The element format of the weight codes.
    ElementFormat getElementFormat() const;
    /// vec8 gives a thread 8 consecutive K elements: it needs K % 8 == 0
    /// and an even block, or a byte's two nibbles (a pair of fp8 codes)
    /// could straddle two scale blocks.
    bool isVec8Legal(int64_t k) const {
      return k % 8 == 0 && getBlockSize() % 2 == 0;
    }
    /// The tensor-core GEMV gives each lane 32 consecutive K elements of a
    /// 128-element warp step and pairs elements 4 apart within groups of 8:
    /// it needs K % 128 == 0 and a block that never splits such a group.
    bool isTensorCoreGemvLegal(int64_t k) const {
      return k % 128 == 0 && getBlockSize() % 8 == 0;
    }
    /// The block-size default users expect for each scheme (docs/numerics.md).
    static int64_t getDefaultBlockSize(SchemeKind kind);
  }];
}

def QMat_TargetAttr : QMat_Attr<"Target", "target"> {
  let summary = "The GPU a kernel is specialised for";
  let description = [{
    `#qmat.target<sm_90>`. Passes query its properties (vendor, warp size,
    native conversions, tensor-core instructions) through the target-info
    interface rather than by naming a chip.
  }];
  let parameters = (ins EnumParameter<QMat_Chip>:$chip);
  let assemblyFormat = "`<` $chip `>`";
  let extraClassDeclaration = [{
    bool isNVIDIA() const;
    bool isAMD() const { return !isNVIDIA(); }
    /// Threads per warp (32) or wavefront (64).
    unsigned getWarpSize() const;
    /// The chip string the vendor toolchain expects ("sm_90", "gfx942").
    llvm::StringRef getChipName() const;
  }];
}

def QMat_PlanAttr : QMat_Attr<"Plan", "plan"> {
  let summary = "The strategies chosen for one matmul on one target";
  let description = [{
    Recorded by `qmat-select-strategy` and read by the lowering passes and
    the launcher: rows up to `gemv_max_m` take `small_m`, rows up to
    `fused_max_m` (where it is larger than `gemv_max_m`) the fused
    dequant-GEMM (`qmat.fused_gemm`, no scratch), the rest dequantize into
    scratch (`dequant` kernel, `decode` rewrite) and call the vendor GEMM,
    looping over N tiles that keep the scratch under `scratch_cap_mib`.
    With `prepared_weights` the codes are in the prepared layout
    (PreparedWeights.h) and every kernel of the layer reads them so.
  }];
  let parameters = (ins
      "TargetAttr":$target,
      "int64_t":$gemvMaxM,
      EnumParameter<QMat_DecodePath>:$smallM,
      EnumParameter<QMat_DequantKernel>:$dequant,
      EnumParameter<QMat_DecodeMethod>:$decode,
      "int64_t":$scratchCapMiB,
      "int64_t":$tileRows,
      DefaultValuedParameter<"bool", "false">:$preparedWeights,
      DefaultValuedParameter<"int64_t", "0">:$fusedMaxM);
  let assemblyFormat = [{
    `<` `target` `=` $target `,` `gemv_max_m` `=` $gemvMaxM `,`
        `small_m` `=` $smallM `,` `dequant` `=` $dequant `,`
        `decode` `=` $decode `,` `scratch_cap_mib` `=` $scratchCapMiB `,`
        `tile_rows` `=` $tileRows
        `` custom<PlanOptions>($preparedWeights, $fusedMaxM) `>`
  }];
  let genVerifyDecl = 1;
}

def QMat_KernelConfigAttr : QMat_Attr<"KernelConfig", "kernel_config"> {
  let summary = "How one GEMV or fused GEMM kernel is built";
  let description = [{
    Attached to every `qmat.gemv` and `qmat.fused_gemm` by
    `qmat-configure-kernels`, the one place that weighs a target and the
    measurements; the lowering builds exactly what it says. The op keeps the
    tiling the launcher dispatches on (`max_m` or `m_tile`, `split_k`,
    `col_tiles`, ...); the config holds what is decided per target:

    - `matrix`: the instruction: `mma_16x8x16` (a warp's 16x8x16 MMA),
      `mfma_16x16x16` (a 64-lane wavefront's), `wgmma_64xnx16` (a
      warpgroup's 64xNx16, the fused GEMM's `warpgroup` form) or `scalar`
      (no matrix instruction: one warp per weight row);
    - `decode`: the element decode of the weights;
    - `whole_lines`: the GEMV's whole-line layout (a column tile as two
      8-row halves over 256-element K steps, so that a load reads whole
      128-byte lines);
    - `half_steps`: each K step walked in two halves of the column tiles;
    - `whole_blocks`: N is a multiple of the rows per block, so the kernel
      has no partial-block loop;
    - `resident_threads`: the threads per multiprocessor the kernel's
      register budget keeps resident (0: no budget).

    ```mlir
    #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias,
                        whole_lines = true, resident_threads = 1024>
    ```
  }];
  let parameters = (ins
      EnumParameter<QMat_MatrixOp>:$matrix,
      EnumParameter<QMat_DecodeMethod>:$decode,
      DefaultValuedParameter<"bool", "false">:$whole_lines,
      DefaultValuedParameter<"bool", "false">:$half_steps,
      DefaultValuedParameter<"bool", "false">:$whole_blocks,
      DefaultValuedParameter<"int64_t", "0">:$resident_threads);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute that carries a kernel's config on its
    /// gpu.launch_func, where qmat-aot reads it back.
    static llvm::StringRef getLaunchAttrName() { return "qmat.kernel_config"; }
  }];
}

#endif // QMAT_ATTRS_TD
