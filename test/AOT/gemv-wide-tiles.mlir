// The launcher's GEMV variant table says, per variant, when the policy wants
// more column tiles (qmat_policy::WideTiles): nvfp4 four on many-tile
// layers and two from M = 4, the other packed decodes two on many-tile
// layers or from M = 4 (prepared int4: on many-tile layers only), the fp32
// decode (fp8) two only where both hold
// (with f16 activations at split-K 1), the FMA GEMV never (it has one
// variant).
// RUN: rm -rf %t && mkdir -p %t/prepared
// RUN: qmat-aot %s --target=sm_90 --emit=ptx --gemv-split-k=1,4 --gemv-col-tiles=1,2 --all-gemv-variants --prefix=wide -o %t > /dev/null
// RUN: FileCheck %s < %t/wide.cpp
// RUN: qmat-aot %s --target=sm_90 --emit=ptx --gemv-split-k=1,4 --gemv-col-tiles=1,2 --all-gemv-variants --prefix=wide --prepared-weights -o %t/prepared > /dev/null
// RUN: FileCheck %s --check-prefix=PREP < %t/prepared/wide.cpp

// CHECK-LABEL: const qmat_policy::GemvVariantDesc kGemvVariants[] = {
// CHECK-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTilesFromRows, false, false},
// CHECK-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTilesFromRows, false, false},
// CHECK-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTilesFromRows, false, false},
// CHECK-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesFromRows, false, false},
// nvfp4 at K = 256: the whole-line tier (one tile wanted), then the rest.
// CHECK-NEXT: {4, 1, 1, true, qmat_policy::WideTiles::never, true, false},
// CHECK-NEXT: {4, 4, 1, true, qmat_policy::WideTiles::never, true, false},
// CHECK-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// CHECK-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// CHECK-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// CHECK-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// CHECK-NEXT: {8, 1, 1, false, qmat_policy::WideTiles::never, false, false},
// fp8 with f16 activations: two tiles where both hold, at split-K 1.
// CHECK-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTilesFromRows, false, true},
// CHECK-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTilesFromRows, false, true},
// CHECK-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTilesFromRows, false, true},
// CHECK-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesFromRows, false, true},
// mxfp4 with bf16 activations: two tiles on many-tile layers or from M = 4.
// CHECK-NEXT: {4, 1, 1, true, qmat_policy::WideTiles::never, true, false},
// CHECK-NEXT: {4, 4, 1, true, qmat_policy::WideTiles::never, true, false},
// CHECK-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// mxfp4 with f16 activations: the same.
// CHECK-NEXT: {4, 1, 1, true, qmat_policy::WideTiles::never, true, false},
// CHECK-NEXT: {4, 4, 1, true, qmat_policy::WideTiles::never, true, false},
// CHECK-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// nvfp4 with f16 activations: as with bf16.
// CHECK-NEXT: {4, 1, 1, true, qmat_policy::WideTiles::never, true, false},
// CHECK-NEXT: {4, 4, 1, true, qmat_policy::WideTiles::never, true, false},
// CHECK-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// CHECK-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// CHECK-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// CHECK-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// int4 with f16 activations: two tiles on many-tile layers or from M = 4.
// CHECK-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, false},
// CHECK-NEXT: };
// CHECK-NEXT: const GemvKernelDesc kGemvKernels[kNumTargets][37] = {
// CHECK-NEXT: {
// CHECK-NEXT: {"gemv_fp8_bs128_k256_bf16_tc_native_m8_s1_c1", 32, 16, 0},
// CHECK-NEXT: {"gemv_fp8_bs128_k256_bf16_tc_native_m8_s4_c1", 128, 16, 0},
// CHECK-NEXT: {"gemv_fp8_bs128_k256_bf16_tc_native_m8_s1_c2", 32, 32, 0},
// CHECK-NEXT: {"gemv_fp8_bs128_k256_bf16_tc_native_m8_s4_c2", 128, 32, 0},
// CHECK-NEXT: {"gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_m4_s1_c1_lines", 32, 16, 0},
// CHECK-NEXT: {"gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_m4_s4_c1_lines", 128, 16, 0},
// CHECK-NEXT: {"gemv_nvfp4_bs16_k256_bf16_tc_magic_bias_m8_s1_c1", 32, 16, 0},
// CHECK: {"gemv_nvfp4_bs16_k96_bf16_dot_magic_bias_m8_s1_c1", 128, 4, 0},
// CHECK-NEXT: {"gemv_fp8_bs128_k256_f16_tc_native_m8_s1_c1", 32, 16, 0},

// Prepared codes: nvfp4 with bf16 activations as in the checkpoint's
// layout, with f16 two tiles (on many-tile layers or from M = 4) at
// split-K 1 on many-tile layers; mxfp4 the same; int4 two tiles on
// many-tile layers only, at split-K 1 (with f16 activations).
// PREP-LABEL: const qmat_policy::GemvVariantDesc kGemvVariants[] = {
// PREP: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesFromRows, false, false},
// PREP-NEXT: {4, 1, 1, true, qmat_policy::WideTiles::never, true, false},
// PREP-NEXT: {4, 4, 1, true, qmat_policy::WideTiles::never, true, false},
// PREP-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::fourOnManyTiles, false, false},
// PREP: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesFromRows, false, true},
// PREP-NEXT: {4, 1, 1, true, qmat_policy::WideTiles::never, true, false},
// PREP-NEXT: {4, 4, 1, true, qmat_policy::WideTiles::never, true, false},
// PREP-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {4, 1, 1, true, qmat_policy::WideTiles::never, true, false},
// PREP-NEXT: {4, 4, 1, true, qmat_policy::WideTiles::never, true, false},
// PREP-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {4, 1, 1, true, qmat_policy::WideTiles::never, true, false},
// PREP-NEXT: {4, 4, 1, true, qmat_policy::WideTiles::never, true, false},
// PREP-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTilesOrRows, false, true},
// PREP-NEXT: {8, 1, 1, true, qmat_policy::WideTiles::manyTiles, false, true},
// PREP-NEXT: {8, 4, 1, true, qmat_policy::WideTiles::manyTiles, false, true},
// PREP-NEXT: {8, 1, 2, true, qmat_policy::WideTiles::manyTiles, false, true},
// PREP-NEXT: {8, 4, 2, true, qmat_policy::WideTiles::manyTiles, false, true},
// PREP-NEXT: };

func.func @fp8_layer(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>,
                     %s: memref<64x2xf32>, %y: memref<?x64xbf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>)
  return
}

func.func @nvfp4_layer(%a: memref<?x256xbf16>, %w: memref<64x128xi8>,
                       %s: memref<64x16xf8E4M3FN>, %g: memref<f32>,
                       %y: memref<?x64xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
  return
}

// K = 96: K % 128 != 0, the FMA GEMV.
func.func @scalar_layer(%a: memref<?x96xbf16>, %w: memref<64x48xi8>,
                        %s: memref<64x6xf8E4M3FN>, %g: memref<f32>,
                        %y: memref<?x64xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x96xbf16>, memref<64x48xi8>, memref<64x6xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
  return
}

func.func @fp8_f16_layer(%a: memref<?x256xf16>, %w: memref<64x256xf8E4M3FN>,
                         %s: memref<64x2xf32>, %y: memref<?x64xf16>) {
  qmat.matmul <fp8, block = 128>
      ins(%a, %w, %s : memref<?x256xf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xf16>)
  return
}

// mxfp4 (K = 256: whole lines first): two tiles on many-tile layers or
// from M = 4, in either layout and with either activation type.
func.func @mxfp4_layer(%a: memref<?x256xbf16>, %w: memref<64x128xi8>,
                       %s: memref<64x8xf8E8M0FNU>, %y: memref<?x64xbf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x8xf8E8M0FNU>)
      outs(%y : memref<?x64xbf16>)
  return
}

func.func @mxfp4_f16_layer(%a: memref<?x256xf16>, %w: memref<64x128xi8>,
                           %s: memref<64x8xf8E8M0FNU>, %y: memref<?x64xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x256xf16>, memref<64x128xi8>, memref<64x8xf8E8M0FNU>)
      outs(%y : memref<?x64xf16>)
  return
}

func.func @nvfp4_f16_layer(%a: memref<?x256xf16>, %w: memref<64x128xi8>,
                           %s: memref<64x16xf8E4M3FN>, %g: memref<f32>,
                           %y: memref<?x64xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xf16>)
  return
}

func.func @int4_f16_layer(%a: memref<?x256xf16>, %w: memref<64x128xi8>,
                          %s: memref<64x2xf16>, %z: memref<64x1xi8>,
                          %y: memref<?x64xf16>) {
  qmat.matmul <int4, block = 128>
      ins(%a, %w, %s : memref<?x256xf16>, memref<64x128xi8>, memref<64x2xf16>)
      zero_points(%z : memref<64x1xi8>) outs(%y : memref<?x64xf16>)
  return
}
