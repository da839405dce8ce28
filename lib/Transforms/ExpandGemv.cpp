//===- ExpandGemv.cpp - Run-time M dispatch to the fused kernels ----------===//
//
// A planned qmat.matmul becomes
//
//   scf.if M <= gemv_max_m {
//     scf.index_switch %gemv_variant { case i: qmat.gemv <variant i> ... }
//   } else {
//     scf.if M <= fused_max_m {
//       scf.index_switch %fused_variant { case i: qmat.fused_gemm <i> ... }
//     } else {
//       qmat.matmul (the prefill path, expanded by qmat-expand-prefill)
//     }
//   }
//
// (either level absent where the plan has no such path), with each variant
// index a new function argument marked {qmat.gemv_variant} or
// {qmat.fused_variant}: the caller (the generated launcher) evaluates the
// dispatch policy, which needs the device's multiprocessor count, and passes
// the variant's index.
//
//===----------------------------------------------------------------------===//

#include "qmat/Transforms/GemvVariants.h"
#include "qmat/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATEXPANDGEMV
#include "qmat/Transforms/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

struct QMatExpandGemvPass : qmat::impl::QMatExpandGemvBase<QMatExpandGemvPass> {
  using Base::Base;

  LogicalResult checkOptions(Operation *anchor) {
    auto check = [&](const auto &values, StringRef name,
                     ArrayRef<int64_t> choices) -> LogicalResult {
      for (int64_t v : values)
        if (!llvm::is_contained(choices, v)) {
          InFlightDiagnostic diag = emitError(anchor->getLoc())
                                    << name << " values must be among ";
          llvm::interleaveComma(choices, diag);
          return diag << ", got " << v;
        }
      return success();
    };
    return success(
        succeeded(check(splitK, "split-k", GemvOp::getSplitKChoices())) &&
        succeeded(check(colTiles, "col-tiles", GemvOp::getColTileChoices())));
  }

  /// Emits `scf.if M <= maxM { switch %index { variants } } else {}` at
  /// `b`, the index a new function argument marked `indexAttr`; returns a
  /// builder at the start of the else block. `emitVariant(builder, i)`
  /// emits variant i; the switch's default region repeats the last one (the
  /// launcher never passes an index out of range).
  FailureOr<OpBuilder>
  emitDispatch(OpBuilder &b, Operation *op, Value m, int64_t maxM,
               StringRef indexAttr, size_t count,
               function_ref<void(OpBuilder &, size_t)> emitVariant) {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    Location loc = op->getLoc();
    unsigned index = func.getNumArguments();
    auto argAttrs = DictionaryAttr::get(
        context, {NamedAttribute(StringAttr::get(context, indexAttr),
                                 UnitAttr::get(context))});
    if (failed(
            func.insertArgument(index, IndexType::get(context), argAttrs, loc)))
      return op->emitOpError()
             << "cannot add the variant argument to the function";
    Value variantIndex = func.getArgument(index);
    Value small =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, m,
                              arith::ConstantIndexOp::create(b, loc, maxM));
    auto dispatch = scf::IfOp::create(b, loc, small, /*withElse=*/true);
    OpBuilder thenBuilder = dispatch.getThenBodyBuilder();
    SmallVector<int64_t> cases;
    for (size_t i = 0; i < count; ++i)
      cases.push_back(static_cast<int64_t>(i));
    auto sw = scf::IndexSwitchOp::create(thenBuilder, loc, TypeRange{},
                                         variantIndex, cases, cases.size());
    auto fill = [&](Region &region, size_t i) {
      Block *block = b.createBlock(&region);
      OpBuilder rb = OpBuilder::atBlockBegin(block);
      emitVariant(rb, i);
      scf::YieldOp::create(rb, loc);
    };
    for (size_t i = 0; i < count; ++i)
      fill(sw.getCaseRegions()[i], i);
    fill(sw.getDefaultRegion(), count - 1);
    return dispatch.getElseBodyBuilder();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(checkOptions(func)))
      return signalPassFailure();
    SmallVector<int64_t> splitKs(splitK.begin(), splitK.end());
    SmallVector<int64_t> colTileCounts(colTiles.begin(), colTiles.end());
    SmallVector<int64_t> fusedTiles(fusedVariants.begin(), fusedVariants.end());
    SmallVector<int64_t> warpgroupTiles(fusedWarpgroupVariants.begin(),
                                        fusedWarpgroupVariants.end());
    SmallVector<int64_t> specializedTiles(fusedSpecializedVariants.begin(),
                                          fusedSpecializedVariants.end());
    SmallVector<int64_t> specializedBTiles(fusedSpecializedBVariants.begin(),
                                           fusedSpecializedBVariants.end());
    SmallVector<int64_t> slicedTiles(fusedSlicedVariants.begin(),
                                     fusedSlicedVariants.end());
    SmallVector<int64_t> multicastTiles(fusedMulticastVariants.begin(),
                                        fusedMulticastVariants.end());
    SmallVector<int64_t> specializedSlicedTiles(
        fusedSpecializedSlicedVariants.begin(),
        fusedSpecializedSlicedVariants.end());
    SmallVector<int64_t> registerTiles(fusedRegisterVariants.begin(),
                                       fusedRegisterVariants.end());
    SmallVector<int64_t> decoderTiles(fusedDecoderVariants.begin(),
                                      fusedDecoderVariants.end());

    SmallVector<MatmulOp> matmuls;
    func.walk([&](MatmulOp op) {
      if (op.getPlan() && !op->getParentOfType<scf::IfOp>())
        matmuls.push_back(op);
    });
    for (MatmulOp op : matmuls) {
      PlanAttr plan = *op.getPlan();
      SmallVector<GemvVariant> gemv =
          getGemvVariants(op, splitKs, colTileCounts, allGemvVariants);
      std::string error;
      FailureOr<SmallVector<FusedGemmVariant>> fused = getFusedGemmVariants(
          plan, op.getScheme().getKind(), op.getN(), op.getK(), fusedTiles,
          warpgroupTiles, specializedTiles, specializedBTiles, error,
          slicedTiles, !noSlicedDefaults, multicastTiles,
          specializedSlicedTiles, registerTiles, decoderTiles);
      if (failed(fused)) {
        op.emitOpError() << error;
        return signalPassFailure();
      }
      if (gemv.empty() && fused->empty())
        continue;
      // Every M up to gemv_max_m is routed to a variant: one must hold it.
      int64_t capacity = 0;
      for (const GemvVariant &v : gemv)
        capacity = std::max(capacity, v.maxM);
      if (!gemv.empty() && capacity < plan.getGemvMaxM()) {
        InFlightDiagnostic diag = op.emitOpError()
                                  << "gemv-max-m = " << plan.getGemvMaxM()
                                  << " needs a GEMV variant of "
                                  << plan.getGemvMaxM()
                                  << " rows, but gemv-split-k ";
        auto list = [&](ArrayRef<int64_t> values) {
          if (values.empty())
            diag << "(default)";
          llvm::interleave(values, diag, ",");
        };
        list(splitKs);
        diag << " and gemv-col-tiles ";
        list(colTileCounts);
        diag << " compile none beyond " << capacity
             << " rows (a variant takes at most "
             << GemvOp::kMaxSharedBytes / 1024 << " KiB of shared memory, "
             << GemvOp::kMaxBlockThreads
             << " threads, and col_tiles * rows / 8 <= 4 when col_tiles > 1)";
        return signalPassFailure();
      }
      Location loc = op.getLoc();
      OpBuilder b(op);
      Value m = memref::DimOp::create(b, loc, op.getY(), 0);
      if (!gemv.empty()) {
        FailureOr<OpBuilder> rest = emitDispatch(
            b, op, m, plan.getGemvMaxM(), "qmat.gemv_variant", gemv.size(),
            [&](OpBuilder &rb, size_t i) {
              const GemvVariant &v = gemv[i];
              GemvOp::create(rb, loc, op.getScheme(), op.getA(),
                             op.getWeights(), op.getScales(),
                             op.getGlobalScale(), op.getZeroPoints(),
                             op.getBias(), op.getY(), v.maxM, v.splitK,
                             v.colTiles, v.tensorCore, DecodeMethodAttr(),
                             plan.getPreparedWeights(), KernelConfigAttr());
            });
        if (failed(rest))
          return signalPassFailure();
        b = *rest;
      }
      if (!fused->empty()) {
        FailureOr<OpBuilder> rest = emitDispatch(
            b, op, m, plan.getFusedMaxM(), "qmat.fused_variant", fused->size(),
            [&](OpBuilder &rb, size_t i) {
              const FusedGemmVariant &v = (*fused)[i];
              FusedGemmOp::create(
                  rb, loc, op.getScheme(), op.getA(), op.getWeights(),
                  op.getScales(), op.getGlobalScale(), op.getZeroPoints(),
                  op.getBias(), op.getY(), v.mTile, v.warpsN, v.splitK,
                  v.colTiles, v.stages, v.kSlices, DecodeMethodAttr(),
                  plan.getPreparedWeights(), v.warpgroup, v.specialized,
                  v.weightsAsB, v.multicast, v.registerWeights,
                  v.decoders ? rb.getI64IntegerAttr(v.decoders) : IntegerAttr(),
                  KernelConfigAttr());
            });
        if (failed(rest))
          return signalPassFailure();
        b = *rest;
      }
      b.clone(*op.getOperation());
      op.erase();
    }
  }
};

} // namespace
