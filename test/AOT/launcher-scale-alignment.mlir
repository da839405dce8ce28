// The launcher rejects scales its kernels would read misaligned (a
// misaligned load faults on the device and loses the context): one element
// on the prefill path (fp8: 4-byte fp32, int4: 2-byte act-typed), and on
// the GEMV path every scale of a 32-element chunk at once (nvfp4, block 16:
// 2 bytes; mxfp4: one byte, no rule).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=sm_90 --gemv-split-k=1 --gemv-col-tiles=1 --prefix=salign -o %t > /dev/null
// RUN: %cc -std=c99 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %S/Inputs/scale_alignment_driver.c -o %t/driver.o
// RUN: %cxx -std=c++17 -I%t -I%cuda_path/include -c %t/salign.cpp -o %t/salign.o
// RUN: %cxx -std=c++17 -I%cuda_path/include -c %S/Inputs/mock_cuda.cpp -o %t/mock.o
// RUN: %cxx %t/driver.o %t/salign.o %t/mock.o -o %t/run
// RUN: %t/run | FileCheck %s

// CHECK: fp8 prefill scales+2: 1 fp8: scales must be 4-byte aligned
// CHECK-NEXT: fp8 gemv scales+2: 1 fp8: scales must be 4-byte aligned for the GEMV (m <= 8)
// CHECK-NEXT: int4 prefill scales+1: 1 int4: scales must be 2-byte aligned
// CHECK-NEXT: int4 gemv scales+1: 1 int4: scales must be 2-byte aligned for the GEMV (m <= 8)
// CHECK-NEXT: nvfp4 gemv scales+1: 1 nvfp4: scales must be 2-byte aligned for the GEMV (m <= 8)
// int4 with block 16: two 2-byte scales per chunk.
// CHECK-NEXT: int4 block 16 gemv scales+2: 1 int4_b16: scales must be 4-byte aligned for the GEMV (m <= 8)
// The chunked FMA GEMV (K % 128 != 0, K % 32 == 0) pairs scales too and
// reads 16-byte vectors.
// CHECK-NEXT: dot gemv scales+1: 1 dot: scales must be 2-byte aligned for the GEMV (m <= 8)
// CHECK-NEXT: dot gemv a+8: 1 dot: a must be 16-byte aligned for the chunked GEMV (m <= 8)
// mxfp4 reads one scale byte per chunk: an odd address launches.
// CHECK: mxfp4 gemv scales+1: 0 ok

func.func @fp8(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
               %y: memref<?x64xbf16>) {
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>)
  return
}

func.func @int4(%a: memref<?x256xf16>, %w: memref<64x128xi8>, %s: memref<64x2xf16>,
                %y: memref<?x64xf16>) {
  qmat.matmul <int4, block = 128> ins(%a, %w, %s : memref<?x256xf16>, memref<64x128xi8>, memref<64x2xf16>)
      outs(%y : memref<?x64xf16>)
  return
}

func.func @nvfp4(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
  return
}

func.func @mxfp4(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x8xf8E8M0FNU>,
                 %y: memref<?x64xbf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x8xf8E8M0FNU>)
      outs(%y : memref<?x64xbf16>)
  return
}

func.func @int4_b16(%a: memref<?x256xf16>, %w: memref<64x128xi8>, %s: memref<64x16xf16>,
                    %y: memref<?x64xf16>) {
  qmat.matmul <int4, block = 16> ins(%a, %w, %s : memref<?x256xf16>, memref<64x128xi8>, memref<64x16xf16>)
      outs(%y : memref<?x64xf16>)
  return
}

func.func @dot(%a: memref<?x96xbf16>, %w: memref<64x48xi8>, %s: memref<64x6xf8E4M3FN>,
               %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x96xbf16>, memref<64x48xi8>, memref<64x6xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
  return
}
