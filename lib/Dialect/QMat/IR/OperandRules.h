//===- OperandRules.h - Operand rules the qmat ops share --------*- C++ -*-===//
//
// The checks of the activations, the quantized weight and its scales, the
// bias, the prepared layout and the kernel config that matmul, gemv,
// fused_gemm and dequantize share (defined in QMatOps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_LIB_DIALECT_QMAT_IR_OPERANDRULES_H
#define QMAT_LIB_DIALECT_QMAT_IR_OPERANDRULES_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"

namespace mlir::qmat::detail {

/// What a quantized-weight op knows about its problem before the weights are
/// checked: N (possibly dynamic for a tiled dequantization), a static K and
/// the activation type.
struct ProblemShape {
  int64_t n;
  int64_t k;
  Type act;
};

/// Checks the weight, scale, global-scale and zero-point operands against the
/// scheme (docs/numerics.md). Shared by matmul, gemv and dequantize.
LogicalResult verifyQuantizedWeight(Operation *op, SchemeAttr scheme,
                                    Value weights, Value scales,
                                    Value globalScale, Value zeroPoints,
                                    const ProblemShape &problem);

/// Checks A [M, K] and Y [M, N]: f16/bf16, the same type, M dynamic, K and N
/// static (N dynamic where `allowDynamicN`). Returns the problem shape on
/// success.
FailureOr<ProblemShape> verifyActivations(Operation *op, Value a, Value y,
                                          bool allowDynamicN = false);

/// Checks the optional bias: [N] of the activation type.
LogicalResult verifyBias(Operation *op, Value bias, const ProblemShape &p);

/// The operands of a quantized matmul (qmat.matmul, gemv, fused_gemm): the
/// activations, the quantized weight with its scales, and the bias.
template <typename OpT> FailureOr<ProblemShape> verifyMatmulOperands(OpT op) {
  FailureOr<ProblemShape> problem = verifyActivations(op, op.getA(), op.getY());
  if (failed(problem) ||
      failed(verifyQuantizedWeight(op, op.getScheme(), op.getWeights(),
                                   op.getScales(), op.getGlobalScale(),
                                   op.getZeroPoints(), *problem)) ||
      failed(verifyBias(op, op.getBias(), *problem)))
    return failure();
  return problem;
}

/// The prepared layout's rule (PreparedWeights.h): packed 4-bit codes, K a
/// multiple of 128 and N (where static) of 16.
LogicalResult verifyPreparedWeights(Operation *op, SchemeAttr scheme,
                                    Value weights, int64_t k);

/// The rules of a #qmat.kernel_config that involve its op (the attribute
/// checks its own): an op's own decode is the config's, and whole_blocks
/// needs a static N that is a multiple of the rows one block produces
/// (the kernel then has no partial-block branch).
LogicalResult verifyConfigOfOp(Operation *op, KernelConfigAttr config,
                               std::optional<DecodeMethod> decode,
                               Value weights, int64_t rowsPerBlock);

} // namespace mlir::qmat::detail

#endif // QMAT_LIB_DIALECT_QMAT_IR_OPERANDRULES_H
