// The fused dequant-GEMM in PTX: the activations staged in workgroup memory
// (16-byte global loads and shared stores between two barriers, 16-byte
// shared reads; with stages > 1 asynchronous copies in a pipeline, which
// write zeros for rows past M), the
// codes streamed past L1, the packed fp4 decode and the warp matrix
// instruction; no local memory and no spills (ptxas's report).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_80 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=SM80

// CHECK: .target sm_90
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt64_w4_s1_c2(
// One 16 KB tile (64 rows x 128 elements), nothing else in shared memory.
// CHECK: .shared .align 16 .b8 {{.*}}[16384];
// CHECK: ld.global.L1::no_allocate.L2::128B.v4.b32
// CHECK: bar.sync 0;
// CHECK: ld.global.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.v4.b32
// CHECK: lop3.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0x1dc01dc, 0xE4;
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT: .local
// CHECK-LABEL: .visible .entry fused_int4_bs128_k5120_f16_magic_bias_zp_mt16_w1_s4_c2(
// Split-K 4: the 16 KB of sums reuse the 4 x 4 KB tile.
// CHECK: .shared .align 16 .b8 {{.*}}[16384];
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: .local
// Three stages: two tiles' asynchronous copies (one group each) before the
// loop; in it, the wait for all but the newest group, one barrier, the copy
// of the tile two steps ahead, then the step's loads and products.
// CHECK-LABEL: .visible .entry fused_nvfp4_bs16_k5120_bf16_magic_bias_mt32_w2_s2_c2_p3(
// CHECK: .shared .align 16 .b8 {{.*}}[49152];
// A row past M reads nothing (source size 0) and is staged as zeros.
// CHECK: selp.b32 [[READ:%r[0-9]+]], 0, 16, %p{{[0-9]+}};
// CHECK-NEXT: cp.async.cg.shared.global [[[STAGED:%rd[0-9]+]]], [[[SOURCE:%rd[0-9]+]]], 16, [[READ]];
// CHECK: cp.async.commit_group;
// CHECK: cp.async.cg.shared.global [[[STAGED]]+16384], [[[SOURCE]]+512], 16, [[READ]];
// CHECK: cp.async.commit_group;
// CHECK: ld.global.L1::no_allocate.L2::128B.v4.b32
// CHECK: cp.async.wait_group 1;
// CHECK-NEXT: bar.sync 0;
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.commit_group;
// CHECK: ld.global.L1::no_allocate.L2::128B.v4.b32
// CHECK: ld.shared.v4.b32
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: cp.async.wait_group 0;
// CHECK-NOT: .local
// NOSPILL-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
// SM80: .target sm_80
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80: cp.async.cg.shared.global
// SM80: cp.async.wait_group 1;
func.func @fused(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                 %g: memref<f32>, %y: memref<?x17408xbf16>, %ah: memref<?x5120xf16>,
                 %si: memref<17408x40xf16>, %z: memref<17408x20xi8>, %yh: memref<?x17408xf16>) {
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 2
  qmat.fused_gemm <int4, block = 128> ins(%ah, %w, %si : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x40xf16>)
      zero_points(%z : memref<17408x20xi8>) outs(%yh : memref<?x17408xf16>) m_tile = 16 warps_n = 1 split_k = 4 col_tiles = 2
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 3
  return
}
