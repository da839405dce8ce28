// Per-layer errors: vec8 forced where a byte (or an 8-element chunk) would
// straddle two scale blocks, and a native FP4 decode forced before Blackwell.
// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-select-strategy='force-dequant=vec8 force-decode=native'

// Option errors are reported once, on the module, before any layer is
// looked at (so no -split-input-file: the whole file is one module). They
// are checked with FileCheck because the implicit module has no source line
// an expected-error could name.
// RUN: not qmat-opt %s --qmat-select-strategy=target=sm_91 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not qmat-opt %s --qmat-select-strategy=target=host 2>&1 | FileCheck %s --check-prefix=HOST
// The native fp4 conversion exists on gfx950 only: forcing it on gfx942
// fails on the first FP4 layer.
// RUN: not qmat-opt %s --qmat-select-strategy='target=gfx942 force-decode=native' 2>&1 | FileCheck %s --check-prefix=GFX
// RUN: not qmat-opt %s --qmat-select-strategy=gemv-max-m=65 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not qmat-opt %s --qmat-select-strategy=scratch-cap-mib=0 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: not qmat-opt %s --qmat-select-strategy=force-dequant=vec16 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: not qmat-opt %s --qmat-select-strategy=force-decode=prmt 2>&1 | FileCheck %s --check-prefix=DECODE
// Lookup is an FP4 decode: forcing it fails on the first int4 layer.
// RUN: not qmat-opt %s --qmat-select-strategy='target=sm_100 force-decode=lookup' 2>&1 | FileCheck %s --check-prefix=LOOKUP

// TARGET: error: unknown target 'sm_91' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942 or gfx950)
// TARGET-NOT: error: 'qmat.matmul' op
// HOST: error: unknown target 'host' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942 or gfx950)
// GFX: error: 'qmat.matmul' op decode 'native' is not available for nvfp4 on gfx942
// RANGE: error: gemv-max-m must be in [0, 64], got 65
// RANGE-NOT: error: 'qmat.matmul' op
// CAP: error: scratch-cap-mib must be in [1, 1048576], got 0
// CAP-NOT: error: 'qmat.matmul' op
// KERNEL: error: unknown dequant kernel 'vec16' (expected auto, vec8 or scalar)
// DECODE: error: unknown decode method 'prmt' (expected auto, arith, lookup, magic_bias or native)
// LOOKUP: error: 'qmat.matmul' op decode 'lookup' is not available for int4 on sm_100
// LOOKUP-NEXT: qmat.matmul <int4, block = 32>
// LOOKUP-NOT: error: 'qmat.matmul' op

// An odd block: the two nibbles of one byte can need two scales.
func.func @vec8_odd_block(%a: memref<?x512xf16>, %w: memref<8x256xi8>, %s: memref<8x31xf8E4M3FN>,
                          %g: memref<f32>, %y: memref<?x8xf16>) {
  // expected-error @+1 {{'qmat.matmul' op vec8 was forced but needs K % 8 == 0 and an even block size, got K = 512, block = 17}}
  qmat.matmul <nvfp4, block = 17>
      ins(%a, %w, %s : memref<?x512xf16>, memref<8x256xi8>, memref<8x31xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// K % 8 != 0: the last 8-element chunk of a row would run past K.
func.func @vec8_k_516(%a: memref<?x516xbf16>, %w: memref<8x258xi8>, %s: memref<8x33xf8E4M3FN>,
                      %g: memref<f32>, %y: memref<?x8xbf16>) {
  // expected-error @+1 {{'qmat.matmul' op vec8 was forced but needs K % 8 == 0 and an even block size, got K = 516, block = 16}}
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x516xbf16>, memref<8x258xi8>, memref<8x33xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xbf16>)
  return
}

// -----

// Hopper has no e2m1 conversion instruction (only a branchy emulation).
func.func @native_on_sm90(%a: memref<?x128xbf16>, %w: memref<32x64xi8>, %s: memref<32x8xf8E4M3FN>,
                          %g: memref<f32>, %y: memref<?x32xbf16>) {
  // expected-error @+1 {{'qmat.matmul' op decode 'native' is not available for nvfp4 on sm_90}}
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x128xbf16>, memref<32x64xi8>, memref<32x8xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x32xbf16>)
  return
}

// -----

// The native conversion is an FP4 one, on any target.
func.func @native_int4(%a: memref<?x64xf16>, %w: memref<8x32xi8>, %s: memref<8x2xf16>,
                       %y: memref<?x8xf16>) {
  // expected-error @+1 {{'qmat.matmul' op decode 'native' is not available for int4 on sm_90}}
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x64xf16>, memref<8x32xi8>, memref<8x2xf16>)
      outs(%y : memref<?x8xf16>)
  return
}
