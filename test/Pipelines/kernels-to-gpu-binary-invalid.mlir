// Errors of the kernel half, reported on the dequantize they concern.
// RUN: qmat-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=isa threads-per-block=64 items-per-thread=3})'
// Target errors, reported once on the module.
// RUN: not qmat-opt %s -split-input-file --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=host})' 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not qmat-opt %s -split-input-file --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_75})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// HOST: error: qmat-lower-dequant-to-gpu needs a GPU target
// HOST-NOT: gpu.binary
// UNKNOWN: error: unknown target 'sm_75' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942, gfx950, host or host-amdgcn)
// UNKNOWN-NOT: gpu.binary

// 64 threads x 3 items = 192 chunks a block do not tile the row's 256.
func.func @items_do_not_divide(%w: memref<64x1024xi8>, %s: memref<64x128xf8E4M3FN>, %g: memref<f32>,
                               %o: memref<64x2048xbf16>) {
  // expected-error @+1 {{'qmat.dequantize' op items-per-thread 3 with 64 threads does not divide the row's 256 work items}}
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<64x1024xi8>, memref<64x128xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%o : memref<64x2048xbf16>) kernel = vec8 decode = lookup
  return
}

// -----

// K = 1536 (192 chunks) fits 64 x 3, but the scratch is a column window of
// a wider buffer (row stride 2048, not K): the kernels take row-contiguous
// [?, K] views only.
func.func @column_window(%w: memref<64x768xi8>, %s: memref<64x96xf8E4M3FN>, %g: memref<f32>,
                         %o: memref<64x1536xbf16, strided<[2048, 1], offset: 256>>) {
  // expected-error @+1 {{'qmat.dequantize' op operand of type 'memref<64x1536xbf16, strided<[2048, 1], offset: 256>>' is not a row-contiguous view the kernels take}}
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<64x768xi8>, memref<64x96xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%o : memref<64x1536xbf16, strided<[2048, 1], offset: 256>>) kernel = vec8 decode = lookup
  return
}
