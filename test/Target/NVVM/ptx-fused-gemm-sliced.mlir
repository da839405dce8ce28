// The fused dequant-GEMM with its K range split across the 4 blocks of a
// thread-block cluster, in PTX: the cluster's shape as kernel directives,
// each block's first K step from its z coordinate (34 of the 136 steps
// each), and after the loop one block barrier, the sums of blocks 1 .. 3
// parked in their own workgroup memory (128 threads x 16 bytes apart), a
// cluster barrier, block 0's loads of the three blocks' sums through mapa
// and ld.shared::cluster, and a second cluster barrier; no local memory and
// no spills (ptxas's report). sm_80 has no clusters: an error naming it.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: not qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_80 format=isa})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80

// CHECK: .target sm_90
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k17408_bf16_magic_bias_mt32_w2_s2_c2_p2_k4(
// CHECK: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 1, 1, 4
// CHECK: mov.u32 [[SLICE:%r[0-9]+]], %ctaid.z;
// CHECK: mul.wide.u32 {{%rd[0-9]+}}, [[SLICE]], 34;
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: cp.async.wait_group 0;
// CHECK: bar.sync 0;
// CHECK-COUNT-8: st.shared.v4.b32 [{{%rd[0-9]+}}{{(\+[0-9]+)?}}],
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: mapa.shared::cluster.u32 peer, {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-NEXT: ld.shared::cluster.v4.f32 {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, [peer];
// CHECK-COUNT-23: ld.shared::cluster.v4.f32
// CHECK-NOT: ld.shared::cluster
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK-NOT: .local
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// SM80: error: 'qmat.fused_gemm' op k_slices = 4 needs thread-block clusters, which sm_80 lacks
func.func @fused(%a: memref<?x17408xbf16>, %w: memref<5120x8704xi8>, %s: memref<5120x1088xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x5120xbf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x17408xbf16>, memref<5120x8704xi8>, memref<5120x1088xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x5120xbf16>)
      m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2 k_slices = 4
  return
}
