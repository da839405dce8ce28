// The decode GEMV on prepared codes (PreparedWeights.h) in PTX, for the
// lm_head's shape: the four-tile M = 8 kernel with half steps under its
// 96-register budget and the whole-line M <= 4 kernel under its 64, both
// without the partial-block loop (N fills every block), both without
// spills, each advancing its code addresses by one kilobyte per 128-element
// step (split-K 2: two steps per iteration) with a single induction
// variable for every row.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m8_s2_c4_halves_prepared_full(
// CHECK: .minnctapersm 10
// CHECK: ld.global.L1::no_allocate.L2::128B.v4.b32
// CHECK: add.s64 [[IV:%rd[0-9]+]], [[IV]], 2048;
// CHECK-NOT: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 2048;
// CHECK: ret;
// CHECK-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m4_s2_c1_lines_prepared_full(
// CHECK: .minnctapersm 16
// CHECK: add.s64 [[IV:%rd[0-9]+]], [[IV]], 4096;
// CHECK-NOT: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4096;
// CHECK: ret;

// NOSPILL-COUNT-2: 0 bytes spill stores, 0 bytes spill loads

func.func @lm_head(%a: memref<?x5120xbf16>, %w: memref<248320x2560xi8>, %s: memref<248320x320xf8E4M3FN>,
                   %g: memref<f32>, %y: memref<?x248320xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<248320x2560xi8>, memref<248320x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x248320xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core prepared_weights
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<248320x2560xi8>, memref<248320x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x248320xbf16>) max_m = 4 split_k = 2 col_tiles = 1 tensor_core prepared_weights
  return
}
