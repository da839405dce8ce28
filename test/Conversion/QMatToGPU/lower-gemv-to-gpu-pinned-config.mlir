// qmat-lower-gemv-to-gpu builds the config it is given, whatever the
// strategy would choose: the whole-line-legal op below, pinned to the
// 16-row layout and to a budget of 512 resident threads, becomes the 16-row
// kernel (no _lines) with 8 blocks of 64 threads per SM. The launch keeps
// the config, where qmat-aot reads it back for the launcher's tables.
// RUN: qmat-opt %s --qmat-lower-gemv-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @pinned(
// CHECK: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k512_bf16_tc_magic_bias_m4_s2_c1 blocks
// CHECK-SAME: {qmat.kernel_config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, resident_threads = 512>}{{$}}
// CHECK: gpu.func @gemv_nvfp4_bs16_k512_bf16_tc_magic_bias_m4_s2_c1(
// CHECK-SAME: nvvm.minctasm = 8 : i32
func.func @pinned(%a: memref<?x512xbf16>, %w: memref<40x256xi8>, %s: memref<40x32xf8E4M3FN>, %g: memref<f32>, %y: memref<?x40xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xbf16>, memref<40x256xi8>, memref<40x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>) max_m = 4 split_k = 2 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, resident_threads = 512>
  return
}
