//===- LowerGemvToGPU.cpp - qmat.gemv -> gpu.func + launch ----------------===//
//
// One kernel per GEMV variant (scheme, K, activation type, rows handled,
// split-K, column tiles), shared by every layer with the same K: N and M are
// read from the operands at run time. Grid: one block per 16 * col_tiles
// weight rows (tensor core) or per four rows (scalar). The fused dequant-GEMM
// (qmat.fused_gemm) is the tensor-core kernel tiled over M as well
// (GemvKernelSpec::mTiled): grid (ceil(M / m_tile), ceil(N / rows per
// block)). The kernel is built as the op's #qmat.kernel_config says; this
// pass only checks that the target can build it.
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/Conversion/QMatToGPU/GemvKernelBuilder.h"
#include "qmat/Conversion/QMatToGPU/KernelModule.h"
#include "qmat/Dialect/QMat/IR/FusedGemm.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::qmat {
#define GEN_PASS_DEF_QMATLOWERGEMVTOGPU
#include "qmat/Conversion/Passes.h.inc"
} // namespace mlir::qmat

using namespace mlir;
using namespace mlir::qmat;

namespace {

struct QMatLowerGemvToGPUPass
    : qmat::impl::QMatLowerGemvToGPUBase<QMatLowerGemvToGPUPass> {
  using Base::Base;

  /// The matrix instruction comes from the target's own dialect.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    std::string error;
    if (auto info = lookupTargetInfo(target, error))
      info->getDependentDialects(registry);
  }

  gpu::GPUFuncOp getOrCreateKernel(gpu::GPUModuleOp kernels,
                                   const TargetInfo &info,
                                   const GemvKernelSpec &spec,
                                   KernelConfigAttr config, TypeRange argTypes,
                                   Location loc) {
    auto funcType = FunctionType::get(kernels.getContext(), argTypes, {});
    gpu::GPUFuncOp existing;
    std::string name =
        findKernel(kernels, spec.getKernelName(), funcType, existing);
    if (existing)
      return existing;

    OpBuilder b = OpBuilder::atBlockEnd(kernels.getBody());
    auto kernel = gpu::GPUFuncOp::create(b, loc, name, funcType);
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    if (spec.specialized)
      kernel->setAttr(QMatDialect::getTensorMapArgsAttrName(),
                      b.getI64IntegerAttr(1));
    int64_t threads = spec.getThreads(info.getWarpSize());
    kernel.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    if (config.getResidentThreads())
      info.annotateKernel(kernel, threads, config.getResidentThreads());
    if (spec.kSlices > 1)
      info.annotateClusterBlocks(kernel, /*dimension=*/2, spec.kSlices);
    if (spec.multicast > 1)
      info.annotateClusterBlocks(kernel, /*dimension=*/1, spec.multicast);

    Block &entry = kernel.getBody().front();
    unsigned argIndex = 0;
    GemvBuffers buffers;
    buffers.a = entry.getArgument(argIndex++);
    buffers.weights = entry.getArgument(argIndex++);
    buffers.scales = entry.getArgument(argIndex++);
    if (spec.scheme.getKind() == SchemeKind::nvfp4)
      buffers.globalScale = entry.getArgument(argIndex++);
    if (spec.hasZeroPoints)
      buffers.zeroPoints = entry.getArgument(argIndex++);
    if (spec.hasBias)
      buffers.bias = entry.getArgument(argIndex++);
    buffers.y = entry.getArgument(argIndex++);
    if (spec.specialized)
      buffers.activationMap = entry.getArgument(argIndex++);
    auto workgroup = gpu::AddressSpaceAttr::get(
        b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
    auto workgroupMemRef = [&](int64_t elements, Type type) {
      return MemRefType::get({elements}, type, MemRefLayoutAttrInterface(),
                             workgroup);
    };
    int64_t bytes = spec.getSharedBytes();
    b.setInsertionPointToStart(&entry);
    if (spec.mTiled) {
      // One allocation: the loop's staged activations (and the warpgroup
      // form's staged codes after them), then the split-K sums. A warpgroup
      // tiling's is dynamic: its stages may need more than the 48 KB a
      // static allocation may have (the launch gives the size).
      Value raw;
      if (spec.dynamicShared) {
        raw = gpu::DynamicSharedMemoryOp::create(
            b, loc,
            MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                            MemRefLayoutAttrInterface(), workgroup));
      } else {
        raw = kernel.addWorkgroupAttribution(
            workgroupMemRef(bytes, b.getI8Type()), loc);
        // The tile is read and written in 16-byte vectors.
        kernel.setWorkgroupAttributionAttr(
            kernel.getNumWorkgroupAttributions() - 1,
            LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(16));
      }
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      buffers.stagedActivations = memref::ViewOp::create(
          b, loc, workgroupMemRef(bytes / 2, spec.actType), raw, zero,
          ValueRange{});
      if (spec.specialized) {
        int64_t weightsFirst = spec.stages * spec.maxM * kSpecializedStageK * 2;
        int64_t barriers = 2 * spec.stages,
                barriersFirst = bytes - kBarrierObjectBytes * barriers;
        if (!spec.registerWeights)
          buffers.decodedWeights = memref::ViewOp::create(
              b, loc,
              workgroupMemRef((barriersFirst - weightsFirst) / 2, spec.actType),
              raw, arith::ConstantIndexOp::create(b, loc, weightsFirst),
              ValueRange{});
        buffers.stageBarriers = memref::ViewOp::create(
            b, loc, workgroupMemRef(barriers, b.getI64Type()), raw,
            arith::ConstantIndexOp::create(b, loc, barriersFirst),
            ValueRange{});
      } else if (spec.warpgroup) {
        int64_t codesFirst =
            spec.stages *
            FusedGemmOp::getStagedActivationBytes(spec.maxM, spec.splitK);
        buffers.stagedCodes = memref::ViewOp::create(
            b, loc, workgroupMemRef(bytes - codesFirst, b.getI8Type()), raw,
            arith::ConstantIndexOp::create(b, loc, codesFirst), ValueRange{});
      }
      if (spec.splitK > 1 || spec.kSlices > 1)
        buffers.partials = memref::ViewOp::create(
            b, loc, workgroupMemRef(bytes / 4, b.getF32Type()), raw, zero,
            ValueRange{});
    } else if (bytes) {
      buffers.partials = kernel.addWorkgroupAttribution(
          workgroupMemRef(bytes / 4, b.getF32Type()), loc);
    }
    emitGemvKernelBody(b, loc, spec, buffers, info);
    gpu::ReturnOp::create(b, loc);
    return kernel;
  }

  /// Whether `config`'s instruction is one `info` lacks (diagnosed).
  LogicalResult checkMatrixInstruction(GemvOp op, KernelConfigAttr config,
                                       const TargetInfo &info) {
    MatrixOp matrix = config.getMatrix();
    if (matrix == MatrixOp::scalar)
      return success();
    if (!info.hasGemvMatrixInstruction())
      return op.emitOpError() << "tensor_core needs a warp matrix instruction "
                                 "(16x8x16 or 16x16x16), which "
                              << target << " lacks";
    if ((matrix == MatrixOp::mma_16x8x16) != info.usesWarpMmaGemv())
      return op.emitOpError()
             << "config matrix = " << stringifyMatrixOp(matrix)
             << " is not the matrix instruction of " << target
             << " (qmat-configure-kernels chooses it for the target)";
    return success();
  }
  LogicalResult checkMatrixInstruction(FusedGemmOp op, KernelConfigAttr config,
                                       const TargetInfo &info) {
    if (!info.hasGemvMatrixInstruction())
      return op.emitOpError() << "the fused GEMM needs a warp matrix "
                                 "instruction (16x8x16 or 16x16x16), which "
                              << target << " lacks";
    MatrixOp warpMatrix = info.usesWarpMmaGemv() ? MatrixOp::mma_16x8x16
                                                 : MatrixOp::mfma_16x16x16;
    if (config.getMatrix() != warpMatrix &&
        config.getMatrix() != MatrixOp::wgmma_64xnx16)
      return op.emitOpError()
             << "config matrix = " << stringifyMatrixOp(config.getMatrix())
             << " is not the matrix instruction of " << target
             << " (qmat-configure-kernels chooses it for the target)";
    if (config.getMatrix() == MatrixOp::wgmma_64xnx16 &&
        !info.hasWarpgroupMma())
      return op.emitOpError() << "config matrix = wgmma_64xnx16 needs the "
                                 "warpgroup matrix instruction, which "
                              << target << " lacks";
    if (op.getKSlices() > 1 && !info.hasBlockClusters())
      return op.emitOpError()
             << "k_slices = " << op.getKSlices()
             << " needs thread-block clusters, which " << target << " lacks";
    if (op.getStages() > 1 && !info.hasAsyncCopy())
      return op.emitOpError() << "stages = " << op.getStages()
                              << " needs asynchronous copies to workgroup "
                                 "memory, which "
                              << target << " lacks";
    return success();
  }

  /// The launch grid: N blocks, and for the fused GEMM M tiles first.
  static gpu::KernelDim3 getGrid(OpBuilder &b, Location loc, GemvOp op,
                                 Value blocks, Value one) {
    return {blocks, one, one};
  }
  static gpu::KernelDim3 getGrid(OpBuilder &b, Location loc, FusedGemmOp op,
                                 Value blocks, Value one) {
    Value m = memref::DimOp::create(b, loc, op.getA(), 0);
    Value mTiles = arith::CeilDivUIOp::create(
        b, loc, m, arith::ConstantIndexOp::create(b, loc, op.getMTile()));
    Value slices = op.getKSlices() == 1 ? one
                                        : arith::ConstantIndexOp::create(
                                              b, loc, op.getKSlices());
    return {mTiles, blocks, slices};
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto info =
        lookupGpuTargetInfoOrEmit(module, target, "qmat-lower-gemv-to-gpu");
    if (!info)
      return signalPassFailure();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<GemvOp, FusedGemmOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      LogicalResult lowered = isa<GemvOp>(op)
                                  ? lower(cast<GemvOp>(op), *info)
                                  : lower(cast<FusedGemmOp>(op), *info);
      if (failed(lowered))
        return signalPassFailure();
    }
  }

  template <typename OpT> LogicalResult lower(OpT op, const TargetInfo &info) {
    KernelConfigAttr config = op.getConfigAttr();
    if (!config)
      return op.emitOpError() << "has no #qmat.kernel_config to lower by "
                                 "(qmat-configure-kernels attaches one)";
    if (failed(checkMatrixInstruction(op, config, info)))
      return failure();
    GemvKernelSpec spec = GemvKernelSpec::get(op, config);
    if (!info.supportsDecode(op.getScheme().getElementFormat(), spec.decode)) {
      return op.emitOpError()
             << "decode '" << stringifyDecodeMethod(spec.decode)
             << "' is not available for "
             << stringifySchemeKind(op.getScheme().getKind()) << " on "
             << target;
    }
    int64_t warp = info.getWarpSize();
    if (spec.getThreads(warp) > GemvOp::kMaxBlockThreads) {
      InFlightDiagnostic diag = op.emitOpError();
      if (spec.mTiled)
        diag << "warps_n = " << spec.warpsN << " and ";
      return diag << "split_k = " << spec.splitK << " need"
                  << (spec.mTiled ? "" : "s") << " " << spec.getThreads(warp)
                  << " threads per block on " << target << " (" << warp
                  << "-lane warps), more than the " << GemvOp::kMaxBlockThreads
                  << (spec.mTiled ? " a block may take"
                                  : " a GEMV block may take");
    }
    gpu::GPUModuleOp kernels =
        getOrCreateKernelModule(op->template getParentOfType<ModuleOp>(), info);

    SmallVector<Value> args = {op.getA(), op.getWeights(), op.getScales()};
    if (op.getGlobalScale())
      args.push_back(op.getGlobalScale());
    if (op.getZeroPoints())
      args.push_back(op.getZeroPoints());
    if (op.getBias())
      args.push_back(op.getBias());
    args.push_back(op.getY());
    OpBuilder b(op);
    Location loc = op.getLoc();
    // Y is [M, N] with N free, so that every layer of this K shares it.
    FailureOr<SmallVector<Type>> argTypes =
        castToKernelArgs(b, op, args, {static_cast<unsigned>(args.size() - 1)});
    if (failed(argTypes))
      return failure();
    // The specialized form loads its activations through a tensor map,
    // passed by value after Y, each block of a multicast cluster its share
    // of the M tile's rows.
    if (spec.specialized) {
      args.push_back(TensorMapOp::create(
          b, loc, args.front(),
          b.getDenseI64ArrayAttr(
              {kSpecializedStageK, spec.maxM / spec.multicast})));
      argTypes->push_back(args.back().getType());
    }
    gpu::GPUFuncOp kernel =
        getOrCreateKernel(kernels, info, spec, config, *argTypes, loc);

    Value rows = memref::DimOp::create(b, loc, args[1], 0);
    int64_t perBlock = spec.getRowsPerBlock();
    Value blocks = arith::CeilDivUIOp::create(
        b, loc, rows, arith::ConstantIndexOp::create(b, loc, perBlock));
    // Whole clusters: a block past the last rows still brings in its share
    // of its cluster's activations (and stores nothing).
    if (spec.multicast > 1) {
      Value multicast = arith::ConstantIndexOp::create(b, loc, spec.multicast);
      blocks = arith::MulIOp::create(
          b, loc, arith::CeilDivUIOp::create(b, loc, blocks, multicast),
          multicast);
    }
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    gpu::KernelDim3 grid = getGrid(b, loc, op, blocks, one);
    Value threads = arith::ConstantIndexOp::create(
        b, loc, spec.getThreads(info.getWarpSize()));
    Value dynamicShared;
    if (spec.dynamicShared)
      dynamicShared = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                   spec.getSharedBytes());
    auto launch = gpu::LaunchFuncOp::create(b, loc, kernel, grid,
                                            gpu::KernelDim3{threads, one, one},
                                            dynamicShared, args);
    // The launcher's tables describe each kernel from its config.
    launch->setAttr(KernelConfigAttr::getLaunchAttrName(), config);
    op.erase();
    return success();
  }
};

} // namespace
