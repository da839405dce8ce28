// The fused dequant-GEMM on AMD (gfx942, gfx950), 64-lane wavefronts: per
// K step the weights' 16-byte loads are issued, the block stages the
// activation tile into LDS between two barriers (16-byte global loads,
// ds_write_b128), each wavefront reads its B operands back with
// ds_read_b128 and multiplies with v_mfma 16x16x16: col_tiles x m_tile / 16
// x 8 instructions per step. The LDS the kernel declares is the staged tile
// (split-K sums reuse it); no scratch and no spills.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=gfx942 format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.s
// RUN: FileCheck %s < %t.s
// RUN: FileCheck %s --check-prefix=NOSPILL --implicit-check-not='.vgpr_spill_count: {{[1-9]}}' --implicit-check-not='.private_segment_fixed_size: {{[1-9]}}' --implicit-check-not='.wavefront_size: 32' < %t.s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=gfx950 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=GFX950 --implicit-check-not='.vgpr_spill_count: {{[1-9]}}' --implicit-check-not='.private_segment_fixed_size: {{[1-9]}}'

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// m_tile 64, four wavefronts over N, two column tiles: 2 x 4 x 8 = 64
// instructions per step of the loop.
// CHECK-LABEL: fused_nvfp4_bs16_k1024_bf16_magic_bias_mt64_w4_s1_c2:
// CHECK: .LBB0_1:
// CHECK: global_load_dwordx4
// CHECK: s_barrier
// CHECK-COUNT-4: ds_write_b128
// CHECK: s_barrier
// CHECK-NEXT: ds_read_b128
// CHECK-COUNT-64: v_mfma_f32_16x16x16_bf16
// CHECK-NOT: v_mfma
// CHECK: s_cbranch_scc1 .LBB0_1
// CHECK-NOT: v_mfma
// CHECK: .amdhsa_group_segment_fixed_size 16384
// CHECK: .amdhsa_private_segment_fixed_size 0
// int4 with zero points, f16, split-K 4: each step 2 x 1 x 8 instructions;
// the four K slices' tiles fill the 16 KB. After the loop the partial sums
// overlay the tile: a barrier (the other wavefronts' last reads), one
// 16-byte store per column tile, a barrier.
// CHECK-LABEL: fused_int4_bs128_k1024_f16_magic_bias_zp_mt16_w1_s4_c2:
// CHECK: .LBB1_1:
// CHECK: s_barrier
// CHECK-COUNT-4: ds_write_b128
// CHECK: s_barrier
// CHECK-COUNT-16: v_mfma_f32_16x16x16_f16
// CHECK-NOT: v_mfma
// CHECK: s_cbranch_vccnz .LBB1_1
// CHECK: s_barrier
// CHECK-NEXT: ds_write_b128 v{{[0-9]+}}, v[{{[0-9]+:[0-9]+}}]{{$}}
// CHECK-NEXT: ds_write_b128 v{{[0-9]+}}, v[{{[0-9]+:[0-9]+}}] offset:1024
// CHECK: s_barrier
// CHECK-NOT: v_mfma
// CHECK: .amdhsa_group_segment_fixed_size 16384
// CHECK: .amdhsa_private_segment_fixed_size 0
// fp8 through fp32: 1 x 2 x 8 instructions per step.
// CHECK-LABEL: fused_fp8_bs128_k1024_bf16_arith_mt32_w2_s2_c1:
// CHECK: .LBB2_1:
// CHECK-COUNT-16: v_mfma_f32_16x16x16_bf16
// CHECK-NOT: v_mfma
// CHECK: s_cbranch_scc1 .LBB2_1
// CHECK: .amdhsa_group_segment_fixed_size 16384
// CHECK: .amdhsa_private_segment_fixed_size 0
// NOSPILL-COUNT-3: .wavefront_size: 64
// NOSPILL-NOT: .wavefront_size
// gfx950: the same kernels (the GEMV's magic-bias decode).
// GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// GFX950-LABEL: fused_nvfp4_bs16_k1024_bf16_magic_bias_mt64_w4_s1_c2:
// GFX950-COUNT-64: v_mfma_f32_16x16x16_bf16
// GFX950-NOT: v_mfma
// GFX950: s_cbranch_scc1 .LBB0_1
// GFX950: .amdhsa_private_segment_fixed_size 0
// GFX950-LABEL: fused_int4_bs128_k1024_f16_magic_bias_zp_mt16_w1_s4_c2:
// GFX950: v_mfma_f32_16x16x16_f16
// GFX950-LABEL: fused_fp8_bs128_k1024_bf16_arith_mt32_w2_s2_c1:
// GFX950: v_mfma_f32_16x16x16_bf16

func.func @fused(%a: memref<?x1024xbf16>, %w: memref<4096x512xi8>, %s: memref<4096x64xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x4096xbf16>, %ah: memref<?x1024xf16>,
                 %si: memref<4096x8xf16>, %z: memref<4096x4xi8>, %yh: memref<?x4096xf16>,
                 %w8: memref<4096x1024xf8E4M3FN>, %s8: memref<4096x8xf32>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x1024xbf16>, memref<4096x512xi8>, memref<4096x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x4096xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 2
  qmat.fused_gemm <int4, block = 128> ins(%ah, %w, %si : memref<?x1024xf16>, memref<4096x512xi8>, memref<4096x8xf16>)
      zero_points(%z : memref<4096x4xi8>) outs(%yh : memref<?x4096xf16>) m_tile = 16 warps_n = 1 split_k = 4 col_tiles = 2
  qmat.fused_gemm <fp8, block = 128> ins(%a, %w8, %s8 : memref<?x1024xbf16>, memref<4096x1024xf8E4M3FN>, memref<4096x8xf32>)
      outs(%y : memref<?x4096xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 1
  return
}
