// int4 and fp8 layers through the whole pipeline to PTX for Hopper.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG
// ptxas accepts the PTX (a cubin comes back).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=bin})' | FileCheck %s --check-prefix=BIN

// NEG-NOT: {{(div|rem)\.}}
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: __local_depot
// NEG-NOT: _scalar_

// BIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF

// CHECK: .target sm_90

// int4, f16, with zero points. K = 4096: 512 chunks a row, 256 threads x 2.
// CHECK-LABEL: .entry dequant_int4_bs32_k4096_f16_vec8_magic_bias_zp_u2_t256(
// CHECK: .maxntid 256, 1, 1
// Codes: 4 bytes a chunk, the thread's two chunks 256 x 4 bytes apart.
// CHECK-DAG: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES:%rd[0-9]+]]];
// CHECK-DAG: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES]]+1024];
// The f16 scale (2 bytes) and the packed zero-point byte.
// CHECK-DAG: ld.global.b16
// CHECK-DAG: ld.global.b8
// Magic bias: 0x6400 | q is 1024 + q in f16 (0x64006400 for a pair)...
// CHECK: or.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1677747200;
// ...and 1024 comes off in f16, both halves at once (0xE400E400 is -1024
// twice), which is exact.
// CHECK: mov.b32 [[MINUS1024:%r[0-9]+]], -469703680;
// CHECK: add.rn.f16x2 {{%r[0-9]+}}, {{%r[0-9]+}}, [[MINUS1024]];
// (q - zp) in fp32, then the scale, then one rounding.
// CHECK: sub.rn.f32
// CHECK: mul.rn.f32
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+4096], {
// CHECK-NOT: st.global
// CHECK: ret;
func.func @int4_zp_f16(%a: memref<?x4096xf16>, %w: memref<1024x2048xi8>, %s: memref<1024x128xf16>,
                       %zp: memref<1024x64xi8>, %y: memref<?x1024xf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x4096xf16>, memref<1024x2048xi8>, memref<1024x128xf16>)
      zero_points(%zp : memref<1024x64xi8>) outs(%y : memref<?x1024xf16>)
  return
}

// int4, bf16, no zero points (8 is implied), block 128.
// CHECK-LABEL: .entry dequant_int4_bs128_k4096_bf16_vec8_magic_bias_u2_t256(
// CHECK-NOT: ld.global.b8
// CHECK: or.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1677747200;
// q - 8, as q + (-8.0):
// CHECK: add.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0fC1000000;
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+4096], {
// CHECK-NOT: st.global
// CHECK: ret;
func.func @int4_bf16(%a: memref<?x4096xbf16>, %w: memref<1024x2048xi8>, %s: memref<1024x32xbf16>,
                     %y: memref<?x1024xbf16>) {
  qmat.matmul <int4, block = 128>
      ins(%a, %w, %s : memref<?x4096xbf16>, memref<1024x2048xi8>, memref<1024x32xbf16>)
      outs(%y : memref<?x1024xbf16>)
  return
}

// fp8, bf16: 8 codes a chunk in one 64-bit load, an fp32 scale, the e4m3
// decode shifted under the f16 exponent and scaled by 256, NaN patched in.
// CHECK-LABEL: .entry dequant_fp8_bs128_k4096_bf16_vec8_arith_u2_t256(
// CHECK: .maxntid 256, 1, 1
// CHECK-DAG: ld.global.v2.b32 {{.+}}, {{\[}}[[CODES:%rd[0-9]+]]];
// CHECK-DAG: ld.global.v2.b32 {{.+}}, {{\[}}[[CODES]]+2048];
// CHECK-DAG: ld.global.b32
// CHECK: mul.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f43800000;
// CHECK: selp.f32 {{%r[0-9]+}}, 0f7FC00000, {{%r[0-9]+}}, {{%p[0-9]+}};
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
