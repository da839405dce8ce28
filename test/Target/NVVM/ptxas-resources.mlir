// ptxas accepts the generated PTX, and no kernel needs a stack or spills,
// with the default knobs (no occupancy hints) on Ampere, Hopper and
// Blackwell. The PTX is fed to ptxas on stdin.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | ptxas -arch=sm_90 -v - -o /dev/null > %t.sm90 2>&1
// RUN: FileCheck %s --check-prefix=SM90 < %t.sm90
// RUN: FileCheck %s --check-prefix=NOSPILL < %t.sm90
// RUN: FileCheck %s --check-prefix=K5120 < %t.sm90
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_80 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | ptxas -arch=sm_80 -v - -o /dev/null > %t.sm80 2>&1
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80
// RUN: FileCheck %s --check-prefix=NOSPILL < %t.sm80
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_100 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | ptxas -arch=sm_100a -v - -o /dev/null > %t.sm100 2>&1
// RUN: FileCheck %s --check-prefix=SM100 < %t.sm100
// RUN: FileCheck %s --check-prefix=NOSPILL < %t.sm100
// gpu-module-to-binary runs ptxas itself: every format=bin build succeeds.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_80 format=bin})' | FileCheck %s --check-prefix=BIN80
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_90 format=bin})' | FileCheck %s --check-prefix=BIN90
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{gemv-max-m=0 fused-max-m=0 target=sm_100 format=bin})' | FileCheck %s --check-prefix=BIN100

// SM90-DAG: Compiling entry function 'dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128' for 'sm_90'
// SM90-DAG: Compiling entry function 'dequant_nvfp4_bs16_k17408_bf16_vec8_lookup_u1_t128' for 'sm_90'
// SM90-DAG: Compiling entry function 'dequant_mxfp4_bs32_k2880_bf16_vec8_lookup_u1_t128' for 'sm_90'
// SM90-DAG: Compiling entry function 'dequant_int4_bs32_k4096_f16_vec8_magic_bias_zp_u2_t256' for 'sm_90'
// SM90-DAG: Compiling entry function 'dequant_fp8_bs128_k4096_f16_vec8_arith_u2_t256' for 'sm_90'
// SM90-DAG: Compiling entry function 'dequant_nvfp4_bs17_k510_bf16_scalar_lookup_u1_t128' for 'sm_90'
// SM90-NOT: error
// SM90-NOT: warning

// SM80-DAG: Compiling entry function 'dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128' for 'sm_80'
// SM80-DAG: Compiling entry function 'dequant_nvfp4_bs16_k17408_bf16_vec8_lookup_u1_t128' for 'sm_80'
// SM80-DAG: Compiling entry function 'dequant_mxfp4_bs32_k2880_bf16_vec8_lookup_u1_t128' for 'sm_80'
// SM80-DAG: Compiling entry function 'dequant_int4_bs32_k4096_f16_vec8_magic_bias_zp_u2_t256' for 'sm_80'
// SM80-DAG: Compiling entry function 'dequant_fp8_bs128_k4096_f16_vec8_arith_u2_t256' for 'sm_80'
// SM80-DAG: Compiling entry function 'dequant_nvfp4_bs17_k510_bf16_scalar_lookup_u1_t128' for 'sm_80'
// SM80-NOT: error
// SM80-NOT: warning

// SM100-DAG: Compiling entry function 'dequant_nvfp4_bs16_k5120_bf16_vec8_native_u5_t128' for 'sm_100a'
// SM100-DAG: Compiling entry function 'dequant_nvfp4_bs16_k17408_bf16_vec8_native_u1_t128' for 'sm_100a'
// SM100-DAG: Compiling entry function 'dequant_mxfp4_bs32_k2880_bf16_vec8_native_u1_t128' for 'sm_100a'
// SM100-DAG: Compiling entry function 'dequant_int4_bs32_k4096_f16_vec8_magic_bias_zp_u2_t256' for 'sm_100a'
// SM100-DAG: Compiling entry function 'dequant_fp8_bs128_k4096_f16_vec8_arith_u2_t256' for 'sm_100a'
// SM100-DAG: Compiling entry function 'dequant_nvfp4_bs17_k510_bf16_scalar_native_u1_t128' for 'sm_100a'
// SM100-NOT: error
// SM100-NOT: warning

// Six kernels, none with a stack frame or a spill.
// NOSPILL-COUNT-6: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: bytes stack frame
// NOSPILL-NOT: cumulative stack size

// The hot one (Qwen3 MLP, K = 5120, 5 chunks a thread) in particular.
// K5120: Function properties for dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128
// K5120-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// BIN80: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
// BIN90: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
// BIN100: gpu.binary @qmat_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, bin = "\7FELF

func.func @layers(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>,
                  %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>, %y: memref<?x17408xbf16>,
                  %a2: memref<?x17408xbf16>, %w2: memref<5120x8704xi8>,
                  %s2: memref<5120x1088xf8E4M3FN>, %y2: memref<?x5120xbf16>,
                  %a3: memref<?x2880xbf16>, %w3: memref<2880x1440xi8>,
                  %s3: memref<2880x90xf8E8M0FNU>, %y3: memref<?x2880xbf16>,
                  %a4: memref<?x4096xf16>, %w4: memref<1024x2048xi8>, %s4: memref<1024x128xf16>,
                  %zp4: memref<1024x64xi8>, %y4: memref<?x1024xf16>,
                  %w5: memref<1024x4096xf8E4M3FN>, %s5: memref<1024x32xf32>, %y5: memref<?x1024xf16>,
                  %a6: memref<?x510xbf16>, %w6: memref<64x255xi8>, %s6: memref<64x30xf8E4M3FN>,
                  %y6: memref<?x64xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
  qmat.matmul <nvfp4, block = 16>
      ins(%a2, %w2, %s2 : memref<?x17408xbf16>, memref<5120x8704xi8>, memref<5120x1088xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y2 : memref<?x5120xbf16>)
  qmat.matmul <mxfp4, block = 32>
      ins(%a3, %w3, %s3 : memref<?x2880xbf16>, memref<2880x1440xi8>, memref<2880x90xf8E8M0FNU>)
      outs(%y3 : memref<?x2880xbf16>)
  qmat.matmul <int4, block = 32>
      ins(%a4, %w4, %s4 : memref<?x4096xf16>, memref<1024x2048xi8>, memref<1024x128xf16>)
      zero_points(%zp4 : memref<1024x64xi8>) outs(%y4 : memref<?x1024xf16>)
  qmat.matmul <fp8, block = 128>
      ins(%a4, %w5, %s5 : memref<?x4096xf16>, memref<1024x4096xf8E4M3FN>, memref<1024x32xf32>)
      outs(%y5 : memref<?x1024xf16>)
  qmat.matmul <nvfp4, block = 17>
      ins(%a6, %w6, %s6 : memref<?x510xbf16>, memref<64x255xi8>, memref<64x30xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y6 : memref<?x64xbf16>)
  return
}
