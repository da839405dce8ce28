// qmat-configure-kernels on qmat.gemv: the #qmat.kernel_config each variant
// gets per target (the lowering tests in test/Conversion/QMatToGPU build
// from such configs).
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=sm_80 | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=sm_89 | FileCheck %s --check-prefixes=CHECK,SM89
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=gfx942 | FileCheck %s --check-prefixes=CHECK,GFX
// RUN: not qmat-opt %s -split-input-file --qmat-configure-kernels=target=host 2>&1 | FileCheck %s --check-prefix=HOST

// HOST: error: qmat-configure-kernels needs a GPU target

// Whole lines where they are legal (nvfp4, max_m <= 4, one tile) on every
// target with the 16x8x16 instruction; the 64-register budget on Hopper
// only, and only at split-K 2..8 with K <= 5120.
// CHECK-LABEL: func.func @whole_lines(
// SM90: max_m = 4 split_k = 4 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true, resident_threads = 1024>{{$}}
// SM90: max_m = 4 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>{{$}}
// SM80: max_m = 4 split_k = 4 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>{{$}}
// SM80: max_m = 4 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>{{$}}
// SM89: max_m = 4 split_k = 4 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>{{$}}
// SM89: max_m = 4 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>{{$}}
// GFX: max_m = 4 split_k = 4 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias>{{$}}
// GFX: max_m = 4 split_k = 1 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias>{{$}}

func.func @whole_lines(%a: memref<?x5120xbf16>, %w: memref<64x2560xi8>, %s: memref<64x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<64x2560xi8>, memref<64x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<64x2560xi8>, memref<64x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 4 split_k = 1 col_tiles = 1 tensor_core
  return
}

// -----

// No budget where ptxas spills under it (K = 8192), and no whole lines for
// int4 or where the op names another decode.
// CHECK-LABEL: func.func @whole_lines_deep_k(
// SM90: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>{{$}}

func.func @whole_lines_deep_k(%a: memref<?x8192xbf16>, %w: memref<64x4096xi8>, %s: memref<64x512xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x8192xbf16>, memref<64x4096xi8>, memref<64x512xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core
  return
}


// CHECK-LABEL: func.func @int4_rows(
// SM90: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}

func.func @int4_rows(%a: memref<?x5120xbf16>, %w: memref<64x2560xi8>, %s: memref<64x40xbf16>, %z: memref<64x20xi8>, %y: memref<?x64xbf16>) {
  qmat.gemv <int4, block = 128> ins(%a, %w, %s : memref<?x5120xbf16>, memref<64x2560xi8>, memref<64x40xbf16>)
      zero_points(%z : memref<64x20xi8>) outs(%y : memref<?x64xbf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core
  return
}


// CHECK-LABEL: func.func @lookup_decode(
// CHECK: decode = lookup config = #qmat.kernel_config<matrix = {{mma_16x8x16|mfma_16x16x16}}, decode = lookup>{{$}}

func.func @lookup_decode(%a: memref<?x5120xbf16>, %w: memref<64x2560xi8>, %s: memref<64x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<64x2560xi8>, memref<64x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core decode = lookup
  return
}

// -----

// Half steps with their 96-register budget: Hopper, bf16, four tiles,
// split-K 2 or 4 and K not a power of two; whole steps otherwise.
// CHECK-LABEL: func.func @half_steps(
// SM90: split_k = 2 col_tiles = 4 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, half_steps = true, resident_threads = 640>{{$}}
// SM90: split_k = 1 col_tiles = 4 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// SM80: split_k = 2 col_tiles = 4 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// SM89: split_k = 2 col_tiles = 4 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// GFX: split_k = 2 col_tiles = 4 tensor_core config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias>{{$}}

func.func @half_steps(%a: memref<?x5120xbf16>, %w: memref<128x2560xi8>, %s: memref<128x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<128x2560xi8>, memref<128x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<128x2560xi8>, memref<128x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>) max_m = 8 split_k = 1 col_tiles = 4 tensor_core
  return
}


// CHECK-LABEL: func.func @half_steps_power_of_two_k(
// SM90: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}

func.func @half_steps_power_of_two_k(%a: memref<?x4096xbf16>, %w: memref<128x2048xi8>, %s: memref<128x256xf8E4M3FN>, %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x4096xbf16>, memref<128x2048xi8>, memref<128x256xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core
  return
}


// CHECK-LABEL: func.func @half_steps_f16(
// SM90: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}

func.func @half_steps_f16(%a: memref<?x5120xf16>, %w: memref<128x2560xi8>, %s: memref<128x160xf8E8M0FNU>, %y: memref<?x128xf16>) {
  qmat.gemv <mxfp4, block = 32> ins(%a, %w, %s : memref<?x5120xf16>, memref<128x2560xi8>, memref<128x160xf8E8M0FNU>)
      outs(%y : memref<?x128xf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core
  return
}


// CHECK-LABEL: func.func @half_steps_mxfp4(
// SM90: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, half_steps = true, resident_threads = 640>{{$}}

func.func @half_steps_mxfp4(%a: memref<?x5120xbf16>, %w: memref<128x2560xi8>, %s: memref<128x160xf8E8M0FNU>, %y: memref<?x128xbf16>) {
  qmat.gemv <mxfp4, block = 32> ins(%a, %w, %s : memref<?x5120xbf16>, memref<128x2560xi8>, memref<128x160xf8E8M0FNU>)
      outs(%y : memref<?x128xbf16>) max_m = 8 split_k = 4 col_tiles = 4 tensor_core
  return
}

// -----

// fp8 takes the conversion instruction where the target has one (sm_89
// and later); the scalar GEMV multiplies without a matrix instruction.
// CHECK-LABEL: func.func @fp8(
// SM90: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = native>{{$}}
// SM89: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = native>{{$}}
// SM80: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = arith>{{$}}
// GFX: config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = arith>{{$}}

func.func @fp8(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>, %y: memref<?x64xbf16>) {
  qmat.gemv <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1 tensor_core
  return
}


// CHECK-LABEL: func.func @scalar(
// CHECK: max_m = 8 split_k = 1 col_tiles = 1 config = #qmat.kernel_config<matrix = scalar, decode = magic_bias>{{$}}

func.func @scalar(%a: memref<?x1024xbf16>, %w: memref<64x512xi8>, %s: memref<64x64xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x1024xbf16>, memref<64x512xi8>, memref<64x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 8 split_k = 1 col_tiles = 1
  return
}

// -----

// Prepared codes drop the partial-block branch where N is a multiple of a
// block's rows (128 = 2 x 64, not 80), and only then take half steps.
// CHECK-LABEL: func.func @prepared(
// SM90: prepared_weights config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, half_steps = true, whole_blocks = true, resident_threads = 640>{{$}}
// SM80: prepared_weights config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_blocks = true>{{$}}
// GFX: prepared_weights config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias, whole_blocks = true>{{$}}

func.func @prepared(%a: memref<?x5120xbf16>, %w: memref<128x2560xi8>, %s: memref<128x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<128x2560xi8>, memref<128x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core prepared_weights
  return
}


// CHECK-LABEL: func.func @prepared_partial_block(
// SM90: prepared_weights config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}

func.func @prepared_partial_block(%a: memref<?x5120xbf16>, %w: memref<80x2560xi8>, %s: memref<80x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x80xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<80x2560xi8>, memref<80x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x80xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core prepared_weights
  return
}

// -----

// A config already there is kept as written.
// CHECK-LABEL: func.func @pinned(
// CHECK: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}

func.func @pinned(%a: memref<?x5120xbf16>, %w: memref<64x2560xi8>, %s: memref<64x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<64x2560xi8>, memref<64x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>
  return
}
