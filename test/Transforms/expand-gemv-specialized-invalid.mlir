// The plans qmat-expand-gemv's specialized warpgroup tilings refuse, one per
// split: a target without the warpgroup instruction, prepared weights.
// RUN: qmat-opt %s -split-input-file -verify-diagnostics --qmat-expand-gemv="fused-specialized-variants=64,1"

func.func @sm90(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                %g: memref<f32>, %y: memref<?x128xbf16>) {
  // expected-error @+1 {{fused-specialized-variants needs the warpgroup matrix instruction, which sm_90 lacks (sm_90a has it)}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, fused_max_m = 1024>}
  return
}

// -----

func.func @prepared(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                    %g: memref<f32>, %y: memref<?x128xbf16>) {
  // expected-error @+1 {{fused-specialized-variants read the codes in the checkpoint's layout; they are not compiled with prepared weights}}
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      {plan = #qmat.plan<target = <sm_90a>, gemv_max_m = 0, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 128, prepared_weights = true, fused_max_m = 1024>}
  return
}
