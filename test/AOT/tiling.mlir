// The seed's tiling case: N = 769, K = 4096, a 1 MiB cap. 1 MiB holds
// 128 rows of 4096 bf16, so the layer runs in 6 full tiles and a last tile
// of 1 row; each tile's weights, scales and bias are plain offsets and Y is
// written at the tile's column offset with ld = N (no copy). The small-M
// path is off (--gemv-max-m=0 --fused-max-m=0): every M takes the tiled prefill here.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=sm_90 --scratch-cap-mib=1 --gemv-max-m=0 --fused-max-m=0 --prefix=tiling -o %t | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/tiling.manifest.json
// RUN: %cxx -std=c++17 -I%t -I%cuda_path/include %t/tiling.cpp %S/Inputs/mock_cuda.cpp %S/Inputs/tiling_driver.cpp -o %t/run
// RUN: %t/run | FileCheck %s

// SUMMARY: layer      scheme     N     K  dtype  M: GEMV  M: fused GEMM  M: dequantize + GEMM     workspace
// SUMMARY-NEXT: down_proj  fp8/128  769  4096  bf16   -        -              1+: 7 tiles of 128 rows   33.0 MiB
// SUMMARY-NEXT: (M: the rows each path takes; xN: the variants compiled, chosen per call by the launcher's policy; mma: on the matrix units, scalar: without; workspace: what workspace_size(max_m) asks once max_m reaches the dequantize + GEMM range, 0 below it)
// SUMMARY-NEXT: layer      dequantize kernel (sm_90)
// SUMMARY-NEXT: down_proj  dequant_fp8_bs128_k4096_bf16_vec8_arith_u2_t256
// SUMMARY-NEXT: target sm_90: cubin {{[0-9]+}} bytes
// SUMMARY-NEXT:   sm_90-class kernels; cubin runs on 9.0 and later 9.x; loaded by 9.0

// MANIFEST: "tile_rows": 128,
// MANIFEST: "tiles": 7
// MANIFEST: "bytes": 34603008,
// MANIFEST: "scratch_bytes": 1048576

// CHECK: workspace 34603008
// CHECK-NEXT: load cubin
// CHECK-NEXT: function dequant_fp8_bs128_k4096_bf16_vec8_arith_u2_t256
// CHECK-NEXT: launch grid=(128,1,1) block=(256,1,1) view0=+0 rows=128
// CHECK-NEXT: heuristic alignment A=256 B=256 C=256 D=256
// CHECK-NEXT: gemm W=4096x128(ld 4096) A=4096x16(ld 4096) Y=128x16(ld 769) y=+33554432 bias=+
// CHECK-NEXT:   bias=+67108864
// CHECK-NEXT: launch grid=(128,1,1) block=(256,1,1) view0=+524288 rows=128
// CHECK-NEXT: gemm W=4096x128(ld 4096) A=4096x16(ld 4096) Y=128x16(ld 769) y=+33554688 bias=+
// CHECK-NEXT:   bias=+67109120
// CHECK-COUNT-4: launch grid=(128,1,1)
// CHECK: launch grid=(1,1,1) block=(256,1,1) view0=+3145728 rows=1
// CHECK-NEXT: heuristic alignment A=256 B=256 C=256 D=256
// CHECK-NEXT: gemm W=4096x1(ld 4096) A=4096x16(ld 4096) Y=1x16(ld 769) y=+33555968 bias=+
// CHECK-NEXT:   bias=+67110400
// CHECK-NEXT: status 0
// CHECK-NOT: load
// CHECK-NOT: function
// CHECK: launch grid=(128,1,1) block=(256,1,1) view0=+0 rows=128
// CHECK: status 0
// CHECK-NEXT: launch grid=(128,1,1) block=(256,1,1) view0=+0 rows=128
// CHECK-NEXT: heuristic alignment A=256 B=2 C=2 D=2
// CHECK-NEXT: gemm W=4096x128(ld 4096) A=4096x16(ld 4096) Y=128x16(ld 769) y=+33554434 bias=+
// CHECK: status 0
// CHECK-NEXT: unload
// CHECK-NEXT: unload 0

func.func @down_proj(%a: memref<?x4096xbf16>, %w: memref<769x4096xf8E4M3FN>,
                     %s: memref<769x32xf32>, %b: memref<769xbf16>,
                     %y: memref<?x769xbf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x4096xbf16>, memref<769x4096xf8E4M3FN>, memref<769x32xf32>)
      bias(%b : memref<769xbf16>) outs(%y : memref<?x769xbf16>)
  return
}
