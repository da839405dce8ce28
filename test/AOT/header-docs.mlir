// The generated header documents its API where a user reads it: the
// operands' layouts, asynchrony, graph capture and threads once, and above
// every layer's _run its operand shapes and the alignment each M range
// needs. It compiles on its own as C and as C++.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: qmat-aot %s --target=sm_90 --prefix=doc --quiet -o %t > /dev/null
// RUN: FileCheck %s < %t/doc.h
// RUN: %cc -std=c99 -Wall -Wextra -Werror -fsyntax-only -x c -I%cuda_path/include %t/doc.h
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -x c++ -I%cuda_path/include %t/doc.h

// CHECK: // Operands of <layer>_run: device pointers to dense row-major
// CHECK: // (pageable host memory) is refused with QMAT_ERROR_INVALID_ARGUMENT,
// CHECK: // Calls are asynchronous on `stream`: QMAT_OK means the work was
// CHECK: // thread. _unload waits for the calls other threads are making, and
// CHECK-NEXT: // a call after it loads the module again; work already queued on a
// CHECK-NEXT: // stream must have run before _unload (synchronize first).
// CHECK: // QMAT_LOG=info logs to stderr which binary each device loads and
// CHECK: // QMAT_LOG=debug logs every call. <prefix>_set_log_handler sends
// CHECK-NEXT: // these lines to a function of the caller's instead.
// CHECK: typedef void (*qmat_log_fn)(int level, const char *line, void *user);
// CHECK: /// Sends the launcher's log lines up to `level` (QMAT_LOG_INFO: which
// CHECK-NEXT: /// binary each device loads and each layer's first call on each path
// CHECK-NEXT: /// and variant; QMAT_LOG_DEBUG: every call; QMAT_LOG_OFF: none) to
// CHECK-NEXT: /// `handler` with `user` instead of stderr at QMAT_LOG's level. A null
// CHECK-NEXT: /// handler restores QMAT_LOG. Applies to every layer and thread.
// CHECK-NEXT: qmat_status doc_set_log_handler(qmat_log_fn handler, int level, void *user);
// CHECK-LABEL: /// qkv: Y[m, 256] = A[m, 256] * W^T (nvfp4, block 16, bf16).
// CHECK-NEXT: /// Workspace bytes for every m up to max_m: 0 for max_m <= 128 (no dequantize + GEMM) and for max_m <= 0.
// CHECK-NEXT: size_t doc_qkv_workspace_size(int64_t max_m);
// CHECK:      /// Y[m, 256] = A[m, 256] * W^T, for 0 < m <= 2147483647. a: bf16 [m, 256]; y: bf16 [m, 256];
// CHECK-NEXT: /// weights: 256 rows of 128 bytes; scales: 256 rows of 16 elements of 1 bytes; global_scale: one float.
// CHECK-NEXT: /// Alignment: a, y, bias 2 bytes, global_scale 4, and per path:
// CHECK-NEXT: ///   m <= 8 (decode GEMV, no workspace read): scales 2, a and weights 16;
// CHECK-NEXT: ///   m <= 128 (fused dequant-GEMM, no workspace read): scales 2, a and weights 16;
// CHECK-NEXT: ///   larger m (dequantize + GEMM): scales 1, weights 4, workspace 256.
// CHECK-NEXT: qmat_status doc_qkv_run(CUstream stream,
// CHECK-LABEL: /// down: Y[m, 64] = A[m, 384] * W^T (int4, block 128, f16, bias).
// CHECK-NEXT: /// Workspace bytes for every m up to max_m: 0 for max_m <= 128 (no dequantize + GEMM) and for max_m <= 0.
// CHECK:      /// Y[m, 64] = A[m, 384] * W^T + bias, for 0 < m <= 2147483647. a: f16 [m, 384]; y: f16 [m, 64];
// CHECK-NEXT: /// weights: 64 rows of 192 bytes; scales: 64 rows of 3 elements of 2 bytes; zero_points: 64 rows of 2 bytes; bias: 64 x f16.
// CHECK-NEXT: /// Alignment: a, y, bias 2 bytes, global_scale 4, and per path:
// CHECK-NEXT: ///   m <= 8 (decode GEMV, no workspace read): scales 2, a and weights 16;
// CHECK-NEXT: ///   m <= 128 (fused dequant-GEMM, no workspace read): scales 2, a and weights 16;
// CHECK-NEXT: ///   larger m (dequantize + GEMM): scales 2, weights 4, workspace 256.
// CHECK-NEXT: qmat_status doc_down_run(CUstream stream,

func.func @qkv(%a: memref<?x256xbf16>, %w: memref<256x128xi8>, %s: memref<256x16xf8E4M3FN>,
               %g: memref<f32>, %y: memref<?x256xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<256x128xi8>, memref<256x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x256xbf16>)
  return
}

func.func @down(%a: memref<?x384xf16>, %w: memref<64x192xi8>, %s: memref<64x3xf16>,
                %z: memref<64x2xi8>, %b: memref<64xf16>, %y: memref<?x64xf16>) {
  qmat.matmul <int4, block = 128> ins(%a, %w, %s : memref<?x384xf16>, memref<64x192xi8>, memref<64x3xf16>)
      zero_points(%z : memref<64x2xi8>) bias(%b : memref<64xf16>) outs(%y : memref<?x64xf16>)
  return
}
