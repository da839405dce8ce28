// Blackwell converts e2m1 pairs in hardware: sm_100a / sm_120a (the
// arch-specific targets carry the conversion), PTX 8.8.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_100 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_100 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_100 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=CVT
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_120 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=SM120
// ptxas accepts the PTX for sm_100a (a cubin comes back).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_100 format=bin})' | FileCheck %s --check-prefix=BIN

// No table lookup for FP4, no emulation call, no division.
// NEG-NOT: {{1061109504|1077952576|-1065353216|-1065336832|1044133888|1178878528}}
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: {{(div|rem)\.}}
// NEG-NOT: __local_depot

// CHECK: // qmat-gpu-assembly @qmat_kernels #nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">
// CHECK: .version 8.8
// CHECK: .target sm_100a
// SM120: // qmat-gpu-assembly @qmat_kernels #nvvm.target<O = 3, chip = "sm_120a", features = "+ptx88">
// SM120: .target sm_120a
// BIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, bin = "\7FELF

// K = 5120: 5 chunks a thread, 4 packed bytes a chunk, one conversion per
// byte: 20 cvt.rn.f16x2.e2m1x2.
// CVT-LABEL: .entry dequant_nvfp4_bs16_k5120_bf16_vec8_native_u5_t128(
// CVT-COUNT-20: cvt.rn.f16x2.e2m1x2 {{%r[0-9]+}}, %e2m1x2_in;
// CVT-NOT: cvt.rn.f16x2.e2m1x2
// CVT: ret;
// CVT-NOT: e2m1x2
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k5120_bf16_vec8_native_u5_t128(
// CHECK: .maxntid 128, 1, 1
// CHECK: cvt.rn.f16x2.e2m1x2
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+2048], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+4096], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+6144], {
// CHECK: st.global.v4.b32 {{\[}}[[OUT]]+8192], {
// CHECK-NOT: st.global
// CHECK: ret;
// SM120-LABEL: .entry dequant_nvfp4_bs16_k5120_bf16_vec8_native_u5_t128(
// SM120: cvt.rn.f16x2.e2m1x2
// SM120: st.global.v4.b32
func.func @nvfp4_bf16(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>,
                      %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>,
                      %y: memref<?x17408xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
  return
}

// int4 has no native conversion: the magic bias 0x64006400 stays.
// CHECK-LABEL: .entry dequant_int4_bs32_k4096_f16_vec8_magic_bias_zp_u2_t256(
// CHECK-NOT: e2m1x2
// CHECK: or.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1677747200;
// CHECK-COUNT-2: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @int4_f16(%a: memref<?x4096xf16>, %w: memref<1024x2048xi8>, %s: memref<1024x128xf16>,
                    %zp: memref<1024x64xi8>, %y: memref<?x1024xf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x4096xf16>, memref<1024x2048xi8>, memref<1024x128xf16>)
      zero_points(%zp : memref<1024x64xi8>) outs(%y : memref<?x1024xf16>)
  return
}
