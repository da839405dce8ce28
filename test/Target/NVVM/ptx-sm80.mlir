// Ampere (sm_80): the whole pipeline to PTX with the default knobs. Before
// Blackwell the FP4 decode is the byte lookup, and fp32 arithmetic is scalar.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_80 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_80 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG
// ptxas accepts the PTX for sm_80 (a cubin comes back).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_80 format=bin})' | FileCheck %s --check-prefix=BIN

// No division or remainder, no calls, no stack, no flush-to-zero; no
// e2m1 conversion instruction and no packed f32x2 arithmetic (both need
// sm_100 or later).
// NEG-NOT: {{(div|rem)\.}}
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: __local_depot
// NEG-NOT: .ftz
// NEG-NOT: e2m1x2
// NEG-NOT: .f32x2

// BIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF

// CHECK: // qmat-gpu-assembly @qmat_kernels #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// CHECK: .version 8.0
// CHECK-NEXT: .target sm_80
// CHECK-NEXT: .address_size 64

// nvfp4, bf16, K = 5120: 128 threads x 5 chunks, the byte lookup into fp32
// (tables 0x3F3F3F00 / 0x40404040 and 0xC0800000 / 0xC0804000), 16-byte
// stores 2048 bytes apart.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128(
// CHECK: .maxntid 128, 1, 1
// CHECK: ld.global.b32 [[GLOBAL:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK: and.b32 [[IDX:%r[0-9]+]], {{%r[0-9]+}}, 30583;
// CHECK-NEXT: prmt.b32 {{%r[0-9]+}}, 1061109504, 1077952576, [[IDX]];
// CHECK-NEXT: prmt.b32 {{%r[0-9]+}}, -1065353216, -1065336832, [[IDX]];
// CHECK: mul.rn.f32 {{%r[0-9]+}}, [[GLOBAL]], {{%r[0-9]+}};
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+2048], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+4096], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+6144], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+8192], {
// CHECK-NOT: st.global
// CHECK: ret;
func.func @nvfp4_bf16(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>,
                      %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>,
                      %y: memref<?x17408xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
  return
}

// nvfp4, f16, K = 4096: 256 threads x 2 chunks; f16 rounding only.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k4096_f16_vec8_lookup_u2_t256(
// CHECK: .maxntid 256, 1, 1
// CHECK: prmt.b32 {{%r[0-9]+}}, 1061109504, 1077952576, {{%r[0-9]+}};
// CHECK-NOT: bf16
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+4096], {
// CHECK-NOT: st.global
// CHECK: ret;
func.func @nvfp4_f16(%a: memref<?x4096xf16>, %w: memref<256x2048xi8>,
                     %s: memref<256x256xf8E4M3FN>, %g: memref<f32>,
                     %y: memref<?x256xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x4096xf16>, memref<256x2048xi8>, memref<256x256xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x256xf16>)
  return
}

// int4 with zero points, bf16: the f16 magic bias 0x64006400 and the
// paired f16 subtraction of 1024 work on sm_80 too.
// CHECK-LABEL: .entry dequant_int4_bs32_k1024_bf16_vec8_magic_bias_zp_u1_t128(
// CHECK: or.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1677747200;
// CHECK: add.rn.f16x2
// CHECK: sub.rn.f32
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @int4_zp_bf16(%a: memref<?x1024xbf16>, %w: memref<128x512xi8>, %s: memref<128x32xbf16>,
                        %zp: memref<128x16xi8>, %y: memref<?x128xbf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x512xi8>, memref<128x32xbf16>)
      zero_points(%zp : memref<128x16xi8>) outs(%y : memref<?x128xbf16>)
  return
}

// fp8, f16: eight codes in one 8-byte load, the e4m3 NaN patched in before
// the scale.
// CHECK-LABEL: .entry dequant_fp8_bs128_k1024_f16_vec8_arith_u1_t128(
// CHECK: ld.global.v2.b32
// CHECK: selp.f32 {{%r[0-9]+}}, 0f7FC00000, {{%r[0-9]+}}, {{%p[0-9]+}};
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
// CHECK-NOT: .entry
func.func @fp8_f16(%a: memref<?x1024xf16>, %w: memref<128x1024xf8E4M3FN>, %s: memref<128x8xf32>,
                   %y: memref<?x128xf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x1024xf16>, memref<128x1024xf8E4M3FN>, memref<128x8xf32>)
      outs(%y : memref<?x128xf16>)
  return
}
