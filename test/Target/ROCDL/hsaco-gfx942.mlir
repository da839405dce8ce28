// The gfx942 code object from qmat-to-gpu-binary's default format: an
// AMDGPU ELF (hsaco) linked by LLVM 22's ld.lld with no ROCm install, read
// back with llvm-readelf.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{target=gfx942})' | %python %S/Inputs/extract_gpu_binary.py %t.hsaco
// RUN: llvm-readelf -h -S %t.hsaco | FileCheck %s --check-prefix=ELF
// RUN: llvm-readelf --notes %t.hsaco | FileCheck %s --check-prefix=NOTES

// ELF: OS/ABI: AMDGPU - HSA
// ELF: Type: DYN (Shared object file)
// ELF: Machine: EM_AMDGPU
// ELF: Flags: {{.*}}gfx942
// ELF: .text PROGBITS
// NOTES: .name: dequant_nvfp4_bs16_k512_bf16_vec8_magic_bias_u1_t64
// NOTES: .private_segment_fixed_size: 0
// NOTES: .wavefront_size: 64
// NOTES: .name: gemv_nvfp4_bs16_k512_bf16_tc_magic_bias_m8_s1_c1
// NOTES: .private_segment_fixed_size: 0
// NOTES: .wavefront_size: 64
// NOTES: amdhsa.target: amdgcn-amd-amdhsa--gfx942

func.func @layer(%a: memref<?x512xbf16>, %w: memref<40x256xi8>, %s: memref<40x32xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x40xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x512xbf16>, memref<40x256xi8>, memref<40x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>)
  return
}
