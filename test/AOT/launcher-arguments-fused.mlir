// The fused dequant-GEMM path's argument checks in the generated launcher:
// null and misaligned operands at M in the fused range, the workspace needed
// again above it, and a grid past 65535 blocks along N refused; built and
// run against the recording mock, then again under AddressSanitizer and
// UBSan (every bad call returns its status without a report).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=sm_90 --gemv-split-k=1 --gemv-col-tiles=1 --prefix=fargs -o %t > /dev/null
// RUN: %cc -std=c99 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %S/Inputs/fused_args_driver.c -o %t/driver.o
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %t/fargs.cpp -o %t/fargs.o
// RUN: %cxx -std=c++17 -I%cuda_path/include -c %S/Inputs/mock_cuda.cpp -o %t/mock.o
// RUN: %cxx %t/driver.o %t/fargs.o %t/mock.o -o %t/run
// RUN: %t/run | FileCheck %s
// RUN: %cc -std=c99 -Wall -Wextra -Werror %asan_ubsan_flags -I%t -I%cuda_path/include -c %S/Inputs/fused_args_driver.c -o %t/driver.san.o
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror %asan_ubsan_flags -I%t -I%cuda_path/include -c %t/fargs.cpp -o %t/fargs.san.o
// RUN: %cxx -std=c++17 %asan_ubsan_flags -I%cuda_path/include -c %S/Inputs/mock_cuda.cpp -o %t/mock.san.o
// RUN: %cxx %asan_ubsan_flags %t/driver.san.o %t/fargs.san.o %t/mock.san.o -o %t/run.san
// RUN: env ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 %t/run.san | FileCheck %s

// The fused range needs no workspace. K = 256 is two steps: the four
// default tilings whose split-K divides them are compiled.
// CHECK: workspace m<=128: 0
// CHECK: function fused_nvfp4_bs16_k256_bf16_magic_bias_mt16_w2_s2_c2_p2
// CHECK-NEXT: function fused_nvfp4_bs16_k256_bf16_magic_bias_mt32_w2_s2_c2_p2
// CHECK-NEXT: function fused_nvfp4_bs16_k256_bf16_magic_bias_mt64_w4_s1_c2_p2
// CHECK-NEXT: function fused_nvfp4_bs16_k256_bf16_magic_bias_mt32_w2_s2_c1_p2
// M tiles along x, 64-row blocks along y (at M = 128 four 32-row tiles:
// 256 blocks, 1.9 per SM), no workspace.
// CHECK: launch grid=(1,64,1) block=(128,1,1) view0=+318767104 rows=16
// CHECK-NEXT: fused m=16: 0 ok
// CHECK-NEXT: launch grid=(4,64,1) block=(128,1,1) view0=+318767104 rows=128
// CHECK-NEXT: fused m=128: 0 ok
// CHECK-NEXT: launch grid=(1,64,1) block=(128,1,1) view0=+318767104 rows=16
// CHECK-NEXT: default stream: 0 ok
// CHECK-NEXT: no context: 4 gate: no CUDA context is current and the stream is the default stream
// CHECK-NEXT: null a: 1 gate: a must not be null
// CHECK-NEXT: null weights: 1 gate: weights must not be null
// CHECK-NEXT: null y: 1 gate: y must not be null
// CHECK-NEXT: a + 8: 1 gate: a must be 16-byte aligned for the fused GEMM (m <= 128)
// CHECK-NEXT: weights + 8: 1 gate: weights must be 16-byte aligned for the fused GEMM (m <= 128)
// CHECK-NEXT: scales + 1: 1 gate: scales must be 2-byte aligned for the fused GEMM (m <= 128)
// CHECK-NEXT: y + 1: 1 gate: y must be 2-byte aligned
// CHECK-NEXT: global_scale + 2: 1 gate: global_scale must be 4-byte aligned
// CHECK-NEXT: m=129 without workspace: 1 gate: workspace must not be null
// CHECK-NEXT: pin 32x2x2x1: 0 ok
// CHECK-NEXT: huge grid: 1 huge: the fused GEMM grid needs 65537 blocks along N, more than the 65535 a grid's y dimension holds
// CHECK-NEXT: unpin: 0 ok
// The policy's 64-row blocks fit: 32,769 of them.
// CHECK-NEXT: launch grid=(1,32769,1) block=(128,1,1) view0=+318767104 rows=16
// CHECK-NEXT: huge, policy: 0 ok

func.func @gate(%a: memref<?x256xbf16>, %w: memref<4096x128xi8>, %s: memref<4096x16xf8E4M3FN>,
                %g: memref<f32>, %y: memref<?x4096xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<4096x128xi8>, memref<4096x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x4096xbf16>)
  return
}

func.func @huge(%a: memref<?x256xbf16>, %w: memref<2097184x128xi8>, %s: memref<2097184x16xf8E4M3FN>,
                %g: memref<f32>, %y: memref<?x2097184xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<2097184x128xi8>, memref<2097184x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x2097184xbf16>)
  return
}
