// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=sm_100 | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=host | FileCheck %s --enable-var-scope --check-prefix=HOST
// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=gfx942 | FileCheck %s --enable-var-scope --check-prefix=AMD
// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=gfx950 | FileCheck %s --enable-var-scope --check-prefix=AMD
// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=host-amdgcn | FileCheck %s --enable-var-scope --check-prefix=HOSTAMD
// RUN: not qmat-opt %s --qmat-lower-to-target=target=sm_91 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: unknown target 'sm_91' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942, gfx950, host or host-amdgcn)

// NVIDIA: qmat.byte_perm is prmt.b32 in its default mode, operand for
// operand (nvvm.prmt prints the selector first).
// CHECK-LABEL: func.func @byte_perm(
// CHECK-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32, %[[SEL:[a-z0-9_]+]]: i32)
// CHECK-NEXT: %[[R:.+]] = nvvm.prmt <default> %[[SEL]], %[[LO]], %[[HI]] : i32
// CHECK-NEXT: return %[[R]] : i32
// Host: the same selection in plain integer arithmetic.
// HOST-LABEL: func.func @byte_perm(
// HOST-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32, %[[SEL:[a-z0-9_]+]]: i32)
// HOST-NOT: qmat.byte_perm
// HOST-NOT: nvvm.
// HOST-DAG: %[[C32:.+]] = arith.constant 32 : i64
// HOST-DAG: %[[C255_64:.+]] = arith.constant 255 : i64
// HOST-DAG: %[[C255:.+]] = arith.constant 255 : i32
// HOST-DAG: %[[C15:.+]] = arith.constant 15 : i32
// HOST-DAG: %[[C7:.+]] = arith.constant 7 : i32
// HOST-DAG: %[[C8:.+]] = arith.constant 8 : i32
// HOST-DAG: %[[C0:.+]] = arith.constant 0 : i32
// The 8-byte pool {hi, lo}.
// HOST: %[[LO64:.+]] = arith.extui %[[LO]] : i32 to i64
// HOST-NEXT: %[[HI64:.+]] = arith.extui %[[HI]] : i32 to i64
// HOST-NEXT: %[[HISHIFT:.+]] = arith.shli %[[HI64]], %[[C32]] : i64
// HOST-NEXT: %[[POOL:.+]] = arith.ori %[[HISHIFT]], %[[LO64]] : i64
// Byte 0: selector nibble 0, its low three bits index the pool, bit 3 asks
// for the selected byte's sign replicated.
// HOST-NEXT: %[[N0:.+]] = arith.andi %[[SEL]], %[[C15]] : i32
// HOST-NEXT: %[[I0:.+]] = arith.andi %[[N0]], %[[C7]] : i32
// HOST-NEXT: %[[BITS0:.+]] = arith.muli %[[I0]], %[[C8]] : i32
// HOST-NEXT: %[[SH0:.+]] = arith.extui %[[BITS0]] : i32 to i64
// HOST-NEXT: %[[P0:.+]] = arith.shrui %[[POOL]], %[[SH0]] : i64
// HOST-NEXT: %[[M0:.+]] = arith.andi %[[P0]], %[[C255_64]] : i64
// HOST-NEXT: %[[B0:.+]] = arith.trunci %[[M0]] : i64 to i32
// HOST-NEXT: %[[S0:.+]] = arith.shrui %[[B0]], %[[C7]] : i32
// HOST-NEXT: %[[REP0:.+]] = arith.muli %[[S0]], %[[C255]] : i32
// HOST-NEXT: %[[MODE0:.+]] = arith.andi %[[N0]], %[[C8]] : i32
// HOST-NEXT: %[[USE0:.+]] = arith.cmpi ne, %[[MODE0]], %[[C0]] : i32
// HOST-NEXT: %[[R0:.+]] = arith.select %[[USE0]], %[[REP0]], %[[B0]] : i32
// Bytes 1..3 likewise, shifted into place and OR-ed together.
// HOST-COUNT-3: arith.select
// HOST: %[[R:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// HOST-NEXT: return %[[R]] : i32
// On AMD nothing is known about the selector, so each requested byte is
// staged at an odd position (v_perm_b32 replicates signs of odd bytes only)
// and a third perm copies it or replicates its sign.
// AMD-LABEL: func.func @byte_perm(
// AMD-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32, %[[SEL:[a-z0-9_]+]]: i32)
// AMD-DAG: %[[CSIGN:.+]] = arith.constant 202312201 : i32
// AMD-DAG: %[[CCOPY:.+]] = arith.constant 117768961 : i32
// AMD-DAG: %[[CZERO:.+]] = arith.constant 786444 : i32
// AMD: %[[X:.+]] = arith.andi %[[SEL]], %{{.+}} : i32
// AMD: %[[SLO:.+]] = arith.ori %{{.+}}, %[[CZERO]] : i32
// AMD-NEXT: %[[PLO:.+]] = llvm.call_intrinsic "llvm.amdgcn.perm"(%[[HI]], %[[LO]], %[[SLO]]) : (i32, i32, i32) -> i32
// AMD: %[[SHI:.+]] = arith.ori %{{.+}}, %[[CZERO]] : i32
// AMD-NEXT: %[[PHI:.+]] = llvm.call_intrinsic "llvm.amdgcn.perm"(%[[HI]], %[[LO]], %[[SHI]]) : (i32, i32, i32) -> i32
// AMD-NEXT: %[[MASKED:.+]] = arith.andi %{{.+}}, %[[CSIGN]] : i32
// AMD-NEXT: %[[FINAL:.+]] = arith.xori %[[MASKED]], %[[CCOPY]] : i32
// AMD-NEXT: %[[R:.+]] = llvm.call_intrinsic "llvm.amdgcn.perm"(%[[PHI]], %[[PLO]], %[[FINAL]]) : (i32, i32, i32) -> i32
// AMD-NEXT: return %[[R]] : i32
// The host model of the same: the translation, then v_perm_b32 in integer
// arithmetic (three selects per result byte: copy, sign, 0x00 / 0xFF).
// HOSTAMD-LABEL: func.func @byte_perm(
// HOSTAMD-NOT: llvm.call_intrinsic
// HOSTAMD-COUNT-36: arith.select
// HOSTAMD-NOT: arith.select
// HOSTAMD: return
func.func @byte_perm(%lo: i32, %hi: i32, %sel: i32) -> i32 {
  %0 = qmat.byte_perm %lo, %hi, %sel : i32
  return %0 : i32
}

// -----

// Only byte_perm is lowered: a decode left in place stays as it is, and
// byte_perm ops inside a gpu.module are found too.
// CHECK-LABEL: gpu.func @in_kernel(
// CHECK: qmat.decode e2m1 %{{.+}} : vector<1xi8> -> vector<2xf16>
// CHECK-NEXT: nvvm.prmt <default>
// CHECK-NOT: qmat.byte_perm
// AMD-LABEL: gpu.func @in_kernel(
// AMD: qmat.decode e2m1 %{{.+}} : vector<1xi8> -> vector<2xf16>
// AMD-COUNT-3: llvm.call_intrinsic "llvm.amdgcn.perm"
// AMD-NOT: qmat.byte_perm
// HOST-LABEL: gpu.func @in_kernel(
// HOST: qmat.decode e2m1 %{{.+}} : vector<1xi8> -> vector<2xf16>
// HOST-NOT: qmat.byte_perm
// HOST-COUNT-4: arith.select
// HOST-NOT: arith.select
// HOST: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @in_kernel(%codes: vector<1xi8>, %lo: i32, %hi: i32, %sel: i32)
        -> (vector<2xf16>, i32) {
      %0 = qmat.decode e2m1 %codes : vector<1xi8> -> vector<2xf16>
      %1 = qmat.byte_perm %lo, %hi, %sel : i32
      gpu.return %0, %1 : vector<2xf16>, i32
    }
  }
}

// -----

// A selector masked with 0x7777 asks for no sign: its nibbles spread into
// bytes are v_perm_b32's selector, one perm.
// AMD-LABEL: func.func @no_sign_requests(
// AMD-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32, %[[SEL:[a-z0-9_]+]]: i32)
// AMD-DAG: %[[C7:.+]] = arith.constant 117901063 : i32
// AMD: %[[IDX:.+]] = arith.andi %{{.+}}, %[[C7]] : i32
// AMD-NEXT: %[[R:.+]] = llvm.call_intrinsic "llvm.amdgcn.perm"(%[[HI]], %[[LO]], %[[IDX]]) : (i32, i32, i32) -> i32
// AMD-NEXT: return %[[R]] : i32
// HOSTAMD-LABEL: func.func @no_sign_requests(
// HOSTAMD-COUNT-12: arith.select
// HOSTAMD-NOT: arith.select
// HOSTAMD: return
func.func @no_sign_requests(%lo: i32, %hi: i32, %sel: i32) -> i32 {
  %m = arith.constant 30583 : i32
  %s = arith.andi %sel, %m : i32
  %0 = qmat.byte_perm %lo, %hi, %s : i32
  return %0 : i32
}

// -----

// The fp32 lookup's placement selector 0x40DD: bytes 0, 1 replicate the
// sign of byte 5 (v_perm_b32 selector 10), byte 2 is byte 0, byte 3 is
// byte 4: 0x04000A0A, folded.
// AMD-LABEL: func.func @constant_odd_signs(
// AMD-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32)
// AMD-NEXT: %[[C:.+]] = arith.constant 67111434 : i32
// AMD-NEXT: %[[R:.+]] = llvm.call_intrinsic "llvm.amdgcn.perm"(%[[HI]], %[[LO]], %[[C]]) : (i32, i32, i32) -> i32
// AMD-NEXT: return %[[R]] : i32
func.func @constant_odd_signs(%lo: i32, %hi: i32) -> i32 {
  %s = arith.constant 16605 : i32
  %0 = qmat.byte_perm %lo, %hi, %s : i32
  return %0 : i32
}

// -----

// 0x40CC replicates the sign of byte 4, an even byte: staged, three perms,
// all selectors folded (0x040C000C, 0x040C0000 | 0x0C: [12, 0, 12, 4] ...).
// AMD-LABEL: func.func @constant_even_sign(
// AMD-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32)
// AMD-DAG: %[[FINAL:.+]] = arith.constant 117770504 : i32
// AMD-DAG: %[[SHI:.+]] = arith.constant 67895308 : i32
// AMD-DAG: %[[SLO:.+]] = arith.constant 67896332 : i32
// AMD-NEXT: %[[PLO:.+]] = llvm.call_intrinsic "llvm.amdgcn.perm"(%[[HI]], %[[LO]], %[[SLO]])
// AMD-NEXT: %[[PHI:.+]] = llvm.call_intrinsic "llvm.amdgcn.perm"(%[[HI]], %[[LO]], %[[SHI]])
// AMD-NEXT: %[[R:.+]] = llvm.call_intrinsic "llvm.amdgcn.perm"(%[[PHI]], %[[PLO]], %[[FINAL]])
// AMD-NEXT: return %[[R]] : i32
func.func @constant_even_sign(%lo: i32, %hi: i32) -> i32 {
  %s = arith.constant 16588 : i32
  %0 = qmat.byte_perm %lo, %hi, %s : i32
  return %0 : i32
}

// -----

// qmat.bit_select: NVIDIA's one lop3 (truth table 0xE4 = (a & c) | (b & ~c)
// with the mask as its immediate c); every other target and the host
// model the same select in and/or.
// CHECK-LABEL: func.func @bit_select(
// CHECK-SAME: %[[SET:[a-z0-9_]+]]: i32, %[[CLEAR:[a-z0-9_]+]]: i32)
// CHECK-NEXT: %[[R:.+]] = llvm.inline_asm "lop3.b32 $0, $1, $2, 0x1dc01dc, 0xE4;", "=r,r,r" %[[SET]], %[[CLEAR]] : (i32, i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
// HOST-LABEL: func.func @bit_select(
// HOST-SAME: %[[SET:[a-z0-9_]+]]: i32, %[[CLEAR:[a-z0-9_]+]]: i32)
// HOST-DAG: %[[MASK:.+]] = arith.constant 31195612 : i32
// HOST-DAG: %[[NOTMASK:.+]] = arith.constant -31195613 : i32
// HOST-DAG: %[[B:.+]] = arith.andi %[[CLEAR]], %[[NOTMASK]] : i32
// HOST-DAG: %[[A:.+]] = arith.andi %[[SET]], %[[MASK]] : i32
// HOST: %[[R:.+]] = arith.ori %[[A]], %[[B]] : i32
// HOST-NEXT: return %[[R]] : i32
// AMD-LABEL: func.func @bit_select(
// AMD-NOT: llvm.inline_asm
// AMD-DAG: arith.constant 31195612 : i32
// AMD-DAG: arith.constant -31195613 : i32
// AMD: arith.ori
// HOSTAMD-LABEL: func.func @bit_select(
// HOSTAMD-NOT: qmat.bit_select
// HOSTAMD: arith.ori
func.func @bit_select(%set: i32, %clear: i32) -> i32 {
  %0 = qmat.bit_select %set, %clear mask 31195612 : i32
  return %0 : i32
}

// -----

// qmat.load_streaming: on NVIDIA the four words of one
// ld.global.L1::no_allocate.L2::128B.v4.b32 (an asm without side effects),
// as the 16 bytes; elsewhere a plain 16-byte aligned load.
// CHECK-LABEL: func.func @load_streaming(
// CHECK-SAME: %[[ADDRESS:[a-z0-9_]+]]: i64)
// CHECK-NEXT: %[[WORDS:.+]] = llvm.inline_asm "ld.global.L1::no_allocate.L2::128B.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l" %[[ADDRESS]] : (i64) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[W0:.+]] = llvm.extractvalue %[[WORDS]][0]
// CHECK-NEXT: %[[W1:.+]] = llvm.extractvalue %[[WORDS]][1]
// CHECK-NEXT: %[[W2:.+]] = llvm.extractvalue %[[WORDS]][2]
// CHECK-NEXT: %[[W3:.+]] = llvm.extractvalue %[[WORDS]][3]
// CHECK-NEXT: %[[V:.+]] = vector.from_elements %[[W0]], %[[W1]], %[[W2]], %[[W3]] : vector<4xi32>
// CHECK-NEXT: %[[R:.+]] = vector.bitcast %[[V]] : vector<4xi32> to vector<16xi8>
// CHECK-NEXT: return %[[R]] : vector<16xi8>
// HOST-LABEL: func.func @load_streaming(
// HOST-SAME: %[[ADDRESS:[a-z0-9_]+]]: i64)
// HOST-NEXT: %[[P:.+]] = llvm.inttoptr %[[ADDRESS]] : i64 to !llvm.ptr
// HOST-NEXT: %[[R:.+]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr -> vector<16xi8>
// HOST-NEXT: return %[[R]] : vector<16xi8>
// AMD-LABEL: func.func @load_streaming(
// AMD-NOT: llvm.inline_asm
// AMD: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<16xi8>
// HOSTAMD-LABEL: func.func @load_streaming(
// HOSTAMD: llvm.load
func.func @load_streaming(%address: i64) -> vector<16xi8> {
  %0 = qmat.load_streaming %address : vector<16xi8>
  return %0 : vector<16xi8>
}

// -----

// qmat.pinned_copy on NVIDIA: a mov.b32 with side effects and its arm in
// the text (neither hoisted nor merged with the other arm's); elsewhere the
// value itself.
// CHECK-LABEL: func.func @pinned_copy(
// CHECK-NEXT: %[[P0:.+]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1; // arm 0", "=r,r" %arg0 : (i32) -> i32
// CHECK-NEXT: %[[P1:.+]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1; // arm 1", "=r,r" %arg0 : (i32) -> i32
// CHECK-NEXT: return %[[P0]], %[[P1]]
// HOST-LABEL: func.func @pinned_copy(
// HOST-NEXT: return %arg0, %arg0 : i32, i32
// AMD-LABEL: func.func @pinned_copy(
// AMD-NEXT: return %arg0, %arg0 : i32, i32
// HOSTAMD-LABEL: func.func @pinned_copy(
// HOSTAMD-NEXT: return %arg0, %arg0 : i32, i32
func.func @pinned_copy(%v: i32) -> (i32, i32) {
  %p0 = qmat.pinned_copy %v arm 0 : i32
  %p1 = qmat.pinned_copy %v arm 1 : i32
  return %p0, %p1 : i32, i32
}
