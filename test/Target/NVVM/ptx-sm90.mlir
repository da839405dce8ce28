// The whole pipeline to PTX for Hopper, default knobs (vec8, byte lookup).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// The same PTX, checked for what no kernel may contain anywhere.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=NEG

// No integer (or float) division or remainder: rows come from the grid,
// block indices from shifts.
// NEG-NOT: {{(div|rem)\.}}
// No calls, so no software fp4 conversion (__nv_cvt_fp4x2_to_halfraw2 is a
// branchy routine before Blackwell), and no stack.
// NEG-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
// NEG-NOT: .extern
// NEG-NOT: __local_depot
// The hardware e2m1 conversion does not exist on sm_90.
// NEG-NOT: e2m1x2
// NEG-NOT: .ftz

// CHECK: // qmat-gpu-assembly @qmat_kernels #nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK: .target sm_90
// CHECK: .address_size 64

// K = 5120: 640 8-element chunks a row, 128 threads x 5 chunks, one block
// a row.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128(
// CHECK: .maxntid 128, 1, 1
// The global scale: one load, into a register, for every element.
// CHECK: ld.global.b32 [[GLOBAL:%r[0-9]+]], [{{%rd[0-9]+}}];
// Four code bytes per chunk; a thread's chunks are 128 threads x 4 bytes
// apart, so each load instruction of a warp reads 128 contiguous bytes.
// CHECK: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES:%rd[0-9]+]]];
// CHECK: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES]]+512];
// CHECK: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES]]+1024];
// CHECK: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES]]+1536];
// CHECK: ld.global.b32 {{%r[0-9]+}}, {{\[}}[[CODES]]+2048];
// The byte lookup straight to fp32: bytes 3 and 2 of the fp32 patterns of
// the e2m1 magnitudes, 0x3F3F3F00 / 0x40404040 and 0xC0800000 / 0xC0804000.
// CHECK: prmt.b32 {{%r[0-9]+}}, 1061109504, 1077952576, {{%r[0-9]+}};
// CHECK: prmt.b32 {{%r[0-9]+}}, -1065353216, -1065336832, {{%r[0-9]+}};
// CHECK: mul.rn.f32 {{%r[0-9]+}}, [[GLOBAL]], {{%r[0-9]+}};
// CHECK: cvt.rn.bf16x2.f32
// One 16-byte store per chunk, 128 x 16 bytes apart.
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

// f16 activations: the same kernel shape, rounded with cvt.rn.f16x2.
// CHECK-LABEL: .entry dequant_nvfp4_bs16_k5120_f16_vec8_lookup_u5_t128(
// CHECK: .maxntid 128, 1, 1
// CHECK: prmt.b32 {{%r[0-9]+}}, 1061109504, 1077952576, {{%r[0-9]+}};
// CHECK-NOT: cvt.rn.bf16x2.f32
// CHECK: cvt.rn.f16x2.f32
// CHECK-COUNT-5: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;
func.func @nvfp4_f16(%a: memref<?x5120xf16>, %w: memref<17408x2560xi8>,
                     %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>,
                     %y: memref<?x17408xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xf16>)
  return
}

// lm_head (248320 x 5120) is tiled under the 256 MiB cap; its tiles are
// row-dynamic strided views, which the kernels take anyway: the tile loop
// launches the very kernel of the untiled bf16 layer above, and no other.
// CHECK-NOT: .entry
func.func @lm_head(%a: memref<?x5120xbf16>, %w: memref<248320x2560xi8>,
                   %s: memref<248320x320xf8E4M3FN>, %g: memref<f32>,
                   %y: memref<?x248320xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<248320x2560xi8>, memref<248320x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x248320xbf16>)
  return
}
