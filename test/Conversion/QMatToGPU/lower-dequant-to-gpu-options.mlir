// Option validation and nested modules.
// RUN: not qmat-opt %s --qmat-lower-dequant-to-gpu=threads-per-block=2048 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not qmat-opt %s --qmat-lower-dequant-to-gpu=threads-per-block=48 2>&1 | FileCheck %s --check-prefix=THREADS48
// RUN: not qmat-opt %s --qmat-lower-dequant-to-gpu=items-per-thread=65 2>&1 | FileCheck %s --check-prefix=ITEMS
// RUN: not qmat-opt %s --qmat-select-strategy=scratch-cap-mib=17592186044416 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: qmat-opt %s --qmat-lower-dequant-to-gpu | FileCheck %s

// THREADS: error: threads-per-block must be a multiple of 32 in [32, 1024], got 2048
// THREADS48: error: threads-per-block must be a multiple of 32 in [32, 1024], got 48
// ITEMS: error: items-per-thread must be in [0, 64], got 65
// CAP: error: scratch-cap-mib must be in [1, 1048576], got 17592186044416

// A dequantize inside a nested module gets its kernels in that module, so
// that the launch resolves.
// CHECK: module @outer {
// CHECK: module @inner attributes {gpu.container_module}
// CHECK: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k256_f16_vec8_arith_u1_t32
// CHECK: gpu.module @qmat_kernels
// CHECK-NEXT: gpu.func @dequant_fp8_bs128_k256_f16_vec8_arith_u1_t32
module @outer {
  module @inner {
    func.func @nested(%w: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>, %out: memref<4x256xf16>) {
      qmat.dequantize <fp8, block = 128> ins(%w, %s : memref<4x256xf8E4M3FN>, memref<4x2xf32>)
          outs(%out : memref<4x256xf16>) kernel = vec8
      return
    }
  }
}
