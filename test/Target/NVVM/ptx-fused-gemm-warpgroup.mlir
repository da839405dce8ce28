// The fused dequant-GEMM's warpgroup form on sm_90a, in dynamic workgroup
// memory (the module's one `.extern .shared` array, no static allocation).
// The nvfp4 tiling (m_tile 64, 4 stages) holds in each stage a 16 KB tile
// of activations (64 rows x 128 elements), filled by asynchronous 16-byte
// copies of A as it is (no activation passes through registers), and after
// the four tiles each stage's weight codes: one 16-byte asynchronous copy
// per weight row per lane into a slot of its own (stage, then row, then
// thread: stage 0's rows at 65536 and 67584, stage 1's at 69632 and
// 71680), in the same group as the activations of their K step. The
// copies run stages - 2 = 2 steps ahead (two groups before the loop). An
// iteration waits for all but the newest group, fences the async proxy and
// passes a barrier, reads its own codes back from its stage with
// ld.shared.v4 (no 16-byte global load in the kernel; the even iteration
// of a trip reads stage 0 or 2, the odd one the stage after), starts the
// copies of the step two ahead and loads its scales, then the four lanes
// of each quad exchange a row's codes (byte permutes with lane-dependent selectors,
// three butterfly shuffles, two swaps on the lane's bits) before the packed
// fp4 decode fills the A registers of eight wgmma.mma_async m64n64k16 per K
// step, one commit, and a wait for all but that group: the instructions run
// on while the next iteration decodes; after the loop, a wait for all of
// them and for the copies. The int4 tiling (m_tile 16, split_k 2, 3
// stages: 8 KB of activations and 8 KB of codes per stage) copies one step
// ahead (one group before the loop, the loop waits for every group), its
// codes at 24576 and 28672, read back in the iteration after the one that
// copied them. No local memory and no spills (ptxas's report). On sm_90 (no
// wgmma) the same tiling takes the warp instruction, in dynamic workgroup
// memory too, its codes loaded into registers.
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90a format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=NOGLOBAL < %t.ptx
// RUN: ptxas -arch=sm_90a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=SM90

// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4_wg(
// CHECK-COUNT-8: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global {{\[}}[[CODES:%rd[0-9]+]]+65536], [%rd{{[0-9]+}}], 16;
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global {{\[}}[[CODES]]+67584], [%rd{{[0-9]+}}], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK-COUNT-8: cp.async.cg.shared.global [%rd{{[0-9]+}}+16384], [%rd{{[0-9]+}}+256], 16, %r{{[0-9]+}};
// CHECK-NEXT: cp.async.cg.shared.global {{\[}}[[CODES]]+69632], [%rd{{[0-9]+}}+64], 16;
// CHECK-NEXT: cp.async.cg.shared.global {{\[}}[[CODES]]+71680], [%rd{{[0-9]+}}+64], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK-NOT: cp.async
// CHECK: cp.async.wait_group 1;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: fence.proxy.async.shared::cta;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0;
// CHECK-NOT: cp.async
// CHECK: ld.shared.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{\[}}[[SLOT:%rd[0-9]+]]+65536];
// CHECK-NEXT: ld.shared.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{\[}}[[SLOT]]+67584];
// CHECK-COUNT-8: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}+65536], [%rd{{[0-9]+}}], 16;
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}+67584], [%rd{{[0-9]+}}], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK: prmt.b32 [[LOW:%r[0-9]+]], [[W0:%r[0-9]+]], [[W2:%r[0-9]+]], [[SEL01:%r[0-9]+]];
// CHECK-NEXT: prmt.b32 [[HIGH:%r[0-9]+]], [[W1:%r[0-9]+]], [[W3:%r[0-9]+]], [[SEL01]];
// CHECK-NEXT: prmt.b32 [[S0:%r[0-9]+]], [[LOW]], [[HIGH]], 0x5410U;
// CHECK-NEXT: prmt.b32 [[S1:%r[0-9]+]], [[LOW]], [[HIGH]], 0x7632U;
// CHECK-NEXT: prmt.b32 [[LOW23:%r[0-9]+]], [[W0]], [[W2]], [[SEL23:%r[0-9]+]];
// CHECK-NEXT: prmt.b32 [[HIGH23:%r[0-9]+]], [[W1]], [[W3]], [[SEL23]];
// CHECK-NEXT: prmt.b32 [[S2:%r[0-9]+]], [[LOW23]], [[HIGH23]], 0x5410U;
// CHECK-NEXT: prmt.b32 [[S3:%r[0-9]+]], [[LOW23]], [[HIGH23]], 0x7632U;
// CHECK-NEXT: shfl.sync.bfly.b32 [[R1:%r[0-9]+]], [[S1]], 1, 31, -1;
// CHECK-NEXT: shfl.sync.bfly.b32 [[R2:%r[0-9]+]], [[S2]], 2, 31, -1;
// CHECK-NEXT: shfl.sync.bfly.b32 [[R3:%r[0-9]+]], [[S3]], 3, 31, -1;
// CHECK-COUNT-8: selp.b32
// CHECK: lop3.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0x1dc01dc, 0xE4;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: cp.async.wait_group 1;
// CHECK: bar.sync 0;
// CHECK-NOT: cp.async
// CHECK: ld.shared.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{\[}}[[SLOT]]+69632];
// CHECK-NEXT: ld.shared.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{\[}}[[SLOT]]+71680];
// CHECK-COUNT-8: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}+65536], [%rd{{[0-9]+}}], 16;
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}+67584], [%rd{{[0-9]+}}], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: cp.async.wait_group 0;
// CHECK-NOT: st.shared.v4
// CHECK-NOT: mma.sync
// CHECK-NOT: .local
// CHECK-LABEL: .visible .entry fused_int4_bs128_k5120_f16_magic_bias_zp_mt16_w4_s2_c1_p3_wg(
// CHECK-COUNT-2: cp.async.cg.shared.global
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}+24576], [%rd{{[0-9]+}}], 16;
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}+28672], [%rd{{[0-9]+}}], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK-NOT: cp.async
// CHECK: cp.async.wait_group 0;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: fence.proxy.async.shared::cta;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0;
// CHECK-NOT: cp.async
// CHECK: ld.shared.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, [%rd{{[0-9]+}}+24576];
// CHECK-NEXT: ld.shared.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, [%rd{{[0-9]+}}+28672];
// CHECK-COUNT-2: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+4096)?}}], [%rd{{[0-9]+}}{{(\+256)?}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async
// CHECK: cp.async.cg.shared.global {{\[}}[[NEXT:%rd[0-9]+]]+24576], [%rd{{[0-9]+}}], 16;
// CHECK-NEXT: cp.async.cg.shared.global {{\[}}[[NEXT]]+28672], [%rd{{[0-9]+}}], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK: shfl.sync.bfly.b32
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{{(%r[0-9]+, ){7}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: cp.async.wait_group 0;
// CHECK: bar.sync 0;
// CHECK-NEXT: ld.shared.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{\[}}[[NEXT]]+24576];
// CHECK-NEXT: ld.shared.v4.b32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{\[}}[[NEXT]]+28672];
// CHECK: cp.async.commit_group;
// CHECK-NOT: .local
// NOGLOBAL-NOT: .shared .align 16 .b8 {{.*}}[{{[0-9]+}}];
// NOGLOBAL-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4_wg(
// NOGLOBAL-NOT: ld.global.L1::no_allocate.L2::128B.v4.b32
// NOGLOBAL-NOT: ld.global{{.*}}.v4
// NOGLOBAL-LABEL: .visible .entry fused_int4_bs128_k5120_f16_magic_bias_zp_mt16_w4_s2_c1_p3_wg(
// NOGLOBAL-NOT: ld.global.L1::no_allocate.L2::128B.v4.b32
// NOGLOBAL-NOT: ld.global{{.*}}.v4
// NOSPILL-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// SM90: .target sm_90
// SM90: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// SM90-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c1_p4(
// SM90-NOT: wgmma
// SM90: ld.global.L1::no_allocate.L2::128B.v4.b32
// SM90-NOT: wgmma
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @fused(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x17408xbf16>, %ah: memref<?x5120xf16>,
                 %si: memref<17408x40xf16>, %z: memref<17408x20xi8>, %yh: memref<?x17408xf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup
  qmat.fused_gemm <int4, block = 128> ins(%ah, %w, %si : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x40xf16>)
      zero_points(%z : memref<17408x20xi8>) outs(%yh : memref<?x17408xf16>) m_tile = 16 warps_n = 4 split_k = 2 col_tiles = 1 stages = 3 warpgroup
  return
}
