//===- ExpandGemv.cpp - Run-time M dispatch to the decode GEMV ------------===//
//
// A planned qmat.matmul becomes
//
//   scf.if M <= gemv_max_m {
//     scf.index_switch %variant { case i: qmat.gemv <variant i> ... }
//   } else {
//     qmat.matmul (the prefill path, expanded by qmat-expand-prefill)
//   }
//
// with %variant a new function argument marked {qmat.gemv_variant}: the
// caller (the generated launcher) evaluates the dispatch policy, which needs
// the device's multiprocessor count, and passes the variant's index.
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
          InFlightDiagnostic diag = anchor->emitError()
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

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    if (failed(checkOptions(func)))
      return signalPassFailure();
    SmallVector<int64_t> splitKs(splitK.begin(), splitK.end());
    SmallVector<int64_t> colTileCounts(colTiles.begin(), colTiles.end());

    SmallVector<MatmulOp> matmuls;
    func.walk([&](MatmulOp op) {
      if (op.getPlan() && !op->getParentOfType<scf::IfOp>())
        matmuls.push_back(op);
    });
    for (MatmulOp op : matmuls) {
      PlanAttr plan = *op.getPlan();
      SmallVector<GemvVariant> variants = getGemvVariants(
          plan, op.getScheme().getKind(), op.getK(), splitKs, colTileCounts);
      if (variants.empty())
        continue;
      // Every M up to gemv_max_m is routed to a variant: one must hold it.
      int64_t capacity = 0;
      for (const GemvVariant &v : variants)
        capacity = std::max(capacity, v.maxM);
      if (capacity < plan.getGemvMaxM()) {
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
      unsigned index = func.getNumArguments();
      auto argAttrs = DictionaryAttr::get(
          context,
          {NamedAttribute(StringAttr::get(context, "qmat.gemv_variant"),
                          UnitAttr::get(context))});
      if (failed(func.insertArgument(index, IndexType::get(context), argAttrs,
                                     loc))) {
        op.emitOpError() << "cannot add the variant argument to the function";
        return signalPassFailure();
      }
      Value variantIndex = func.getArgument(index);

      OpBuilder b(op);
      Value m = memref::DimOp::create(b, loc, op.getY(), 0);
      Value small = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule, m,
          arith::ConstantIndexOp::create(b, loc, plan.getGemvMaxM()));
      auto dispatch = scf::IfOp::create(b, loc, small, /*withElse=*/true);

      OpBuilder thenBuilder = dispatch.getThenBodyBuilder();
      SmallVector<int64_t> cases;
      for (size_t i = 0; i < variants.size(); ++i)
        cases.push_back(static_cast<int64_t>(i));
      auto sw = scf::IndexSwitchOp::create(thenBuilder, loc, TypeRange{},
                                           variantIndex, cases, cases.size());
      auto emitGemv = [&](Region &region, const GemvVariant &v) {
        Block *block = b.createBlock(&region);
        OpBuilder rb = OpBuilder::atBlockBegin(block);
        GemvOp::create(rb, loc, op.getScheme(), op.getA(), op.getWeights(),
                       op.getScales(), op.getGlobalScale(), op.getZeroPoints(),
                       op.getBias(), op.getY(), v.maxM, v.splitK, v.colTiles,
                       v.tensorCore, DecodeMethodAttr(),
                       plan.getPreparedWeights());
        scf::YieldOp::create(rb, loc);
      };
      for (auto [i, v] : llvm::enumerate(variants))
        emitGemv(sw.getCaseRegions()[i], v);
      // An out-of-range index (the launcher never passes one) runs the
      // last variant, of the largest row capacity, rather than nothing.
      emitGemv(sw.getDefaultRegion(), variants.back());

      OpBuilder elseBuilder = dispatch.getElseBodyBuilder();
      elseBuilder.clone(*op.getOperation());
      op.erase();
    }
  }
};

} // namespace
