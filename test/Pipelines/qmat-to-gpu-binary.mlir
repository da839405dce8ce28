// The named end-to-end pipeline, default format (a cubin through ptxas).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{fused-max-m=0})' | FileCheck %s --enable-var-scope
// PTX text instead of a cubin; fatbin wraps the cubin.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{fused-max-m=0 format=isa})' | FileCheck %s --check-prefix=ISA
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{fused-max-m=0 format=fatbin})' | FileCheck %s --check-prefix=FATBIN
// gfx942: an AMDGPU code object (hsaco) linked by LLVM 22's ld.lld; the
// host target is rejected by the strategy pass.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{target=gfx942})' | FileCheck %s --check-prefix=GFX
// RUN: not qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{target=host})' 2>&1 | FileCheck %s --check-prefix=HOST

// GFX: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_bias_m8_s4_c1 blocks in
// GFX: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k5120_bf16_vec8_magic_bias_u5_t128 blocks in
// GFX: gpu.binary @qmat_kernels  [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">, bin = "\7FELF
// HOST: error: unknown target 'host' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942 or gfx950)

// Two layers: the MLP-sized one fits the 256 MiB scratch cap (one tile, a
// [N, K] workspace), lm_head does not (26112-row tiles, 10 of them, a
// [26112, K] workspace). Both launch the one kernel, then the vendor GEMM.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: func.func @layers(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<?x5120xbf16>
// CHECK-SAME: %[[B:[a-z0-9_]+]]: memref<17408xbf16>, %[[Y:[a-z0-9_]+]]: memref<?x17408xbf16>,
// CHECK-SAME: %[[YL:[a-z0-9_]+]]: memref<?x248320xbf16>,
// CHECK-SAME: %[[V0:[a-z0-9_]+]]: index {qmat.gemv_variant}, %[[V1:[a-z0-9_]+]]: index {qmat.gemv_variant},
// CHECK-SAME: %[[WS0:[a-z0-9_]+]]: memref<17408x5120xbf16> {qmat.workspace}, %[[WS1:[a-z0-9_]+]]: memref<26112x5120xbf16> {qmat.workspace})
// CHECK-NOT: qmat.matmul
// CHECK-NOT: qmat.dequantize
// CHECK-NOT: qmat.gemv
// M <= 8: a switch over the variants the launcher can pick (the first
// 16-row one: split-K 4, two column tiles); the bias goes to the kernel.
// CHECK: scf.if
// CHECK-NEXT: scf.index_switch %[[V0]]
// CHECK: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_bias_m8_s4_c2 blocks in
// CHECK-SAME: args(%{{.+}} : memref<?x5120xbf16, strided<[5120, 1], offset: ?>>, {{.*}} : memref<?xbf16, strided<[1], offset: ?>>, {{.*}} : memref<?x?xbf16, strided<[?, 1], offset: ?>>)
// CHECK: } else {
// First layer: launch, then GEMM with the bias, straight into Y.
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128 blocks in
// CHECK-NEXT: qmat.gemm ins(%[[A]], %[[WS0]] : memref<?x5120xbf16>, memref<17408x5120xbf16>) bias(%[[B]] : memref<17408xbf16>) outs(%[[Y]] : memref<?x17408xbf16>)
// lm_head: the tile loop around launch + GEMM into a column window of Y.
// CHECK: scf.index_switch %[[V1]]
// CHECK: gpu.launch_func @qmat_kernels::@gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m8_s4_c2 blocks in
// CHECK: } else {
// CHECK-DAG: %[[N:.+]] = arith.constant 248320 : index
// CHECK-DAG: %[[STEP:.+]] = arith.constant 26112 : index
// CHECK: scf.for %[[N0:.+]] = %{{.+}} to %[[N]] step %[[STEP]] {
// CHECK: %[[TILE:.+]] = memref.subview %[[WS1]][0, 0]
// CHECK: %[[YT:.+]] = memref.subview %[[YL]][0, %[[N0]]]
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128 blocks in
// CHECK-NEXT: qmat.gemm ins(%[[A]], %[[TILE]] : {{.*}}) outs(%[[YT]] : memref<?x?xbf16, strided<[248320, 1], offset: ?>>)
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// The kernels are compiled: no gpu.module is left, only the binary.
// CHECK-NOT: gpu.module
// CHECK: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
// CHECK-NOT: gpu.module
// ISA: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.target sm_90{{.*}}.entry dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128(
// FATBIN: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, "P\EDU\BA
func.func @layers(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>,
                  %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>, %b: memref<17408xbf16>,
                  %y: memref<?x17408xbf16>,
                  %wl: memref<248320x2560xi8>, %sl: memref<248320x320xf8E4M3FN>,
                  %yl: memref<?x248320xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) bias(%b : memref<17408xbf16>) outs(%y : memref<?x17408xbf16>)
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %wl, %sl : memref<?x5120xbf16>, memref<248320x2560xi8>, memref<248320x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%yl : memref<?x248320xbf16>)
  return
}
