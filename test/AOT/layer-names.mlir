// Layer names that are not C identifiers: the entry points take the name
// with every character outside [A-Za-z0-9_] replaced by '_' (and a '_'
// before a leading digit); the launcher's messages and the manifest keep
// the name as written, escaped. The launcher compiles warning-free and
// links against the recording mock.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=sm_90 --prefix=names -o %t > /dev/null
// RUN: FileCheck %s --check-prefix=HEADER < %t/names.h
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/names.manifest.json
// RUN: %cc -std=c99 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %S/Inputs/names_driver.c -o %t/driver.o
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -I%t -I%cuda_path/include -c %t/names.cpp -o %t/names.o
// RUN: %cxx -std=c++17 -I%cuda_path/include -c %S/Inputs/mock_cuda.cpp -o %t/mock.o
// RUN: %cxx %t/driver.o %t/names.o %t/mock.o -o %t/run
// RUN: %t/run | FileCheck %s

// HEADER: /// my_layer ("my-layer"): Y[m, 32] = A[m, 64] * W^T (mxfp4, block 32, f16).
// HEADER: size_t names_my_layer_workspace_size(int64_t max_m);
// HEADER: qmat_status names_my_layer_run(
// HEADER: /// a_b ("a b"): Y[m, 32]
// HEADER: qmat_status names_a_b_run(
// HEADER: /// layers_0_q_proj ("layers.0.q_proj"): Y[m, 32]
// HEADER: qmat_status names_layers_0_q_proj_run(
// HEADER: /// _0proj ("0proj"): Y[m, 32]
// HEADER: qmat_status names__0proj_run(
// HEADER: /// say__hi_____ ("say \"hi\"\n\?\?="): Y[m, 32]
// HEADER: qmat_status names_say__hi______run(
// HEADER: /// a__b__c ("a/\052b\052/c"): Y[m, 32]
// HEADER: qmat_status names_a__b__c_run(
// HEADER: /// plain: Y[m, 32]
// HEADER: qmat_status names_plain_run(

// MANIFEST: "name": "my-layer",
// MANIFEST: "symbol": "my_layer",
// MANIFEST: "name": "say \"hi\"\n??=",
// MANIFEST: "symbol": "say__hi_____",

// CHECK: 1 my-layer: m must be positive, got 0
// CHECK-NEXT: 1 a b: m must be positive, got 0
// CHECK-NEXT: 1 layers.0.q_proj: m must be positive, got 0
// CHECK-NEXT: 1 0proj: m must be positive, got 0
// CHECK-NEXT: 1 say "hi"
// CHECK-NEXT: ??=: m must be positive, got 0
// CHECK-NEXT: 1 a/*b*/c: m must be positive, got 0
// CHECK-NEXT: workspace 33558528

func.func @"my-layer"(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                      %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}

func.func @"a b"(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                 %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}

func.func @"layers.0.q_proj"(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                             %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}

func.func @"0proj"(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                   %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}

func.func @"say \"hi\"\n??="(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                             %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}

func.func @"a/*b*/c"(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                     %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}

func.func @plain(%a: memref<?x64xf16>, %w: memref<32x32xi8>, %s: memref<32x2xf8E8M0FNU>,
                 %y: memref<?x32xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x64xf16>, memref<32x32xi8>, memref<32x2xf8E8M0FNU>)
      outs(%y : memref<?x32xf16>)
  return
}
