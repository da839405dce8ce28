// Default target (sm_90) and every default knob.
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy | FileCheck %s --enable-var-scope
// Blackwell converts e2m1 natively; int4 and fp8 keep their sm_90 decodes.
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=target=sm_100 | FileCheck %s --enable-var-scope --check-prefix=SM100
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=target=sm_120 | FileCheck %s --enable-var-scope --check-prefix=SM120
// The GEMV threshold: 0 sends every M to prefill, 16 is recorded as is.
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=gemv-max-m=0 | FileCheck %s --enable-var-scope --check-prefix=GEMV0
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=gemv-max-m=16 | FileCheck %s --enable-var-scope --check-prefix=GEMV16
// A 1 MiB scratch cap: tile_rows = max(1, min(N, 2^20 / (K * 2))).
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=scratch-cap-mib=1 | FileCheck %s --enable-var-scope --check-prefix=CAP1
// The prepared code layout where a layer can take it (packed 4-bit codes,
// K % 128 == 0, N % 16 == 0, a tensor-core or no GEMV); its N tiles round
// down to a multiple of 16 rows (102 -> 96 under a 1 MiB cap).
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=prepared-weights=true | FileCheck %s --enable-var-scope --check-prefix=PREP
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy="prepared-weights=true scratch-cap-mib=1" | FileCheck %s --enable-var-scope --check-prefix=PREPCAP
// Forcing options that apply to every scheme in this file.
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=force-dequant=scalar | FileCheck %s --enable-var-scope --check-prefix=SCALAR
// RUN: qmat-opt %s -split-input-file --qmat-select-strategy=force-decode=arith | FileCheck %s --enable-var-scope --check-prefix=ARITH
// Forcing options that only apply to FP4 (and vec8-legal shapes): run only on
// the nested `module @fp4` of the last split.
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(qmat-select-strategy{force-decode=magic_bias}))' | FileCheck %s --enable-var-scope --check-prefix=MAGIC
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(qmat-select-strategy{target=sm_100 force-decode=lookup}))' | FileCheck %s --enable-var-scope --check-prefix=LOOKUP100
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(qmat-select-strategy{force-dequant=vec8}))' | FileCheck %s --enable-var-scope --check-prefix=VEC8

// The Qwen3 MLP shape: everything legal and fast, scratch under the cap.
// CHECK-LABEL: func.func @nvfp4_bf16
// CHECK: qmat.matmul <nvfp4, block = 16>
// CHECK-SAME: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 17408, fused_max_m = 128>}
// SM100-LABEL: func.func @nvfp4_bf16
// SM100: {plan = #qmat.plan<target = <sm_100>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = native, scratch_cap_mib = 256, tile_rows = 17408, fused_max_m = 128>}
// SM120-LABEL: func.func @nvfp4_bf16
// SM120: {plan = #qmat.plan<target = <sm_120>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = native, scratch_cap_mib = 256, tile_rows = 17408, fused_max_m = 128>}
// GEMV0-LABEL: func.func @nvfp4_bf16
// GEMV0: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 0, small_m = prefill, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 17408, fused_max_m = 128>}
// GEMV16-LABEL: func.func @nvfp4_bf16
// GEMV16: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 16, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 17408, fused_max_m = 128>}
// 2^20 / (5120 * 2) = 102.4
// CAP1-LABEL: func.func @nvfp4_bf16
// CAP1: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 1, tile_rows = 102, fused_max_m = 128>}
// SCALAR-LABEL: func.func @nvfp4_bf16
// SCALAR: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = scalar, decode = lookup, scratch_cap_mib = 256, tile_rows = 17408, fused_max_m = 128>}
// ARITH-LABEL: func.func @nvfp4_bf16
// ARITH: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = arith, scratch_cap_mib = 256, tile_rows = 17408, fused_max_m = 128>}
// PREP-LABEL: func.func @nvfp4_bf16
// PREP: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 17408, prepared_weights = true, fused_max_m = 128>}
// PREPCAP-LABEL: func.func @nvfp4_bf16
// PREPCAP: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 1, tile_rows = 96, prepared_weights = true, fused_max_m = 128>}
func.func @nvfp4_bf16(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>,
                      %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>,
                      %y: memref<?x17408xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
  return
}

// -----

// CHECK-LABEL: func.func @mxfp4_f16
// CHECK: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 64, fused_max_m = 128>}
// SM100-LABEL: func.func @mxfp4_f16
// SM100: {plan = #qmat.plan<target = <sm_100>, {{.*}}, decode = native,
// SM120-LABEL: func.func @mxfp4_f16
// SM120: {plan = #qmat.plan<target = <sm_120>, {{.*}}, decode = native,
// PREP-LABEL: func.func @mxfp4_f16
// PREP: tile_rows = 64, prepared_weights = true, fused_max_m = 128>}
func.func @mxfp4_f16(%a: memref<?x2048xf16>, %w: memref<64x1024xi8>,
                     %s: memref<64x64xf8E8M0FNU>, %y: memref<?x64xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x2048xf16>, memref<64x1024xi8>, memref<64x64xf8E8M0FNU>)
      outs(%y : memref<?x64xf16>)
  return
}

// -----

// int4 decodes by the magic bias on every NVIDIA target.
// CHECK-LABEL: func.func @int4_f16
// CHECK: qmat.matmul <int4, block = 32>
// CHECK-SAME: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 64, fused_max_m = 128>}
// SM100-LABEL: func.func @int4_f16
// SM100: {plan = #qmat.plan<target = <sm_100>, {{.*}}, decode = magic_bias,
// SM120-LABEL: func.func @int4_f16
// SM120: {plan = #qmat.plan<target = <sm_120>, {{.*}}, decode = magic_bias,
// CAP1-LABEL: func.func @int4_f16
// CAP1: tile_rows = 64, fused_max_m = 128>}
// ARITH-LABEL: func.func @int4_f16
// ARITH: decode = arith,
// PREP-LABEL: func.func @int4_f16
// PREP: tile_rows = 64, prepared_weights = true, fused_max_m = 128>}
func.func @int4_f16(%a: memref<?x4096xf16>, %w: memref<64x2048xi8>, %s: memref<64x128xf16>,
                    %zp: memref<64x64xi8>, %y: memref<?x64xf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x4096xf16>, memref<64x2048xi8>, memref<64x128xf16>)
      zero_points(%zp : memref<64x64xi8>) outs(%y : memref<?x64xf16>)
  return
}

// -----

// fp8 decodes by plain arithmetic on every NVIDIA target.
// CHECK-LABEL: func.func @fp8_bf16
// CHECK: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = arith, scratch_cap_mib = 256, tile_rows = 256, fused_max_m = 128>}
// SM100-LABEL: func.func @fp8_bf16
// SM100: {plan = #qmat.plan<target = <sm_100>, {{.*}}, decode = arith,
// SM120-LABEL: func.func @fp8_bf16
// SM120: {plan = #qmat.plan<target = <sm_120>, {{.*}}, decode = arith,
// SCALAR-LABEL: func.func @fp8_bf16
// SCALAR: dequant = scalar, decode = arith,
// fp8 codes are not packed: the checkpoint's layout.
// PREP-LABEL: func.func @fp8_bf16
// PREP: scratch_cap_mib = 256, tile_rows = {{[0-9]+}}, fused_max_m = 128>}
func.func @fp8_bf16(%a: memref<?x4096xbf16>, %w: memref<256x4096xf8E4M3FN>,
                    %s: memref<256x32xf32>, %y: memref<?x256xbf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x4096xbf16>, memref<256x4096xf8E4M3FN>, memref<256x32xf32>)
      outs(%y : memref<?x256xbf16>)
  return
}

// -----

// N = 769, K = 4096: 2^20 / (4096 * 2) = 128 rows a tile under a 1 MiB cap.
// CHECK-LABEL: func.func @tile_769
// CHECK: tile_rows = 769, fused_max_m = 128>}
// CAP1-LABEL: func.func @tile_769
// CAP1: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 1, tile_rows = 128, fused_max_m = 128>}
// N % 16 != 0: the checkpoint's layout.
// PREP-LABEL: func.func @tile_769
// PREP: tile_rows = 769, fused_max_m = 128>}
func.func @tile_769(%a: memref<?x4096xbf16>, %w: memref<769x2048xi8>,
                    %s: memref<769x256xf8E4M3FN>, %g: memref<f32>,
                    %y: memref<?x769xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x4096xbf16>, memref<769x2048xi8>, memref<769x256xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x769xbf16>)
  return
}

// -----

// lm_head, 248320 x 5120 bf16: 2.4 GiB of scratch untiled;
// 256 MiB / (5120 * 2) = 26112.4 rows a tile.
// CHECK-LABEL: func.func @lm_head
// CHECK: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 26112, fused_max_m = 128>}
// CAP1-LABEL: func.func @lm_head
// CAP1: scratch_cap_mib = 1, tile_rows = 102, fused_max_m = 128>}
// PREP-LABEL: func.func @lm_head
// PREP: tile_rows = 26112, prepared_weights = true, fused_max_m = 128>}
func.func @lm_head(%a: memref<?x5120xbf16>, %w: memref<248320x2560xi8>,
                   %s: memref<248320x320xf8E4M3FN>, %g: memref<f32>,
                   %y: memref<?x248320xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<248320x2560xi8>, memref<248320x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x248320xbf16>)
  return
}

// -----

// A row larger than the cap (2 MiB at K = 2^20) still gets a 1-row tile.
// CHECK-LABEL: func.func @row_over_cap
// CHECK: tile_rows = 4, fused_max_m = 128>}
// CAP1-LABEL: func.func @row_over_cap
// CAP1: scratch_cap_mib = 1, tile_rows = 1, fused_max_m = 128>}
func.func @row_over_cap(%a: memref<?x1048576xf16>, %w: memref<4x524288xi8>,
                        %s: memref<4x65536xf8E4M3FN>, %g: memref<f32>,
                        %y: memref<?x4xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x1048576xf16>, memref<4x524288xi8>, memref<4x65536xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x4xf16>)
  return
}

// -----

// An odd block: a byte's two nibbles can fall in two scale blocks, so
// neither vec8 nor the tensor-core GEMV apply.
// CHECK-LABEL: func.func @odd_block
// CHECK: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_scalar, dequant = scalar, decode = lookup, scratch_cap_mib = 256, tile_rows = 8>}
// GEMV0-LABEL: func.func @odd_block
// GEMV0: small_m = prefill, dequant = scalar,
// The scalar GEMV reads the checkpoint's layout only.
// PREP-LABEL: func.func @odd_block
// PREP: small_m = gemv_scalar, {{.*}}, tile_rows = 8>}
func.func @odd_block(%a: memref<?x512xf16>, %w: memref<8x256xi8>, %s: memref<8x31xf8E4M3FN>,
                     %g: memref<f32>, %y: memref<?x8xf16>) {
  qmat.matmul <nvfp4, block = 17>
      ins(%a, %w, %s : memref<?x512xf16>, memref<8x256xi8>, memref<8x31xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xf16>)
  return
}

// -----

// K % 8 != 0 (K = 516): scalar dequant; K % 128 != 0: scalar GEMV.
// CHECK-LABEL: func.func @k_516
// CHECK: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_scalar, dequant = scalar, decode = lookup, scratch_cap_mib = 256, tile_rows = 8>}
func.func @k_516(%a: memref<?x516xbf16>, %w: memref<8x258xi8>, %s: memref<8x33xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x8xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x516xbf16>, memref<8x258xi8>, memref<8x33xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xbf16>)
  return
}

// -----

// K = 520: vec8 is legal (K % 8 == 0) but the tensor-core GEMV is not
// (K % 128 != 0).
// CHECK-LABEL: func.func @k_520
// CHECK: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_scalar, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 8>}
// GEMV16-LABEL: func.func @k_520
// GEMV16: gemv_max_m = 16, small_m = gemv_scalar, dequant = vec8,
func.func @k_520(%a: memref<?x520xbf16>, %w: memref<8x260xi8>, %s: memref<8x33xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x8xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x520xbf16>, memref<8x260xi8>, memref<8x33xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x8xbf16>)
  return
}

// -----

// fp8 allows an odd K (K = 77): scalar everywhere.
// CHECK-LABEL: func.func @fp8_odd_k
// CHECK: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_scalar, dequant = scalar, decode = arith, scratch_cap_mib = 256, tile_rows = 4>}
func.func @fp8_odd_k(%a: memref<?x77xf16>, %w: memref<4x77xf8E4M3FN>, %s: memref<4x1xf32>,
                     %y: memref<?x4xf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x77xf16>, memref<4x77xf8E4M3FN>, memref<4x1xf32>)
      outs(%y : memref<?x4xf16>)
  return
}

// -----

// Every matmul of a function gets its own plan.
// CHECK-LABEL: func.func @two_layers
// CHECK: qmat.matmul <nvfp4, block = 16> {{.*}} {plan = #qmat.plan<target = <sm_90>, {{.*}}, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 16, fused_max_m = 128>}
// CHECK: qmat.matmul <int4, block = 32> {{.*}} {plan = #qmat.plan<target = <sm_90>, {{.*}}, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 8, fused_max_m = 128>}
func.func @two_layers(%a: memref<?x128xf16>, %w: memref<16x64xi8>, %s: memref<16x8xf8E4M3FN>,
                      %g: memref<f32>, %y: memref<?x16xf16>,
                      %wi: memref<8x64xi8>, %si: memref<8x4xf16>, %yi: memref<?x8xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x128xf16>, memref<16x64xi8>, memref<16x8xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x16xf16>)
  qmat.matmul <int4, block = 32>
      ins(%a, %wi, %si : memref<?x128xf16>, memref<8x64xi8>, memref<8x4xf16>)
      outs(%yi : memref<?x8xf16>)
  return
}

// -----

// FP4 layers only, so that the FP4-only forcing runs apply to all of them.
// MAGIC-LABEL: func.func @fp4_nvfp4
// MAGIC: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 32, fused_max_m = 128>}
// MAGIC-LABEL: func.func @fp4_mxfp4
// MAGIC: {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 32, fused_max_m = 128>}
// LOOKUP100-LABEL: func.func @fp4_nvfp4
// LOOKUP100: {plan = #qmat.plan<target = <sm_100>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 32, fused_max_m = 128>}
// LOOKUP100-LABEL: func.func @fp4_mxfp4
// LOOKUP100: {plan = #qmat.plan<target = <sm_100>, {{.*}}, decode = lookup,
// VEC8-LABEL: func.func @fp4_nvfp4
// VEC8: dequant = vec8, decode = lookup,
// VEC8-LABEL: func.func @fp4_mxfp4
// VEC8: dequant = vec8, decode = lookup,
// The top-level module is outside the nested-anchored runs.
// MAGIC-LABEL: func.func @outside
// MAGIC-NOT: plan
// MAGIC: return
module @fp4 {
  func.func @fp4_nvfp4(%a: memref<?x128xbf16>, %w: memref<32x64xi8>, %s: memref<32x8xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x32xbf16>) {
    qmat.matmul <nvfp4, block = 16>
        ins(%a, %w, %s : memref<?x128xbf16>, memref<32x64xi8>, memref<32x8xf8E4M3FN>)
        global_scale(%g : memref<f32>) outs(%y : memref<?x32xbf16>)
    return
  }
  func.func @fp4_mxfp4(%a: memref<?x128xf16>, %w: memref<32x64xi8>, %s: memref<32x4xf8E8M0FNU>,
                       %y: memref<?x32xf16>) {
    qmat.matmul <mxfp4, block = 32>
        ins(%a, %w, %s : memref<?x128xf16>, memref<32x64xi8>, memref<32x4xf8E8M0FNU>)
        outs(%y : memref<?x32xf16>)
    return
  }
}
func.func @outside(%a: memref<?x77xf16>, %w: memref<4x77xf8E4M3FN>, %s: memref<4x1xf32>,
                   %y: memref<?x4xf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x77xf16>, memref<4x77xf8E4M3FN>, memref<4x1xf32>)
      outs(%y : memref<?x4xf16>)
  return
}
