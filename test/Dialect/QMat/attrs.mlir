// Round trips of the qmat attributes and of qmat.byte_perm, through the
// custom form and through the generic form.
// RUN: qmat-opt %s -split-input-file | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file -mlir-print-op-generic | qmat-opt -split-input-file | FileCheck %s --enable-var-scope

// Every scheme, with the usual block sizes and the odd ones the verifier
// allows (mxfp4 is fixed at 32).
// CHECK-LABEL: func.func @schemes()
// CHECK-SAME: s = [#qmat.scheme<nvfp4, block = 16>, #qmat.scheme<nvfp4, block = 17>, #qmat.scheme<nvfp4, block = 1>, #qmat.scheme<mxfp4, block = 32>, #qmat.scheme<fp8, block = 128>, #qmat.scheme<fp8, block = 1>, #qmat.scheme<int4, block = 32>, #qmat.scheme<int4, block = 7>, #qmat.scheme<int4, block = 4096>]
func.func @schemes() attributes {s = [#qmat.scheme<nvfp4, block = 16>, #qmat.scheme<nvfp4, block = 17>, #qmat.scheme<nvfp4, block = 1>, #qmat.scheme<mxfp4, block = 32>, #qmat.scheme<fp8, block = 128>, #qmat.scheme<fp8, block = 1>, #qmat.scheme<int4, block = 32>, #qmat.scheme<int4, block = 7>, #qmat.scheme<int4, block = 4096>]} {
  return
}

// -----

// Plans: every small-M path, both kernels, every decode; the bounds of
// gemv_max_m (0 and 64); a non-NVIDIA target.
// CHECK-LABEL: func.func @plans()
// CHECK-SAME: #qmat.plan<target = <sm_80>, gemv_max_m = 0, small_m = prefill, dequant = scalar, decode = arith, scratch_cap_mib = 1, tile_rows = 1>
// CHECK-SAME: #qmat.plan<target = <sm_89>, gemv_max_m = 64, small_m = gemv_scalar, dequant = vec8, decode = magic_bias, scratch_cap_mib = 1048576, tile_rows = 248320>
// CHECK-SAME: #qmat.plan<target = <sm_120>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = native, scratch_cap_mib = 256, tile_rows = 26214>
// CHECK-SAME: #qmat.plan<target = <gfx950>, gemv_max_m = 16, small_m = gemv_tensor_core, dequant = scalar, decode = lookup, scratch_cap_mib = 64, tile_rows = 128>
func.func @plans() attributes {p = [
    #qmat.plan<target = <sm_80>, gemv_max_m = 0, small_m = prefill, dequant = scalar, decode = arith, scratch_cap_mib = 1, tile_rows = 1>,
    #qmat.plan<target = <sm_89>, gemv_max_m = 64, small_m = gemv_scalar, dequant = vec8, decode = magic_bias, scratch_cap_mib = 1048576, tile_rows = 248320>,
    #qmat.plan<target = <sm_120>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = native, scratch_cap_mib = 256, tile_rows = 26214>,
    #qmat.plan<target = <gfx950>, gemv_max_m = 16, small_m = gemv_tensor_core, dequant = scalar, decode = lookup, scratch_cap_mib = 64, tile_rows = 128>]} {
  return
}

// -----

// The enumerations on their own, in the dialect's generic attribute form.
// CHECK-LABEL: func.func @enums()
// CHECK-SAME: e = [#qmat<scheme_kind int4>, #qmat<chip gfx942>, #qmat<element_format e2m1>, #qmat<element_format e4m3>, #qmat<element_format u4>, #qmat<dequant_kernel vec8>, #qmat<decode_method magic_bias>, #qmat<decode_path gemv_scalar>]
func.func @enums() attributes {e = [#qmat<scheme_kind int4>, #qmat<chip gfx942>, #qmat<element_format e2m1>, #qmat<element_format e4m3>, #qmat<element_format u4>, #qmat<dequant_kernel vec8>, #qmat<decode_method magic_bias>, #qmat<decode_path gemv_scalar>]} {
  return
}

// -----

// byte_perm: low, high, selector; extra attributes survive.
// CHECK-LABEL: func.func @byte_perm(
// CHECK-SAME: %[[LO:[a-z0-9_]+]]: i32, %[[HI:[a-z0-9_]+]]: i32, %[[SEL:[a-z0-9_]+]]: i32) -> i32
// CHECK-NEXT: %[[P:.+]] = qmat.byte_perm %[[LO]], %[[HI]], %[[SEL]] : i32
// CHECK-NEXT: %[[Q:.+]] = qmat.byte_perm %[[HI]], %[[P]], %[[SEL]] {note = "swapped"} : i32
// CHECK-NEXT: return %[[Q]] : i32
func.func @byte_perm(%lo: i32, %hi: i32, %sel: i32) -> i32 {
  %0 = qmat.byte_perm %lo, %hi, %sel : i32
  %1 = qmat.byte_perm %hi, %0, %sel {note = "swapped"} : i32
  return %1 : i32
}
