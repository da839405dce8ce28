// Ada (sm_89): the same vendor-neutral kernels as Hopper, with the default
// knobs: FP4 by the byte lookup, int4 by the magic bias, fp8 by arithmetic.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_89 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_89 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG
// ptxas accepts the PTX for sm_89.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_89 format=bin})' | FileCheck %s --check-prefix=BIN

// NEG-NOT: {{(div|rem)\.}}
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: __local_depot
// NEG-NOT: .ftz
// NEG-NOT: e2m1x2
// NEG-NOT: .f32x2

// BIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_89", features = "+ptx81">, properties = {{.*}}, bin = "\7FELF

// CHECK: // qmat-gpu-assembly @qmat_kernels #nvvm.target<O = 3, chip = "sm_89", features = "+ptx81">
// CHECK: .version 8.1
// CHECK-NEXT: .target sm_89

// K = 6144: 768 chunks a row, 256 threads x 3, one block a row (the grid's
// y offset is blockIdx.y * 768); all three code and scale loads come
// before any arithmetic, then three 16-byte stores 256 x 16 bytes apart.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k6144_bf16_vec8_lookup_u3_t256(
// CHECK: .maxntid 256, 1, 1
// CHECK: mul.lo.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 768;
// CHECK: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES:%rd[0-9]+]]];
// CHECK: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES]]+1024];
// CHECK: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES]]+2048];
// CHECK: ld.global.b8
// CHECK-NOT: ld.global
// CHECK: prmt.b32 {{%r[0-9]+}}, 1061109504, 1077952576, {{%r[0-9]+}};
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+4096], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+8192], {
// CHECK-NOT: st.global
// CHECK: ret;
func.func @nvfp4_bf16(%a: memref<?x6144xbf16>, %w: memref<5120x3072xi8>,
                      %s: memref<5120x384xf8E4M3FN>, %g: memref<f32>,
                      %y: memref<?x5120xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x6144xbf16>, memref<5120x3072xi8>, memref<5120x384xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x5120xbf16>)
  return
}

// An odd block (17) forces the scalar kernel: one packed byte a thread,
// a bounds check, and the byte's second nibble may need the next scale
// (two e4m3 scale loads). The block index comes from a multiply-high, not
// a division.
// CHECK-LABEL: .entry dequant_nvfp4_bs17_k510_f16_scalar_lookup_u1_t128(
// CHECK: setp.gt.u32 [[OOB:%p[0-9]+]], {{%r[0-9]+}}, 254;
// CHECK-NEXT: @[[OOB]] bra
// CHECK: mul.hi.u16
// CHECK: setp.eq.b16 {{%p[0-9]+}}, {{%rs[0-9]+}}, 16;
// CHECK-COUNT-2: ld.global.b8
// CHECK: and.b32 [[IDX:%r[0-9]+]], {{%r[0-9]+}}, 119;
// CHECK-NEXT: prmt.b32 {{%r[0-9]+}}, 1061109504, 1077952576, [[IDX]];
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @odd_block_f16(%a: memref<?x510xf16>, %w: memref<64x255xi8>, %s: memref<64x30xf8E4M3FN>,
                         %g: memref<f32>, %y: memref<?x64xf16>) {
  qmat.matmul <nvfp4, block = 17>
      ins(%a, %w, %s : memref<?x510xf16>, memref<64x255xi8>, memref<64x30xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xf16>)
  return
}

// int4 without zero points, f16, block 128: one f16 scale load per chunk
// (16 chunks share it), the magic bias, q - 8 as q + (-8.0).
// CHECK-LABEL: .entry dequant_int4_bs128_k4096_f16_vec8_magic_bias_u2_t256(
// CHECK: ld.global.b16
// CHECK: ld.global.b16
// CHECK-NOT: ld.global.b8
// CHECK: or.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1677747200;
// CHECK: add.rn.f16x2
// CHECK: add.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0fC1000000;
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+4096], {
// CHECK-NOT: st.global
// CHECK: ret;
func.func @int4_f16(%a: memref<?x4096xf16>, %w: memref<1024x2048xi8>, %s: memref<1024x32xf16>,
                    %y: memref<?x1024xf16>) {
  qmat.matmul <int4, block = 128>
      ins(%a, %w, %s : memref<?x4096xf16>, memref<1024x2048xi8>, memref<1024x32xf16>)
      outs(%y : memref<?x1024xf16>)
  return
}

// fp8, bf16: both 8-byte code loads are issued before any arithmetic;
// each e4m3 code goes under the f16 exponent and is scaled by 2^8.
// CHECK-LABEL: .entry dequant_fp8_bs128_k4096_bf16_vec8_arith_u2_t256(
// CHECK-COUNT-2: ld.global.v2.b32
// CHECK-NOT: ld.global
// CHECK: cvt.f32.f16
// CHECK-NEXT: mul.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f43800000;
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+4096], {
// CHECK-NOT: st.global
// CHECK: ret;
// CHECK-NOT: .entry
func.func @fp8_bf16(%a: memref<?x4096xbf16>, %w: memref<1024x4096xf8E4M3FN>, %s: memref<1024x32xf32>,
                    %y: memref<?x1024xbf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x4096xbf16>, memref<1024x4096xf8E4M3FN>, memref<1024x32xf32>)
      outs(%y : memref<?x1024xbf16>)
  return
}
