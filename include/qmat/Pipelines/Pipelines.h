//===- Pipelines.h - Named qmat pipelines -----------------------*- C++ -*-===//
//
// C++ builders for the end-to-end pipelines (as IREE's per-target pipeline
// builders), each also registered by name so that qmat-opt and lit run it.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_PIPELINES_PIPELINES_H
#define QMAT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::qmat {

struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> target{*this, "target", llvm::cl::desc("Target GPU"),
                             llvm::cl::init("sm_90")};
  Option<int64_t> gemvMaxM{*this, "gemv-max-m",
                           llvm::cl::desc("Largest M for the decode GEMV (an error "
                                          "when no compiled variant holds that "
                                          "many rows)"),
                           llvm::cl::init(8)};
  Option<int64_t> fusedMaxM{
      *this, "fused-max-m",
      llvm::cl::desc("Largest M for the fused dequant-GEMM (0: none; -1: the "
                     "target's default)"),
      llvm::cl::init(-1)};
  ListOption<int64_t> fusedVariants{
      *this, "fused-variants",
      llvm::cl::desc("Fused GEMM tilings compiled, as (m_tile, warps_n, "
                     "split_k, col_tiles, stages) quintuples")};
  ListOption<int64_t> fusedWarpgroupVariants{
      *this, "fused-warpgroup-variants",
      llvm::cl::desc("Fused GEMM tilings compiled with the warpgroup "
                     "instruction, as (m_tile, warps_n, split_k, col_tiles) "
                     "quadruples")};
  ListOption<int64_t> fusedSpecializedVariants{
      *this, "fused-specialized-variants",
      llvm::cl::desc("Fused GEMM tilings of the specialized warpgroup form, "
                     "as (m_tile, col_tiles) pairs (default 128,1,256,1 "
                     "where the target has the warpgroup instruction and "
                     "fused-max-m > 128, and 256,2 where it is 512 or "
                     "more)")};
  ListOption<int64_t> fusedSpecializedBVariants{
      *this, "fused-specialized-b-variants",
      llvm::cl::desc("Fused GEMM tilings of the specialized form with the "
                     "weights as the warpgroup instruction's B operand, as "
                     "(m_tile, col_tiles) pairs of 16-row column tiles "
                     "(default 64,9,128,9 with the other specialized "
                     "defaults)")};
  Option<bool> noSlicedDefaults{
      *this, "no-sliced-defaults",
      llvm::cl::desc("Compile no default K-sliced tiling (a bundle whose "
                     "launcher table also serves a target without clusters)"),
      llvm::cl::init(false)};
  ListOption<int64_t> fusedSlicedVariants{
      *this, "fused-sliced-variants",
      llvm::cl::desc("Fused GEMM warp tilings whose K range is split across "
                     "the blocks of a thread-block cluster, as (m_tile, "
                     "warps_n, split_k, col_tiles, stages, k_slices) "
                     "sextuples (sm_90 on; default none)")};
  ListOption<int64_t> fusedMulticastVariants{
      *this, "fused-multicast-variants",
      llvm::cl::desc("Fused GEMM tilings of the specialized form whose "
                     "clusters of blocks share each stage's activations, as "
                     "(m_tile, col_tiles, weights_as_b, multicast) "
                     "quadruples (sm_90a; default none)")};
  ListOption<int64_t> fusedSpecializedSlicedVariants{
      *this, "fused-specialized-sliced-variants",
      llvm::cl::desc("Fused GEMM tilings of the specialized form whose K "
                     "range is split across the blocks of a thread-block "
                     "cluster, as (m_tile, col_tiles, k_slices) triples "
                     "(sm_90a; default 128,1,2 with the other specialized "
                     "defaults where N is under 160 x 64 rows and K at least "
                     "256 x 64; else none)")};
  ListOption<int64_t> fusedRegisterVariants{
      *this, "fused-register-variants",
      llvm::cl::desc("Fused GEMM tilings of the specialized form with the "
                     "decoded weights in the multiplying warps' registers "
                     "(the instruction's register A operand), as (m_tile, "
                     "col_tiles) pairs (sm_90a; default none)")};
  ListOption<int64_t> fusedDecoderVariants{
      *this, "fused-decoder-variants",
      llvm::cl::desc("Fused GEMM tilings of the specialized form with a "
                     "count of decoding warpgroups other than the tiling's "
                     "default, as (m_tile, col_tiles, weights_as_b, "
                     "decoders) quadruples (sm_90a; default none)")};
  Option<int64_t> scratchCapMiB{*this, "scratch-cap-mib",
                                llvm::cl::desc("Scratch cap in MiB"),
                                llvm::cl::init(256)};
  Option<std::string> forceDequant{*this, "force-dequant",
                                   llvm::cl::desc("auto, vec8 or scalar"),
                                   llvm::cl::init("auto")};
  Option<std::string> forceDecode{
      *this, "force-decode",
      llvm::cl::desc("auto, arith, lookup, magic_bias or native"),
      llvm::cl::init("auto")};
  Option<bool> preparedWeights{
      *this, "prepared-weights",
      llvm::cl::desc("Prepared code layout for every layer that can take it"),
      llvm::cl::init(false)};
  Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Dequant threads per block (0: chosen per shape)"),
      llvm::cl::init(0)};
  Option<int64_t> itemsPerThread{
      *this, "items-per-thread",
      llvm::cl::desc("Dequant work items per thread (0: chosen per shape)"),
      llvm::cl::init(0)};
  Option<int64_t> persistentBlocks{
      *this, "persistent-blocks",
      llvm::cl::desc("Row-looping dequant kernels with at most this many "
                     "blocks along the rows (0: one block per row)"),
      llvm::cl::init(0)};
  Option<bool> occupancyHints{
      *this, "occupancy-hints",
      llvm::cl::desc("Let the target add occupancy hints to kernels"),
      llvm::cl::init(false)};
  ListOption<int64_t> gemvSplitK{
      *this, "gemv-split-k",
      llvm::cl::desc("Split-K factors of the compiled GEMV variants "
                     "(default 1,2,4,8,16, and 3 for whole-line kernels)")};
  ListOption<int64_t> gemvColTiles{
      *this, "gemv-col-tiles",
      llvm::cl::desc("Column tiles of the compiled GEMV variants (default "
                     "1,2,4)")};
  Option<bool> allGemvVariants{
      *this, "all-gemv-variants",
      llvm::cl::desc("Compile every GEMV variant, not only those the "
                     "launcher's policy can choose for each layer"),
      llvm::cl::init(false)};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu.binary object format: isa (PTX text), bin (cubin) "
                     "or fatbin"),
      llvm::cl::init("bin")};
};

/// qmat.matmul -> planned, tiled dequantize + GEMM -> gpu.func kernels with
/// the target's decode -> a gpu.binary (`qmat-to-gpu-binary`). The same as
/// buildStrategyPipeline, then buildPlannedToLLVMPipeline, then
/// gpu-module-to-binary.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// The first stage: a #qmat.plan on every qmat.matmul.
void buildStrategyPipeline(OpPassManager &pm,
                           const GpuPipelineOptions &options);

/// The second stage: planned matmuls -> host tile loops and gpu.modules in
/// the target's LLVM dialect, ready for serialization in any format.
void buildPlannedToLLVMPipeline(OpPassManager &pm,
                                const GpuPipelineOptions &options);

/// The kernel half: qmat.dequantize -> gpu.func -> target decode -> binary
/// (`qmat-kernels-to-gpu-binary`).
void buildKernelPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

struct HostPipelineOptions : public PassPipelineOptions<HostPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Host model: host (byte_perm as prmt) or host-amdgcn "
                     "(byte_perm through the AMD v_perm_b32 translation)"),
      llvm::cl::init("host")};
};

/// qmat.dequantize -> host loops running the kernels' arithmetic -> LLVM
/// dialect (`qmat-host-dequant`), for the CPU exactness checks.
void buildHostDequantPipeline(OpPassManager &pm,
                              const HostPipelineOptions &options);

void registerPipelines();

} // namespace mlir::qmat

#endif // QMAT_PIPELINES_PIPELINES_H
