// The qmat-host-dequant pipeline: the kernels' arithmetic as host loops,
// down to the LLVM dialect, for the exactness tests to run on the CPU.
// Nothing of qmat, scf, cf, arith, vector, memref, gpu or nvvm is left.
// RUN: qmat-opt %s --qmat-host-dequant | FileCheck %s --enable-var-scope --implicit-check-not=qmat. --implicit-check-not=scf. --implicit-check-not=cf. --implicit-check-not=arith. --implicit-check-not=vector. --implicit-check-not=memref. --implicit-check-not=gpu. --implicit-check-not=nvvm. --implicit-check-not=unrealized_conversion_cast
// The pipeline's one option is the host model (target=host or host-amdgcn).
// RUN: not qmat-opt %s --pass-pipeline='builtin.module(qmat-host-dequant{force=lookup})' 2>&1 | FileCheck %s --check-prefix=OPTS

// A GPU target would build its instructions into host code: refused.
// RUN: not qmat-opt %s --pass-pipeline='builtin.module(qmat-host-dequant{target=sm_90})' 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not qmat-opt %s --pass-pipeline='builtin.module(qmat-host-dequant{target=gfx942})' 2>&1 | FileCheck %s --check-prefix=GPU2

// OPTS: error: failed to add `qmat-host-dequant` with options `force=lookup`
// GPU: error: qmat-host-dequant runs on the host: target 'sm_90' is a GPU (expected host or host-amdgcn)
// GPU2: error: qmat-host-dequant runs on the host: target 'gfx942' is a GPU (expected host or host-amdgcn)

// nvfp4 -> bf16, vec8: a loop nest of llvm.br / llvm.cond_br. The host's
// truncation does not canonicalize NaN, so the result is patched with the
// canonical 0x7FFF explicitly (bf16 rounding itself is integer RNE: libgcc
// has no fp32 -> bf16 routine).
// CHECK-LABEL: llvm.func @nvfp4_bf16(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-DAG: %[[CANON:.+]] = llvm.mlir.constant(dense<0x7FFF> : vector<8xbf16>) : vector<8xbf16>
// CHECK-DAG: %[[HALF:.+]] = llvm.mlir.constant(dense<32767> : vector<8xi32>) : vector<8xi32>
// CHECK: llvm.cond_br
// CHECK: llvm.cond_br
// The byte permutes are plain integer selection on a 64-bit byte pool.
// CHECK: llvm.shl %{{.+}}, %{{.+}} : i64
// CHECK: llvm.fcmp "une" %[[P:[0-9]+]], %[[P]] : vector<8xf32>
// CHECK-NEXT: llvm.bitcast %[[P]] : vector<8xf32> to vector<8xi32>
// CHECK: llvm.add %{{.+}}, %[[HALF]] : vector<8xi32>
// CHECK: %[[R:.+]] = llvm.bitcast %{{.+}} : vector<8xi16> to vector<8xbf16>
// CHECK-NEXT: %[[ISNAN:.+]] = llvm.fcmp "uno" %[[P]], %[[P]] : vector<8xf32>
// CHECK-NEXT: %[[OUT:.+]] = llvm.select %[[ISNAN]], %[[CANON]], %[[R]] : vector<8xi1>, vector<8xbf16>
// CHECK: llvm.store %[[OUT]], %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr
// CHECK: llvm.return
// llvm.emit_c_interface: a wrapper taking the four memref descriptors by
// pointer and calling the expanded function (7 + 7 + 3 + 7 fields).
// CHECK-LABEL: llvm.func @_mlir_ciface_nvfp4_bf16(
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr)
// CHECK-COUNT-4: llvm.load %arg{{[0-3]}} : !llvm.ptr
// CHECK: llvm.call @nvfp4_bf16({{(%[0-9]+, ){23}%[0-9]+}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
// CHECK-NEXT: llvm.return
func.func @nvfp4_bf16(%w: memref<4x32xi8>, %s: memref<4x4xf8E4M3FN>, %g: memref<f32>,
                      %o: memref<4x64xbf16>) attributes {llvm.emit_c_interface} {
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<4x32xi8>, memref<4x4xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%o : memref<4x64xbf16>) kernel = vec8 decode = lookup
  return
}

// fp8 -> f16, scalar (K = 77): one code a step, f16 by fptrunc, the same
// NaN patch. No C wrapper without the attribute.
// CHECK-LABEL: llvm.func @fp8_f16(
// CHECK-NOT: llvm.emit_c_interface
// CHECK-DAG: %[[CANON:.+]] = llvm.mlir.constant(dense<0x7FFF> : vector<1xf16>) : vector<1xf16>
// CHECK: %[[R:.+]] = llvm.fptrunc %[[P:[0-9]+]] : vector<1xf32> to vector<1xf16>
// CHECK-NEXT: %[[ISNAN:.+]] = llvm.fcmp "uno" %[[P]], %[[P]] : vector<1xf32>
// CHECK-NEXT: %[[OUT:.+]] = llvm.select %[[ISNAN]], %[[CANON]], %[[R]] : vector<1xi1>, vector<1xf16>
// CHECK: llvm.store %[[OUT]], %{{.+}} : vector<1xf16>, !llvm.ptr
// CHECK: llvm.return
// CHECK-NEXT: }
// CHECK-NOT: _mlir_ciface_fp8_f16
func.func @fp8_f16(%w: memref<4x77xf8E4M3FN>, %s: memref<4x1xf32>, %o: memref<4x77xf16>) {
  qmat.dequantize <fp8, block = 128> ins(%w, %s : memref<4x77xf8E4M3FN>, memref<4x1xf32>)
      outs(%o : memref<4x77xf16>) kernel = scalar
  return
}
