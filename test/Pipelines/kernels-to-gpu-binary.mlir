// The kernel half of qmat-to-gpu-binary, on qmat.dequantize ops directly:
// no strategy pass, no prefill expansion. Kernel names carry the items per
// thread and the block size (_u<items>_t<threads>), and the launch matches.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa})' | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa threads-per-block=64})' | FileCheck %s --enable-var-scope --check-prefix=T64
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa threads-per-block=64 items-per-thread=2})' | FileCheck %s --enable-var-scope --check-prefix=U2
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa threads-per-block=96})' | FileCheck %s --enable-var-scope --check-prefix=T96
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa target=sm_100})' | FileCheck %s --enable-var-scope --check-prefix=SM100
// The PTX of the same runs.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=PTX
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa threads-per-block=64 items-per-thread=2}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=PTX-U2
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa threads-per-block=96}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=PTX-T96
// And ptxas takes it.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{threads-per-block=96})' | FileCheck %s --check-prefix=BIN

// Two layers with the same K share one kernel; the row count is the grid's x.
// K = 2048: 256 vec8 chunks a row, by default 256 threads x 1 item.
// CHECK-LABEL: func.func @two_layers(
// CHECK-NOT: qmat.dequantize
// CHECK: %[[ROWS0:.+]] = memref.dim %{{.+}}, %{{.+}} : memref<?x1024xi8, strided<[1024, 1], offset: ?>>
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256 blocks in (%[[ROWS0]], %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// CHECK: %[[ROWS1:.+]] = memref.dim %{{.+}}, %{{.+}} : memref<?x1024xi8, strided<[1024, 1], offset: ?>>
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256 blocks in (%[[ROWS1]],
// CHECK-NOT: qmat.dequantize
// A dequantize with no kernel or decode chosen gets the scalar kernel and
// the target's default decode (arith for fp8): one code a thread.
// CHECK-LABEL: func.func @unplanned(
// CHECK: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k256_f16_scalar_arith_u1_t256 blocks in (%{{.+}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}},
// CHECK-NOT: gpu.module
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "
// CHECK-NOT: qmat.

// 64 threads: 4 items a thread cover the row's 256 chunks in one block.
// T64-LABEL: func.func @two_layers(
// T64-COUNT-2: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u4_t64 blocks in (%{{.+}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c64{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// T64-LABEL: func.func @unplanned(
// T64: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k256_f16_scalar_arith_u4_t64 blocks in (%{{.+}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c64{{(_[0-9]+)?}},

// 64 threads x 2 items: 128 chunks a block, two blocks in y.
// U2-LABEL: func.func @two_layers(
// U2-COUNT-2: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u2_t64 blocks in (%{{.+}}, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c64{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// U2-LABEL: func.func @unplanned(
// U2: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k256_f16_scalar_arith_u2_t64 blocks in (%{{.+}}, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c64{{(_[0-9]+)?}},

// 96 threads do not divide 256: one item a thread, ceil(256 / 96) = 3
// blocks in y, and a bounds check.
// T96-LABEL: func.func @two_layers(
// T96-COUNT-2: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t96 blocks in (%{{.+}}, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c96{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// T96-LABEL: func.func @unplanned(
// T96: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k256_f16_scalar_arith_u1_t96 blocks in (%{{.+}}, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c96{{(_[0-9]+)?}},

// Blackwell: the binary is for sm_100a; the dequantize's own lookup stands.
// SM100: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256
// SM100: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k256_f16_scalar_arith_u1_t256
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.target sm_100a

// Two kernels in all.
// PTX: .target sm_90
// PTX: .entry dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256(
// PTX: .maxntid 256, 1, 1
// PTX-NOT: setp.gt
// PTX: st.global.v4.b32
// PTX-NOT: st.global
// PTX: .entry dequant_fp8_bs128_k256_f16_scalar_arith_u1_t256(
// PTX: .maxntid 256, 1, 1
// PTX: st.global.b16
// PTX-NOT: st.global
// PTX-NOT: .entry

// A block's 128 chunks start at blockIdx.y << 7; a thread's two chunks are
// 64 x 16 bytes apart.
// PTX-U2: .entry dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u2_t64(
// PTX-U2: .maxntid 64, 1, 1
// PTX-U2: shl.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 7;
// PTX-U2: st.global.v4.b32 {{\[}}[[OUT:%rd[0-9]+]]], {
// PTX-U2: st.global.v4.b32 {{\[}}[[OUT]]+1024], {
// PTX-U2-NOT: st.global
// PTX-U2: .entry dequant_fp8_bs128_k256_f16_scalar_arith_u2_t64(

// PTX-T96: .entry dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t96(
// PTX-T96: .maxntid 96, 1, 1
// PTX-T96: mad.lo.s32 [[ITEM:%r[0-9]+]], {{%r[0-9]+}}, 96, {{%r[0-9]+}};
// PTX-T96-NEXT: setp.gt.u32 [[OOB:%p[0-9]+]], [[ITEM]], 255;
// PTX-T96-NEXT: @[[OOB]] bra
// PTX-T96: .entry dequant_fp8_bs128_k256_f16_scalar_arith_u1_t96(
// PTX-T96: setp.gt.u32 {{%p[0-9]+}}, {{%r[0-9]+}}, 255;

// BIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
func.func @two_layers(%w: memref<64x1024xi8>, %s: memref<64x128xf8E4M3FN>, %g: memref<f32>,
                      %o: memref<64x2048xbf16>, %w2: memref<32x1024xi8>, %s2: memref<32x128xf8E4M3FN>,
                      %o2: memref<32x2048xbf16>) {
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<64x1024xi8>, memref<64x128xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%o : memref<64x2048xbf16>) kernel = vec8 decode = lookup
  qmat.dequantize <nvfp4, block = 16> ins(%w2, %s2 : memref<32x1024xi8>, memref<32x128xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%o2 : memref<32x2048xbf16>) kernel = vec8 decode = lookup
  return
}
func.func @unplanned(%w: memref<16x256xf8E4M3FN>, %s: memref<16x2xf32>, %o: memref<16x256xf16>) {
  qmat.dequantize <fp8, block = 128> ins(%w, %s : memref<16x256xf8E4M3FN>, memref<16x2xf32>)
      outs(%o : memref<16x256xf16>)
  return
}
