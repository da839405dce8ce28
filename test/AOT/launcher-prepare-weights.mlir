// The generated launcher's prepare_weights, run on the CPU: a layer the
// prepared layout applies to (N a multiple of 16, K of 128) gets its 16-byte
// pieces permuted as PreparedWeights.h says (each 16-row tile's 64-byte
// slice of a 128-element step one kilobyte, row g + 8h's piece t at
// 512h + 16 (4g + t)); a layer it does not apply to gets a copy; bad
// arguments get a status and a message.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=sm_90 --prefix=prep --prepared-weights -o %t > /dev/null
// RUN: %cc -std=c99 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %S/Inputs/prepare_driver.c -o %t/driver.o
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %t/prep.cpp -o %t/prep.o
// RUN: %cxx -std=c++17 -I%cuda_path/include -c %S/Inputs/mock_cuda.cpp -o %t/mock.o
// RUN: %cxx %t/driver.o %t/prep.o %t/mock.o -o %t/run
// RUN: %t/run | FileCheck %s

// CHECK: prepared: 0 ok
// CHECK-NEXT: 0:0 0:1 0:2 0:3 1:0 1:1 1:2 1:3 2:0 2:1 2:2 2:3 3:0 3:1 3:2 3:3
// CHECK-NEXT: 4:0 4:1 4:2 4:3 5:0 5:1 5:2 5:3 6:0 6:1 6:2 6:3 7:0 7:1 7:2 7:3
// CHECK-NEXT: 8:0 8:1 8:2 8:3 9:0 9:1 9:2 9:3 10:0 10:1 10:2 10:3 11:0 11:1 11:2 11:3
// CHECK-NEXT: 12:0 12:1 12:2 12:3 13:0 13:1 13:2 13:3 14:0 14:1 14:2 14:3 15:0 15:1 15:2 15:3
// CHECK-NEXT: 0:4 0:5 0:6 0:7 1:4 1:5 1:6 1:7 2:4 2:5 2:6 2:7 3:4 3:5 3:6 3:7
// CHECK-NEXT: 4:4 4:5 4:6 4:7 5:4 5:5 5:6 5:7 6:4 6:5 6:6 6:7 7:4 7:5 7:6 7:7
// CHECK-NEXT: 8:4 8:5 8:6 8:7 9:4 9:5 9:6 9:7 10:4 10:5 10:6 10:7 11:4 11:5 11:6 11:7
// CHECK-NEXT: 12:4 12:5 12:6 12:7 13:4 13:5 13:6 13:7 14:4 14:5 14:6 14:7 15:4 15:5 15:6 15:7
// CHECK-NEXT: 16:0 16:1 16:2 16:3 17:0 17:1 17:2 17:3 18:0 18:1 18:2 18:3 19:0 19:1 19:2 19:3
// CHECK-NEXT: 20:0 20:1 20:2 20:3 21:0 21:1 21:2 21:3 22:0 22:1 22:2 22:3 23:0 23:1 23:2 23:3
// CHECK-NEXT: 24:0 24:1 24:2 24:3 25:0 25:1 25:2 25:3 26:0 26:1 26:2 26:3 27:0 27:1 27:2 27:3
// CHECK-NEXT: 28:0 28:1 28:2 28:3 29:0 29:1 29:2 29:3 30:0 30:1 30:2 30:3 31:0 31:1 31:2 31:3
// CHECK-NEXT: 16:4 16:5 16:6 16:7 17:4 17:5 17:6 17:7 18:4 18:5 18:6 18:7 19:4 19:5 19:6 19:7
// CHECK-NEXT: 20:4 20:5 20:6 20:7 21:4 21:5 21:6 21:7 22:4 22:5 22:6 22:7 23:4 23:5 23:6 23:7
// CHECK-NEXT: 24:4 24:5 24:6 24:7 25:4 25:5 25:6 25:7 26:4 26:5 26:6 26:7 27:4 27:5 27:6 27:7
// CHECK-NEXT: 28:4 28:5 28:6 28:7 29:4 29:5 29:6 29:7 30:4 30:5 30:6 30:7 31:4 31:5 31:6 31:7
// CHECK-NEXT: checkpoint layout: 0 ok
// CHECK-NEXT: copy identical: 1
// CHECK-NEXT: null weights: 1 weights and prepared must not be null
// CHECK-NEXT: null prepared: 1 weights and prepared must not be null
// CHECK-NEXT: overlap: 1 weights and prepared must not overlap

func.func @tiles(%a: memref<?x256xbf16>, %w: memref<32x128xi8>,
                 %s: memref<32x16xf8E4M3FN>, %g: memref<f32>,
                 %y: memref<?x32xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<32x128xi8>, memref<32x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x32xbf16>)
  return
}

// 24 rows: not a whole number of 16-row tiles, the checkpoint's layout.
func.func @rows24(%a: memref<?x256xbf16>, %w: memref<24x128xi8>,
                  %s: memref<24x16xf8E4M3FN>, %g: memref<f32>,
                  %y: memref<?x24xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<24x128xi8>, memref<24x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x24xbf16>)
  return
}
