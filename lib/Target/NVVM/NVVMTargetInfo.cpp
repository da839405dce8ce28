//===- NVVMTargetInfo.cpp - NVIDIA targets (sm_80 .. sm_120) --------------===//

#include "qmat/Target/TargetInfo.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/Passes.h"
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

class NVVMTargetInfo final : public TargetInfo {
public:
  explicit NVVMTargetInfo(Chip chip) : chip(chip) {}

  std::optional<Chip> getChip() const override { return chip; }
  unsigned getWarpSize() const override { return 32; }

  /// Blackwell (sm_100, sm_120) converts e2m1 pairs in hardware; before it
  /// the conversion intrinsic is a branchy software emulation.
  bool hasNativeFp4() const {
    return chip == Chip::sm_100 || chip == Chip::sm_120;
  }

  bool supportsDecode(ElementFormat format,
                      DecodeMethod method) const override {
    if (method == DecodeMethod::native)
      return (format == ElementFormat::e2m1 && hasNativeFp4()) ||
             (format == ElementFormat::e4m3 && chip != Chip::sm_80);
    return TargetInfo::supportsDecode(format, method);
  }

  DecodeMethod getDefaultDecode(ElementFormat format) const override {
    switch (format) {
    case ElementFormat::e2m1:
      return hasNativeFp4() ? DecodeMethod::native : DecodeMethod::lookup;
    case ElementFormat::u4:
      return DecodeMethod::magic_bias;
    case ElementFormat::e4m3:
      return DecodeMethod::arith;
    }
    return DecodeMethod::arith;
  }

  /// cvt.rn.{f16,bf16}.f32 return the canonical NaN 0x7FFF for every NaN
  /// input: every dequant kernel matched the reference bit for bit on the
  /// H200 with NaN scales and NaN global scales (bench/README.md,
  /// "Measurements behind the compiler's choices").
  bool truncationCanonicalizesNaN() const override { return true; }

  /// Threads one SM holds at once: 1536 on sm_89 and sm_120, 2048 on the
  /// data-centre parts.
  int64_t maxThreadsPerSM() const {
    return chip == Chip::sm_89 || chip == Chip::sm_120 ? 1536 : 2048;
  }

  /// Asks ptxas for a register budget that keeps `residentThreads` (0: a
  /// full SM) resident (.minnctapersm). Callers opt in per kernel: on the
  /// H200 the dequant kernel ran at 75% occupancy with 40 registers and got
  /// slower, not faster, when squeezed to 32 (a spill).
  void annotateKernel(Operation *kernel, int64_t threads,
                      int64_t residentThreads) const override {
    // Resident blocks per SM stop at 32 (24 on sm_89/sm_120) whatever the
    // block size.
    int64_t maxBlocks = maxThreadsPerSM() == 1536 ? 24 : 32;
    int64_t resident = residentThreads > 0
                           ? std::min(residentThreads, maxThreadsPerSM())
                           : maxThreadsPerSM();
    int64_t blocks = std::min(resident / threads, maxBlocks);
    if (blocks > 0)
      kernel->setAttr(
          "nvvm.minctasm",
          IntegerAttr::get(IntegerType::get(kernel->getContext(), 32), blocks));
  }

  Value emitNativeFp4x2ToF16x2(OpBuilder &builder, Location loc,
                               Value packedByte) const override {
    auto type = VectorType::get({2}, builder.getF16Type());
    return NVVM::ConvertF4x2ToF16x2Op::create(
        builder, loc, type, packedByte, builder.getBoolAttr(false),
        TypeAttr::get(builder.getType<Float4E2M1FNType>()));
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry
        .insert<NVVM::NVVMDialect, LLVM::LLVMDialect, nvgpu::NVGPUDialect>();
  }

  bool hasWarpMma16x8x16() const override { return true; }

  /// cvt.rn.f16x2.e4m3x2 exists from sm_89 (Ada) on.
  Value emitE4M3x2ToF16x2(OpBuilder &builder, Location loc,
                          Value bytes) const override {
    if (chip == Chip::sm_80)
      return Value();
    auto type = VectorType::get({2}, builder.getF16Type());
    return NVVM::ConvertF8x2ToF16x2Op::create(
        builder, loc, type, bytes, builder.getBoolAttr(false),
        TypeAttr::get(builder.getType<Float8E4M3FNType>()));
  }

  SmallVector<Value> emitWarpMma16x8x16(OpBuilder &builder, Location loc,
                                        ValueRange a, ValueRange b,
                                        ValueRange c) const override {
    MLIRContext *context = builder.getContext();
    Type element = cast<VectorType>(a.front().getType()).getElementType();
    bool bf16 = element.isBF16();
    // The bf16 flavour takes its pairs as i32 registers.
    auto asOperand = [&](Value pair) {
      return bf16 ? toRegister(builder, loc, pair) : pair;
    };
    SmallVector<Value> aOps, bOps;
    for (Value v : a)
      aOps.push_back(asOperand(v));
    for (Value v : b)
      bOps.push_back(asOperand(v));
    Type f32 = builder.getF32Type();
    auto resultType =
        LLVM::LLVMStructType::getLiteral(context, {f32, f32, f32, f32});
    NVVM::MMATypes type = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value result = NVVM::MmaOp::create(
        builder, loc, resultType, aOps, bOps, c, {16, 8, 16}, std::nullopt,
        std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(builder, loc, result, i));
    return out;
  }

  /// One PTX instruction the NVPTX backend would not emit as wanted. Pure:
  /// the compiler may merge, drop or move it like arithmetic; otherwise it
  /// stays where it is and apart from identical ones.
  static Value createInlinePtx(OpBuilder &builder, Location loc, Type result,
                               ValueRange operands, StringRef text,
                               StringRef constraints, bool pure = true) {
    return createInlineAsm(builder, loc, result, operands, text, constraints,
                           pure)
        .getResult(0);
  }

  /// wgmma.mma_async (sm_90a only) through inline PTX: NVVM's op takes A
  /// from workgroup memory alone, and the decoded weights are in registers.
  /// Every piece has side effects and clobbers memory, which keeps the
  /// instructions in order with each other, with the barriers and with the
  /// stores of the tiles they read.
  bool hasWarpgroupMma() const override { return chip == Chip::sm_90a; }

  /// A pair as the i32 register PTX takes; f32 and i32 as they are.
  static Value toRegister(OpBuilder &builder, Location loc, Value value) {
    if (!isa<VectorType>(value.getType()))
      return value;
    Value word = vector::BitCastOp::create(
        builder, loc, VectorType::get({1}, builder.getI32Type()), value);
    return vector::ExtractOp::create(builder, loc, word, ArrayRef<int64_t>{0});
  }
  static Value fromRegister(OpBuilder &builder, Location loc, Value reg,
                            Type type) {
    if (!isa<VectorType>(type))
      return reg;
    Value word = vector::FromElementsOp::create(
        builder, loc, VectorType::get({1}, builder.getI32Type()), reg);
    return vector::BitCastOp::create(builder, loc, type, word);
  }

  /// `text` with `values` as read-write operands $0 .. (tied), then
  /// `inputs` as read-only ones; returns the values as passed through.
  static SmallVector<Value> emitTiedPtx(OpBuilder &builder, Location loc,
                                        StringRef text, ValueRange values,
                                        ValueRange inputs = {}) {
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
      ins += input.getType().isInteger(64) ? ",l" : ",r";
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

  SmallVector<Value> emitWarpgroupMma(OpBuilder &builder, Location loc,
                                      ValueRange a, Value bDescriptor,
                                      ValueRange acc) const override {
    Type element = cast<VectorType>(a.front().getType()).getElementType();
    int64_t n = 2 * static_cast<int64_t>(acc.size());
    std::string sums, fragment;
    for (int64_t i = 0; i < n / 2; ++i)
      sums += (i ? ", $" : "$") + std::to_string(i);
    for (int64_t i = 0; i < 4; ++i)
      fragment += (i ? ", $" : "$") + std::to_string(n + i);
    // Operands: the sums $0 .., their tied inputs, then A at $n, B's
    // descriptor at $n + 4 and the scale-d register (1: accumulate) at
    // $n + 5; A and B unnegated, B K-major.
    std::string text =
        llvm::formatv("{{\n.reg .pred p;\nsetp.ne.b32 p, ${0}, 0;\n"
                      "wgmma.mma_async.sync.aligned.m64n{1}k16.f32.{2}.{2} "
                      "{{{3}}, {{{4}}, ${5}, p, 1, 1, 0;\n}",
                      n + 5, n, element.isBF16() ? "bf16" : "f16", sums,
                      fragment, n + 4)
            .str();
    SmallVector<Value> inputs;
    for (Value pair : a)
      inputs.push_back(toRegister(builder, loc, pair));
    inputs.push_back(bDescriptor);
    inputs.push_back(
        arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), 1));
    return emitTiedPtx(builder, loc, text, acc, inputs);
  }

  SmallVector<Value> emitWarpgroupFence(OpBuilder &builder, Location loc,
                                        ValueRange values) const override {
    return emitTiedPtx(builder, loc, "wgmma.fence.sync.aligned;", values);
  }

  void emitWarpgroupCommit(OpBuilder &builder, Location loc) const override {
    emitTiedPtx(builder, loc, "wgmma.commit_group.sync.aligned;", {});
  }

  SmallVector<Value> emitWarpgroupWait(OpBuilder &builder, Location loc,
                                       int64_t pending,
                                       ValueRange sums) const override {
    return emitTiedPtx(
        builder, loc,
        llvm::formatv("wgmma.wait_group.sync.aligned {0};", pending).str(),
        sums);
  }

  void emitAsyncProxyFence(OpBuilder &builder, Location loc) const override {
    emitTiedPtx(builder, loc, "fence.proxy.async.shared::cta;", {});
  }

  /// qmat.load_streaming keeps its data out of L1 (LoadStreamingToPtx).
  bool hasStreamingLoad() const override { return true; }

  /// cp.async (sm_80 and later), through nvgpu's ops where they say it:
  /// nvgpu.device_async_wait takes the token of the group to wait for, but
  /// a pipelined loop waits for a group committed one iteration earlier,
  /// so the wait is NVVM's own.
  bool hasAsyncCopy() const override { return true; }
  void emitAsyncCopy16(OpBuilder &builder, Location loc, Value dst,
                       ValueRange dstIndices, Value src, ValueRange srcIndices,
                       int64_t elements) const override {
    nvgpu::DeviceAsyncCopyOp::create(builder, loc, dst, dstIndices, src,
                                     srcIndices, builder.getIndexAttr(elements),
                                     /*srcElements=*/Value(),
                                     /*bypassL1=*/builder.getUnitAttr());
  }
  void emitAsyncCommit(OpBuilder &builder, Location loc) const override {
    NVVM::CpAsyncCommitGroupOp::create(builder, loc);
  }
  void emitAsyncWait(OpBuilder &builder, Location loc,
                     int64_t pending) const override {
    NVVM::CpAsyncWaitGroupOp::create(builder, loc, pending);
  }

  /// The full mask: the GEMV calls it where the whole warp runs (its
  /// matrix instructions need that too).
  Value emitWarpAll(OpBuilder &builder, Location loc,
                    Value predicate) const override {
    Value fullWarp =
        arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), -1);
    return NVVM::VoteSyncOp::create(builder, loc, builder.getI1Type(), fullWarp,
                                    predicate, NVVM::VoteSyncKind::all);
  }

  Value emitPinnedCopy(OpBuilder &builder, Location loc, Value value,
                       unsigned arm) const override {
    // A side effect keeps LLVM from moving it, and a text of its own per arm
    // from hoisting the arms' identical copies together; ptxas sees a plain
    // move and coalesces it away.
    return createInlinePtx(
        builder, loc, builder.getI32Type(), ValueRange{value},
        llvm::formatv("mov.b32 $0, $1; // arm {0}", arm).str(), "=r,r",
        /*pure=*/false);
  }

  void
  populateLowerToTargetPatterns(RewritePatternSet &patterns) const override {
    patterns.add<BytePermToPrmt, BitSelectToLop3, LoadStreamingToPtx>(
        patterns.getContext());
  }

  /// The arch-specific (`a`) variants carry the Blackwell conversions.
  std::string getChipString() const {
    switch (chip) {
    case Chip::sm_100:
      return "sm_100a";
    case Chip::sm_120:
      return "sm_120a";
    default:
      return stringifyChip(chip).str();
    }
  }

  /// The PTX version the chip's instructions need: the e2m1 conversions 8.8,
  /// cvt.rn.f16x2.e4m3x2 8.1 on sm_89 (the NVPTX backend cannot select it
  /// below that and aborts), 8.0 otherwise.
  StringRef getPtxFeature() const {
    if (hasNativeFp4())
      return "+ptx88";
    return chip == Chip::sm_89 ? "+ptx81" : "+ptx80";
  }

  Attribute getGpuModuleTarget(MLIRContext *context) const override {
    context->getOrLoadDialect<NVVM::NVVMDialect>();
    return NVVM::NVVMTargetAttr::get(context, /*optLevel=*/3,
                                     "nvptx64-nvidia-cuda", getChipString(),
                                     getPtxFeature());
  }

  void buildGpuModuleToLLVMPipeline(OpPassManager &pm) const override {
    ConvertGpuOpsToNVVMOpsOptions options;
    options.indexBitwidth = 64;
    // nvgpu's ops first: their NVVM forms then lower with everything else.
    pm.nest<gpu::GPUModuleOp>().addPass(createConvertNVGPUToNVVMPass());
    addGpuModuleLowering(pm, createConvertGpuOpsToNVVMOps(options));
  }

private:
  Chip chip;
};

} // namespace

std::unique_ptr<TargetInfo> mlir::qmat::createNVVMTargetInfo(Chip chip) {
  return std::make_unique<NVVMTargetInfo>(chip);
}
