// The generated launcher's argument checks and error reporting, exercised
// on the CPU: the header compiles as C, the launcher with g++ (against the
// recording mock) and, host side, with nvcc; it links against the real
// libcuda stub and cuBLASLt.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=sm_90 --fused-max-m=0 --all-gemv-variants --prefix=args -o %t > /dev/null
// RUN: %cc -std=c99 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %S/Inputs/args_driver.c -o %t/driver.o
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %t/args.cpp -o %t/args.o
// RUN: %cxx -std=c++17 -I%cuda_path/include -c %S/Inputs/mock_cuda.cpp -o %t/mock.o
// RUN: %cxx %t/driver.o %t/args.o %t/mock.o -o %t/run
// RUN: %t/run | FileCheck %s
// RUN: env MOCK_RESIDENT_WARPS=16 %t/run | FileCheck %s --check-prefix=RESIDENT16
// RUN: env MOCK_FAIL_OCCUPANCY=1 %t/run | FileCheck %s --check-prefix=OCCUPANCY
// The same driver, launcher and mock under AddressSanitizer and UBSan (leak
// checking on): every bad call returns its status without a report.
// RUN: %cc -std=c99 -Wall -Wextra -Werror %asan_ubsan_flags -I%t -I%cuda_path/include -c %S/Inputs/args_driver.c -o %t/driver.san.o
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror %asan_ubsan_flags -I%t -I%cuda_path/include -c %t/args.cpp -o %t/args.san.o
// RUN: %cxx -std=c++17 %asan_ubsan_flags -I%cuda_path/include -c %S/Inputs/mock_cuda.cpp -o %t/mock.san.o
// RUN: %cxx %asan_ubsan_flags %t/driver.san.o %t/args.san.o %t/mock.san.o -o %t/run.san
// RUN: env ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 %t/run.san | FileCheck %s
// RUN: %nvcc -std=c++17 -I%t -c %t/args.cpp -o %t/args.nvcc.o
// RUN: %cxx %t/driver.o %t/args.nvcc.o -L%cuda_path/lib64/stubs -L%cuda_path/lib64 -lcuda -lcublasLt -o %t/linked

// CHECK: workspace m<=8: 0
// CHECK-NEXT: workspace m=64: 78643200
// CHECK-NEXT: m=0: 1 gate: m must be positive, got 0
// CHECK-NEXT: m<0: 1 gate: m must be positive, got -3
// CHECK-NEXT: null a: 1 gate: a must not be null
// CHECK-NEXT: null weights: 1 gate: weights must not be null
// CHECK-NEXT: null global: 1 gate: global_scale must not be null
// CHECK-NEXT: stray zero points: 1 gate: zero_points must be null: this layer has none
// CHECK-NEXT: stray bias: 1 gate: bias must be null: this layer has none
// CHECK-NEXT: null y: 1 gate: y must not be null
// CHECK-NEXT: null workspace: 1 gate: workspace must not be null
// CHECK-NEXT: misaligned weights: 1 gate: weights must be 4-byte aligned for the vectorised dequantization
// CHECK-NEXT: misaligned workspace: 1 gate: workspace must be 256-byte aligned
// CHECK-NEXT: misaligned y: 1 gate: y must be 2-byte aligned
// CHECK-NEXT: small workspace: 3 gate: the workspace needs 78643200 bytes, got 78643199
// CHECK-NEXT: sm_80 device: 2 gate: device of compute capability 8.0 has no binary in this bundle (built for: sm_90 (cubin)); a cubin runs on devices of its major version and a minor at or above its own, an sm_XYa one on X.Y only, PTX (qmat-aot --emit=ptx) on X.Y and every later device
// CHECK-NEXT: load cubin
// CHECK-NEXT: function dequant_nvfp4_bs16_k2048_f16_vec8_lookup_u1_t256
// The 21 compiled GEMV variants: the whole-line tier (M <= 4, split-K
// 1, 2, 3, 4, 8, 16, one column tile), then split-K 1, 2, 4, 8, 16 x 1, 2,
// 4 column tiles.
// CHECK-COUNT-6: function gemv_nvfp4_bs16_k2048_f16_tc_magic_bias_m4_s{{[0-9]+}}_c1_lines{{$}}
// CHECK-COUNT-15: function gemv_nvfp4_bs16_k2048_f16_tc_magic_bias_m8_s{{[0-9]+}}_c{{[124]}}{{$}}
// CHECK-NEXT: launch grid=(11008,1,1) block=(256,1,1) view0=+268435456 rows=11008
// CHECK-NEXT: launch failure: 4 gate: cuLaunchKernel failed with CUDA_ERROR_LAUNCH_FAILED (719): mock failure
// M = 4 on 132 SMs: a whole-line kernel, one column tile (688 blocks) x
// split-K 2 (64 threads: the smallest split whose warps walk at most 5 of
// the 8 256-element steps).
// CHECK-NEXT: launch grid=(688,1,1) block=(64,1,1) view0=+318767104 rows=4
// CHECK-NEXT: gemv without workspace: 0 ok
// CHECK-NEXT: gemv misaligned a: 1 gate: a must be 16-byte aligned for the tensor-core GEMV (m <= 8)
// CHECK-NEXT: gemv misaligned weights: 1 gate: weights must be 16-byte aligned for the tensor-core GEMV (m <= 8)
// CHECK-NEXT: gemv misaligned scales: 1 gate: scales must be 2-byte aligned for the GEMV (m <= 8)
// Split-K 3 is compiled for the whole-line tier alone.
// CHECK-NEXT: override unknown: 1 no compiled GEMV variant has split_k = 3 and col_tiles = 2
// CHECK-NEXT: override split 2, 4 tiles: 0 ok
// CHECK-NEXT: launch grid=(172,1,1) block=(64,1,1) view0=+318767104 rows=1
// CHECK-NEXT: gemv overridden: 0 ok
// CHECK-NEXT: override off: 0 ok
// M = 1: the same whole-line kernel.
// CHECK-NEXT: launch grid=(688,1,1) block=(64,1,1) view0=+318767104 rows=1
// CHECK-NEXT: gemv m=1: 0 ok
// M = 8: two column tiles (344 blocks) x split-K 8 (256 threads): one
// round of 2 K steps at the mock's 36 resident warps per SM (split 4: one
// of 4).
// CHECK-NEXT: launch grid=(344,1,1) block=(256,1,1) view0=+318767104 rows=8
// CHECK-NEXT: gemv m=8: 0 ok
// CHECK-NEXT: m=2^40: 1 gate: m must be at most 2147483647, got 1099511627776
// CHECK-NEXT: m=INT64_MIN: 1 gate: m must be positive, got -9223372036854775808
// CHECK-NEXT: null scales: 1 gate: scales must not be null
// CHECK-NEXT: workspace of 0 bytes: 3 gate: the workspace needs 78643200 bytes, got 0
// CHECK-NEXT: workspace of 1 byte: 3 gate: the workspace needs 78643200 bytes, got 1
// The scratch does not grow with M; M <= 8 (and M <= 0) takes the GEMV.
// CHECK-NEXT: workspace m=2^40: 78643200 m=0: 0 m=-1: 0
// The prefill path: a and y 2-byte aligned, weights and global_scale 4,
// the workspace 256; scales (fp8) have no requirement. Calls that pass
// launch on the mock in between.
// CHECK: misaligned prefill a: +1=1 +2=0 +4=0 +8=0
// CHECK: misaligned prefill weights: +1=1 +2=1 +4=0 +8=0
// CHECK: misaligned prefill scales: +1=0 +2=0 +4=0 +8=0
// CHECK: misaligned prefill global_scale: +1=1 +2=1 +4=0 +8=0
// CHECK: misaligned prefill y: +1=1 +2=0 +4=0 +8=0
// CHECK: misaligned prefill workspace: +1=1 +2=1 +4=1 +8=1
// The GEMV: a and weights 16-byte aligned, its scales 2; no workspace read.
// CHECK: misaligned gemv a: +1=1 +2=1 +4=1 +8=1
// CHECK-NEXT: misaligned gemv weights: +1=1 +2=1 +4=1 +8=1
// CHECK: misaligned gemv scales: +1=1 +2=0 +4=0 +8=0
// CHECK: misaligned gemv global_scale: +1=1 +2=1 +4=0 +8=0
// CHECK: misaligned gemv y: +1=1 +2=0 +4=0 +8=0
// CHECK: misaligned gemv workspace: +1=0 +2=0 +4=0 +8=0
// CHECK-NEXT: unload
// CHECK-NEXT: unload: 0 ok
// CHECK-NEXT: unload again: 0 ok
// CHECK-NEXT: override after unload: 0 ok
// CHECK-NEXT: override off after unload: 0 ok
// CHECK-NEXT: load cubin
// CHECK: gemv after unload: 0 ok
// CHECK: prefill after unload: 0 ok
// CHECK-NEXT: m=0 after unload: 1 gate: m must be positive, got 0
// CHECK-NEXT: unload
// CHECK-NEXT: final unload: 0 ok

// With 16 resident warps per SM split 8 needs 2 rounds of 2, split 4 one of
// 4: a tie the smaller split wins.
// RESIDENT16: gemv m=1: 0 ok
// RESIDENT16-NEXT: launch grid=(344,1,1) block=(128,1,1) view0=+318767104 rows=8

// The occupancy query's failure is reported, not guessed around.
// OCCUPANCY: launch failure: 4 gate: cuOccupancyMaxActiveBlocksPerMultiprocessor failed with {{.*}}: mock failure

func.func @gate(%a: memref<?x2048xf16>, %w: memref<11008x1024xi8>,
                %s: memref<11008x128xf8E4M3FN>, %g: memref<f32>,
                %y: memref<?x11008xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x2048xf16>, memref<11008x1024xi8>, memref<11008x128xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x11008xf16>)
  return
}
