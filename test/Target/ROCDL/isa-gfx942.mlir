// The AMD kernels of a layer lowered through convert-gpu-to-rocdl to gfx942
// / gfx950 code for 64-lane wavefronts: the dequantization with the
// magic-bias FP4 decode, the matrix-core GEMV (K % 128 == 0) and the dot
// GEMV (K % 32 == 0 otherwise).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{target=gfx942 format=isa all-gemv-variants=1}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{target=gfx942 format=isa all-gemv-variants=1}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NOSPILL --implicit-check-not='.vgpr_spill_count: {{[1-9]}}' --implicit-check-not='.private_segment_fixed_size: {{[1-9]}}' --implicit-check-not='.wavefront_size: 32'
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{target=gfx950 format=isa all-gemv-variants=1}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=GFX950

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// The vec8 kernel stores 8 bf16 per lane in one 16-byte store; no scratch
// (private segment) in its descriptor.
// CHECK-LABEL: dequant_nvfp4_bs16_k512_bf16_vec8_magic_bias_u1_t64:
// CHECK: global_store_dwordx4
// CHECK: .amdhsa_kernel dequant_nvfp4_bs16_k512_bf16_vec8_magic_bias_u1_t64
// CHECK: .amdhsa_private_segment_fixed_size 0
// The matrix-core GEMV: each lane loads 16 bytes of codes (32 fp4 weights)
// and its activations in 16-byte loads; 8 v_mfma per 128-K step.
// CHECK-LABEL: gemv_nvfp4_bs16_k512_bf16_tc_magic_bias_m8_s1_c1:
// CHECK: global_load_dwordx4
// CHECK-COUNT-8: v_mfma_f32_16x16x16_bf16
// CHECK: .amdhsa_kernel gemv_nvfp4_bs16_k512_bf16_tc_magic_bias_m8_s1_c1
// CHECK: .amdhsa_private_segment_fixed_size 0
// The dot GEMV: the same 16-byte loads, then a reduction across the 64
// lanes with ds_bpermute.
// CHECK-LABEL: gemv_nvfp4_bs16_k160_bf16_dot_magic_bias_m8_s1_c1:
// CHECK: global_load_dwordx4
// CHECK: ds_bpermute_b32
// CHECK: .amdhsa_kernel gemv_nvfp4_bs16_k160_bf16_dot_magic_bias_m8_s1_c1
// CHECK: .amdhsa_private_segment_fixed_size 0
// Every kernel runs as wave64, none spills (every split-K and column-tile
// variant of the matrix-core GEMV and the six fused GEMM tilings included).
// NOSPILL-COUNT-21: .wavefront_size: 64
// NOSPILL-NOT: .wavefront_size
// GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// GFX950: .amdhsa_kernel dequant_nvfp4_bs16_k512_bf16_vec8_magic_bias_u1_t64
// GFX950: v_mfma_f32_16x16x16_bf16

func.func @layer(%a: memref<?x512xbf16>, %w: memref<40x256xi8>, %s: memref<40x32xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x40xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xbf16>, memref<40x256xi8>, memref<40x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>)
  return
}

func.func @short(%a: memref<?x160xbf16>, %w: memref<40x80xi8>, %s: memref<40x10xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x40xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x160xbf16>, memref<40x80xi8>, memref<40x10xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>)
  return
}
