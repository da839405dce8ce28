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

  /// Whether warps have qmat.warp_mma (PTX's mma.m16n8k16; the op's
  /// description gives the lanes' pieces).
  virtual bool hasWarpMma16x8x16() const { return false; }
  /// Whether wavefronts of 64 lanes have qmat.wave_mma (CDNA's
  /// v_mfma_f32_16x16x16).
  virtual bool hasWaveMma16x16x16() const { return false; }
  /// Whether warpgroups have qmat.warpgroup_mma and its ordering ops
  /// (warpgroup_fence, warpgroup_commit, warpgroup_wait,
  /// async_proxy_fence): PTX's wgmma.mma_async on sm_90a.
  virtual bool hasWarpgroupMma() const { return false; }

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

  /// Whether the target's lowering of qmat.load_streaming keeps the data
  /// out of L1 (otherwise the codes are read with plain vector loads).
  virtual bool hasStreamingLoad() const { return false; }

  /// Whether threads can copy global memory into workgroup memory
  /// asynchronously (qmat.async_copy, async_commit, async_wait).
  virtual bool hasAsyncCopy() const { return false; }

  /// Whether blocks form thread-block clusters whose blocks read each
  /// other's workgroup memory (qmat.cluster_barrier,
  /// qmat.load_cluster_peer, qmat.mbarrier_arrive_cluster, multicast
  /// tensor loads).
  virtual bool hasBlockClusters() const { return false; }
  /// Makes `kernel` run in clusters of `blocks` blocks along the grid's
  /// dimension `dimension` (0 x, 1 y, 2 z; hasBlockClusters).
  virtual void annotateClusterBlocks(Operation *kernel, unsigned dimension,
                                     int64_t blocks) const {}

  /// Rewrites qmat's instruction-level ops (qmat.byte_perm, the matrix
  /// ops, ...) into this target's instructions (qmat-lower-to-target).
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
/// qmat.bit_select -> arith.andi / arith.ori, qmat.load_streaming -> a
/// plain 16-byte llvm.load and qmat.pinned_copy -> its operand (every target
/// without an instruction of its own for them).
void populateGenericLowerToTargetPatterns(RewritePatternSet &patterns);
/// qmat.byte_perm -> llvm.amdgcn.perm (or, with `emulateOnHost`, the same
/// selector translation followed by v_perm_b32 in integer arithmetic).
void populateBytePermToAMDGCNPermPatterns(RewritePatternSet &patterns,
                                          bool emulateOnHost);
/// qmat.wave_mma -> amdgpu.mfma.
void populateWaveMmaToAMDGPUPatterns(RewritePatternSet &patterns);
/// qmat.byte_perm, bit_select, load_streaming, pinned_copy, warp_mma, the
/// asynchronous copies, with `warpgroupMma` (sm_90a) the warpgroup ops and
/// with `clusters` (sm_90 on) the cluster ops -> NVVM and nvgpu ops and
/// inline PTX.
void populateQMatToNVVMPatterns(RewritePatternSet &patterns, bool warpgroupMma,
                                bool clusters);

} // namespace mlir::qmat

#endif // QMAT_TARGET_TARGETINFO_H
