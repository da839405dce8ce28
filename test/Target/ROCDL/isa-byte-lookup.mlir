// The byte-lookup e2m1 decode on AMD: qmat.byte_perm lowered to
// llvm.amdgcn.perm becomes v_perm_b32 (its selectors are the masked codes,
// so one instruction per table access, no staging), the 8 bf16 of a chunk
// leave in one 16-byte store, and nothing spills to scratch.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=gfx942 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=gfx950 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s

// CHECK-LABEL: dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256:
// CHECK: global_load_dword v{{[0-9]+}}, v[{{[0-9]+}}:{{[0-9]+}}], off
// CHECK-COUNT-8: v_perm_b32
// CHECK: global_store_dwordx4
// CHECK: .amdhsa_kernel dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: .private_segment_fixed_size: 0
// CHECK: .sgpr_spill_count: 0
// CHECK: .vgpr_spill_count: 0
// CHECK: .wavefront_size: 64
func.func @lookup(%w: memref<64x1024xi8>, %s: memref<64x128xf8E4M3FN>, %g: memref<f32>,
                  %o: memref<64x2048xbf16>) {
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<64x1024xi8>, memref<64x128xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%o : memref<64x2048xbf16>) kernel = vec8 decode = lookup
  return
}
