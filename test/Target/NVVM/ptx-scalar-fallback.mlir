// Where vec8 is illegal the pipeline picks the scalar kernel (one thread per
// packed byte, or per fp8 code), which still compiles without division.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG
// ptxas accepts it.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=bin})' | FileCheck %s --check-prefix=BIN

// NEG-NOT: _vec8_
// NEG-NOT: st.global.v4
// NEG-NOT: {{(div|rem)\.}}
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: __local_depot

// BIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF

// CHECK: .target sm_90

// Odd block (17), K = 510: 255 bytes a row, 128 threads, a bounds check.
// A byte's two nibbles can need two scales: two scale loads.
// CHECK-LABEL: .entry dequant_nvfp4_bs17_k510_bf16_scalar_lookup_u1_t128(
// CHECK: .maxntid 128, 1, 1
// CHECK: setp.gt.u32 [[OOB:%p[0-9]+]], {{%r[0-9]+}}, 254;
// CHECK-NEXT: @[[OOB]] bra
// CHECK-COUNT-2: ld.global.b8
// CHECK: ld.global.{{[su]}}8
// CHECK: cvt.rn.bf16x2.f32
// One 4-byte store of the bf16 pair.
// CHECK: st.global.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @odd_block(%a: memref<?x510xbf16>, %w: memref<64x255xi8>, %s: memref<64x30xf8E4M3FN>,
                     %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.matmul <nvfp4, block = 17>
      ins(%a, %w, %s : memref<?x510xbf16>, memref<64x255xi8>, memref<64x30xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
  return
}

// K = 516 (K % 8 != 0), block 16: 258 bytes a row, one scale a byte.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k516_f16_scalar_lookup_u1_t128(
// CHECK: .maxntid 128, 1, 1
// CHECK: setp.gt.u32 [[OOB:%p[0-9]+]], {{%r[0-9]+}}, 257;
// CHECK-NEXT: @[[OOB]] bra
// CHECK: ld.global.b8
// CHECK-NOT: ld.global.b8
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @k_516(%a: memref<?x516xf16>, %w: memref<64x258xi8>, %s: memref<64x33xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x64xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x516xf16>, memref<64x258xi8>, memref<64x33xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xf16>)
  return
}

// fp8 with K = 77: one code a thread, 96 threads, a 2-byte store.
// CHECK-LABEL: .entry dequant_fp8_bs128_k77_bf16_scalar_arith_u1_t96(
// CHECK: .maxntid 96, 1, 1
// CHECK: setp.gt.u32 [[OOB:%p[0-9]+]], {{%r[0-9]+}}, 76;
// CHECK-NEXT: @[[OOB]] bra
// CHECK: st.global.b16
// CHECK-NOT: st.global
// CHECK: ret;
func.func @fp8_odd_k(%a: memref<?x77xbf16>, %w: memref<4x77xf8E4M3FN>, %s: memref<4x1xf32>,
                     %y: memref<?x4xbf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x77xbf16>, memref<4x77xf8E4M3FN>, memref<4x1xf32>)
      outs(%y : memref<?x4xbf16>)
  return
}
