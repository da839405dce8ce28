// occupancy-hints (off by default) asks ptxas for a register budget that
// keeps a full SM of blocks resident: nvvm.minctasm = min(threads per SM /
// threads per block, blocks per SM), with 2048 threads and 32 blocks on
// sm_80, sm_90 and sm_100, and 1536 threads and 24 blocks on sm_89 and
// sm_120.
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu | FileCheck %s --check-prefix=OFF
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='occupancy-hints=true threads-per-block=128' | FileCheck %s --check-prefix=SM90-T128
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='occupancy-hints=true threads-per-block=1024' | FileCheck %s --check-prefix=SM90-T1024
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='occupancy-hints=true threads-per-block=32' | FileCheck %s --check-prefix=SM90-T32
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='target=sm_80 occupancy-hints=true threads-per-block=256' | FileCheck %s --check-prefix=SM80-T256
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='target=sm_89 occupancy-hints=true threads-per-block=128' | FileCheck %s --check-prefix=SM89-T128
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='target=sm_89 occupancy-hints=true threads-per-block=32' | FileCheck %s --check-prefix=SM89-T32
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='target=sm_89 occupancy-hints=true threads-per-block=1024' | FileCheck %s --check-prefix=SM89-T1024
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='target=sm_100 occupancy-hints=true threads-per-block=256' | FileCheck %s --check-prefix=SM100-T256
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu='target=sm_120 occupancy-hints=true threads-per-block=128' | FileCheck %s --check-prefix=SM120-T128
// The hint reaches the PTX as .minnctapersm, next to .maxntid.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa occupancy-hints=true}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=PTX
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=PTX-OFF

// OFF: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u4_t256(
// OFF-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// OFF-NOT: minctasm

// SM90-T128: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u8_t128(
// SM90-T128-SAME: nvvm.minctasm = 16 : i32
// 2048 / 1024 = 2 blocks.
// SM90-T1024: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u1_t1024(
// SM90-T1024-SAME: nvvm.minctasm = 2 : i32
// 2048 / 32 = 64, capped at 32 resident blocks.
// SM90-T32: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u8_t32(
// SM90-T32-SAME: nvvm.minctasm = 32 : i32
// SM80-T256: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u4_t256(
// SM80-T256-SAME: nvvm.minctasm = 8 : i32
// 1536 / 128 = 12.
// SM89-T128: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u8_t128(
// SM89-T128-SAME: nvvm.minctasm = 12 : i32
// 1536 / 32 = 48, capped at 24.
// SM89-T32: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u8_t32(
// SM89-T32-SAME: nvvm.minctasm = 24 : i32
// 1536 / 1024 = 1.
// SM89-T1024: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u1_t1024(
// SM89-T1024-SAME: nvvm.minctasm = 1 : i32
// SM100-T256: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u4_t256(
// SM100-T256-SAME: nvvm.minctasm = 8 : i32
// SM120-T128: gpu.func @dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u8_t128(
// SM120-T128-SAME: nvvm.minctasm = 12 : i32

// PTX: .entry dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u4_t256(
// PTX: .maxntid 256, 1, 1
// PTX-NEXT: .minnctapersm 8
// PTX-OFF: .entry dequant_nvfp4_bs16_k8192_bf16_vec8_lookup_u4_t256(
// PTX-OFF: .maxntid 256, 1, 1
// PTX-OFF-NOT: .minnctapersm
func.func @dequant(%w: memref<64x4096xi8>, %s: memref<64x512xf8E4M3FN>, %g: memref<f32>,
                   %o: memref<64x8192xbf16>) {
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<64x4096xi8>, memref<64x512xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%o : memref<64x8192xbf16>) kernel = vec8 decode = lookup
  return
}
