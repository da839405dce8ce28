// RUN: qmat-opt %s -split-input-file --qmat-rewrite-decode=target=sm_90 | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-rewrite-decode=target=host | FileCheck %s --enable-var-scope --check-prefix=HOST
// RUN: qmat-opt %s -split-input-file --qmat-rewrite-decode=target=sm_100 | FileCheck %s --enable-var-scope --check-prefix=SM100
// Forcing native fails on an e2m1 magic-bias decode (its exponent bias has
// no native counterpart, see rewrite-decode-invalid.mlir), so that run sees
// only the nested `module @forced` of the last split.
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(qmat-rewrite-decode{target=sm_100 force=native}))' | FileCheck %s --enable-var-scope --check-prefix=NATIVE

// The byte lookup: the three magnitude bits of each nibble select an f16
// high byte out of the two table words 0x3E3C3800 (0, 0.5, 1, 1.5) and
// 0x46444240 (2, 3, 4, 6); the signs are OR-ed in.
// CHECK-LABEL: func.func @e2m1_default
// CHECK-SAME: (%[[CODES:.+]]: vector<4xi8>)
// CHECK-DAG: %[[LO:.+]] = arith.constant 1044133888 : i32
// CHECK-DAG: %[[HI:.+]] = arith.constant 1178878528 : i32
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : i32
// CHECK-DAG: %[[C112:.+]] = arith.constant 112 : i32
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i32
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i32
// CHECK-DAG: %[[C12:.+]] = arith.constant 12 : i32
// CHECK-DAG: %[[C24:.+]] = arith.constant 24 : i32
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : i32
// CHECK: %[[B0:.+]] = vector.extract %[[CODES]][0] : i8 from vector<4xi8>
// CHECK-NEXT: %[[W0:.+]] = arith.extui %[[B0]] : i8 to i32
// The selector: (b & 0x07) << 4 | (b & 0x70) << 8.
// CHECK-DAG: %[[HMAG:.+]] = arith.andi %[[W0]], %[[C112]] : i32
// CHECK-DAG: %[[HSEL:.+]] = arith.shli %[[HMAG]], %[[C8]] : i32
// CHECK-DAG: %[[LMAG:.+]] = arith.andi %[[W0]], %[[C7]] : i32
// CHECK-DAG: %[[LSEL:.+]] = arith.shli %[[LMAG]], %[[C4]] : i32
// CHECK: %[[SEL:.+]] = arith.ori %[[LSEL]], %[[HSEL]] : i32
// CHECK-NEXT: %[[MAG:.+]] = qmat.byte_perm %[[LO]], %[[HI]], %[[SEL]] : i32
// The signs: (b & 0x08) << 12 | (b & 0x80) << 24.
// CHECK-DAG: %[[HS:.+]] = arith.andi %[[W0]], %[[C128]] : i32
// CHECK-DAG: %[[HSIGN:.+]] = arith.shli %[[HS]], %[[C24]] : i32
// CHECK-DAG: %[[LS:.+]] = arith.andi %[[W0]], %[[C8]] : i32
// CHECK-DAG: %[[LSIGN:.+]] = arith.shli %[[LS]], %[[C12]] : i32
// CHECK: %[[SIGNS:.+]] = arith.ori %[[LSIGN]], %[[HSIGN]] : i32
// CHECK-NEXT: %[[PAIR0:.+]] = arith.ori %[[MAG]], %[[SIGNS]] : i32
// CHECK-COUNT-3: qmat.byte_perm %[[LO]], %[[HI]], %{{.+}} : i32
// CHECK: %[[WORDS:.+]] = vector.from_elements %[[PAIR0]], %{{.+}}, %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK-NEXT: %[[HALVES:.+]] = vector.bitcast %[[WORDS]] : vector<4xi32> to vector<8xf16>
// CHECK-NEXT: return %[[HALVES]] : vector<8xf16>
// CHECK-NOT: qmat.decode
// The host model uses the same lookup (byte_perm is lowered later).
// HOST-LABEL: func.func @e2m1_default
// HOST-DAG: arith.constant 1044133888 : i32
// HOST-DAG: arith.constant 1178878528 : i32
// HOST-COUNT-4: qmat.byte_perm
// HOST-NOT: nvvm.
// Blackwell: one native conversion per byte, low nibble first.
// SM100-LABEL: func.func @e2m1_default
// SM100-SAME: (%[[CODES:.+]]: vector<4xi8>)
// SM100-NOT: qmat.byte_perm
// SM100: %[[B0:.+]] = vector.extract %[[CODES]][0] : i8 from vector<4xi8>
// SM100-NEXT: %[[P0:.+]] = nvvm.convert.f4x2.to.f16x2 %[[B0]] : i8(f4E2M1FN) -> vector<2xf16>
// SM100-NEXT: %[[E0:.+]] = vector.extract %[[P0]][0] : f16 from vector<2xf16>
// SM100-NEXT: %[[E1:.+]] = vector.extract %[[P0]][1] : f16 from vector<2xf16>
// SM100-COUNT-3: nvvm.convert.f4x2.to.f16x2
// SM100: %[[ALL:.+]] = vector.from_elements %[[E0]], %[[E1]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<8xf16>
// SM100-NEXT: return %[[ALL]] : vector<8xf16>
// SM100-NOT: qmat.byte_perm
func.func @e2m1_default(%codes: vector<4xi8>) -> vector<8xf16> {
  %0 = qmat.decode e2m1 %codes : vector<4xi8> -> vector<8xf16>
  return %0 : vector<8xf16>
}

// -----

// A bf16 result of the lookup goes through f32: every e2m1 value is exact in
// both types.
// CHECK-LABEL: func.func @e2m1_lookup_bf16
// CHECK: qmat.byte_perm
// CHECK: %[[F16:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// CHECK-NEXT: %[[F32:.+]] = arith.extf %[[F16]] : vector<2xf16> to vector<2xf32>
// CHECK-NEXT: %[[BF16:.+]] = arith.truncf %[[F32]] : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT: return %[[BF16]] : vector<2xbf16>
// The op's own method wins over the target's native default.
// SM100-LABEL: func.func @e2m1_lookup_bf16
// SM100-NOT: nvvm.convert
// SM100: qmat.byte_perm
func.func @e2m1_lookup_bf16(%codes: vector<1xi8>) -> vector<2xbf16> {
  %0 = qmat.decode e2m1 %codes method = lookup : vector<1xi8> -> vector<2xbf16>
  return %0 : vector<2xbf16>
}

// -----

// Magic bias, f16: the magnitude bits land under the exponent (<< 9 and
// << 21), giving code * 2^-14 with no table and no select.
// CHECK-LABEL: func.func @e2m1_magic_f16
// CHECK-NOT: qmat.byte_perm
// CHECK-DAG: %[[C9:.+]] = arith.constant 9 : i32
// CHECK-DAG: %[[C21:.+]] = arith.constant 21 : i32
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : i32
// CHECK-DAG: %[[C112:.+]] = arith.constant 112 : i32
// CHECK: %[[W:.+]] = arith.extui
// CHECK-DAG: %[[LM:.+]] = arith.andi %[[W]], %[[C7]] : i32
// CHECK-DAG: arith.shli %[[LM]], %[[C9]] : i32
// CHECK-DAG: %[[HM:.+]] = arith.andi %[[W]], %[[C112]] : i32
// CHECK-DAG: arith.shli %[[HM]], %[[C21]] : i32
// CHECK-NOT: arith.select
// CHECK-NOT: qmat.byte_perm
// CHECK: vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
// HOST-LABEL: func.func @e2m1_magic_f16
// HOST-NOT: qmat.byte_perm
// HOST: return
// SM100-LABEL: func.func @e2m1_magic_f16
// SM100-NOT: nvvm.convert
// SM100: arith.constant 21 : i32
// SM100: return
func.func @e2m1_magic_f16(%codes: vector<1xi8>) -> vector<2xf16> {
  %0 = qmat.decode e2m1 %codes exponent_bias = 14 method = magic_bias
      : vector<1xi8> -> vector<2xf16>
  return %0 : vector<2xf16>
}

// -----

// Magic bias, bf16: shifts 6 and 18 put the bits under bf16's exponent
// (code * 2^-126), and the words are bf16 pairs directly.
// CHECK-LABEL: func.func @e2m1_magic_bf16
// CHECK-NOT: qmat.byte_perm
// CHECK-DAG: arith.constant 6 : i32
// CHECK-DAG: arith.constant 18 : i32
// CHECK: %[[BF16:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK-NEXT: return %[[BF16]] : vector<2xbf16>
func.func @e2m1_magic_bf16(%codes: vector<1xi8>) -> vector<2xbf16> {
  %0 = qmat.decode e2m1 %codes exponent_bias = 126 method = magic_bias
      : vector<1xi8> -> vector<2xbf16>
  return %0 : vector<2xbf16>
}

// -----

// u4, f16: 0x6400 | q is 1024 + q; subtracting 1024 is exact.
// CHECK-LABEL: func.func @u4_f16
// CHECK-DAG: %[[BIAS:.+]] = arith.constant dense<1.024000e+03> : vector<2xf16>
// CHECK-DAG: %[[MAGIC:.+]] = arith.constant 1677747200 : i32
// CHECK-DAG: %[[C15:.+]] = arith.constant 15 : i32
// CHECK-DAG: %[[C240:.+]] = arith.constant 240 : i32
// CHECK-DAG: %[[C12:.+]] = arith.constant 12 : i32
// CHECK: %[[W:.+]] = arith.extui
// CHECK-DAG: %[[HQ:.+]] = arith.andi %[[W]], %[[C240]] : i32
// CHECK-DAG: %[[HQS:.+]] = arith.shli %[[HQ]], %[[C12]] : i32
// CHECK-DAG: %[[LQ:.+]] = arith.andi %[[W]], %[[C15]] : i32
// CHECK: %[[Q:.+]] = arith.ori %[[LQ]], %[[HQS]] : i32
// CHECK-NEXT: %[[BIASED:.+]] = arith.ori %[[Q]], %[[MAGIC]] : i32
// CHECK-NEXT: %[[V:.+]] = vector.from_elements %[[BIASED]] : vector<1xi32>
// CHECK-NEXT: %[[H:.+]] = vector.bitcast %[[V]] : vector<1xi32> to vector<2xf16>
// CHECK-NEXT: %[[R:.+]] = arith.subf %[[H]], %[[BIAS]] : vector<2xf16>
// CHECK-NEXT: return %[[R]] : vector<2xf16>
// The host's default int4 decode is plain arithmetic: two conversions.
// HOST-LABEL: func.func @u4_f16
// HOST-NOT: 1677747200
// HOST-COUNT-2: arith.uitofp %{{.+}} : i32 to f16
// HOST-NOT: arith.subf
// HOST: return
// SM100-LABEL: func.func @u4_f16
// SM100: arith.constant 1677747200 : i32
// SM100: arith.subf
func.func @u4_f16(%codes: vector<1xi8>) -> vector<2xf16> {
  %0 = qmat.decode u4 %codes : vector<1xi8> -> vector<2xf16>
  return %0 : vector<2xf16>
}

// -----

// u4, bf16: 0x4300 | q is 128 + q.
// CHECK-LABEL: func.func @u4_bf16
// CHECK-DAG: %[[BIAS:.+]] = arith.constant dense<1.280000e+02> : vector<2xbf16>
// CHECK-DAG: %[[MAGIC:.+]] = arith.constant 1124090624 : i32
// CHECK-NOT: 1677747200
// CHECK: arith.ori %{{.+}}, %[[MAGIC]] : i32
// CHECK: %[[H:.+]] = vector.bitcast %{{.+}} : vector<1xi32> to vector<2xbf16>
// CHECK-NEXT: arith.subf %[[H]], %[[BIAS]] : vector<2xbf16>
func.func @u4_bf16(%codes: vector<1xi8>) -> vector<2xbf16> {
  %0 = qmat.decode u4 %codes method = magic_bias : vector<1xi8> -> vector<2xbf16>
  return %0 : vector<2xbf16>
}

// -----

// e4m3: the code shifted under the f16 exponent reads as value * 2^-8
// (subnormals included), widened and scaled by 256; S.1111.111 is NaN.
// CHECK-LABEL: func.func @e4m3_f32
// CHECK-DAG: %[[NAN:.+]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[C256:.+]] = arith.constant 2.560000e+02 : f32
// CHECK-DAG: %[[C127:.+]] = arith.constant 127 : i32
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : i32
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : i32
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i32
// CHECK: %[[W:.+]] = arith.extui
// CHECK-NEXT: %[[MAG:.+]] = arith.andi %[[W]], %[[C127]] : i32
// CHECK-NEXT: %[[MAGS:.+]] = arith.shli %[[MAG]], %[[C7]] : i32
// CHECK-NEXT: %[[SIGN:.+]] = arith.andi %[[W]], %[[C128]] : i32
// CHECK-NEXT: %[[SIGNS:.+]] = arith.shli %[[SIGN]], %[[C8]] : i32
// CHECK-NEXT: %[[BITS:.+]] = arith.ori %[[SIGNS]], %[[MAGS]] : i32
// CHECK-NEXT: %[[I16:.+]] = arith.trunci %[[BITS]] : i32 to i16
// CHECK-NEXT: %[[H:.+]] = arith.bitcast %[[I16]] : i16 to f16
// CHECK-NEXT: %[[F:.+]] = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[F]], %[[C256]] : f32
// CHECK-NEXT: %[[LOW7:.+]] = arith.andi %[[W]], %[[C127]] : i32
// CHECK-NEXT: %[[ISNAN:.+]] = arith.cmpi eq, %[[LOW7]], %[[C127]] : i32
// CHECK-NEXT: %[[V:.+]] = arith.select %[[ISNAN]], %[[NAN]], %[[SCALED]] : f32
// CHECK-NEXT: %[[R:.+]] = vector.from_elements %[[V]] : vector<1xf32>
// CHECK-NEXT: return %[[R]] : vector<1xf32>
// HOST-LABEL: func.func @e4m3_f32
// HOST: arith.constant 0x7FC00000 : f32
// HOST: arith.mulf
// SM100-LABEL: func.func @e4m3_f32
// SM100-NOT: nvvm.
// SM100: arith.mulf
func.func @e4m3_f32(%codes: vector<1xi8>) -> vector<1xf32> {
  %0 = qmat.decode e4m3 %codes : vector<1xi8> -> vector<1xf32>
  return %0 : vector<1xf32>
}

// -----

// Eight e4m3 codes to f16: decoded in f32, narrowed once at the end.
// CHECK-LABEL: func.func @e4m3_f16
// CHECK-COUNT-8: arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK: %[[V:.+]] = vector.from_elements {{.*}} : vector<8xf32>
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[V]] : vector<8xf32> to vector<8xf16>
// CHECK-NEXT: return %[[R]] : vector<8xf16>
func.func @e4m3_f16(%codes: vector<8xi8>) -> vector<8xf16> {
  %0 = qmat.decode e4m3 %codes : vector<8xi8> -> vector<8xf16>
  return %0 : vector<8xf16>
}

// -----

// Plain arithmetic for e2m1: exponent (mag >> 1) + 14, mantissa mag & 1,
// with 0.5 (0x3800 = 14336) and 0 selected apart; no table.
// CHECK-LABEL: func.func @e2m1_arith
// CHECK-NOT: qmat.byte_perm
// CHECK-DAG: arith.constant 14336 : i32
// CHECK-DAG: arith.constant 14 : i32
// CHECK-COUNT-4: arith.select
// CHECK-NOT: arith.select
// CHECK: vector.bitcast %{{.+}} : vector<1xi32> to vector<2xf16>
func.func @e2m1_arith(%codes: vector<1xi8>) -> vector<2xf16> {
  %0 = qmat.decode e2m1 %codes method = arith : vector<1xi8> -> vector<2xf16>
  return %0 : vector<2xf16>
}

// -----

// force=native on sm_100 overrides an e2m1 op's own lookup or arith method
// and e4m3's arith (cvt.rn.f16x2.e4m3x2, two codes per conversion); it
// cannot apply to u4, which keeps its own.
// NATIVE-LABEL: func.func @forced_lookup
// NATIVE-NOT: qmat.byte_perm
// NATIVE: nvvm.convert.f4x2.to.f16x2
// NATIVE-LABEL: func.func @forced_arith
// NATIVE-NOT: arith.select
// NATIVE: nvvm.convert.f4x2.to.f16x2
// NATIVE-LABEL: func.func @forced_u4
// NATIVE-NOT: nvvm.convert
// NATIVE: arith.constant 1677747200 : i32
// NATIVE: arith.subf
// NATIVE-LABEL: func.func @forced_e4m3
// NATIVE-NOT: arith.select
// NATIVE: nvvm.convert.f8x2.to.f16x2
// The top level is outside the forced run.
// NATIVE-LABEL: func.func @not_forced
// NATIVE-NEXT: qmat.decode e2m1 %{{.+}} exponent_bias = 14 method = magic_bias
module @forced {
  func.func @forced_lookup(%codes: vector<1xi8>) -> vector<2xf16> {
    %0 = qmat.decode e2m1 %codes method = lookup : vector<1xi8> -> vector<2xf16>
    return %0 : vector<2xf16>
  }
  func.func @forced_arith(%codes: vector<1xi8>) -> vector<2xf16> {
    %0 = qmat.decode e2m1 %codes method = arith : vector<1xi8> -> vector<2xf16>
    return %0 : vector<2xf16>
  }
  func.func @forced_u4(%codes: vector<1xi8>) -> vector<2xf16> {
    %0 = qmat.decode u4 %codes : vector<1xi8> -> vector<2xf16>
    return %0 : vector<2xf16>
  }
  func.func @forced_e4m3(%codes: vector<1xi8>) -> vector<1xf32> {
    %0 = qmat.decode e4m3 %codes : vector<1xi8> -> vector<1xf32>
    return %0 : vector<1xf32>
  }
}
func.func @not_forced(%codes: vector<1xi8>) -> vector<2xf16> {
  %0 = qmat.decode e2m1 %codes exponent_bias = 14 method = magic_bias
      : vector<1xi8> -> vector<2xf16>
  return %0 : vector<2xf16>
}
