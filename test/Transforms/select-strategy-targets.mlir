// The per-target defaults on Ampere (sm_80) and Ada (sm_89), which have no
// e2m1 conversion instruction: FP4 (nvfp4 and mxfp4) decodes by the byte
// lookup, int4 by the magic bias, fp8 by arithmetic; the plan records the
// target. (sm_90, sm_100 and sm_120: select-strategy.mlir.)
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=target=sm_89 | FileCheck %s --check-prefix=SM89
// The magic-bias FP4 decode can be forced on either.
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(qmat-select-strategy{target=sm_80 force-decode=magic_bias}))' | FileCheck %s --check-prefix=SM80-MAGIC
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(qmat-select-strategy{target=sm_89 force-decode=magic_bias}))' | FileCheck %s --check-prefix=SM89-MAGIC
// The native conversion cannot: it needs sm_100 or sm_120. Each split stops
// at its first layer.
// RUN: not qmat-opt %s -split-input-file --qmat-select-strategy='target=sm_80 force-decode=native' 2>&1 | FileCheck %s --check-prefix=SM80-NATIVE
// RUN: not qmat-opt %s -split-input-file --qmat-select-strategy='target=sm_89 force-decode=native' 2>&1 | FileCheck %s --check-prefix=SM89-NATIVE
// fp8 has no magic-bias decode on any target.
// RUN: not qmat-opt %s -split-input-file --qmat-select-strategy='target=sm_89 force-decode=magic_bias' 2>&1 | FileCheck %s --check-prefix=FP8-MAGIC
// AMD (gfx942, gfx950): FP4 and int4 decode by the magic bias (the byte
// lookup is available but not measured); small M takes the matrix-core
// (v_mfma 16x16x16) GEMV where K % 128 == 0, M up to 128 the fused GEMM on
// the same instruction.
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=target=gfx942 | FileCheck %s --check-prefix=GFX942
// sm_90a (the warpgroup instruction): the packed schemes' fused GEMM runs to
// M = 256 (its specialized tilings); fp8, the prepared code layout and a
// given fused-max-m keep their range.
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=target=sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy="target=sm_90a prepared-weights=true" | FileCheck %s --check-prefix=SM90A-PREP
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy="target=sm_90a fused-max-m=128" | FileCheck %s --check-prefix=SM90A-128
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=target=gfx950 | FileCheck %s --check-prefix=GFX950

// GFX942-LABEL: func.func @layers
// GFX942: qmat.matmul <nvfp4, block = 16> {{.*}} {plan = #qmat.plan<target = <gfx942>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// GFX942: qmat.matmul <fp8, block = 128> {{.*}} small_m = gemv_tensor_core, dequant = vec8, decode = arith,
// GFX942: qmat.matmul <int4, block = 32> {{.*}} decode = magic_bias,
// GFX950-LABEL: func.func @layers
// GFX950: qmat.matmul <nvfp4, block = 16> {{.*}} {plan = #qmat.plan<target = <gfx950>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias,

// SM90A-LABEL: func.func @layers
// SM90A: qmat.matmul <nvfp4, block = 16>
// SM90A-SAME: {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 256>}
// SM90A: qmat.matmul <mxfp4, block = 32>
// SM90A-SAME: tile_rows = 1024, fused_max_m = 256>}
// SM90A: qmat.matmul <fp8, block = 128>
// SM90A-SAME: tile_rows = 1024, fused_max_m = 128>}
// SM90A: qmat.matmul <int4, block = 32>
// SM90A-SAME: tile_rows = 1024, fused_max_m = 256>}
// SM90A-PREP-LABEL: func.func @layers
// SM90A-PREP: qmat.matmul <nvfp4, block = 16>
// SM90A-PREP-SAME: prepared_weights = true, fused_max_m = 128>}
// SM90A-PREP: qmat.matmul <mxfp4, block = 32>
// SM90A-PREP-SAME: prepared_weights = true, fused_max_m = 128>}
// SM90A-PREP: qmat.matmul <fp8, block = 128>
// SM90A-PREP-SAME: tile_rows = 1024, fused_max_m = 128>}
// SM90A-PREP: qmat.matmul <int4, block = 32>
// SM90A-PREP-SAME: prepared_weights = true, fused_max_m = 128>}
// SM90A-128-LABEL: func.func @layers
// SM90A-128-COUNT-4: fused_max_m = 128>}

// Four layers of one model, K = 4096, bf16: 1024 rows fit the 256 MiB cap.
// SM80-LABEL: func.func @layers
// SM80: qmat.matmul <nvfp4, block = 16>
// SM80-SAME: {plan = #qmat.plan<target = <sm_80>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// SM80: qmat.matmul <mxfp4, block = 32>
// SM80-SAME: {plan = #qmat.plan<target = <sm_80>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// SM80: qmat.matmul <fp8, block = 128>
// SM80-SAME: {plan = #qmat.plan<target = <sm_80>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = arith, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// SM80: qmat.matmul <int4, block = 32>
// SM80-SAME: {plan = #qmat.plan<target = <sm_80>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// SM89-LABEL: func.func @layers
// SM89: qmat.matmul <nvfp4, block = 16>
// SM89-SAME: {plan = #qmat.plan<target = <sm_89>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// SM89: qmat.matmul <mxfp4, block = 32>
// SM89-SAME: {plan = #qmat.plan<target = <sm_89>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// SM89: qmat.matmul <fp8, block = 128>
// SM89-SAME: {plan = #qmat.plan<target = <sm_89>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = arith, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// SM89: qmat.matmul <int4, block = 32>
// SM89-SAME: {plan = #qmat.plan<target = <sm_89>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 1024, fused_max_m = 128>}
// SM80-NATIVE: :[[@LINE+9]]:3: error: 'qmat.matmul' op decode 'native' is not available for nvfp4 on sm_80
// SM89-NATIVE: :[[@LINE+8]]:3: error: 'qmat.matmul' op decode 'native' is not available for nvfp4 on sm_89
// FP8-MAGIC: :[[@LINE+13]]:3: error: 'qmat.matmul' op decode 'magic_bias' is not available for fp8 on sm_89
func.func @layers(%a: memref<?x4096xbf16>,
                  %w4: memref<1024x2048xi8>, %snv: memref<1024x256xf8E4M3FN>, %g: memref<f32>,
                  %smx: memref<1024x128xf8E8M0FNU>,
                  %w8: memref<1024x4096xf8E4M3FN>, %s8: memref<1024x32xf32>,
                  %si: memref<1024x128xbf16>, %zp: memref<1024x64xi8>,
                  %y: memref<?x1024xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w4, %snv : memref<?x4096xbf16>, memref<1024x2048xi8>, memref<1024x256xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x1024xbf16>)
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w4, %smx : memref<?x4096xbf16>, memref<1024x2048xi8>, memref<1024x128xf8E8M0FNU>)
      outs(%y : memref<?x1024xbf16>)
  qmat.matmul <fp8, block = 128>
      ins(%a, %w8, %s8 : memref<?x4096xbf16>, memref<1024x4096xf8E4M3FN>, memref<1024x32xf32>)
      outs(%y : memref<?x1024xbf16>)
  qmat.matmul <int4, block = 32>
      ins(%a, %w4, %si : memref<?x4096xbf16>, memref<1024x2048xi8>, memref<1024x128xbf16>)
      zero_points(%zp : memref<1024x64xi8>) outs(%y : memref<?x1024xbf16>)
  return
}

// -----

// FP4 only (the nested module @fp4, which the forcing runs anchor on), so
// that forcing applies to every layer: the magic bias is available before
// Blackwell, the native conversion is not.
// SM80-LABEL: func.func @fp4_mxfp4
// SM80: decode = lookup,
// SM80-MAGIC-LABEL: func.func @fp4_mxfp4
// SM80-MAGIC: {plan = #qmat.plan<target = <sm_80>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 64, fused_max_m = 128>}
// SM80-MAGIC-LABEL: func.func @fp4_nvfp4_f16
// SM80-MAGIC: {plan = #qmat.plan<target = <sm_80>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 64, fused_max_m = 128>}
// SM89-MAGIC-LABEL: func.func @fp4_mxfp4
// SM89-MAGIC: {plan = #qmat.plan<target = <sm_89>, {{.*}}, decode = magic_bias,
// SM89-MAGIC-LABEL: func.func @fp4_nvfp4_f16
// SM89-MAGIC: {plan = #qmat.plan<target = <sm_89>, {{.*}}, decode = magic_bias,
// SM80-NATIVE: :[[@LINE+6]]:7: error: 'qmat.matmul' op decode 'native' is not available for mxfp4 on sm_80
// SM89-NATIVE: :[[@LINE+5]]:7: error: 'qmat.matmul' op decode 'native' is not available for mxfp4 on sm_89
module {
  module @fp4 {
    func.func @fp4_mxfp4(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x8xf8E8M0FNU>,
                         %y: memref<?x64xbf16>) {
      qmat.matmul <mxfp4, block = 32>
          ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x8xf8E8M0FNU>)
          outs(%y : memref<?x64xbf16>)
      return
    }
    func.func @fp4_nvfp4_f16(%a: memref<?x256xf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                             %g: memref<f32>, %y: memref<?x64xf16>) {
      qmat.matmul <nvfp4, block = 16>
          ins(%a, %w, %s : memref<?x256xf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
          global_scale(%g : memref<f32>) outs(%y : memref<?x64xf16>)
      return
    }
  }
}
