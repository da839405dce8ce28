//===- NVVMPatterns.cpp - qmat's target-level ops -> NVVM -----------------===//
//
// The lowering of the qmat ops that NVIDIA GPUs run as an instruction of
// their own: NVVM ops where NVVM has the instruction as wanted, inline PTX
// where it does not.
//
//===----------------------------------------------------------------------===//

#include "qmat/Dialect/QMat/IR/QMatOps.h"
#include "qmat/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

/// qmat.byte_perm has prmt's default-mode semantics by definition.
struct BytePermToPrmt : OpRewritePattern<BytePermOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BytePermOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::PermuteOp>(
        op, rewriter.getI32Type(), op.getLow(), op.getHigh(), op.getSelector(),
        NVVM::PermuteMode::DEFAULT);
    return success();
  }
};

/// An inline PTX op. Pure: the compiler may merge, drop or move it like
/// arithmetic; otherwise it stays where it is and apart from identical ones.
LLVM::InlineAsmOp createInlineAsm(OpBuilder &builder, Location loc,
                                  TypeRange results, ValueRange operands,
                                  StringRef text, StringRef constraints,
                                  bool pure) {
  return LLVM::InlineAsmOp::create(
      builder, loc, results, operands, builder.getStringAttr(text),
      builder.getStringAttr(constraints),
      /*has_side_effects=*/pure ? UnitAttr() : builder.getUnitAttr(),
      /*is_align_stack=*/UnitAttr(),
      LLVM::TailCallKindAttr::get(builder.getContext(),
                                  LLVM::tailcallkind::TailCallKind::None),
      LLVM::AsmDialectAttr(), ArrayAttr());
}

/// One lop3 through inline PTX: LLVM knows the low bits of a shifted
/// operand are zero and narrows that operand's mask, after which ptxas no
/// longer sees a select under one immediate and may emit two LOP3s. The asm
/// is free of side effects (the compiler may merge, drop or move it).
struct BitSelectToLop3 : OpRewritePattern<BitSelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BitSelectOp op,
                                PatternRewriter &rewriter) const override {
    // Truth table of (a & c) | (b & ~c) over a = 0xF0, b = 0xCC, c = 0xAA.
    std::string text = llvm::formatv("lop3.b32 $0, $1, $2, {0:x}, 0xE4;",
                                     uint32_t(op.getMask()))
                           .str();
    rewriter.replaceOp(
        op, createInlineAsm(rewriter, op.getLoc(), rewriter.getI32Type(),
                            ValueRange{op.getIfSet(), op.getIfClear()}, text,
                            "=r,r,r", /*pure=*/true));
    return success();
  }
};

/// ld.global.L1::no_allocate.L2::128B (sm_75 on), through inline PTX: the
/// NVPTX backend drops `!nontemporal` on loads and has no prefetch size.
/// The asm is free of side effects, as the op is.
struct LoadStreamingToPtx : OpRewritePattern<LoadStreamingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadStreamingOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto words = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                                  {i32, i32, i32, i32});
    auto load = createInlineAsm(
        rewriter, loc, words, op.getAddress(),
        "ld.global.L1::no_allocate.L2::128B.v4.b32 {$0, $1, $2, $3}, [$4];",
        "=r,=r,=r,=r,l", /*pure=*/true);
    SmallVector<Value> parts;
    for (int64_t i = 0; i < 4; ++i)
      parts.push_back(
          LLVM::ExtractValueOp::create(rewriter, loc, load.getResult(0), i));
    Value vector = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({4}, i32), parts);
    rewriter.replaceOpWithNewOp<vector::BitCastOp>(op, op.getType(), vector);
    return success();
  }
};

/// A pair as the i32 register PTX takes; f32 and i32 as they are.
Value toRegister(OpBuilder &builder, Location loc, Value value) {
  if (!isa<VectorType>(value.getType()))
    return value;
  Value word = vector::BitCastOp::create(
      builder, loc, VectorType::get({1}, builder.getI32Type()), value);
  return vector::ExtractOp::create(builder, loc, word, ArrayRef<int64_t>{0});
}

Value fromRegister(OpBuilder &builder, Location loc, Value reg, Type type) {
  if (!isa<VectorType>(type))
    return reg;
  Value word = vector::FromElementsOp::create(
      builder, loc, VectorType::get({1}, builder.getI32Type()), reg);
  return vector::BitCastOp::create(builder, loc, type, word);
}

/// `text` with `values` as read-write operands $0 .. (tied), then `inputs`
/// as read-only ones; returns the values as passed through. Every piece of
/// the warpgroup's matrix instructions is one of these: each has side
/// effects and clobbers memory, which keeps them in order with each other,
/// with the barriers and with the stores of the tiles they read.
SmallVector<Value> emitTiedPtx(OpBuilder &builder, Location loc, StringRef text,
                               ValueRange values, ValueRange inputs = {}) {
  SmallVector<Value> operands;
  SmallVector<Type> types;
  std::string outs, ties, ins;
  for (auto [i, value] : llvm::enumerate(values)) {
    Value reg = toRegister(builder, loc, value);
    StringRef kind = reg.getType().isF32() ? "f" : "r";
    outs += (i ? ",=" : "=") + kind.str();
    ties += "," + std::to_string(i);
    operands.push_back(reg);
    types.push_back(reg.getType());
  }
  for (Value input : inputs) {
    Type type = input.getType();
    ins += type.isInteger(64) ? ",l" : type.isInteger(16) ? ",h" : ",r";
    operands.push_back(input);
  }
  std::string constraints = outs + ties + ins + ",~{memory}";
  if (values.empty())
    constraints = ins.empty() ? "~{memory}" : ins.substr(1) + ",~{memory}";
  SmallVector<Type> results;
  if (!types.empty())
    results.push_back(
        LLVM::LLVMStructType::getLiteral(builder.getContext(), types));
  auto asmOp = createInlineAsm(builder, loc, results, operands, text,
                               constraints, /*pure=*/false);
  SmallVector<Value> out;
  for (auto [i, value] : llvm::enumerate(values))
    out.push_back(fromRegister(
        builder, loc,
        LLVM::ExtractValueOp::create(builder, loc, asmOp.getResult(0), i),
        value.getType()));
  return out;
}

/// mma.sync m16n8k16 through NVVM's op; its bf16 flavour takes the pairs as
/// i32 registers.
struct WarpMmaToMmaSync : OpRewritePattern<WarpMmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpMmaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element =
        cast<VectorType>(op.getA().front().getType()).getElementType();
    bool bf16 = element.isBF16();
    auto asOperand = [&](Value pair) {
      return bf16 ? toRegister(rewriter, loc, pair) : pair;
    };
    SmallVector<Value> a, b;
    for (Value v : op.getA())
      a.push_back(asOperand(v));
    for (Value v : op.getB())
      b.push_back(asOperand(v));
    Type f32 = rewriter.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                                       {f32, f32, f32, f32});
    NVVM::MMATypes type = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value result = NVVM::MmaOp::create(
        rewriter, loc, resultType, a, b, op.getAcc(), {16, 8, 16}, std::nullopt,
        std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> sums;
    for (int64_t i = 0; i < 4; ++i)
      sums.push_back(LLVM::ExtractValueOp::create(rewriter, loc, result, i));
    rewriter.replaceOp(op, sums);
    return success();
  }
};

/// The inline PTX of wgmma.mma_async m64nNk16 into fp32 (N = n): the sums
/// are $0 .. $n/2 - 1 (their tied inputs follow), `operands` the A and B
/// operands' text, the scale-d register (1: accumulate) $`scaleD`; A and B
/// unnegated, then `transposes` (B K-major, and A's where it is in memory).
static std::string getWarpgroupMmaPtx(int64_t n, Type element,
                                      StringRef operands, int64_t scaleD,
                                      StringRef transposes) {
  std::string sums;
  for (int64_t i = 0; i < n / 2; ++i)
    sums += (i ? ", $" : "$") + std::to_string(i);
  return llvm::formatv("{{\n.reg .pred p;\nsetp.ne.b32 p, ${0}, 0;\n"
                       "wgmma.mma_async.sync.aligned.m64n{1}k16.f32.{2}.{2} "
                       "{{{3}}, {4}, p, 1, 1, {5};\n}",
                       scaleD, n, element.isBF16() ? "bf16" : "f16", sums,
                       operands, transposes)
      .str();
}

/// wgmma.mma_async (sm_90a) through inline PTX: NVVM's op takes A from
/// workgroup memory alone, and the decoded weights are in registers.
struct WarpgroupMmaToPtx : OpRewritePattern<WarpgroupMmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupMmaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element =
        cast<VectorType>(op.getA().front().getType()).getElementType();
    int64_t n = 2 * static_cast<int64_t>(op.getAcc().size());
    // A at $n .. $n + 3, B's descriptor at $n + 4.
    std::string fragment;
    for (int64_t i = 0; i < 4; ++i)
      fragment += (i ? ", $" : "$") + std::to_string(n + i);
    std::string text = getWarpgroupMmaPtx(
        n, element, "{" + fragment + "}, $" + std::to_string(n + 4), n + 5,
        "0");
    SmallVector<Value> inputs;
    for (Value pair : op.getA())
      inputs.push_back(toRegister(rewriter, loc, pair));
    inputs.push_back(op.getB());
    inputs.push_back(
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 1));
    rewriter.replaceOp(op,
                       emitTiedPtx(rewriter, loc, text, op.getAcc(), inputs));
    return success();
  }
};

/// wgmma.mma_async (sm_90a) with both tiles in workgroup memory, through
/// inline PTX like its register-A form, so that both order alike with the
/// warpgroup's other pieces.
struct WarpgroupMmaSharedToPtx : OpRewritePattern<WarpgroupMmaSharedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupMmaSharedOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t n = 2 * static_cast<int64_t>(op.getAcc().size());
    // A's descriptor at $n, B's at $n + 1; both K-major.
    std::string text = getWarpgroupMmaPtx(
        n, op.getElementType(),
        "$" + std::to_string(n) + ", $" + std::to_string(n + 1), n + 2, "0, 0");
    SmallVector<Value> inputs = {
        op.getA(), op.getB(),
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 1)};
    rewriter.replaceOp(op,
                       emitTiedPtx(rewriter, loc, text, op.getAcc(), inputs));
    return success();
  }
};

/// The 32-bit workgroup-memory address of element `index` of `memref`.
Value sharedAddress(OpBuilder &builder, Location loc, Value memref,
                    Value index) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  Value address = arith::AddIOp::create(
      builder, loc, base,
      arith::MulIOp::create(
          builder, loc, index,
          arith::ConstantIndexOp::create(builder, loc, bytes)));
  return arith::IndexCastOp::create(builder, loc, builder.getI32Type(),
                                    address);
}

Value toI32(OpBuilder &builder, Location loc, Value index) {
  return arith::IndexCastOp::create(builder, loc, builder.getI32Type(), index);
}

/// The barrier objects' instructions as PTX text (NVVM builds its try-wait
/// loop as PTX by a pass the pipeline does not run), ordered with the
/// stores around them by the memory clobber.
struct MBarrierInitToPtx : OpRewritePattern<MBarrierInitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierInitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value count = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI32Type(), op.getCount());
    emitTiedPtx(
        rewriter, loc, "mbarrier.init.shared::cta.b64 [$0], $1;", ValueRange{},
        {sharedAddress(rewriter, loc, op.getBarriers(), op.getIndex()), count});
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveToPtx : OpRewritePattern<MBarrierArriveOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierArriveOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> inputs = {
        sharedAddress(rewriter, loc, op.getBarriers(), op.getIndex())};
    StringRef text = "mbarrier.arrive.shared::cta.b64 _, [$0];";
    if (std::optional<int64_t> bytes = op.getExpect()) {
      text = "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;";
      inputs.push_back(arith::ConstantIntOp::create(
          rewriter, loc, rewriter.getI32Type(), *bytes));
    }
    emitTiedPtx(rewriter, loc, text, ValueRange{}, inputs);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitToPtx : OpRewritePattern<MBarrierWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierWaitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The label is local to the braces: every copy of the loop has its own.
    emitTiedPtx(rewriter, loc,
                "{\n"
                ".reg .pred done;\n"
                "retry:\n"
                "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n"
                "@!done bra retry;\n"
                "}",
                ValueRange{},
                {sharedAddress(rewriter, loc, op.getBarriers(), op.getIndex()),
                 op.getParity()});
    rewriter.eraseOp(op);
    return success();
  }
};

/// cp.async.bulk.tensor (sm_90 on). The shared::cluster destination and
/// barrier take this block's own addresses (with a multicast mask, the
/// instruction delivers to the same offsets of every block of the mask);
/// the map's generic address is its by-value parameter's.
struct TensorLoadToPtx : OpRewritePattern<TensorLoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TensorLoadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value map = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                         op.getMap());
    SmallVector<Value> inputs = {
        sharedAddress(rewriter, loc, op.getDst(), op.getOffset()), map,
        toI32(rewriter, loc, op.getInner()),
        toI32(rewriter, loc, op.getOuter()),
        sharedAddress(rewriter, loc, op.getBarriers(), op.getIndex())};
    std::string text = "cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                       ".mbarrier::complete_tx::bytes";
    if (std::optional<int64_t> mask = op.getMulticast()) {
      text += ".multicast::cluster [$0], [$1, {$2, $3}], [$4], $5;";
      inputs.push_back(arith::ConstantIntOp::create(
          rewriter, loc, rewriter.getI16Type(), *mask));
    } else {
      text += " [$0], [$1, {$2, $3}], [$4];";
    }
    emitTiedPtx(rewriter, loc, text, ValueRange{}, inputs);
    rewriter.eraseOp(op);
    return success();
  }
};

/// mapa.shared::cluster turns this block's barrier address into the peer's,
/// at which the arrival counts with cluster-scope release (sm_90 on).
struct MBarrierArriveClusterToPtx : OpRewritePattern<MBarrierArriveClusterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierArriveClusterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    emitTiedPtx(rewriter, loc,
                "{\n"
                ".reg .b32 peer;\n"
                "mapa.shared::cluster.u32 peer, $0, $1;\n"
                "mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
                "[peer];\n"
                "}",
                ValueRange{},
                {sharedAddress(rewriter, loc, op.getBarriers(), op.getIndex()),
                 toI32(rewriter, loc, op.getRank())});
    rewriter.eraseOp(op);
    return success();
  }
};

/// mapa.shared::cluster turns this block's workgroup address into the
/// peer's, which ld.shared::cluster reads (sm_90 on). The four results are
/// tied operands $0 .. $3 (their inputs $4 .. $7), the address and rank
/// $8 and $9.
struct LoadClusterPeerToPtx : OpRewritePattern<LoadClusterPeerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadClusterPeerOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value zero = arith::ConstantFloatOp::create(
        rewriter, loc, rewriter.getF32Type(), APFloat(0.0f));
    SmallVector<Value> lanes = emitTiedPtx(
        rewriter, loc,
        "{\n"
        ".reg .b32 peer;\n"
        "mapa.shared::cluster.u32 peer, $8, $9;\n"
        "ld.shared::cluster.v4.f32 {$0, $1, $2, $3}, [peer];\n"
        "}",
        ValueRange{zero, zero, zero, zero},
        {sharedAddress(rewriter, loc, op.getSource(), op.getIndex()),
         toI32(rewriter, loc, op.getRank())});
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, op.getResult().getType(), lanes);
    return success();
  }
};

/// The PTX statement of each ordering op: the warpgroup's, and the cluster
/// barrier's arrive (release) and wait (acquire).
std::string orderingPtx(WarpgroupFenceOp) {
  return "wgmma.fence.sync.aligned;";
}
std::string orderingPtx(WarpgroupCommitOp) {
  return "wgmma.commit_group.sync.aligned;";
}
std::string orderingPtx(WarpgroupWaitOp op) {
  return llvm::formatv("wgmma.wait_group.sync.aligned {0};", op.getPending())
      .str();
}
std::string orderingPtx(AsyncProxyFenceOp) {
  return "fence.proxy.async.shared::cta;";
}
std::string orderingPtx(MBarrierInitFenceOp) {
  return "fence.mbarrier_init.release.cluster;";
}
std::string orderingPtx(ClusterBarrierOp) {
  return "barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;";
}

/// An ordering op as its PTX statement, ordered with the memory accesses
/// around it by the memory clobber, the values it orders (its operands,
/// which it returns) tied through it.
template <typename OpTy> struct OrderingToPtx : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, emitTiedPtx(rewriter, op.getLoc(), orderingPtx(op),
                                       op->getOperands()));
    return success();
  }
};

/// A side effect keeps LLVM from moving the copy, and a text of its own per
/// arm from hoisting the arms' identical copies together; ptxas sees a
/// plain move and coalesces it away.
struct PinnedCopyToMov : OpRewritePattern<PinnedCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PinnedCopyOp op,
                                PatternRewriter &rewriter) const override {
    std::string text =
        llvm::formatv("mov.b32 $0, $1; // arm {0}", op.getArm()).str();
    rewriter.replaceOp(
        op, createInlineAsm(rewriter, op.getLoc(), rewriter.getI32Type(),
                            ValueRange{op.getValue()}, text, "=r,r",
                            /*pure=*/false));
    return success();
  }
};

/// cp.async.cg through nvgpu's op, which NVVM's lowering of nvgpu turns
/// into the intrinsic; the commit and the wait are NVVM's own, because
/// nvgpu.device_async_wait waits for a group's token and a pipelined loop
/// waits for a group committed one iteration earlier.
struct AsyncCopyToNVGPU : OpRewritePattern<AsyncCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AsyncCopyOp op,
                                PatternRewriter &rewriter) const override {
    nvgpu::DeviceAsyncCopyOp::create(
        rewriter, op.getLoc(), op.getDst(), op.getDstIndices(), op.getSrc(),
        op.getSrcIndices(), rewriter.getIndexAttr(op.getElements()),
        op.getSrcElements(), /*bypassL1=*/rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitToNVVM : OpRewritePattern<AsyncCommitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AsyncCommitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct AsyncWaitToNVVM : OpRewritePattern<AsyncWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AsyncWaitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

} // namespace

void mlir::qmat::populateQMatToNVVMPatterns(RewritePatternSet &patterns,
                                            bool warpgroupMma, bool clusters) {
  patterns.add<BytePermToPrmt, BitSelectToLop3, LoadStreamingToPtx,
               WarpMmaToMmaSync, PinnedCopyToMov, AsyncCopyToNVGPU,
               AsyncCommitToNVVM, AsyncWaitToNVVM>(patterns.getContext());
  if (clusters)
    patterns
        .add<OrderingToPtx<ClusterBarrierOp>, LoadClusterPeerToPtx,
             OrderingToPtx<MBarrierInitFenceOp>, MBarrierArriveClusterToPtx>(
            patterns.getContext());
  if (warpgroupMma)
    patterns
        .add<WarpgroupMmaToPtx, WarpgroupMmaSharedToPtx,
             OrderingToPtx<WarpgroupFenceOp>, OrderingToPtx<WarpgroupCommitOp>,
             OrderingToPtx<WarpgroupWaitOp>, OrderingToPtx<AsyncProxyFenceOp>,
             MBarrierInitToPtx, MBarrierArriveToPtx, MBarrierWaitToPtx,
             TensorLoadToPtx>(patterns.getContext());
}
