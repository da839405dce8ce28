//===- LowerDequantToGPU.cpp - qmat.dequantize -> gpu.func + launch -------===//
//
// vec8: thread (blockIdx.y * blockDim.x + threadIdx.x) owns one 8-element K
// chunk of row blockIdx.x. The row comes from grid x rather than y because
// grid y stops at 65535 rows and an untiled lm_head has 248320; either way
// no thread divides to find its row.
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Conversion/QMatToGPU/DequantKernelBuilder.h"
#include "qmat/Conversion/QMatToGPU/KernelModule.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATLOWERDEQUANTTOGPU
#include "qmat/Conversion/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// The block size: the widest power of two up to 256 that divides the row's
/// work, so that no thread idles; 128 with a bounds check otherwise.
int64_t chooseThreadsPerBlock(int64_t itemsPerRow, int64_t warpSize) {
  for (int64_t threads = 256; threads >= 2 * warpSize; threads /= 2)
    if (itemsPerRow % threads == 0)
      return threads;
  if (itemsPerRow <= 128)
    return std::max<int64_t>(warpSize, llvm::alignTo(itemsPerRow, warpSize));
  return 128;
}

/// Several items per thread amortise the index arithmetic and keep more
/// loads in flight; only counts that divide the block's share of the row
/// are used, so that no item needs a bounds check.
int64_t chooseItemsPerThread(int64_t itemsPerRow, int64_t threads) {
  if (itemsPerRow % threads != 0)
    return 1;
  int64_t blocksWorth = itemsPerRow / threads;
  for (int64_t u = 8; u > 1; --u)
    if (blocksWorth % u == 0)
      return u;
  return 1;
}

struct QMatLowerDequantToGPUPass
    : qmat::impl::QMatLowerDequantToGPUBase<QMatLowerDequantToGPUPass> {
  using Base::Base;

  gpu::GPUFuncOp getOrCreateKernel(gpu::GPUModuleOp kernels,
                                   const TargetInfo &info,
                                   const DequantKernelSpec &spec,
                                   TypeRange argTypes, int64_t threads,
                                   Location loc) {
    MLIRContext *context = kernels.getContext();
    auto funcType = FunctionType::get(context, argTypes, {});
    gpu::GPUFuncOp existing;
    std::string name = findKernel(
        kernels, spec.getKernelName() + "_t" + std::to_string(threads),
        funcType, existing);
    if (existing)
      return existing;

    OpBuilder b = OpBuilder::atBlockEnd(kernels.getBody());
    auto kernel = gpu::GPUFuncOp::create(b, loc, name, funcType);
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    kernel.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    if (occupancyHints)
      info.annotateKernel(kernel, threads, /*residentThreads=*/0);

    Block &entry = kernel.getBody().front();
    b.setInsertionPointToStart(&entry);
    unsigned argIndex = 0;
    DequantBuffers buffers;
    buffers.weights = entry.getArgument(argIndex++);
    buffers.scales = entry.getArgument(argIndex++);
    if (spec.scheme.getKind() == SchemeKind::nvfp4)
      buffers.globalScale =
          emitGlobalScaleLoad(b, loc, entry.getArgument(argIndex++));
    if (spec.hasZeroPoints)
      buffers.zeroPoints = entry.getArgument(argIndex++);
    buffers.scratch = entry.getArgument(argIndex++);

    Value row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    int64_t perBlock = threads * spec.itemsPerThread;
    Value first = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, blockY,
                              arith::ConstantIndexOp::create(b, loc, perBlock)),
        thread);
    // A thread's items are `threads` apart: each store instruction of the
    // warp covers one contiguous span.
    SmallVector<Value> items = {first};
    for (int64_t u = 1; u < spec.itemsPerThread; ++u)
      items.push_back(arith::AddIOp::create(
          b, loc, first, arith::ConstantIndexOp::create(b, loc, u * threads)));
    int64_t rowItems = spec.getItemsPerRow();
    if (spec.persistent) {
      Value rows = memref::DimOp::create(b, loc, buffers.weights, 0);
      Value step = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
      emitDequantRowLoop(b, loc, spec, buffers, row, step, rows, items);
    } else if (rowItems % perBlock == 0) {
      emitDequantWorkItems(b, loc, spec, buffers, row, items);
    } else {
      // Only chosen with one item per thread (see chooseItemsPerThread).
      Value inRange = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, first,
          arith::ConstantIndexOp::create(b, loc, rowItems));
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      OpBuilder tb = guard.getThenBodyBuilder();
      emitDequantWorkItems(tb, loc, spec, buffers, row, items);
    }
    gpu::ReturnOp::create(b, loc);
    return kernel;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto info =
        lookupGpuTargetInfoOrEmit(module, target, "qmat-lower-dequant-to-gpu");
    if (!info)
      return signalPassFailure();
    int64_t warp = info->getWarpSize();
    if (threadsPerBlock != 0 &&
        (threadsPerBlock < warp || threadsPerBlock > 1024 ||
         threadsPerBlock % warp != 0)) {
      module.emitError() << "threads-per-block must be a multiple of " << warp
                         << " in [" << warp << ", 1024], got "
                         << static_cast<int64_t>(threadsPerBlock);
      return signalPassFailure();
    }
    if (itemsPerThread < 0 || itemsPerThread > 64) {
      module.emitError() << "items-per-thread must be in [0, 64], got "
                         << static_cast<int64_t>(itemsPerThread);
      return signalPassFailure();
    }
    SmallVector<DequantizeOp> ops;
    module.walk([&](DequantizeOp op) { ops.push_back(op); });

    for (DequantizeOp op : ops) {
      gpu::GPUModuleOp kernels =
          getOrCreateKernelModule(op->getParentOfType<ModuleOp>(), *info);
      DequantKernelSpec spec = DequantKernelSpec::get(
          op, info->getDefaultDecode(op.getScheme().getElementFormat()));
      spec.canonicalizeNaN = !info->truncationCanonicalizesNaN();
      int64_t items = spec.getItemsPerRow();
      int64_t threads = threadsPerBlock > 0
                            ? threadsPerBlock
                            : chooseThreadsPerBlock(items, info->getWarpSize());
      // A forced item count picks the widest block it divides the row with.
      if (threadsPerBlock == 0 && itemsPerThread > 1)
        for (int64_t t = 256; t >= info->getWarpSize(); t /= 2)
          if (items % (t * itemsPerThread) == 0) {
            threads = t;
            break;
          }
      spec.itemsPerThread = itemsPerThread > 0
                                ? itemsPerThread
                                : chooseItemsPerThread(items, threads);
      // The row loop has no bounds guard: only for rows the block tiles.
      spec.persistent =
          persistentBlocks > 0 && items % (threads * spec.itemsPerThread) == 0;
      if (items % (threads * spec.itemsPerThread) != 0 &&
          spec.itemsPerThread > 1) {
        op.emitOpError() << "items-per-thread " << spec.itemsPerThread
                         << " with " << threads
                         << " threads does not divide the row's " << items
                         << " work items";
        return signalPassFailure();
      }
      SmallVector<Value> args = {op.getWeights(), op.getScales()};
      if (op.getGlobalScale())
        args.push_back(op.getGlobalScale());
      if (op.getZeroPoints())
        args.push_back(op.getZeroPoints());
      args.push_back(op.getScratch());
      OpBuilder b(op);
      Location loc = op.getLoc();
      FailureOr<SmallVector<Type>> argTypes = castToKernelArgs(b, op, args);
      if (failed(argTypes))
        return signalPassFailure();
      gpu::GPUFuncOp kernel = getOrCreateKernel(kernels, *info, spec, *argTypes,
                                                threads, op.getLoc());

      Value rows = memref::DimOp::create(b, loc, args.front(), 0);
      if (spec.persistent)
        rows = arith::MinUIOp::create(
            b, loc, rows,
            arith::ConstantIndexOp::create(b, loc, persistentBlocks));
      Value gridY = arith::ConstantIndexOp::create(
          b, loc, llvm::divideCeil(items, threads * spec.itemsPerThread));
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value blockX = arith::ConstantIndexOp::create(b, loc, threads);
      gpu::LaunchFuncOp::create(b, loc, kernel,
                                gpu::KernelDim3{rows, gridY, one},
                                gpu::KernelDim3{blockX, one, one},
                                /*dynamicSharedMemorySize=*/Value(), args);
      op.erase();
    }
  }
};

} // namespace
