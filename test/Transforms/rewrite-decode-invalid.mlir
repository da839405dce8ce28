// Hopper and the host model reject the same decodes, with the same words.
// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-rewrite-decode=target=sm_90
// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-rewrite-decode=target=host
// Blackwell has the native conversion, but forcing it on a magic-bias
// decode leaves the caller's folded 2^14 unaccounted for.
// RUN: not qmat-opt %s --qmat-rewrite-decode='target=sm_100 force=native' 2>&1 | FileCheck %s --check-prefix=NATIVE
// MI300 has no fp4 conversion instruction (MI355, gfx950, has one).
// RUN: not qmat-opt %s -split-input-file --qmat-rewrite-decode=target=gfx942 2>&1 | FileCheck %s --check-prefix=GFX942
// Option errors, reported on the module.
// RUN: not qmat-opt %s --qmat-rewrite-decode=target=sm_91 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not qmat-opt %s --qmat-rewrite-decode=force=prmt 2>&1 | FileCheck %s --check-prefix=FORCE

// TARGET: error: unknown target 'sm_91' (expected sm_80, sm_89, sm_90, sm_90a, sm_100, sm_120, gfx942, gfx950, host or host-amdgcn)
// TARGET-NOT: error: 'qmat.decode' op
// FORCE: error: unknown decode method 'prmt' (expected auto, arith, lookup, magic_bias or native)
// FORCE-NOT: error: 'qmat.decode' op

// Native e2m1 conversion exists only from sm_100 on, and on gfx950.
// GFX942: error: 'qmat.decode' op decode method 'native' is not available for e2m1 on this target
// NATIVE-NOT: error: 'qmat.decode' op decode method 'native'
func.func @native_before_blackwell(%codes: vector<1xi8>) -> vector<2xf16> {
  // expected-error @+1 {{'qmat.decode' op decode method 'native' is not available for e2m1 on this target}}
  %0 = qmat.decode e2m1 %codes method = native : vector<1xi8> -> vector<2xf16>
  return %0 : vector<2xf16>
}

// -----

// A bias without the magic-bias method: the default lookup cannot leave
// the factor 2^-14 the op promises.
func.func @bias_without_magic(%codes: vector<1xi8>) -> vector<2xf16> {
  // expected-error @+2 {{'qmat.decode' op exponent_bias 14 does not match the lookup rewrite (only magic_bias of e2m1 leaves a bias)}}
  // NATIVE: :[[@LINE+1]]:8: error: 'qmat.decode' op exponent_bias 14 does not match the native rewrite (only magic_bias of e2m1 leaves a bias)
  %0 = qmat.decode e2m1 %codes exponent_bias = 14 : vector<1xi8> -> vector<2xf16>
  return %0 : vector<2xf16>
}

// -----

// The same with the lookup named.
func.func @bias_with_lookup(%codes: vector<1xi8>) -> vector<2xbf16> {
  // expected-error @+2 {{'qmat.decode' op exponent_bias 126 does not match the lookup rewrite (only magic_bias of e2m1 leaves a bias)}}
  // NATIVE: :[[@LINE+1]]:8: error: 'qmat.decode' op exponent_bias 126 does not match the native rewrite (only magic_bias of e2m1 leaves a bias)
  %0 = qmat.decode e2m1 %codes exponent_bias = 126 method = lookup : vector<1xi8> -> vector<2xbf16>
  return %0 : vector<2xbf16>
}

// -----

// The lookup table holds e2m1 magnitudes only.
func.func @lookup_u4(%codes: vector<1xi8>) -> vector<2xf16> {
  // expected-error @+2 {{'qmat.decode' op decode method 'lookup' is not available for u4 on this target}}
  // NATIVE: :[[@LINE+1]]:8: error: 'qmat.decode' op decode method 'lookup' is not available for u4 on this target
  %0 = qmat.decode u4 %codes method = lookup : vector<1xi8> -> vector<2xf16>
  return %0 : vector<2xf16>
}

// -----

// e4m3 has no magic-bias form.
func.func @magic_e4m3(%codes: vector<1xi8>) -> vector<1xf32> {
  // expected-error @+1 {{'qmat.decode' op decode method 'magic_bias' is not available for e4m3 on this target}}
  %0 = qmat.decode e4m3 %codes method = magic_bias : vector<1xi8> -> vector<1xf32>
  return %0 : vector<1xf32>
}

// -----

// A magic-bias decode is fine on its own, but not under force=native.
func.func @forced_native_on_magic(%codes: vector<1xi8>) -> vector<2xf16> {
  // NATIVE: :[[@LINE+1]]:8: error: 'qmat.decode' op exponent_bias 14 does not match the native rewrite (only magic_bias of e2m1 leaves a bias)
  %0 = qmat.decode e2m1 %codes exponent_bias = 14 method = magic_bias : vector<1xi8> -> vector<2xf16>
  return %0 : vector<2xf16>
}
