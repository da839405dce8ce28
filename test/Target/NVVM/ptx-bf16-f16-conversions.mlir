// Every kernel rounds to the activation type once, with the hardware
// conversion of its own type: cvt.rn.bf16x2.f32 (or cvt.rn.bf16.f32 for a
// single value) for bf16 layers, cvt.rn.f16x2.f32 / cvt.rn.f16.f32 for f16
// layers. On NVVM that conversion already writes every NaN as the canonical
// 0x7FFF (TargetInfo::truncationCanonicalizesNaN), so no kernel tests for
// NaN or selects the pattern itself (the host lowering does; see
// host-dequant.mlir).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG
// The same at the IR level, right after outlining: a bare truncf.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-select-strategy, func.func(qmat-expand-prefill), qmat-vectorize-dequant, qmat-lower-dequant-to-gpu)' | FileCheck %s --check-prefix=IR --implicit-check-not=arith.cmpf --implicit-check-not=0x7FFF

// NEG-NOT: {{setp\.(nan|num|neu|equ)}}
// NEG-NOT: testp
// NEG-NOT: 32767
// NEG-NOT: 0x7FFF
// Overflow goes to +-inf: no saturating (.satfinite) conversion.
// NEG-NOT: .sat

// IR-COUNT-12: arith.truncf
// IR-NOT: arith.truncf

// bf16 layers: only bf16 roundings.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k1024_bf16_vec8_lookup_u1_t128(
// CHECK-NOT: cvt.rn.f16
// CHECK-COUNT-4: cvt.rn.bf16x2.f32
// CHECK-NOT: cvt.rn.f16
// CHECK: ret;
// CHECK-LABEL: .entry dequant_mxfp4_bs32_k1024_bf16_vec8_lookup_u1_t128(
// CHECK-NOT: cvt.rn.f16
// CHECK-COUNT-4: cvt.rn.bf16x2.f32
// CHECK-NOT: cvt.rn.f16
// CHECK: ret;
// CHECK-LABEL: .entry dequant_fp8_bs128_k1024_bf16_vec8_arith_u1_t128(
// CHECK-NOT: cvt.rn.f16
// CHECK-COUNT-4: cvt.rn.bf16x2.f32
// CHECK-NOT: cvt.rn.f16
// CHECK: ret;
// The int4 magic bias works in f16 (exact), but the result rounds to bf16.
// CHECK-LABEL: .entry dequant_int4_bs32_k1024_bf16_vec8_magic_bias_zp_u1_t128(
// CHECK: add.rn.f16x2
// CHECK-NOT: cvt.rn.f16
// CHECK-COUNT-4: cvt.rn.bf16x2.f32
// CHECK-NOT: cvt.rn.f16
// CHECK: ret;
// CHECK-LABEL: .entry dequant_int4_bs7_k66_bf16_scalar_magic_bias_u1_t64(
// CHECK-NOT: cvt.rn.f16
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: cvt.rn
// CHECK: st.global.b32
// CHECK: ret;
// CHECK-LABEL: .entry dequant_fp8_bs128_k77_bf16_scalar_arith_u1_t96(
// CHECK-NOT: cvt.rn.f16
// CHECK: cvt.rn.bf16.f32 [[V:%rs[0-9]+]], {{%r[0-9]+}};
// CHECK: st.global.b16 [{{%rd[0-9]+}}], [[V]];
// CHECK: ret;
func.func @bf16_layers(%a: memref<?x1024xbf16>,
    %w0: memref<64x512xi8>, %s0: memref<64x64xf8E4M3FN>, %g: memref<f32>, %y0: memref<?x64xbf16>,
    %s1: memref<64x32xf8E8M0FNU>,
    %w2: memref<64x1024xf8E4M3FN>, %s2: memref<64x8xf32>,
    %s3: memref<64x32xbf16>, %zp3: memref<64x16xi8>,
    %a4: memref<?x66xbf16>, %w4: memref<4x33xi8>, %s4: memref<4x10xbf16>, %y4: memref<?x4xbf16>,
    %a5: memref<?x77xbf16>, %w5: memref<4x77xf8E4M3FN>, %s5: memref<4x1xf32>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w0, %s0 : memref<?x1024xbf16>, memref<64x512xi8>, memref<64x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y0 : memref<?x64xbf16>)
  qmat.matmul <mxfp4, block = 32> ins(%a, %w0, %s1 : memref<?x1024xbf16>, memref<64x512xi8>, memref<64x32xf8E8M0FNU>)
      outs(%y0 : memref<?x64xbf16>)
  qmat.matmul <fp8, block = 128> ins(%a, %w2, %s2 : memref<?x1024xbf16>, memref<64x1024xf8E4M3FN>, memref<64x8xf32>)
      outs(%y0 : memref<?x64xbf16>)
  qmat.matmul <int4, block = 32> ins(%a, %w0, %s3 : memref<?x1024xbf16>, memref<64x512xi8>, memref<64x32xbf16>)
      zero_points(%zp3 : memref<64x16xi8>) outs(%y0 : memref<?x64xbf16>)
  qmat.matmul <int4, block = 7> ins(%a4, %w4, %s4 : memref<?x66xbf16>, memref<4x33xi8>, memref<4x10xbf16>)
      outs(%y4 : memref<?x4xbf16>)
  qmat.matmul <fp8, block = 128> ins(%a5, %w5, %s5 : memref<?x77xbf16>, memref<4x77xf8E4M3FN>, memref<4x1xf32>)
      outs(%y4 : memref<?x4xbf16>)
  return
}

// f16 layers: no bf16 anywhere.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k1024_f16_vec8_lookup_u1_t128(
// CHECK-NOT: bf16
// CHECK-COUNT-4: cvt.rn.f16x2.f32
// CHECK-NOT: bf16
// CHECK: ret;
// CHECK-LABEL: .entry dequant_mxfp4_bs32_k1024_f16_vec8_lookup_u1_t128(
// CHECK-NOT: bf16
// CHECK-COUNT-4: cvt.rn.f16x2.f32
// CHECK-NOT: bf16
// CHECK: ret;
// CHECK-LABEL: .entry dequant_fp8_bs128_k1024_f16_vec8_arith_u1_t128(
// CHECK-NOT: bf16
// CHECK-COUNT-4: cvt.rn.f16x2.f32
// CHECK-NOT: bf16
// CHECK: ret;
// CHECK-LABEL: .entry dequant_int4_bs32_k1024_f16_vec8_magic_bias_zp_u1_t128(
// CHECK-NOT: bf16
// CHECK-COUNT-4: cvt.rn.f16x2.f32
// CHECK-NOT: bf16
// CHECK: ret;
// CHECK-LABEL: .entry dequant_int4_bs7_k66_f16_scalar_magic_bias_u1_t64(
// CHECK-NOT: bf16
// CHECK: cvt.rn.f16x2.f32
// CHECK-NOT: bf16
// CHECK: st.global.b32
// CHECK: ret;
// CHECK-LABEL: .entry dequant_fp8_bs128_k77_f16_scalar_arith_u1_t96(
// CHECK-NOT: bf16
// CHECK: cvt.rn.f16.f32 [[V:%rs[0-9]+]], {{%r[0-9]+}};
// CHECK: st.global.b16 [{{%rd[0-9]+}}], [[V]];
// CHECK: ret;
// CHECK-NOT: .entry
func.func @f16_layers(%a: memref<?x1024xf16>,
    %w0: memref<64x512xi8>, %s0: memref<64x64xf8E4M3FN>, %g: memref<f32>, %y0: memref<?x64xf16>,
    %s1: memref<64x32xf8E8M0FNU>,
    %w2: memref<64x1024xf8E4M3FN>, %s2: memref<64x8xf32>,
    %s3: memref<64x32xf16>, %zp3: memref<64x16xi8>,
    %a4: memref<?x66xf16>, %w4: memref<4x33xi8>, %s4: memref<4x10xf16>, %y4: memref<?x4xf16>,
    %a5: memref<?x77xf16>, %w5: memref<4x77xf8E4M3FN>, %s5: memref<4x1xf32>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w0, %s0 : memref<?x1024xf16>, memref<64x512xi8>, memref<64x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y0 : memref<?x64xf16>)
  qmat.matmul <mxfp4, block = 32> ins(%a, %w0, %s1 : memref<?x1024xf16>, memref<64x512xi8>, memref<64x32xf8E8M0FNU>)
      outs(%y0 : memref<?x64xf16>)
  qmat.matmul <fp8, block = 128> ins(%a, %w2, %s2 : memref<?x1024xf16>, memref<64x1024xf8E4M3FN>, memref<64x8xf32>)
      outs(%y0 : memref<?x64xf16>)
  qmat.matmul <int4, block = 32> ins(%a, %w0, %s3 : memref<?x1024xf16>, memref<64x512xi8>, memref<64x32xf16>)
      zero_points(%zp3 : memref<64x16xi8>) outs(%y0 : memref<?x64xf16>)
  qmat.matmul <int4, block = 7> ins(%a4, %w4, %s4 : memref<?x66xf16>, memref<4x33xi8>, memref<4x10xf16>)
      outs(%y4 : memref<?x4xf16>)
  qmat.matmul <fp8, block = 128> ins(%a5, %w5, %s5 : memref<?x77xf16>, memref<4x77xf8E4M3FN>, memref<4x1xf32>)
      outs(%y4 : memref<?x4xf16>)
  return
}
