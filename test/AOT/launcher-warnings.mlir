// The generated launchers compile without a warning at every optimisation
// level, -O0 to -O3 (-O1 and up run the flow analyses behind
// -Wmaybe-uninitialized), with g++ and clang++: CUDA against the toolkit's
// headers, HIP against the HIP headers.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=sm_90 --prefix=warn -o %t > /dev/null
// RUN: for o in 0 1 2 3; do %cxx -std=c++17 -Wall -Wextra -Werror -O$o -I%t -I%cuda_path/include -c %t/warn.cpp -o %t/warn.gcc$o.o || exit 1; done
// RUN: for o in 0 1 2 3; do %clangxx -std=c++17 -Wall -Wextra -Werror -O$o -I%t -I%cuda_path/include -c %t/warn.cpp -o %t/warn.clang$o.o || exit 1; done
// RUN: qmat-aot %s --target=gfx942 --gemv-split-k=1,2 --gemv-col-tiles=1 --prefix=warnhip -o %t > /dev/null
// RUN: for o in 0 1 2 3; do %cxx -std=c++17 -Wall -Wextra -Werror -O$o -D__HIP_PLATFORM_AMD__ -I%t -c %t/warnhip.cpp -o %t/warnhip.gcc$o.o || exit 1; done
// RUN: for o in 0 1 2 3; do %clangxx -std=c++17 -Wall -Wextra -Werror -O$o -D__HIP_PLATFORM_AMD__ -I%t -c %t/warnhip.cpp -o %t/warnhip.clang$o.o || exit 1; done
// RUN: ls %t/warn.gcc0.o %t/warn.gcc3.o %t/warn.clang0.o %t/warn.clang3.o %t/warnhip.gcc0.o %t/warnhip.clang3.o

// A tensor-core layer (several GEMV variants) and a prefill-only one.
func.func @gemv(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>,
                %y: memref<?x64xbf16>) {
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>)
  return
}

func.func @int4(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf16>, %zp: memref<32x1xi8>,
                %b: memref<32xf16>, %y: memref<?x32xf16>) {
  qmat.matmul <int4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf16>)
      zero_points(%zp : memref<32x1xi8>) bias(%b : memref<32xf16>) outs(%y : memref<?x32xf16>)
  return
}
