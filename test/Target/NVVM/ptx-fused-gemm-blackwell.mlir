// The fused dequant-GEMM on Blackwell: nvfp4 and mxfp4 codes converted by
// the chip's e2m1 pair conversion (one cvt.rn.f16x2.e2m1x2 per code byte),
// no magic-bias placement and no re-pairing of the staged activations; int4
// keeps its magic-bias decode. ptxas accepts the kernels for sm_100a and
// sm_120a without spills or local memory.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_100 format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.sm100.ptx
// RUN: FileCheck %s < %t.sm100.ptx
// RUN: FileCheck %s --check-prefix=NEG < %t.sm100.ptx
// RUN: ptxas -arch=sm_100a -v %t.sm100.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_120 format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.sm120.ptx
// RUN: FileCheck %s --check-prefix=SM120 < %t.sm120.ptx
// RUN: ptxas -arch=sm_120a -v %t.sm120.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK: .target sm_100a
// SM120: .target sm_120a
// SM120: .entry fused_nvfp4_bs16_k5120_bf16_native_mt32_w2_s2_c2_p2(
// SM120: cvt.rn.f16x2.e2m1x2

// Each K step's 16 code bytes of a weight row: one conversion per byte.
// Its pairs are adjacent K, so the staged activation words go from the
// shared read to the instruction as they are: no packing of halves of two
// words (the magic-bias decode's pairs, K j and j + 4, need one), no
// magic-bias mask.
// CHECK-LABEL: .entry fused_nvfp4_bs16_k5120_bf16_native_mt32_w2_s2_c2_p2(
// CHECK: cvt.u8.u16 %e2m1x2_in, {{%rs[0-9]+}};
// CHECK-NEXT: cvt.rn.f16x2.e2m1x2 {{%r[0-9]+}}, %e2m1x2_in;
// CHECK: ld.shared.v4.b32 {[[B0:%r[0-9]+]], [[B1:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}}
// CHECK-NEXT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NEXT: {{[{]}}
// CHECK-NEXT: {{[{]}}
// CHECK-NEXT: {[[B0]], [[B1]]},
// CHECK: ret;
// NEG-LABEL: .entry fused_nvfp4_bs16_k5120_bf16_native_mt32_w2_s2_c2_p2(
// NEG-NOT: mov.b32 {{%r[0-9]+}}, {
// NEG-NOT: 0x1dc01dc
// NEG-NOT: .local
// NEG: ret;

// CHECK-LABEL: .entry fused_mxfp4_bs32_k5120_f16_native_mt16_w1_s4_c1_p2(
// CHECK: cvt.rn.f16x2.e2m1x2 {{%r[0-9]+}}, %e2m1x2_in;
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: ret;
// NEG-LABEL: .entry fused_mxfp4_bs32_k5120_f16_native_mt16_w1_s4_c1_p2(
// NEG-NOT: mov.b32 {{%r[0-9]+}}, {
// NEG-NOT: .local
// NEG: ret;

// CHECK-LABEL: .entry fused_int4_bs128_k5120_f16_magic_bias_zp_mt16_w1_s4_c1_p2(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// NEG-LABEL: .entry fused_int4_bs128_k5120_f16_magic_bias_zp_mt16_w1_s4_c1_p2(
// NEG-NOT: e2m1x2
// NEG: ret;

// NOSPILL-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: spill

func.func @fused(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x17408xbf16>, %ah: memref<?x5120xf16>, %sm: memref<17408x160xf8E8M0FNU>,
                 %yh: memref<?x17408xf16>, %si: memref<17408x40xf16>, %z: memref<17408x20xi8>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2
  qmat.fused_gemm <mxfp4, block = 32> ins(%ah, %w, %sm : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x160xf8E8M0FNU>)
      outs(%yh : memref<?x17408xf16>) m_tile = 16 warps_n = 1 split_k = 4 col_tiles = 1 stages = 2
  qmat.fused_gemm <int4, block = 128> ins(%ah, %w, %si : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x40xf16>)
      zero_points(%z : memref<17408x20xi8>) outs(%yh : memref<?x17408xf16>) m_tile = 16 warps_n = 1 split_k = 4 col_tiles = 1 stages = 2
  return
}
