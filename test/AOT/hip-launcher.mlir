// The HIP launcher qmat-aot writes for AMD targets, exercised on the CPU:
// the header compiles as C and the launcher with g++ against Debian's HIP
// headers (-D__HIP_PLATFORM_AMD__), links against Debian's libamdhip64, and
// runs against recording mocks of the HIP module API and of hipBLASLt
// (dlopened from %t). N = 300 with a 1 MiB scratch cap: at M = 256 tiles of
// 256 rows and 44 rows, each a dequant launch plus a hipBLASLt GEMM at its
// column offset with the bias epilogue; M = 9 .. 128 the fused dequant-GEMM.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=gfx942,gfx950 --scratch-cap-mib=1 --gemv-split-k=1 --gemv-col-tiles=1 --prefix=hipargs -o %t | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/hipargs.manifest.json
// RUN: llvm-readelf -h %t/hipargs.gfx950.hsaco | FileCheck %s --check-prefix=ELF
// RUN: %cc -std=c99 -Wall -Wextra -Werror -D__HIP_PLATFORM_AMD__ -I%t -c %S/Inputs/hip_driver.c -o %t/driver.o
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -D__HIP_PLATFORM_AMD__ -I%t -c %t/hipargs.cpp -o %t/hipargs.o
// RUN: %cxx -std=c++17 -D__HIP_PLATFORM_AMD__ -c %S/Inputs/mock_hip.cpp -o %t/mock.o
// RUN: %cxx -std=c++17 -shared -fPIC %S/Inputs/mock_hipblaslt.cpp -o %t/libhipblaslt.so
// RUN: %cxx %t/driver.o %t/hipargs.o %t/mock.o -ldl -o %t/run
// RUN: env MOCK_BASE=0x10000000 LD_LIBRARY_PATH=%t %t/run | FileCheck %s
// RUN: env MOCK_BASE=0x10000000 LD_LIBRARY_PATH=%t QMAT_LOG=info %t/run 2>&1 >/dev/null | FileCheck %s --check-prefix=LOG
// LOG:      qmat hipargs: device 0 (gfx950, 304 compute units) loads the gfx950 hsaco
// LOG-NEXT: qmat hipargs: gate: m = 256 takes the dequantize kernel dequant_mxfp4_bs32_k2048_bf16_vec8_magic_bias_u1_t256 in tiles of 256 rows, each followed by a hipBLASLt GEMM
// LOG-NEXT: qmat hipargs: gate: m = 1 takes the tensor-core GEMV (up to m = 8, split-K 1, 1 column tile), chosen by the policy for 304 compute units
// LOG-NEXT: qmat hipargs: gate: m = 9 takes the fused dequant-GEMM (m_tile 16, warps_n 1, split_k 4, col_tiles 1, stages 1), chosen by the policy for 304 compute units
// LOG-NEXT: qmat hipargs: gate: m = 100 takes the fused dequant-GEMM (m_tile 64, warps_n 4, split_k 1, col_tiles 2, stages 1), set by the fused override
// RUN: env MOCK_BASE=0x10000000 MOCK_FAIL_OCCUPANCY=1 LD_LIBRARY_PATH=%t %t/run | FileCheck %s --check-prefix=OCCUPANCY
// RUN: env LD_LIBRARY_PATH= %t/run no-hipblaslt | FileCheck %s --check-prefix=NOLT
// RUN: %cxx %t/driver.o %t/hipargs.o -lamdhip64 -ldl -o %t/linked

// Loading the module asks HIP how many wavefronts of each GEMV and fused
// kernel a compute unit holds (the policies count rounds of them); its
// failure is reported.
// OCCUPANCY: launch failure: 6 gate: hipModuleOccupancyMaxActiveBlocksPerMultiprocessor failed with hipErrorUnknown (1): mock failure

// SUMMARY: layer  scheme      N     K  dtype  M: GEMV      M: fused GEMM  M: dequantize + GEMM     workspace
// SUMMARY-NEXT: gate   mxfp4/32  300  2048  bf16   1-8: mma x1  9-128: x6      129+: 2 tiles of 256 rows   33.0 MiB
// SUMMARY-NEXT: (M: the rows each path takes; xN: the variants compiled, chosen per call by the launcher's policy; mma: on the matrix units, scalar: without; workspace: what workspace_size(max_m) asks once max_m reaches the dequantize + GEMM range, 0 below it)
// SUMMARY-NEXT: layer  dequantize kernel (gfx942)                             dequantize kernel (gfx950)
// SUMMARY-NEXT: gate   dequant_mxfp4_bs32_k2048_bf16_vec8_magic_bias_u1_t256  dequant_mxfp4_bs32_k2048_bf16_vec8_magic_bias_u1_t256
// SUMMARY-NEXT: target gfx942: hsaco {{[0-9]+}} bytes
// SUMMARY-NEXT: target gfx950: hsaco {{[0-9]+}} bytes

// MANIFEST: "prefill": "dequantize + hipBLASLt GEMM",
// MANIFEST: "runtime": "hip",
// MANIFEST: "chip": "gfx942",
// MANIFEST-NEXT: "hsaco_bytes":

// ELF: Class: ELF64
// ELF: OS/ABI: AMDGPU - HSA
// ELF: Machine: EM_AMDGPU

// CHECK: workspace m<=8: 0
// CHECK-NEXT: workspace m<=128: 0
// CHECK-NEXT: workspace m=256: 34603008
// CHECK-NEXT: m=0: 1 gate: m must be positive, got 0
// CHECK-NEXT: null a: 1 gate: a must not be null
// CHECK-NEXT: stray global: 1 gate: global_scale must be null: this layer has none
// CHECK-NEXT: small workspace: 3 gate: the workspace needs 34603008 bytes, got 34603007
// The device's gcnArchName ("gfx90a:sramecc+:xnack-") picks the hsaco.
// CHECK-NEXT: gfx90a device: 2 gate: device 0 (gfx90a) has no binary in this bundle (built for: gfx942, gfx950)
// CHECK-NEXT: load hsaco
// CHECK-NEXT: function dequant_mxfp4_bs32_k2048_bf16_vec8_magic_bias_u1_t256
// CHECK-NEXT: function gemv_mxfp4_bs32_k2048_bf16_tc_magic_bias_bias_m8_s1_c1
// The six default tilings, each with one stage (no asynchronous copies),
// with the GEMV's decode.
// CHECK-NEXT: function fused_mxfp4_bs32_k2048_bf16_magic_bias_bias_mt16_w1_s4_c2
// CHECK-NEXT: function fused_mxfp4_bs32_k2048_bf16_magic_bias_bias_mt16_w2_s2_c2
// CHECK-NEXT: function fused_mxfp4_bs32_k2048_bf16_magic_bias_bias_mt32_w2_s2_c2
// CHECK-NEXT: function fused_mxfp4_bs32_k2048_bf16_magic_bias_bias_mt64_w4_s1_c2
// CHECK-NEXT: function fused_mxfp4_bs32_k2048_bf16_magic_bias_bias_mt16_w1_s4_c1
// CHECK-NEXT: function fused_mxfp4_bs32_k2048_bf16_magic_bias_bias_mt32_w2_s2_c1
// CHECK-NEXT: launch grid=(256,1,1) block=(256,1,1) view0=+0 rows=256
// CHECK-NEXT: launch failure: 6 gate: hipModuleLaunchKernel failed with hipErrorLaunchFailure (719): mock failure
// Tile 1: rows 0..255. hipBLASLt sees W^T (op T = 112) x A (op N = 111),
// bf16 (14) in and out, fp32 compute (2) and scale (0), Y at column 0 with
// ld = N, the bias epilogue and the 32 MiB workspace after the scratch.
// CHECK-NEXT: launch grid=(256,1,1) block=(256,1,1) view0=+0 rows=256
// CHECK-NEXT: hipblasLtCreate
// CHECK-NEXT: heuristic requested=1 max_workspace=33554432
// CHECK-NEXT: gemm compute=2 scale=0 op=112,111 type=14 W=2048x256(ld 2048) A=2048x256(ld 2048) Y=256x256(ld 300) y=+33554432 alpha=1 beta=0 ws=33554432 bias=+
// CHECK-NEXT:   bias=+67108864
// Tile 2: rows 256..299, weights +256 * 1024 bytes, Y and bias +256 * 2.
// CHECK-NEXT: launch grid=(44,1,1) block=(256,1,1) view0=+262144 rows=44
// CHECK-NEXT: heuristic requested=1 max_workspace=33554432
// CHECK-NEXT: gemm compute=2 scale=0 op=112,111 type=14 W=2048x44(ld 2048) A=2048x256(ld 2048) Y=44x256(ld 300) y=+33554944 alpha=1 beta=0 ws=33554432 bias=+
// CHECK-NEXT:   bias=+67109376
// CHECK-NEXT: prefill: 0 ok
// The algorithm of (layer, M, tile) is cached: no second heuristic call.
// CHECK-NEXT: launch grid=(256,1,1) block=(256,1,1) view0=+0 rows=256
// CHECK-NEXT: gemm compute=2
// CHECK-NEXT:   bias=+67108864
// CHECK-NEXT: gemm failure: 7 gate: hipblasLtMatmul failed with hipBLASLt status 13
// CHECK-NEXT: launch grid=(256,1,1) block=(256,1,1) view0=+0 rows=256
// CHECK-NEXT: heuristic requested=1 max_workspace=33554432
// CHECK-NEXT: no algorithm: 7 gate: hipblasLtMatmulAlgoGetHeuristic found no algorithm
// M = 1: the matrix-core GEMV (variants pinned to split-K 1, one column
// tile): one 64-lane wavefront per 16 rows.
// CHECK-NEXT: launch grid=(19,1,1) block=(64,1,1) view0=+50331648 rows=1
// CHECK-NEXT: gemv m=1: 0 ok
// M = 9 and 128: the policy's 16-row tile of four K slices (256 threads, 16
// weight rows per block: 19 blocks along y), one M tile per 16 rows along x.
// CHECK-NEXT: launch grid=(1,19,1) block=(256,1,1) view0=+50331648 rows=9
// CHECK-NEXT: fused m=9: 0 ok
// CHECK-NEXT: launch grid=(8,19,1) block=(256,1,1) view0=+50331648 rows=128
// CHECK-NEXT: fused m=128: 0 ok
// Pinned: 64-row tiles of four wavefronts over 2 x 4 x 16 rows.
// CHECK-NEXT: pin fused: 0 ok
// CHECK-NEXT: launch grid=(2,3,1) block=(256,1,1) view0=+50331648 rows=100
// CHECK-NEXT: fused m=100 pinned: 0 ok
// CHECK-NEXT: pin two stages: 1 no compiled fused GEMM variant has m_tile = 64, warps_n = 4, split_k = 1, col_tiles = 2 and stages = 2
// CHECK-NEXT: unpin fused: 0 ok
// CHECK-NEXT: host a: 1 gate: a is not memory the device can read (pageable host memory, or an address no HIP allocation holds); pass device memory, or host memory from hipHostMalloc or hipHostRegister
// CHECK-NEXT: host workspace: 1 gate: workspace is not memory the device can read (pageable host memory, or an address no HIP allocation holds); pass device memory, or host memory from hipHostMalloc or hipHostRegister
// CHECK-NEXT: launch grid=(19,1,1) block=(64,1,1) view0=+50331648 rows=1
// CHECK-NEXT: gemv ignores workspace: 0 ok
// CHECK-NEXT: pointer query failure: 6 gate: hipPointerGetAttributes failed with hipErrorUnknown (999): mock failure
// CHECK-NEXT: unload
// CHECK-NEXT: unload: 0 ok
// CHECK-NEXT: load hsaco
// CHECK:      launch grid=(19,1,1) block=(64,1,1) view0=+50331648 rows=1
// CHECK-NEXT: pageable host a: 0 ok

// NOLT: prefill without hipBLASLt: 7 gate: cannot load hipBLASLt for the prefill GEMM: libhipblaslt.so.1: cannot open shared object file: No such file or directory; libhipblaslt.so.0: {{.*}}; libhipblaslt.so: cannot open shared object file: No such file or directory

func.func @gate(%a: memref<?x2048xbf16>, %w: memref<300x1024xi8>, %s: memref<300x64xf8E8M0FNU>,
                %b: memref<300xbf16>, %y: memref<?x300xbf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x2048xbf16>, memref<300x1024xi8>, memref<300x64xf8E8M0FNU>)
      bias(%b : memref<300xbf16>) outs(%y : memref<?x300xbf16>)
  return
}
