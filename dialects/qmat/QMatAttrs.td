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

#endif // QMAT_ATTRS_TD
