//===- QMatEnums.td - qmat enumerations --------------------*- tablegen -*-===//

#ifndef QMAT_ENUMS_TD
#define QMAT_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def QMat_SchemeKind : I32EnumAttr<"SchemeKind", "block quantization scheme", [
    I32EnumAttrCase<"nvfp4", 0>, I32EnumAttrCase<"mxfp4", 1>,
    I32EnumAttrCase<"fp8", 2>, I32EnumAttrCase<"int4", 3>]> {
  let cppNamespace = "::mlir::qmat";
  let genSpecializedAttr = 0;
}

def QMat_Chip : I32EnumAttr<"Chip", "target GPU", [
    I32EnumAttrCase<"sm_80", 0>, I32EnumAttrCase<"sm_89", 1>,
    I32EnumAttrCase<"sm_90", 2>, I32EnumAttrCase<"sm_100", 3>,
    I32EnumAttrCase<"sm_120", 4>, I32EnumAttrCase<"gfx942", 5>,
    I32EnumAttrCase<"gfx950", 6>, I32EnumAttrCase<"sm_90a", 7>]> {
  let cppNamespace = "::mlir::qmat";
  let genSpecializedAttr = 0;
}

def QMat_ElementFormat : I32EnumAttr<"ElementFormat", "quantized element code", [
    I32EnumAttrCase<"e2m1", 0>, I32EnumAttrCase<"e4m3", 1>,
    I32EnumAttrCase<"u4", 2>]> {
  let cppNamespace = "::mlir::qmat";
  let genSpecializedAttr = 0;
}

def QMat_DequantKernel : I32EnumAttr<"DequantKernel", "dequantization kernel shape", [
    I32EnumAttrCase<"vec8", 0>, I32EnumAttrCase<"scalar", 1>]> {
  let cppNamespace = "::mlir::qmat";
  let genSpecializedAttr = 0;
}

// How packed codes become activation-type values. `arith` is the plain
// per-element computation; the others are exact rewrites of it (docs/numerics.md,
// "Why the rewrites are exact").
def QMat_DecodeMethod : I32EnumAttr<"DecodeMethod", "element decode rewrite", [
    I32EnumAttrCase<"arith", 0>, I32EnumAttrCase<"lookup", 1>,
    I32EnumAttrCase<"magic_bias", 2>, I32EnumAttrCase<"native", 3>]> {
  let cppNamespace = "::mlir::qmat";
  let genSpecializedAttr = 0;
}

def QMat_DecodePath : I32EnumAttr<"DecodePath", "small-M strategy", [
    I32EnumAttrCase<"gemv_tensor_core", 0>, I32EnumAttrCase<"gemv_scalar", 1>,
    I32EnumAttrCase<"prefill", 2>]> {
  let cppNamespace = "::mlir::qmat";
  let genSpecializedAttr = 0;
}

// The matrix instruction a GEMV or fused GEMM kernel multiplies with.
def QMat_MatrixOp : I32EnumAttr<"MatrixOp", "kernel matrix instruction", [
    I32EnumAttrCase<"scalar", 0>, I32EnumAttrCase<"mma_16x8x16", 1>,
    I32EnumAttrCase<"mfma_16x16x16", 2>, I32EnumAttrCase<"wgmma_64xnx16", 3>]> {
  let cppNamespace = "::mlir::qmat";
  let genSpecializedAttr = 0;
}

// How a kernel's load of weight data meets the caches (qmat.load_tile).
def QMat_CachePolicy : I32EnumAttr<"CachePolicy", "cache policy of a load", [
    I32EnumAttrCase<"cached", 0>, I32EnumAttrCase<"streaming", 1>]> {
  let cppNamespace = "::mlir::qmat";
  let genSpecializedAttr = 0;
}
#endif // QMAT_ENUMS_TD
