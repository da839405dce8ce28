// One layer per scheme (nvfp4, mxfp4, fp8, int4 with and without zero
// points), in f16 and bf16, through qmat-to-gpu-binary: each becomes its
// own named kernel (scheme, block, K, dtype, kernel shape, decode, zero
// points, items, threads) taking its own argument list, a launch into the
// workspace and the GEMM on it.
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 format=isa})' | FileCheck %s --enable-var-scope
// Blackwell renames (and recompiles) only the FP4 kernels: native decode.
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_100 format=isa})' | FileCheck %s --enable-var-scope --check-prefix=SM100

// nvfp4: codes, e4m3 scales, the fp32 global scale, the scratch.
// CHECK-LABEL: func.func @nvfp4_f16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k1024_f16_vec8_lookup_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x512xi8, strided<[512, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x64xf8E4M3FN, strided<[64, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<f32>, %{{[a-z0-9_]+}} : memref<?x1024xf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xf16>, memref<128x1024xf16>) outs(%{{.+}} : memref<?x128xf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_nvfp4_bs16_k1024_f16_vec8_lookup_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @nvfp4_f16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k1024_f16_vec8_native_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_nvfp4_bs16_k1024_f16_vec8_native_u1_t128(
func.func @nvfp4_f16(%a: memref<?x1024xf16>, %w: memref<128x512xi8>, %s: memref<128x64xf8E4M3FN>, %g: memref<f32>, %y: memref<?x128xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x1024xf16>, memref<128x512xi8>, memref<128x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @nvfp4_bf16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xbf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k1024_bf16_vec8_lookup_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x512xi8, strided<[512, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x64xf8E4M3FN, strided<[64, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<f32>, %{{[a-z0-9_]+}} : memref<?x1024xbf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xbf16>, memref<128x1024xbf16>) outs(%{{.+}} : memref<?x128xbf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_nvfp4_bs16_k1024_bf16_vec8_lookup_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @nvfp4_bf16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k1024_bf16_vec8_native_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_nvfp4_bs16_k1024_bf16_vec8_native_u1_t128(
func.func @nvfp4_bf16(%a: memref<?x1024xbf16>, %w: memref<128x512xi8>, %s: memref<128x64xf8E4M3FN>, %g: memref<f32>, %y: memref<?x128xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x512xi8>, memref<128x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
  return
}

// -----

// mxfp4: no global scale; e8m0 scales.
// CHECK-LABEL: func.func @mxfp4_f16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_mxfp4_bs32_k1024_f16_vec8_lookup_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x512xi8, strided<[512, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x32xf8E8M0FNU, strided<[32, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x1024xf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xf16>, memref<128x1024xf16>) outs(%{{.+}} : memref<?x128xf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_mxfp4_bs32_k1024_f16_vec8_lookup_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @mxfp4_f16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_mxfp4_bs32_k1024_f16_vec8_native_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_mxfp4_bs32_k1024_f16_vec8_native_u1_t128(
func.func @mxfp4_f16(%a: memref<?x1024xf16>, %w: memref<128x512xi8>, %s: memref<128x32xf8E8M0FNU>, %y: memref<?x128xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x1024xf16>, memref<128x512xi8>, memref<128x32xf8E8M0FNU>) outs(%y : memref<?x128xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @mxfp4_bf16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xbf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_mxfp4_bs32_k1024_bf16_vec8_lookup_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x512xi8, strided<[512, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x32xf8E8M0FNU, strided<[32, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x1024xbf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xbf16>, memref<128x1024xbf16>) outs(%{{.+}} : memref<?x128xbf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_mxfp4_bs32_k1024_bf16_vec8_lookup_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @mxfp4_bf16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_mxfp4_bs32_k1024_bf16_vec8_native_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_mxfp4_bs32_k1024_bf16_vec8_native_u1_t128(
func.func @mxfp4_bf16(%a: memref<?x1024xbf16>, %w: memref<128x512xi8>, %s: memref<128x32xf8E8M0FNU>, %y: memref<?x128xbf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x512xi8>, memref<128x32xf8E8M0FNU>) outs(%y : memref<?x128xbf16>)
  return
}

// -----

// fp8: one code a byte, fp32 scales; the arithmetic decode.
// CHECK-LABEL: func.func @fp8_f16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k1024_f16_vec8_arith_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x1024xf8E4M3FN, strided<[1024, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x8xf32, strided<[8, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x1024xf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xf16>, memref<128x1024xf16>) outs(%{{.+}} : memref<?x128xf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_fp8_bs128_k1024_f16_vec8_arith_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @fp8_f16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k1024_f16_vec8_arith_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_fp8_bs128_k1024_f16_vec8_arith_u1_t128(
func.func @fp8_f16(%a: memref<?x1024xf16>, %w: memref<128x1024xf8E4M3FN>, %s: memref<128x8xf32>, %y: memref<?x128xf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x1024xf16>, memref<128x1024xf8E4M3FN>, memref<128x8xf32>) outs(%y : memref<?x128xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @fp8_bf16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xbf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k1024_bf16_vec8_arith_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x1024xf8E4M3FN, strided<[1024, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x8xf32, strided<[8, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x1024xbf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xbf16>, memref<128x1024xbf16>) outs(%{{.+}} : memref<?x128xbf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_fp8_bs128_k1024_bf16_vec8_arith_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @fp8_bf16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k1024_bf16_vec8_arith_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_fp8_bs128_k1024_bf16_vec8_arith_u1_t128(
func.func @fp8_bf16(%a: memref<?x1024xbf16>, %w: memref<128x1024xf8E4M3FN>, %s: memref<128x8xf32>, %y: memref<?x128xbf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x1024xf8E4M3FN>, memref<128x8xf32>) outs(%y : memref<?x128xbf16>)
  return
}

// -----

// int4 with packed zero points: the kernel takes them, its name says _zp.
// CHECK-LABEL: func.func @int4_zp_f16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_int4_bs32_k1024_f16_vec8_magic_bias_zp_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x512xi8, strided<[512, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x32xf16, strided<[32, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x16xi8, strided<[16, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x1024xf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xf16>, memref<128x1024xf16>) outs(%{{.+}} : memref<?x128xf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_int4_bs32_k1024_f16_vec8_magic_bias_zp_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @int4_zp_f16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_int4_bs32_k1024_f16_vec8_magic_bias_zp_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_int4_bs32_k1024_f16_vec8_magic_bias_zp_u1_t128(
func.func @int4_zp_f16(%a: memref<?x1024xf16>, %w: memref<128x512xi8>, %s: memref<128x32xf16>, %zp: memref<128x16xi8>, %y: memref<?x128xf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x1024xf16>, memref<128x512xi8>, memref<128x32xf16>)
      zero_points(%zp : memref<128x16xi8>) outs(%y : memref<?x128xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @int4_zp_bf16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xbf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_int4_bs32_k1024_bf16_vec8_magic_bias_zp_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x512xi8, strided<[512, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x16xi8, strided<[16, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x1024xbf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xbf16>, memref<128x1024xbf16>) outs(%{{.+}} : memref<?x128xbf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_int4_bs32_k1024_bf16_vec8_magic_bias_zp_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @int4_zp_bf16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_int4_bs32_k1024_bf16_vec8_magic_bias_zp_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_int4_bs32_k1024_bf16_vec8_magic_bias_zp_u1_t128(
func.func @int4_zp_bf16(%a: memref<?x1024xbf16>, %w: memref<128x512xi8>, %s: memref<128x32xbf16>, %zp: memref<128x16xi8>, %y: memref<?x128xbf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x512xi8>, memref<128x32xbf16>)
      zero_points(%zp : memref<128x16xi8>) outs(%y : memref<?x128xbf16>)
  return
}

// -----

// int4 without zero points (8 implied), block 128.
// CHECK-LABEL: func.func @int4_f16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_int4_bs128_k1024_f16_vec8_magic_bias_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x512xi8, strided<[512, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x8xf16, strided<[8, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x1024xf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xf16>, memref<128x1024xf16>) outs(%{{.+}} : memref<?x128xf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_int4_bs128_k1024_f16_vec8_magic_bias_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @int4_f16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_int4_bs128_k1024_f16_vec8_magic_bias_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_int4_bs128_k1024_f16_vec8_magic_bias_u1_t128(
func.func @int4_f16(%a: memref<?x1024xf16>, %w: memref<128x512xi8>, %s: memref<128x8xf16>, %y: memref<?x128xf16>) {
  qmat.matmul <int4, block = 128>
      ins(%a, %w, %s : memref<?x1024xf16>, memref<128x512xi8>, memref<128x8xf16>) outs(%y : memref<?x128xf16>)
  return
}

// -----

// CHECK-LABEL: func.func @int4_bf16(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: memref<128x1024xbf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK: gpu.launch_func @qmat_kernels::@dequant_int4_bs128_k1024_bf16_vec8_magic_bias_u1_t128 blocks in
// CHECK-SAME: args(%{{[a-z0-9_]+}} : memref<?x512xi8, strided<[512, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x8xbf16, strided<[8, 1], offset: ?>>, %{{[a-z0-9_]+}} : memref<?x1024xbf16, strided<[1024, 1], offset: ?>>)
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[WS]] : memref<?x1024xbf16>, memref<128x1024xbf16>) outs(%{{.+}} : memref<?x128xbf16>)
// CHECK-NEXT: return
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_int4_bs128_k1024_bf16_vec8_magic_bias_u1_t128(
// CHECK-NOT: .entry
// SM100-LABEL: func.func @int4_bf16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_int4_bs128_k1024_bf16_vec8_magic_bias_u1_t128 blocks in
// SM100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, assembly = "{{.*}}.visible .entry dequant_int4_bs128_k1024_bf16_vec8_magic_bias_u1_t128(
func.func @int4_bf16(%a: memref<?x1024xbf16>, %w: memref<128x512xi8>, %s: memref<128x8xbf16>, %y: memref<?x128xbf16>) {
  qmat.matmul <int4, block = 128>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x512xi8>, memref<128x8xbf16>) outs(%y : memref<?x128xbf16>)
  return
}
