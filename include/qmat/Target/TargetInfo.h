//===- TargetInfo.h - What common lowering may ask of a target --*- C++ -*-===//
//
// The common lowering (Conversion/QMatToGPU, Transforms) never names a
// vendor: it asks a TargetInfo. Everything vendor-specific lives behind this
// interface in lib/Target/<Vendor>, as in Triton's TargetInfoBase.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_TARGET_TARGETINFO_H
#define QMAT_TARGET_TARGETINFO_H

#include "qmat/Dialect/QMat/IR/QMatOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <memory>

namespace mlir::qmat {

class TargetInfo {
public:
  virtual ~TargetInfo();

  /// The chip this describes (the host model describes none).
  virtual std::optional<Chip> getChip() const = 0;
  /// Threads that execute in lock step (warp or wavefront).
  virtual unsigned getWarpSize() const = 0;

  /// Whether `method` can decode `format` here. The base answers for the
  /// rewrites built from integer and byte_perm arithmetic, which every
  /// target runs; targets add their native conversions.
  virtual bool supportsDecode(ElementFormat format, DecodeMethod method) const;
  /// The rewrite used when nothing is forced: the fastest exact one.
  virtual DecodeMethod getDefaultDecode(ElementFormat format) const = 0;

  /// Whether rounding fp32 to f16/bf16 already turns every NaN into the
  /// canonical 0x7FFF, so that kernels need not select it themselves.
  virtual bool truncationCanonicalizesNaN() const { return false; }

  /// Adds the target's occupancy hints to a kernel of `threads` threads per
  /// block: a register budget that lets `residentThreads` threads per SM be
  /// resident at once (0: as many as the SM holds).
  virtual void annotateKernel(Operation *kernel, int64_t threads,
                              int64_t residentThreads) const {}

  /// Emits the native conversion of one packed byte of e2m1 codes into two
  /// f16 values (vector<2xf16>, low nibble first). Only called when
  /// supportsDecode(e2m1, native).
  virtual Value emitNativeFp4x2ToF16x2(OpBuilder &builder, Location loc,
                                       Value packedByte) const;

  /// Dialects whose ops this target's hooks create (loaded before a pass
  /// that calls them runs).
  virtual void getDependentDialects(DialectRegistry &registry) const {}

  /// Whether warps have a matrix instruction multiplying a 16x16 tile of
  /// f16/bf16 (A, row major) by a 16x8 tile (B) into fp32, with the lane
  /// ownership of PTX's mma.m16n8k16: lane l holds A rows l/4 and l/4 + 8 at
  /// K positions 2(l%4) + {0, 1, 8, 9}, B column l/4 at the same K
  /// positions, and C rows l/4, l/4 + 8 at columns 2(l%4) + {0, 1}.
  virtual bool hasWarpMma16x8x16() const { return false; }
  /// C + A * B for one warp: `a` is four vector<2xT> (row r K pair p0, row
  /// r+8 p0, row r p1, row r+8 p1), `b` two vector<2xT> (p0, p1), `c` four
  /// f32; returns the four f32 results.
  virtual SmallVector<Value> emitWarpMma16x8x16(OpBuilder &builder,
                                                Location loc, ValueRange a,
                                                ValueRange b,
                                                ValueRange c) const;

  /// Whether wavefronts of 64 lanes have a matrix instruction multiplying a
  /// 16x16 tile of f16/bf16 (A, rows x K) by a 16x16 tile (B, K x columns)
  /// into fp32 with the lane ownership of CDNA's v_mfma_f32_16x16x16: lane
  /// l holds A row l % 16 and B column l % 16 at K positions 4 (l / 16) +
  /// {0..3}, and D column l % 16 at rows 4 (l / 16) + {0..3}.
  virtual bool hasWaveMma16x16x16() const { return false; }
  /// C + A * B for one wavefront: `a`, `b` vector<4xT>, `c` vector<4xf32>.
  virtual Value emitWaveMma16x16x16(OpBuilder &builder, Location loc, Value a,
                                    Value b, Value c) const;
  /// Whether four consecutive warps (a warpgroup, the first warp's index a
  /// multiple of 4) have an asynchronous matrix instruction multiplying a
  /// 64x16 tile of f16/bf16 A held in registers by a 16xN tile of B read
  /// from workgroup memory into fp32 (PTX's wgmma.mma_async m64nNk16 on
  /// sm_90a): warp w of the group holds A rows 16w .. 16w + 15 as the
  /// 16x8x16 instruction's A fragment, and the sums of those rows as that
  /// instruction's C fragments, one per 8 columns.
  virtual bool hasWarpgroupMma() const { return false; }
  /// Starts `acc` + A * B for the warpgroup: `a` four vector<2xT> as for
  /// emitWarpMma16x8x16, `bDescriptor` the i64 descriptor of B's tile in
  /// workgroup memory (K-major, not swizzled), `acc` N / 2 f32. The sums it
  /// returns may be passed to further such instructions of the same shape,
  /// and read otherwise only after emitWarpgroupWait.
  virtual SmallVector<Value> emitWarpgroupMma(OpBuilder &builder, Location loc,
                                              ValueRange a, Value bDescriptor,
                                              ValueRange acc) const;
  /// Orders the warpgroup's register writes before its next matrix
  /// instructions; `values` (i32, f32 or vector<2 x f16/bf16>), the
  /// registers they read, come back as the values to pass them.
  virtual SmallVector<Value>
  emitWarpgroupFence(OpBuilder &builder, Location loc, ValueRange values) const;
  /// Closes the batch of matrix instructions the warpgroup started since the
  /// last one.
  virtual void emitWarpgroupCommit(OpBuilder &builder, Location loc) const;
  /// Waits until at most `pending` batches are in flight; `sums` (f32) come
  /// back readable.
  virtual SmallVector<Value> emitWarpgroupWait(OpBuilder &builder, Location loc,
                                               int64_t pending,
                                               ValueRange sums) const;
  /// Makes this thread's earlier stores to workgroup memory visible to the
  /// asynchronous matrix instructions (a barrier then shares that with the
  /// block).
  virtual void emitAsyncProxyFence(OpBuilder &builder, Location loc) const;

  /// Whether the decode GEMV has a matrix instruction here (either form).
  bool hasGemvMatrixInstruction() const {
    return hasWarpMma16x8x16() || hasWaveMma16x16x16();
  }
  /// Whether the tensor-core GEMV takes the warp form (the 16x8x16 mapping,
  /// which the whole-line layout rearranges): the wavefront form wins where
  /// a target has both.
  bool usesWarpMmaGemv() const {
    return hasWarpMma16x8x16() && !hasWaveMma16x16x16();
  }

  /// Two e4m3 bytes (vector<2xi8>) as two f16 values (vector<2xf16>), in
  /// one conversion instruction; null where the target has none.
  virtual Value emitE4M3x2ToF16x2(OpBuilder &builder, Location loc,
                                  Value bytes) const {
    return Value();
  }

  /// Whether `predicate` (i1) holds in every lane of the warp, as an i1 all
  /// lanes agree on (so that a branch on it keeps the warp converged for
  /// its matrix instructions); null where the target has no such vote.
  /// Every lane of the warp must reach it.
  virtual Value emitWarpAll(OpBuilder &builder, Location loc,
                            Value predicate) const {
    return Value();
  }

  /// `value` (i32) through a copy the compiler neither hoists nor merges
  /// with the copy of another `arm`, so that the two arms of a branch on
  /// emitWarpAll keep their own arithmetic on it instead of sharing it above
  /// the branch (where all of it would be live at once). `value` itself by
  /// default.
  virtual Value emitPinnedCopy(OpBuilder &builder, Location loc, Value value,
                               unsigned arm) const {
    return value;
  }

  /// Whether the target's lowering of qmat.load_streaming keeps the data
  /// out of L1 (otherwise the codes are read with plain vector loads).
  virtual bool hasStreamingLoad() const { return false; }

  /// Whether threads can copy global memory into workgroup memory
  /// asynchronously (emitAsyncCopy16 and its groups).
  virtual bool hasAsyncCopy() const { return false; }
  /// Starts a copy of 16 bytes (`elements` elements of the memrefs' type)
  /// from `src`[srcIndices] (global) to `dst`[dstIndices] (workgroup),
  /// both 16-byte aligned, that bypasses L1. The copies a thread started
  /// since its last emitAsyncCommit form a group.
  virtual void emitAsyncCopy16(OpBuilder &builder, Location loc, Value dst,
                               ValueRange dstIndices, Value src,
                               ValueRange srcIndices, int64_t elements) const;
  /// Closes the thread's current group of copies (possibly empty).
  virtual void emitAsyncCommit(OpBuilder &builder, Location loc) const;
  /// Waits until at most `pending` of the thread's most recent groups are
  /// still in flight; the others' bytes are then visible to this thread
  /// (a barrier makes them visible to the block).
  virtual void emitAsyncWait(OpBuilder &builder, Location loc,
                             int64_t pending) const;

  /// Rewrites vendor-neutral qmat ops (qmat.byte_perm) into this target's
  /// instructions.
  virtual void
  populateLowerToTargetPatterns(RewritePatternSet &patterns) const = 0;

  /// The attribute gpu.module carries so that gpu-module-to-binary can
  /// serialize it (#nvvm.target, #rocdl.target); null for the host.
  virtual Attribute getGpuModuleTarget(MLIRContext *context) const = 0;

  /// The toolkit directory gpu-module-to-binary needs to link this target's
  /// binaries (empty: its default).
  virtual std::string getBinaryToolkitPath() const { return {}; }

  /// Appends the passes that lower a gpu.module of this target (arith,
  /// vector, memref, gpu ops) to the vendor's LLVM dialect flavour.
  virtual void buildGpuModuleToLLVMPipeline(OpPassManager &pm) const = 0;
};

/// The gpu.module lowering every GPU target shares around its own
/// conversion pass: scf to cf (bounds guards are scf.if; the vendor
/// conversions take cf only), `vendorConversion`, then clean-up.
void addGpuModuleLowering(OpPassManager &pm,
                          std::unique_ptr<Pass> vendorConversion);

/// lookupTargetInfo that reports an unknown name as an error on `anchor`.
std::unique_ptr<TargetInfo> lookupTargetInfoOrEmit(Operation *anchor,
                                                   StringRef name);

/// lookupTargetInfo for a pass that needs a GPU: an unknown name or the
/// host model is reported on `anchor` as "<pass> needs a GPU target".
std::unique_ptr<TargetInfo>
lookupGpuTargetInfoOrEmit(Operation *anchor, StringRef name, StringRef pass);

/// The description of a GPU target (NVVM or ROCDL).
std::unique_ptr<TargetInfo> createTargetInfo(Chip chip);
/// The CPU model used to run the decode rewrites on the host, so that their
/// exactness is checked by `make check` without a GPU. qmat.byte_perm runs
/// as prmt's semantics in integer arithmetic, or as what
/// `populateBytePermPatterns` adds (a vendor's lowering with its
/// instruction emulated).
std::unique_ptr<TargetInfo> createHostTargetInfo(
    std::function<void(RewritePatternSet &)> populateBytePermPatterns = {});

/// Parses a target name ("sm_90", "gfx942", "host"); nullptr and a message in
/// `error` when unknown.
std::unique_ptr<TargetInfo> lookupTargetInfo(StringRef name,
                                             std::string &error);

// Vendor entry points, defined in lib/Target/<Vendor>.
std::unique_ptr<TargetInfo> createNVVMTargetInfo(Chip chip);
std::unique_ptr<TargetInfo> createROCDLTargetInfo(Chip chip);
/// The host model running the AMD lowering of qmat.byte_perm (the selector
/// translation for v_perm_b32, with v_perm_b32 emulated): target
/// "host-amdgcn".
std::unique_ptr<TargetInfo> createROCDLHostModelTargetInfo();
/// qmat.bit_select -> arith.andi / arith.ori and qmat.load_streaming -> a
/// plain 16-byte llvm.load (every target without an instruction of its own
/// for them).
void populateGenericLowerToTargetPatterns(RewritePatternSet &patterns);
/// qmat.byte_perm -> llvm.amdgcn.perm (or, with `emulateOnHost`, the same
/// selector translation followed by v_perm_b32 in integer arithmetic).
void populateBytePermToAMDGCNPermPatterns(RewritePatternSet &patterns,
                                          bool emulateOnHost);

} // namespace mlir::qmat

#endif // QMAT_TARGET_TARGETINFO_H
