// Attribute parse and verification errors, one per split.
// RUN: qmat-opt %s -split-input-file -verify-diagnostics

// Rule: the scheme keyword is one of the four schemes.
// expected-error @+2 {{expected ::mlir::qmat::SchemeKind to be one of: nvfp4, mxfp4, fp8, int4}}
// expected-error @+1 {{failed to parse QMat_SchemeAttr parameter 'kind' which is to be a `::mlir::qmat::SchemeKind`}}
func.func @unknown_scheme() attributes {s = #qmat.scheme<nvfp5, block = 16>} {
  return
}

// -----

// Rule: the block size is not optional (no per-scheme default in the syntax).
// expected-error @+1 {{expected ','}}
func.func @missing_block() attributes {s = #qmat.scheme<nvfp4>} {
  return
}

// -----

// Rule: the keyword is `block`.
// expected-error @+1 {{expected 'block'}}
func.func @misspelt_block() attributes {s = #qmat.scheme<int4, blocks = 32>} {
  return
}

// -----

// Rule: a negative block is rejected, for every scheme.
// expected-error @+1 {{block size must be positive, got -16}}
func.func @negative_block_nvfp4() attributes {s = #qmat.scheme<nvfp4, block = -16>} {
  return
}

// -----

// Positivity is checked before the mxfp4 block rule.
// expected-error @+1 {{block size must be positive, got -32}}
func.func @negative_block_mxfp4() attributes {s = #qmat.scheme<mxfp4, block = -32>} {
  return
}

// -----

// expected-error @+1 {{block size must be positive, got -1}}
func.func @negative_block_fp8() attributes {s = #qmat.scheme<fp8, block = -1>} {
  return
}

// -----

// expected-error @+1 {{block size must be positive, got -7}}
func.func @negative_block_int4() attributes {s = #qmat.scheme<int4, block = -7>} {
  return
}

// -----

// Rule: mxfp4 blocks are 32, larger ones too.
// expected-error @+1 {{mxfp4 block size must be 32 (OCP MX), got 64}}
func.func @mxfp4_block_64() attributes {s = #qmat.scheme<mxfp4, block = 64>} {
  return
}

// -----

// Rule: the block size is an int64.
// expected-error @+2 {{integer value too large}}
// expected-error @+1 {{failed to parse QMat_SchemeAttr parameter 'blockSize' which is to be a `int64_t`}}
func.func @huge_block() attributes {s = #qmat.scheme<nvfp4, block = 99999999999999999999>} {
  return
}

// -----

// Rule: a plan's GEMV threshold is in [0, 64].
// expected-error @+1 {{gemv_max_m must be in [0, 64], got 65}}
func.func @plan_gemv_max_m() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 65, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 32>} {
  return
}

// -----

// expected-error @+1 {{gemv_max_m must be in [0, 64], got -1}}
func.func @plan_gemv_max_m_negative() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = -1, small_m = prefill, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 32>} {
  return
}

// -----

// Rule: a plan's tile has at least one row.
// expected-error @+1 {{tile_rows must be positive, got 0}}
func.func @plan_tile_rows() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 0>} {
  return
}

// -----

// expected-error @+1 {{scratch_cap_mib must be in [1, 1048576], got -5}}
func.func @plan_cap_negative() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = -5, tile_rows = 1>} {
  return
}

// -----

// Rule: the plan's enumerations are parsed by name.
// expected-error @+2 {{expected ::mlir::qmat::DecodePath to be one of: gemv_tensor_core, gemv_scalar, prefill}}
// expected-error @+1 {{failed to parse QMat_PlanAttr parameter 'smallM' which is to be a `::mlir::qmat::DecodePath`}}
func.func @plan_small_m() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv, dequant = vec8, decode = lookup, scratch_cap_mib = 1, tile_rows = 1>} {
  return
}

// -----

// expected-error @+2 {{expected ::mlir::qmat::DequantKernel to be one of: vec8, scalar}}
// expected-error @+1 {{failed to parse QMat_PlanAttr parameter 'dequant' which is to be a `::mlir::qmat::DequantKernel`}}
func.func @plan_dequant() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec16, decode = lookup, scratch_cap_mib = 1, tile_rows = 1>} {
  return
}

// -----

// expected-error @+2 {{expected ::mlir::qmat::DecodeMethod to be one of: arith, lookup, magic_bias, native}}
// expected-error @+1 {{failed to parse QMat_PlanAttr parameter 'decode' which is to be a `::mlir::qmat::DecodeMethod`}}
func.func @plan_decode() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = prmt, scratch_cap_mib = 1, tile_rows = 1>} {
  return
}

// -----

// Rule: the plan's target is a nested target attribute, `<chip>`.
// expected-error @+2 {{expected '<'}}
// expected-error @+1 {{failed to parse QMat_PlanAttr parameter 'target' which is to be a `TargetAttr`}}
func.func @plan_target() attributes {p = #qmat.plan<target = sm_90, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 1, tile_rows = 1>} {
  return
}

// -----

// Rule: a target names its chip.
// expected-error @+2 {{expected valid keyword or string}}
// expected-error @+1 {{failed to parse QMat_TargetAttr parameter 'chip' which is to be a `::mlir::qmat::Chip`}}
func.func @empty_target() attributes {t = #qmat.target<>} {
  return
}

// -----

// Rule: prepared codes come in tiles of 16 rows, so do the prefill's N tiles.
// expected-error @+1 {{prepared_weights needs tile_rows to be a multiple of 16, got 40}}
func.func @plan_prepared_tile_rows() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 40, prepared_weights = true>} {
  return
}

// -----

// Rule: whole lines and half steps are layouts of the 16x8x16 warp
// instruction.
// expected-error @+1 {{whole_lines is a layout of the 16x8x16 warp instruction, got matrix = mfma_16x16x16}}
func.func @config_whole_lines_mfma() attributes {c = #qmat.kernel_config<matrix = mfma_16x16x16, decode = magic_bias, whole_lines = true>} {
  return
}

// -----

// expected-error @+1 {{half_steps is a layout of the 16x8x16 warp instruction, got matrix = scalar}}
func.func @config_half_steps_scalar() attributes {c = #qmat.kernel_config<matrix = scalar, decode = arith, half_steps = true>} {
  return
}

// -----

// Rule: the half steps walk the 16-row layout, not whole lines.
// expected-error @+1 {{whole_lines and half_steps exclude each other (the half steps walk the 16-row layout)}}
func.func @config_lines_and_halves() attributes {c = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true, half_steps = true>} {
  return
}

// -----

// Rule: whole blocks are blocks of matrix-instruction rows.
// expected-error @+1 {{whole_blocks is a property of the matrix kernels' row blocks, got matrix = scalar}}
func.func @config_whole_blocks_scalar() attributes {c = #qmat.kernel_config<matrix = scalar, decode = arith, whole_blocks = true>} {
  return
}

// -----

// Rule: a register budget is a whole number of warps a multiprocessor can
// hold.
// expected-error @+1 {{resident_threads must be 0 (no register budget) or a multiple of 32 in [32, 2048], got 1000}}
func.func @config_resident_threads() attributes {c = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, resident_threads = 1000>} {
  return
}

// -----

// expected-error @+1 {{resident_threads must be 0 (no register budget) or a multiple of 32 in [32, 2048], got 4096}}
func.func @config_resident_threads_above() attributes {c = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, resident_threads = 4096>} {
  return
}

// -----

// Rule: the instruction is one of the four.
// expected-error @+2 {{expected ::mlir::qmat::MatrixOp to be one of: scalar, mma_16x8x16, mfma_16x16x16, wgmma_64xnx16}}
// expected-error @+1 {{failed to parse QMat_KernelConfigAttr parameter 'matrix'}}
func.func @config_unknown_matrix() attributes {c = #qmat.kernel_config<matrix = mma_16x8x32, decode = magic_bias>} {
  return
}

// -----

// Rule: a plan's optional fields come once each, in their order.
// expected-error @+1 {{expected prepared_weights or fused_max_m (each at most once, in that order), got 'prepared_weights'}}
func.func @plan_fields_out_of_order() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 32, fused_max_m = 128, prepared_weights = true>} {
  return
}

// -----

// Rule: the fused GEMM's range starts above the GEMV's.
// expected-error @+1 {{fused_max_m must be 0 (no fused GEMM) or in (gemv_max_m, 2147483647] = (8, 2147483647], got 8}}
func.func @plan_fused_max_m() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 32, fused_max_m = 8>} {
  return
}

// -----

// Rule: a plan's prepared_weights is true or false.
// expected-error @+1 {{prepared_weights takes true or false}}
func.func @plan_prepared_weights_value() attributes {p = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 32, prepared_weights = yes>} {
  return
}
