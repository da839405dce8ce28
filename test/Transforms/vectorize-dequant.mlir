// RUN: qmat-opt %s -split-input-file --qmat-vectorize-dequant | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-vectorize-dequant=force=scalar | FileCheck %s --enable-var-scope --check-prefix=SCALAR
// force=vec8 is an error on the illegal shapes (vectorize-dequant-invalid.mlir):
// run it only on the nested `module @legal_only` of the last split.
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(qmat-vectorize-dequant{force=vec8}))' | FileCheck %s --enable-var-scope --check-prefix=VEC8

// vec8 where K % 8 == 0 and the block is even; the decode is left alone.
// CHECK-LABEL: func.func @legal
// CHECK: qmat.dequantize <nvfp4, block = 16> {{.*}} outs(%{{.+}} : memref<?x64xbf16>) kernel = vec8 decode = lookup{{$}}
// CHECK: qmat.dequantize <mxfp4, block = 32> {{.*}} outs(%{{.+}} : memref<8x64xf16>) kernel = vec8{{$}}
// CHECK: qmat.dequantize <fp8, block = 128> {{.*}} outs(%{{.+}} : memref<16x256xf16>) kernel = vec8{{$}}
// CHECK: qmat.dequantize <int4, block = 32> {{.*}} outs(%{{.+}} : memref<4x64xf16>) kernel = vec8 decode = magic_bias{{$}}
// SCALAR-LABEL: func.func @legal
// SCALAR-COUNT-4: kernel = scalar
// SCALAR-NOT: kernel = vec8
func.func @legal(%w: memref<?x32xi8>, %s: memref<?x4xf8E4M3FN>, %g: memref<f32>,
                 %scratch: memref<?x64xbf16>,
                 %wm: memref<8x32xi8>, %sm: memref<8x2xf8E8M0FNU>, %om: memref<8x64xf16>,
                 %w8: memref<16x256xf8E4M3FN>, %s8: memref<16x2xf32>, %o8: memref<16x256xf16>,
                 %wi: memref<4x32xi8>, %si: memref<4x2xf16>, %oi: memref<4x64xf16>) {
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<?x32xi8>, memref<?x4xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%scratch : memref<?x64xbf16>) decode = lookup
  qmat.dequantize <mxfp4, block = 32>
      ins(%wm, %sm : memref<8x32xi8>, memref<8x2xf8E8M0FNU>) outs(%om : memref<8x64xf16>)
  qmat.dequantize <fp8, block = 128>
      ins(%w8, %s8 : memref<16x256xf8E4M3FN>, memref<16x2xf32>) outs(%o8 : memref<16x256xf16>)
  qmat.dequantize <int4, block = 32>
      ins(%wi, %si : memref<4x32xi8>, memref<4x2xf16>) outs(%oi : memref<4x64xf16>)
      decode = magic_bias
  return
}

// -----

// Scalar where vec8 is illegal: an odd block (a byte's two nibbles can need
// two scales), K % 8 != 0 (packed K = 516, fp8 K = 77).
// CHECK-LABEL: func.func @illegal
// CHECK: qmat.dequantize <int4, block = 7> {{.*}} outs(%{{.+}} : memref<4x64xf16>) kernel = scalar{{$}}
// CHECK: qmat.dequantize <nvfp4, block = 16> {{.*}} outs(%{{.+}} : memref<8x516xf16>) kernel = scalar{{$}}
// CHECK: qmat.dequantize <fp8, block = 128> {{.*}} outs(%{{.+}} : memref<4x77xbf16>) kernel = scalar{{$}}
// CHECK-NOT: kernel = vec8
func.func @illegal(%wi: memref<4x32xi8>, %si: memref<4x10xf16>, %oi: memref<4x64xf16>,
                   %w: memref<8x258xi8>, %s: memref<8x33xf8E4M3FN>, %g: memref<f32>,
                   %o: memref<8x516xf16>,
                   %w8: memref<4x77xf8E4M3FN>, %s8: memref<4x1xf32>, %o8: memref<4x77xbf16>) {
  qmat.dequantize <int4, block = 7>
      ins(%wi, %si : memref<4x32xi8>, memref<4x10xf16>) outs(%oi : memref<4x64xf16>)
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<8x258xi8>, memref<8x33xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%o : memref<8x516xf16>)
  qmat.dequantize <fp8, block = 128>
      ins(%w8, %s8 : memref<4x77xf8E4M3FN>, memref<4x1xf32>) outs(%o8 : memref<4x77xbf16>)
  return
}

// -----

// A kernel the plan already chose stands: scalar is always legal.
// CHECK-LABEL: func.func @keep_planned
// CHECK: kernel = scalar decode = lookup{{$}}
// VEC8-LABEL: func.func @keep_planned
// VEC8: kernel = vec8 decode = lookup{{$}}
// A layer outside the nested module is not visited by the VEC8 run.
// VEC8-LABEL: func.func @outside
// VEC8: qmat.dequantize <int4, block = 7> {{.*}} outs(%{{.+}} : memref<4x64xf16>){{$}}
module @legal_only {
  func.func @keep_planned(%w: memref<8x32xi8>, %s: memref<8x4xf8E4M3FN>, %g: memref<f32>,
                          %o: memref<8x64xf16>) {
    qmat.dequantize <nvfp4, block = 16>
        ins(%w, %s : memref<8x32xi8>, memref<8x4xf8E4M3FN>) global_scale(%g : memref<f32>)
        outs(%o : memref<8x64xf16>) kernel = scalar decode = lookup
    return
  }
}
func.func @outside(%wi: memref<4x32xi8>, %si: memref<4x10xf16>, %oi: memref<4x64xf16>) {
  qmat.dequantize <int4, block = 7>
      ins(%wi, %si : memref<4x32xi8>, memref<4x10xf16>) outs(%oi : memref<4x64xf16>)
  return
}
