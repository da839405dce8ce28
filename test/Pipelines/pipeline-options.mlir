// Pipeline options that the upstream passes would take silently.
// RUN: not qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{format=cubin})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{format=ptx})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT2
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-to-gpu-binary{format=bin}, qmat-print-gpu-assembly)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOASM
// A forced item count with automatic threads takes the widest block that
// divides the row (K = 2048: 256 chunks, 8 items -> 32 threads).
// RUN: qmat-opt %s --qmat-to-gpu-binary='format=isa items-per-thread=8' | FileCheck %s --check-prefix=ITEMS

// FORMAT: error: unknown format 'cubin' (expected isa, bin or fatbin)
// FORMAT2: error: unknown format 'ptx' (expected isa, bin or fatbin)
// NOASM: warning: holds no assembly to print (compile with format=isa)
// ITEMS: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u8_t32 blocks in (%{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c32,

func.func @layer(%a: memref<?x2048xbf16>, %w: memref<64x1024xi8>, %s: memref<64x128xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x64xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x2048xbf16>, memref<64x1024xi8>, memref<64x128xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
  return
}
