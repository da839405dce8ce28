// The magic-bias e2m1 decode on Hopper: shifts and masks, no table.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa force-decode=magic_bias}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa force-decode=magic_bias}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG

// No lookup table: neither the fp32 byte tables nor the f16 ones.
// NEG-NOT: {{1061109504|1077952576|-1065353216|-1065336832|1044133888|1178878528}}
// The decoded code * 2^-126 is subnormal for code 0.5: flushing it to zero
// would lose it, so no .ftz anywhere.
// NEG-NOT: .ftz
// NEG-NOT: {{(div|rem)\.}}
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: __local_depot

// CHECK: .target sm_90

// CHECK-LABEL: .entry dequant_nvfp4_bs16_k5120_bf16_vec8_magic_bias_u5_t128(
// CHECK: .maxntid 128, 1, 1
// The three magnitude bits of each code go under the fp32 exponent
// (mask 0x01C00000), the sign bit to bit 31...
// CHECK: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 29360128;
// CHECK: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, -2147483648;
// ...and 2^126 restores the code exactly, before any scale is applied.
// CHECK: mul.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f7E800000;
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

// mxfp4: the e8m0 scale is built as bits (e << 23, 2^-127 for e = 0, NaN
// for 0xFF); the bias is restored on the code, where it cannot overflow.
// CHECK-LABEL: .entry dequant_mxfp4_bs32_k2048_f16_vec8_magic_bias_u1_t256(
// CHECK: .maxntid 256, 1, 1
// CHECK: ld.global.b32
// CHECK: ld.global.b8 [[E:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 29360128;
// CHECK: mul.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f7E800000;
// CHECK: shl.b32 {{%r[0-9]+}}, [[E]], 23;
// CHECK: selp.f32 {{%r[0-9]+}}, 0f00400000,
// CHECK: selp.f32 {{%r[0-9]+}}, 0f7FC00000,
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @mxfp4_f16(%a: memref<?x2048xf16>, %w: memref<64x1024xi8>,
                     %s: memref<64x64xf8E8M0FNU>, %y: memref<?x64xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x2048xf16>, memref<64x1024xi8>, memref<64x64xf8E8M0FNU>)
      outs(%y : memref<?x64xf16>)
  return
}
