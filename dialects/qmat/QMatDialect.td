//===- QMatDialect.td - qmat dialect definition ------------*- tablegen -*-===//

#ifndef QMAT_DIALECT_TD
#define QMAT_DIALECT_TD

include "mlir/IR/OpBase.td"

def QMat_Dialect : Dialect {
  let name = "qmat";
  let cppNamespace = "::mlir::qmat";
  let summary = "Block-quantized matrix multiplication";
  let description = [{
    The `qmat` dialect describes the linear layers of block-quantized LLM
    checkpoints (NVFP4, MXFP4, FP8, INT4 weights with fp16/bf16 activations)
    and the internal steps the compiler lowers them through: dequantization
    into a scratch buffer, a vendor GEMM, a decode GEMV and element decoding.
    All ops work on memrefs: the generated launcher receives device pointers
    and an explicit workspace, so no bufferization is involved.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let extraClassDeclaration = [{
    /// On a kernel (gpu.func, then its llvm.func): its last N arguments are
    /// tensor maps (`qmat.tensor_map`), 128 bytes each passed by value.
    static StringRef getTensorMapArgsAttrName() {
      return "qmat.tensor_map_args";
    }
  }];
}

class QMat_Op<string mnemonic, list<Trait> traits = []>
    : Op<QMat_Dialect, mnemonic, traits>;

// An op that stands for one instruction (or a few) of the target, which
// qmat-lower-to-target replaces: one left after that pass has no
// instruction on the target, an error that names the op and the target.
def QMat_TargetInstruction : NativeOpTrait<"TargetInstruction"> {
  let cppNamespace = "::mlir::qmat::OpTrait";
}

class QMat_InstructionOp<string mnemonic, list<Trait> traits = []>
    : QMat_Op<mnemonic, !listconcat(traits, [QMat_TargetInstruction])>;

#endif // QMAT_DIALECT_TD
