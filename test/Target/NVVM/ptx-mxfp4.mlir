// mxfp4 (OCP MX, e8m0 block scales of 32 elements) on Hopper with the
// default decode (the byte lookup), vec8 and scalar kernels.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=bin})' | FileCheck %s --check-prefix=BIN

// The e8m0 scale needs no arithmetic decode: no e4m3-style 2^8 factor, no
// conversion from f16, no division (the block index is a shift), no calls.
// NEG-NOT: {{(div|rem)\.}}
// NEG-NOT: 0f43800000
// NEG-NOT: cvt.f32.f16
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: __local_depot
// NEG-NOT: .ftz

// BIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF

// K = 2048, bf16: 256 chunks, one a thread; block 32 is 4 chunks, so the
// scale column is item >> 2. The scale byte e becomes the fp32 bits e << 23,
// except e = 0 (2^-127, the subnormal 0x00400000) and e = 0xFF (NaN).
// CHECK-LABEL: .entry dequant_mxfp4_bs32_k2048_bf16_vec8_lookup_u1_t256(
// CHECK: .maxntid 256, 1, 1
// CHECK-NOT: setp.gt
// CHECK: or.b32 [[ITEM:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-DAG: ld.global.b32 [[CODES:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK-DAG: shr.u32 {{%r[0-9]+}}, [[ITEM]], 2;
// CHECK: ld.global.b8 [[E:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK-DAG: setp.eq.b32 [[ISNAN:%p[0-9]+]], [[E]], 255;
// CHECK-DAG: setp.eq.b32 [[ISZERO:%p[0-9]+]], [[E]], 0;
// CHECK: and.b32 [[IDX:%r[0-9]+]], [[CODES]], 30583;
// CHECK-NEXT: prmt.b32 {{%r[0-9]+}}, 1061109504, 1077952576, [[IDX]];
// CHECK-NEXT: prmt.b32 {{%r[0-9]+}}, -1065353216, -1065336832, [[IDX]];
// CHECK: shl.b32 [[BITS:%r[0-9]+]], [[E]], 23;
// CHECK-NEXT: selp.f32 [[SUB:%r[0-9]+]], 0f00400000, [[BITS]], [[ISZERO]];
// CHECK-NEXT: selp.f32 [[SCALE:%r[0-9]+]], 0f7FC00000, [[SUB]], [[ISNAN]];
// CHECK-COUNT-8: mul.rn.f32 {{%r[0-9]+}}, [[SCALE]], {{%r[0-9]+}};
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

// The gpt-oss hidden size, K = 2880, f16: 360 chunks do not fill a whole
// number of 128-thread blocks, so three blocks in y and a bounds check at
// chunk 359; one 16-byte store.
// CHECK-LABEL: .entry dequant_mxfp4_bs32_k2880_f16_vec8_lookup_u1_t128(
// CHECK: .maxntid 128, 1, 1
// CHECK: setp.gt.u32 [[OOB:%p[0-9]+]], {{%r[0-9]+}}, 359;
// CHECK-NEXT: @[[OOB]] bra
// CHECK: ld.global.b32
// CHECK: ld.global.b8 [[E:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK: shl.b32 {{%r[0-9]+}}, [[E]], 23;
// CHECK-NEXT: selp.f32 {{%r[0-9]+}}, 0f00400000,
// CHECK-NEXT: selp.f32 {{%r[0-9]+}}, 0f7FC00000,
// CHECK-COUNT-4: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @mxfp4_f16(%a: memref<?x2880xf16>, %w: memref<2880x1440xi8>,
                     %s: memref<2880x90xf8E8M0FNU>, %y: memref<?x2880xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x2880xf16>, memref<2880x1440xi8>, memref<2880x90xf8E8M0FNU>)
      outs(%y : memref<?x2880xf16>)
  return
}

// K = 100 (K % 8 != 0): the scalar kernel, one packed byte a thread (50 a
// row). The block is even, so both nibbles share one scale: one scale load,
// column byte >> 4; the lookup on the byte's two nibbles (mask 0x77).
// CHECK-LABEL: .entry dequant_mxfp4_bs32_k100_f16_scalar_lookup_u1_t64(
// CHECK: .maxntid 64, 1, 1
// CHECK: setp.gt.u32 [[OOB:%p[0-9]+]], {{%r[0-9]+}}, 49;
// CHECK-NEXT: @[[OOB]] bra
// CHECK: shr.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4;
// CHECK: ld.global.b8 [[E:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK-NOT: ld.global.b8
// CHECK: ld.global.s8 [[BYTE:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK-NEXT: and.b32 [[IDX:%r[0-9]+]], [[BYTE]], 119;
// CHECK-NEXT: prmt.b32 {{%r[0-9]+}}, 1061109504, 1077952576, [[IDX]];
// CHECK: shl.b32 {{%r[0-9]+}}, [[E]], 23;
// CHECK-NEXT: selp.f32 {{%r[0-9]+}}, 0f00400000,
// CHECK-NEXT: selp.f32 {{%r[0-9]+}}, 0f7FC00000,
// CHECK-COUNT-2: mul.rn.f32
// CHECK-NEXT: cvt.rn.f16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: st.global
// CHECK: ret;
// CHECK-NOT: .entry
func.func @mxfp4_scalar(%a: memref<?x100xf16>, %w: memref<4x50xi8>, %s: memref<4x4xf8E8M0FNU>,
                        %y: memref<?x4xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x100xf16>, memref<4x50xi8>, memref<4x4xf8E8M0FNU>)
      outs(%y : memref<?x4xf16>)
  return
}
