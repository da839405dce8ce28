// Consumer Blackwell (sm_120): the arch-specific sm_120a target, PTX 8.8.
// FP4 (nvfp4 and mxfp4) decodes with the hardware e2m1 pair conversion, and
// the fp32 scaling runs on packed f32x2 pairs; int4 and fp8 keep their
// decodes.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_120 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_120 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG
// ptxas accepts the PTX for sm_120a.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_120 format=bin})' | FileCheck %s --check-prefix=BIN

// No FP4 lookup tables (fp32 or f16 bytes), no emulation call, no
// division, no stack, no flush-to-zero.
// NEG-NOT: {{1061109504|1077952576|-1065353216|-1065336832|1044133888|1178878528}}
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: {{(div|rem)\.}}
// NEG-NOT: __local_depot
// NEG-NOT: .ftz

// BIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx88">, properties = {{.*}}, bin = "\7FELF

// CHECK: // qmat-gpu-assembly @qmat_kernels #nvvm.target<O = 3, chip = "sm_120a", features = "+ptx88">
// CHECK: .version 8.8
// CHECK-NEXT: .target sm_120a

// nvfp4, f16, K = 4096: 2 chunks a thread, 4 packed bytes a chunk, one
// conversion per byte: 8 cvt.rn.f16x2.e2m1x2. The e2m1 values are widened to
// fp32 and scaled in pairs; each pair rounds with one cvt.rn.f16x2.f32.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k4096_f16_vec8_native_u2_t256(
// CHECK: .maxntid 256, 1, 1
// CHECK-COUNT-4: cvt.rn.f16x2.e2m1x2 {{%r[0-9]+}}, %e2m1x2_in;
// CHECK-NOT: cvt.rn.f16x2.e2m1x2
// CHECK: mul.rn.f32x2
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// CHECK-COUNT-4: cvt.rn.f16x2.e2m1x2 {{%r[0-9]+}}, %e2m1x2_in;
// CHECK-NOT: cvt.rn.f16x2.e2m1x2
// CHECK: mul.rn.f32x2
// CHECK: cvt.rn.f16x2.f32
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

// mxfp4, bf16: the same hardware conversion; the e8m0 scale is built as
// bits (e << 23), 2^-127 for e = 0 and NaN for e = 0xFF, and multiplies
// the widened pairs.
// CHECK-LABEL: .entry dequant_mxfp4_bs32_k2048_bf16_vec8_native_u1_t256(
// CHECK: ld.global.b8 [[E:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK-DAG: setp.eq.b32 [[ISNAN:%p[0-9]+]], [[E]], 255;
// CHECK-DAG: setp.eq.b32 [[ISZERO:%p[0-9]+]], [[E]], 0;
// CHECK-COUNT-4: cvt.rn.f16x2.e2m1x2 {{%r[0-9]+}}, %e2m1x2_in;
// CHECK-NOT: cvt.rn.f16x2.e2m1x2
// CHECK: shl.b32 [[BITS:%r[0-9]+]], [[E]], 23;
// CHECK-NEXT: selp.f32 [[SUB:%r[0-9]+]], 0f00400000, [[BITS]], [[ISZERO]];
// CHECK-NEXT: selp.f32 [[SCALE:%r[0-9]+]], 0f7FC00000, [[SUB]], [[ISNAN]];
// CHECK-NEXT: mov.b64 [[PAIR:%rd[0-9]+]], {[[SCALE]], [[SCALE]]};
// CHECK-COUNT-4: mul.rn.f32x2 {{%rd[0-9]+}}, [[PAIR]], {{%rd[0-9]+}};
// CHECK-COUNT-4: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @mxfp4_bf16(%a: memref<?x2048xbf16>, %w: memref<64x1024xi8>,
                      %s: memref<64x64xf8E8M0FNU>, %y: memref<?x64xbf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x2048xbf16>, memref<64x1024xi8>, memref<64x64xf8E8M0FNU>)
      outs(%y : memref<?x64xbf16>)
  return
}

// int4 has no native conversion: the magic bias stays, (q - zp) and the
// scale run on f32x2 pairs.
// CHECK-LABEL: .entry dequant_int4_bs32_k1024_bf16_vec8_magic_bias_zp_u1_t128(
// CHECK-NOT: e2m1x2
// CHECK: or.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1677747200;
// CHECK: add.rn.f16x2
// CHECK: sub.rn.f32x2
// CHECK: mul.rn.f32x2
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

// fp8: the e4m3 arithmetic decode, eight NaN patches, no e2m1 conversion.
// CHECK-LABEL: .entry dequant_fp8_bs128_k1024_f16_vec8_arith_u1_t128(
// CHECK-NOT: e2m1x2
// CHECK: ld.global.v2.b32
// CHECK-COUNT-8: selp.f32 {{%r[0-9]+}}, 0f7FC00000, {{%r[0-9]+}}, {{%p[0-9]+}};
// CHECK: mul.rn.f32x2
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
