// gfx950 (MI355) converts packed e2m1 in hardware: the native decode is one
// v_cvt_scalef32_pk_f16_fp4 per code byte, with scale 1.0 (the block scale
// is applied afterwards, as in every other decode). gfx942 has no such
// instruction and refuses the decode.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=gfx950 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: not qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=gfx942 format=isa})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=GFX942

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// CHECK-LABEL: dequant_mxfp4_bs32_k2048_f16_vec8_native_u1_t256:
// CHECK-COUNT-4: v_cvt_scalef32_pk_f16_fp4 v{{[0-9]+}}, v{{[0-9]+}}, 1.0
// CHECK-NOT: v_cvt_scalef32_pk_f16_fp4
// CHECK: global_store_dwordx4
// CHECK: .amdhsa_private_segment_fixed_size 0
// GFX942: error: 'qmat.decode' op decode method 'native' is not available for e2m1 on this target
func.func @native(%w: memref<64x1024xi8>, %s: memref<64x64xf8E8M0FNU>, %o: memref<64x2048xf16>) {
  qmat.dequantize <mxfp4, block = 32> ins(%w, %s : memref<64x1024xi8>, memref<64x64xf8E8M0FNU>)
      outs(%o : memref<64x2048xf16>) kernel = vec8 decode = native
  return
}
