// qmat-configure-kernels on qmat.fused_gemm: the warp instruction, or the
// warpgroup's where the tiling asks for it and the target has it.
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90A
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=sm_80 | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=sm_100 | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=sm_120 | FileCheck %s --check-prefixes=CHECK,SM100
// AMD: the wavefront instruction for every tiling, and the GEMV's decode
// (gfx950's fp4 conversion only on request).
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=gfx942 | FileCheck %s --check-prefix=GFX
// RUN: qmat-opt %s -split-input-file --qmat-configure-kernels=target=gfx950 | FileCheck %s --check-prefix=GFX

// Blackwell converts e2m1 pairs itself: nvfp4 and mxfp4 take that.
// CHECK-LABEL: func.func @warp(
// SM90: stages = 2 config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// SM90A: stages = 2 config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// SM80: stages = 2 config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// SM100: stages = 2 config = #qmat.kernel_config<matrix = mma_16x8x16, decode = native>{{$}}
// GFX-LABEL: func.func @warp(
// GFX: stages = 2 config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias>{{$}}

func.func @warp(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2
  return
}


// The warpgroup tiling builds from the warp instruction where the target
// has no warpgroup instruction.
// CHECK-LABEL: func.func @warpgroup(
// SM90: warpgroup config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// SM90A: warpgroup config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = magic_bias>{{$}}
// SM80: warpgroup config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// SM100: warpgroup config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>{{$}}
// GFX-LABEL: func.func @warpgroup(
// GFX: warpgroup config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias>{{$}}

func.func @warpgroup(%a: memref<?x5120xf16>, %w: memref<17408x2560xi8>, %s: memref<17408x40xf16>, %z: memref<17408x20xi8>, %y: memref<?x17408xf16>) {
  qmat.fused_gemm <int4, block = 128> ins(%a, %w, %s : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x40xf16>)
      zero_points(%z : memref<17408x20xi8>) outs(%y : memref<?x17408xf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup
  return
}


// CHECK-LABEL: func.func @fp8(
// SM90: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = native>{{$}}
// SM90A: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = native>{{$}}
// SM80: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = arith>{{$}}
// SM100: config = #qmat.kernel_config<matrix = mma_16x8x16, decode = native>{{$}}
// GFX-LABEL: func.func @fp8(
// GFX: config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = arith>{{$}}

func.func @fp8(%a: memref<?x5120xbf16>, %w: memref<6144x5120xf8E4M3FN>, %s: memref<6144x40xf32>, %y: memref<?x6144xbf16>) {
  qmat.fused_gemm <fp8, block = 128> ins(%a, %w, %s : memref<?x5120xbf16>, memref<6144x5120xf8E4M3FN>, memref<6144x40xf32>)
      outs(%y : memref<?x6144xbf16>) m_tile = 16 warps_n = 1 split_k = 4 col_tiles = 2 stages = 2
  return
}


// Prepared codes: whole blocks where N is a multiple of the block's
// 16 x col_tiles x warps_n rows (6144 of 64, not 6160).
// CHECK-LABEL: func.func @prepared(
// CHECK: prepared_weights config = #qmat.kernel_config<matrix = mma_16x8x16, decode = [[FP4:magic_bias|native]], whole_blocks = true>{{$}}
// GFX-LABEL: func.func @prepared(
// GFX: prepared_weights config = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias, whole_blocks = true>{{$}}

func.func @prepared(%a: memref<?x5120xbf16>, %w: memref<6144x2560xi8>, %s: memref<6144x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x6144xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<6144x2560xi8>, memref<6144x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x6144xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2 prepared_weights
  return
}


// CHECK-LABEL: func.func @prepared_partial_block(
// CHECK: prepared_weights config = #qmat.kernel_config<matrix = mma_16x8x16, decode = [[FP4]]>{{$}}

func.func @prepared_partial_block(%a: memref<?x5120xbf16>, %w: memref<6160x2560xi8>, %s: memref<6160x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x6160xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<6160x2560xi8>, memref<6160x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x6160xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2 prepared_weights
  return
}

// -----

// fp8 (decoded through fp32) takes the warp instruction for the warpgroup
// tiling on every target: the warpgroup form exchanges packed codes.
// CHECK-LABEL: func.func @warpgroup_fp8(
// CHECK: warpgroup config = #qmat.kernel_config<matrix = mma_16x8x16, decode = {{[a-z_]+}}>{{$}}

func.func @warpgroup_fp8(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>, %y: memref<?x64xbf16>) {
  qmat.fused_gemm <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup
  return
}
