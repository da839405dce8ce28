// The decode GEMV in PTX: the warp matrix instruction, the magic-bias fp4
// decode, the scale conversion and no local-memory spills in the largest
// variants (ptxas's resource report).
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_90 format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=SM90 < %t.sm90.ptx
// RUN: ptxas -arch=sm_90 -v %t.sm90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_80 format=isa}, qmat-print-gpu-assembly)' -o /dev/null | FileCheck %s --check-prefix=SM80
// RUN: qmat-opt %s --pass-pipeline='builtin.module(qmat-kernels-to-gpu-binary{target=sm_89 format=isa}, qmat-print-gpu-assembly)' -o /dev/null > %t.sm89.ptx
// RUN: FileCheck %s --check-prefix=SM89 < %t.sm89.ptx
// RUN: ptxas -arch=sm_89 %t.sm89.ptx -o /dev/null

// SM90: .target sm_90
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m8_s4_c1(
// The codes, read once per block, bypass L1 and fetch whole 128-byte lines
// into L2 (inline PTX). In whole blocks
// row g + 8 is one pointer away from row g: 8 x 2560 code bytes, 8 x 320
// scale bytes, the scale offsets folded into the loads.
// SM90: add.s64 [[NEXT:%rd[0-9]+]], {{%rd[0-9]+}}, 20480;
// SM90-NEXT: // begin inline asm
// SM90-NEXT: ld.global.L1::no_allocate.L2::128B.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {{\[}}[[NEXT]]{{\]}};
// SM90-NEXT: // end inline asm
// Both scales of a lane's chunk in one 16-bit load and one conversion.
// SM90-NEXT: ld.global.b16 [[SCALES:%rs[0-9]+]], [{{%rd[0-9]+}}+2560];
// SM90: cvt.rn.f16x2.e4m3x2 {{%r[0-9]+}}, [[SCALES]];
// The fp4 placement: two lop3 selects per word (0x01DC01DC), each pair
// masked with 0x81C081C0 (sign and magnitude bits), at most one shift.
// SM90: shl.b32 [[SET:%r[0-9]+]], [[WORD:%r[0-9]+]], 2;
// SM90-NEXT: shl.b32 [[CLEAR:%r[0-9]+]], [[WORD]], 8;
// SM90-NEXT: // begin inline asm
// SM90-NEXT: lop3.b32 [[X0:%r[0-9]+]], [[SET]], [[CLEAR]], 0x1dc01dc, 0xE4;
// SM90: shr.u32 [[RIGHT:%r[0-9]+]], [[WORD]], 6;
// SM90-NEXT: // begin inline asm
// SM90-NEXT: lop3.b32 [[X1:%r[0-9]+]], [[RIGHT]], [[WORD]], 0x1dc01dc, 0xE4;
// SM90: shl.b32 [[UP:%r[0-9]+]], [[X0]], 4;
// SM90-NEXT: and.b32 {{%r[0-9]+}}, [[UP]], -2118090304;
// SM90-NEXT: mul.rn.bf16x2
// SM90-NEXT: and.b32 {{%r[0-9]+}}, [[X0]], -2118090304;
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90: bar.sync
// SM90-NOT: .local
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_f16_tc_magic_bias_m64_s2_c1(
// f16: the selects pair codes (0, 2) and (1, 3) under 0x0E0E0E0E, pairs
// masked with 0x8E008E00 (magnitudes under the f16 exponent).
// SM90: lop3.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0xe0e0e0e, 0xE4;
// SM90: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, -1912566272;
// SM90: mul.rn.f16x2
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM90-LABEL: .visible .entry gemv_int4_bs7_k5000_bf16_scalar_magic_bias_zp_m8_s1_c1(
// SM90: shfl.sync.bfly.b32
// SM90-NOT: mma.sync
// fp8: the codes convert two at a time (the native e4m3 decode).
// SM90-LABEL: .visible .entry gemv_fp8_bs128_k5120_bf16_tc_native_m8_s4_c1(
// SM90-COUNT-16: cvt.rn.f16x2.e4m3x2
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// mxfp4 (bf16): the fp4 bit placement, then 2^126 (0x7E80) for the code's
// own value, then the bf16 2^(e - 127) built from the scale byte (0x0040
// for e = 0, NaN 0x7FC0 for 0xFF).
// SM90-LABEL: .visible .entry gemv_mxfp4_bs32_k5120_bf16_tc_magic_bias_m8_s4_c1(
// SM90-DAG: selp.b32 {{.*}}, 2143322048,
// SM90-DAG: selp.b32 {{.*}}, 4194368,
// SM90: mov.b32 [[CODE:%r[0-9]+]], 2122350208;
// SM90-NEXT: mul.rn.bf16x2 [[VALUE:%r[0-9]+]], {{%r[0-9]+}}, [[CODE]];
// SM90-NEXT: mul.rn.bf16x2 {{%r[0-9]+}}, [[VALUE]],
// SM90-NOT: cvt.f32.bf16
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// The other arm, taken when every scale byte of the step is at most 128 in
// every lane (a warp vote): one factor per pair, 2^(e - 1) in both halves,
// e << 7 | e << 23 plus 0x3F003F00 from one mad per scale.
// SM90: vote.sync.all.pred
// SM90: mov.b32 {{%r[0-9]+}}, {{%r[0-9]+}}; // arm 0
// SM90: mad.lo.s32 [[ONE:%r[0-9]+]], {{%r[0-9]+}}, 8388736, 1056980736;
// SM90: mul.rn.bf16x2 [[FAST:%r[0-9]+]], [[ONE]], {{%r[0-9]+}};
// SM90-NOT: mul.rn.bf16x2 {{%r[0-9]+}}, [[FAST]],
// SM90-NOT: mul.rn.bf16x2 {{%r[0-9]+}}, {{%r[0-9]+}}, [[FAST]];
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// mxfp4 with f16 activations: 2^14 (0x7400) for the code's value, then the
// two factors 2^a (exact) and 2^b (one rounding); NaN factor 0x7E00.
// SM90-LABEL: .visible .entry gemv_mxfp4_bs32_k5120_f16_tc_magic_bias_m8_s4_c1(
// SM90: max.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, -14;
// SM90-NEXT: min.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 13;
// SM90: selp.b32 {{%r[0-9]+}}, 32256,
// SM90: mov.b32 [[CODE16:%r[0-9]+]], 1946186752;
// SM90-NEXT: mul.rn.f16x2 [[VALUE16:%r[0-9]+]], {{%r[0-9]+}}, [[CODE16]];
// SM90-NEXT: mul.rn.f16x2 [[EXACT16:%r[0-9]+]], [[VALUE16]],
// SM90-NEXT: mul.rn.f16x2 {{%r[0-9]+}}, [[EXACT16]],
// SM90-NOT: cvt.rn.f16x2.f32
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// With every scale byte at most 128: one factor 2^(max(e, 99) - 113),
// (max(e, 99) - 98) << 10.
// SM90: vote.sync.all.pred
// SM90: max.u32 [[RAISED:%r[0-9]+]], {{%r[0-9]+}}, 99;
// SM90: shl.b32 [[E10:%r[0-9]+]], [[RAISED]], 10;
// SM90-NEXT: add.s32 {{%r[0-9]+}}, [[E10]], -100352;
// SM90: mul.rn.f16x2 [[FAST16:%r[0-9]+]],
// SM90-NOT: mul.rn.f16x2 {{%r[0-9]+}}, [[FAST16]],
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// int4 (bf16, zero points): nibble pairs under 128 (0x4300), minus
// 128 + zp splatted to both halves, times the scale.
// SM90-LABEL: .visible .entry gemv_int4_bs128_k5120_bf16_tc_magic_bias_zp_m8_s4_c1(
// SM90: mad.lo.s32 [[OFFSET:%r[0-9]+]], {{%r[0-9]+}}, 65537, 1124090624;
// SM90: and.b32 [[NIBBLES:%r[0-9]+]], {{%r[0-9]+}}, 983055;
// SM90-NEXT: or.b32 [[BIASED:%r[0-9]+]], [[NIBBLES]], 1124090624;
// SM90-NEXT: sub.rn.bf16x2 [[CENTERED:%r[0-9]+]], [[BIASED]], [[OFFSET]];
// SM90-NEXT: mul.rn.bf16x2 {{%r[0-9]+}}, {{%r[0-9]+}}, [[CENTERED]];
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// int4 (f16, no zero points): under 1024 (0x6400), plus -1032 (0xE408).
// SM90-LABEL: .visible .entry gemv_int4_bs32_k5120_f16_tc_magic_bias_m8_s4_c1(
// SM90: or.b32 [[BIASED16:%r[0-9]+]], {{%r[0-9]+}}, 1677747200;
// SM90-NEXT: mov.b32 [[MINUS:%r[0-9]+]], -469179384;
// SM90-NEXT: add.rn.f16x2 [[CENTERED16:%r[0-9]+]], [[BIASED16]], [[MINUS]];
// SM90-NEXT: mul.rn.f16x2 {{%r[0-9]+}}, {{%r[0-9]+}}, [[CENTERED16]];
// The odd nibbles in place at bits 4-7 (0x00F000F0): 1024 + 16q, times
// 1/16 (0x2C00) plus -(64 + 8) (0xD480) in one fma; one shift per word.
// SM90: and.b32 [[HIGH:%r[0-9]+]], {{%r[0-9]+}}, 15728880;
// SM90-NEXT: or.b32 [[BIASEDHIGH:%r[0-9]+]], [[HIGH]], 1677747200;
// SM90-NEXT: mov.b32 [[MINUS72:%r[0-9]+]], -729754496;
// SM90-NEXT: mov.b32 [[SIXTEENTH:%r[0-9]+]], 738208768;
// SM90-NEXT: fma.rn.f16x2 [[CENTEREDHIGH:%r[0-9]+]], [[BIASEDHIGH]], [[SIXTEENTH]], [[MINUS72]];
// SM90-NEXT: mul.rn.f16x2 {{%r[0-9]+}}, {{%r[0-9]+}}, [[CENTEREDHIGH]];
// SM90-NOT: shr.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4;
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// int4 (f16, zero points): per block 1024 + zp and, for the odd nibbles,
// -(64 + zp) = (zp << 4 | 0xD400), each splatted to both halves.
// SM90-LABEL: .visible .entry gemv_int4_bs128_k5120_f16_tc_magic_bias_zp_m8_s2_c1(
// SM90: mad.lo.s32 {{%r[0-9]+}}, [[ZP:%r[0-9]+]], 65537, 1677747200;
// SM90-NEXT: mad.lo.s32 [[HIGHOFFSET:%r[0-9]+]], [[ZP]], 1048592, -738143232;
// SM90: fma.rn.f16x2 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, [[HIGHOFFSET]];
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// The whole-line layout (max_m = 4): in whole blocks a lane's four rows are
// 4 rows apart (4 x 2560 code bytes, 4 x 320 scale bytes), each code load
// a quarter of a 128-byte line (lanes g and g + 4 take its halves); 16
// matrix instructions per 256-element step; the K halves meet across lanes
// l and l ^ 18.
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m4_s4_c1_lines(
// nvfp4's one-tile whole-line kernels at split-K 2 to 8 keep 1024 threads
// per SM resident (64 registers, no spills: NOSPILL below).
// SM90: .minnctapersm 8
// SM90: add.s64 [[ROW0:%rd[0-9]+]], [[ROW12:%rd[0-9]+]], -30720;
// SM90: ld.global.L1::no_allocate.L2::128B.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {{\[}}[[ROW0]]{{\]}};
// SM90-NEXT: // end inline asm
// SM90-NEXT: ld.global.b16 {{%rs[0-9]+}}, [[[SCALES:%rd[0-9]+]]+-2560];
// SM90-NEXT: add.s64 {{%rd[0-9]+}}, [[ROW12]], -20480;
// SM90: ld.global.b16 {{%rs[0-9]+}}, [[[SCALES]]+-1280];
// SM90-NEXT: add.s64 {{%rd[0-9]+}}, [[ROW12]], -10240;
// SM90: ld.global.b16 {{%rs[0-9]+}}, [[[SCALES]]];
// SM90: ld.global.L1::no_allocate.L2::128B.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {{\[}}[[ROW12]]{{\]}};
// SM90-NEXT: // end inline asm
// SM90-NEXT: ld.global.b16 {{%rs[0-9]+}}, [[[SCALES]]+1280];
// SM90-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-NOT: mma.sync
// SM90: bra {{\$L__BB[0-9_]+}};
// SM90-COUNT-8: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 18, 31, -1;
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_f16_tc_magic_bias_m4_s1_c2_lines(
// SM90-NOT: .minnctapersm
// SM90-LABEL: .visible .entry gemv_mxfp4_bs32_k5120_f16_tc_magic_bias_m4_s1_c2_lines(
// SM90-NOT: .minnctapersm
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m4_s2_c1_lines(
// SM90: .minnctapersm 16
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_f16_tc_magic_bias_m4_s8_c1_lines(
// SM90: .minnctapersm 4
// Split-K 3: blocks of 96 threads, 10 of them (960 threads) per SM.
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m4_s3_c1_lines(
// SM90: .maxntid 96, 1, 1
// SM90-NEXT: .minnctapersm 10
// Split-K 1 and 16 and mxfp4 with bf16 would spill at 64 registers.
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m4_s1_c1_lines(
// SM90-NOT: .minnctapersm
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_f16_tc_magic_bias_m4_s16_c1_lines(
// SM90-NOT: .minnctapersm
// SM90-LABEL: .visible .entry gemv_mxfp4_bs32_k5120_bf16_tc_magic_bias_m4_s4_c1_lines(
// SM90-NOT: .minnctapersm

// K = 8192 would spill at 64 registers.
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k8192_bf16_tc_magic_bias_m4_s4_c1_lines(
// SM90-NOT: .minnctapersm

// The 16-row fp4 kernels of four tiles with bf16 activations walk each K
// step in two halves of two tiles (four code loads, then 16 matrix
// instructions, twice) and keep 640 threads per SM resident: 96 registers,
// no spills (NOSPILL below). With f16 activations they keep whole steps.
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m8_s2_c4_halves(
// SM90: .maxntid 64, 1, 1
// SM90-NEXT: .minnctapersm 10
// SM90-COUNT-4: ld.global.L1::no_allocate.L2::128B.v4.b32
// SM90-NOT: ld.global.L1::no_allocate
// SM90-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-NOT: mma.sync
// SM90-COUNT-4: ld.global.L1::no_allocate.L2::128B.v4.b32
// SM90-NOT: ld.global.L1::no_allocate
// SM90-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-NOT: mma.sync
// SM90: bra
// SM90-LABEL: .visible .entry gemv_mxfp4_bs32_k5120_bf16_tc_magic_bias_m8_s4_c4_halves(
// SM90: .maxntid 128, 1, 1
// SM90-NEXT: .minnctapersm 5
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_f16_tc_magic_bias_m8_s2_c4(
// SM90-NOT: .minnctapersm
// SM90-COUNT-8: ld.global.L1::no_allocate.L2::128B.v4.b32
// SM90-NOT: mma.sync
// SM90-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM90-NOT: mma.sync
// SM90: bra
// Two tiles, and int4's four, keep whole steps.
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m8_s2_c2(
// SM90-NOT: .minnctapersm
// SM90-COUNT-4: ld.global.L1::no_allocate.L2::128B.v4.b32
// SM90-NOT: mma.sync
// SM90-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-NOT: ld.global.L1::no_allocate
// SM90: bra
// SM90-LABEL: .visible .entry gemv_int4_bs128_k5120_bf16_tc_magic_bias_zp_m8_s2_c4(
// SM90-NOT: .minnctapersm
// SM90-COUNT-8: ld.global.L1::no_allocate.L2::128B.v4.b32
// SM90-NOT: mma.sync
// SM90-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-NOT: mma.sync
// SM90: bra
// Where ptxas would spill under the budget the halves are not taken:
// split-K 1, and K a power of two.
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k5120_bf16_tc_magic_bias_m8_s1_c4(
// SM90-NOT: .minnctapersm
// SM90-COUNT-8: ld.global.L1::no_allocate.L2::128B.v4.b32
// SM90-NOT: mma.sync
// SM90-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-LABEL: .visible .entry gemv_nvfp4_bs16_k4096_bf16_tc_magic_bias_m8_s2_c4(
// SM90-NOT: .minnctapersm
// SM90-COUNT-8: ld.global.L1::no_allocate.L2::128B.v4.b32
// SM90-NOT: mma.sync
// SM90-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// NOSPILL-COUNT-27: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: spill stores

// Ada (sm_89) converts e4m3 pairs too, from PTX 8.1 on (below it the NVPTX
// backend cannot select the conversion); no register budget there.
// SM89: .version 8.1
// SM89-NEXT: .target sm_89
// SM89-NOT: .minnctapersm
// SM89: cvt.rn.f16x2.e4m3x2
// SM89-NOT: .minnctapersm

// sm_80 has no e4m3 conversion instruction: the scales decode by integer
// arithmetic; the matrix instruction is the same.
// SM80: .target sm_80
// SM80-NOT: cvt.rn.f16x2.e4m3x2
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

func.func @decode(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                  %g: memref<f32>, %y: memref<?x17408xbf16>,
                  %ah: memref<?x5120xf16>, %yh: memref<?x17408xf16>,
                  %a5: memref<?x5000xbf16>, %w5: memref<17408x2500xi8>, %s5: memref<17408x715xbf16>,
                  %z5: memref<17408x358xi8>, %y5: memref<?x17408xbf16>,
                  %w8: memref<512x5120xf8E4M3FN>, %s8: memref<512x40xf32>, %y8: memref<?x512xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 8 split_k = 4 col_tiles = 1 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%ah, %w, %s : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%yh : memref<?x17408xf16>) max_m = 64 split_k = 2 col_tiles = 1 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 8 split_k = 16 col_tiles = 4 tensor_core
  qmat.gemv <int4, block = 7> ins(%a5, %w5, %s5 : memref<?x5000xbf16>, memref<17408x2500xi8>, memref<17408x715xbf16>)
      zero_points(%z5 : memref<17408x358xi8>) outs(%y5 : memref<?x17408xbf16>) max_m = 8 split_k = 1 col_tiles = 1
  qmat.gemv <fp8, block = 128> ins(%a, %w8, %s8 : memref<?x5120xbf16>, memref<512x5120xf8E4M3FN>, memref<512x40xf32>)
      outs(%y8 : memref<?x512xbf16>) max_m = 8 split_k = 4 col_tiles = 1 tensor_core
  return
}

func.func @packed(%a: memref<?x5120xbf16>, %w: memref<512x2560xi8>, %sx: memref<512x160xf8E8M0FNU>,
                  %s: memref<512x40xbf16>, %z: memref<512x20xi8>, %y: memref<?x512xbf16>,
                  %ah: memref<?x5120xf16>, %sh: memref<512x160xf16>, %yh: memref<?x512xf16>,
                  %s16: memref<512x40xf16>) {
  qmat.gemv <mxfp4, block = 32> ins(%a, %w, %sx : memref<?x5120xbf16>, memref<512x2560xi8>, memref<512x160xf8E8M0FNU>)
      outs(%y : memref<?x512xbf16>) max_m = 8 split_k = 4 col_tiles = 1 tensor_core
  qmat.gemv <mxfp4, block = 32> ins(%ah, %w, %sx : memref<?x5120xf16>, memref<512x2560xi8>, memref<512x160xf8E8M0FNU>)
      outs(%yh : memref<?x512xf16>) max_m = 8 split_k = 4 col_tiles = 1 tensor_core
  qmat.gemv <int4, block = 128> ins(%a, %w, %s : memref<?x5120xbf16>, memref<512x2560xi8>, memref<512x40xbf16>)
      zero_points(%z : memref<512x20xi8>) outs(%y : memref<?x512xbf16>) max_m = 8 split_k = 4 col_tiles = 1 tensor_core
  qmat.gemv <int4, block = 32> ins(%ah, %w, %sh : memref<?x5120xf16>, memref<512x2560xi8>, memref<512x160xf16>)
      outs(%yh : memref<?x512xf16>) max_m = 8 split_k = 4 col_tiles = 1 tensor_core
  qmat.gemv <int4, block = 128> ins(%ah, %w, %s16 : memref<?x5120xf16>, memref<512x2560xi8>, memref<512x40xf16>)
      zero_points(%z : memref<512x20xi8>) outs(%yh : memref<?x512xf16>) max_m = 8 split_k = 2 col_tiles = 1 tensor_core
  return
}

func.func @whole_lines(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x17408xbf16>,
                       %ah: memref<?x5120xf16>, %yh: memref<?x17408xf16>,
                       %sx: memref<17408x160xf8E8M0FNU>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%ah, %w, %s : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%yh : memref<?x17408xf16>) max_m = 4 split_k = 1 col_tiles = 2 tensor_core
  qmat.gemv <mxfp4, block = 32> ins(%ah, %w, %sx : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x160xf8E8M0FNU>)
      outs(%yh : memref<?x17408xf16>) max_m = 4 split_k = 1 col_tiles = 2 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 4 split_k = 2 col_tiles = 1 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%ah, %w, %s : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%yh : memref<?x17408xf16>) max_m = 4 split_k = 8 col_tiles = 1 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 4 split_k = 3 col_tiles = 1 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 4 split_k = 1 col_tiles = 1 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%ah, %w, %s : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%yh : memref<?x17408xf16>) max_m = 4 split_k = 16 col_tiles = 1 tensor_core
  qmat.gemv <mxfp4, block = 32> ins(%a, %w, %sx : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x160xf8E8M0FNU>)
      outs(%y : memref<?x17408xbf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core
  return
}

func.func @whole_lines_long_k(%a: memref<?x8192xbf16>, %w: memref<17408x4096xi8>, %s: memref<17408x512xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x8192xbf16>, memref<17408x4096xi8>, memref<17408x512xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 4 split_k = 4 col_tiles = 1 tensor_core
  return
}

func.func @half_steps(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>,
                      %g: memref<f32>, %y: memref<?x17408xbf16>,
                      %ah: memref<?x5120xf16>, %yh: memref<?x17408xf16>,
                      %sx: memref<17408x160xf8E8M0FNU>,
                      %si: memref<17408x40xbf16>, %zi: memref<17408x20xi8>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core
  qmat.gemv <mxfp4, block = 32> ins(%a, %w, %sx : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x160xf8E8M0FNU>)
      outs(%y : memref<?x17408xbf16>) max_m = 8 split_k = 4 col_tiles = 4 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%ah, %w, %s : memref<?x5120xf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%yh : memref<?x17408xf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 8 split_k = 2 col_tiles = 2 tensor_core
  qmat.gemv <int4, block = 128> ins(%a, %w, %si : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x40xbf16>)
      zero_points(%zi : memref<17408x20xi8>) outs(%y : memref<?x17408xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 8 split_k = 1 col_tiles = 4 tensor_core
  return
}

func.func @half_steps_power_of_two_k(%a: memref<?x4096xbf16>, %w: memref<17408x2048xi8>, %s: memref<17408x256xf8E4M3FN>,
                                     %g: memref<f32>, %y: memref<?x17408xbf16>) {
  qmat.gemv <nvfp4, block = 16> ins(%a, %w, %s : memref<?x4096xbf16>, memref<17408x2048xi8>, memref<17408x256xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>) max_m = 8 split_k = 2 col_tiles = 4 tensor_core
  return
}
