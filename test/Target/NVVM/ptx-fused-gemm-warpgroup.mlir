// The fused dequant-GEMM's warpgroup form on sm_90a: one 16 KB tile per
// stage (64 rows x 128 elements), the activations loaded into registers a
// step ahead and stored rearranged into the other tile, the fence of the
// async proxy and a barrier publishing it, the packed fp4 decode straight
// into the A registers of eight wgmma.mma_async m64n64k16 per K step, one
// commit and a wait for them before the barrier; no local memory and no
// spills (ptxas's report). On sm_90 (no wgmma) the same tiling takes the
// warp instruction.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90a format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=SM90

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p2_wg(
// CHECK: .shared .align 16 .b8 {{.*}}[32768];
// CHECK: ld.global.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0;
// CHECK: ld.global.L1::no_allocate.L2::128B.v4.b32
// CHECK: lop3.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0x1dc01dc, 0xE4;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: st.shared.v4.b32
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0;
// CHECK-NOT: mma.sync
// CHECK-NOT: .local
// CHECK-LABEL: .visible .entry fused_int4_bs128_k5120_f16_magic_bias_zp_mt16_w4_s2_c1_p2_wg(
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{{(%r[0-9]+, ){7}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK-NOT: .local
// NOSPILL-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// SM90: .target sm_90
// SM90-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p2(
// SM90-NOT: wgmma
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @fused(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x17408xbf16>, %ah: memref<?x5120xf16>,
                 %si: memref<17408x40xf16>, %z: memref<17408x20xi8>, %yh: memref<?x17408xf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 2 warpgroup
  qmat.fused_gemm <int4, block = 128> ins(%ah, %w, %si : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x40xf16>)
      zero_points(%z : memref<17408x20xi8>) outs(%yh : memref<?x17408xf16>) m_tile = 16 warps_n = 4 split_k = 2 col_tiles = 1 stages = 2 warpgroup
  return
}
