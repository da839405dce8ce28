// The rules of qmat.fused_gemm, one per split.
// RUN: qmat-opt %s -split-input-file -verify-diagnostics

// Rule: the fused GEMM walks K in 128-element steps of 8-element words.
func.func @fused_k(%a: memref<?x192xbf16>, %w: memref<64x96xi8>, %s: memref<64x12xf8E4M3FN>,
                   %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{the fused GEMM needs K % 128 == 0 and a block size that is a multiple of 8, got K = 192, block = 16}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x192xbf16>, memref<64x96xi8>, memref<64x12xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 1 split_k = 1 col_tiles = 1
  return
}

// -----

// Rule: the M tile is one of the compiled row counts.
func.func @fused_m_tile(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{m_tile must be one of 16, 32, 64, 128, got 24}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 24 warps_n = 1 split_k = 1 col_tiles = 1
  return
}

// -----

// Rule: warps over N.
func.func @fused_warps_n(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                         %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{warps_n must be one of 1, 2, 4, 8, got 3}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 3 split_k = 1 col_tiles = 1
  return
}

// -----

// Rule: warps over K.
func.func @fused_split_k(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                         %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{split_k must be one of 1, 2, 4, got 8}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 1 split_k = 8 col_tiles = 1
  return
}

// -----

// Rule: 16-row weight tiles per warp.
func.func @fused_col_tiles(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                           %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{col_tiles must be one of 1, 2, 4, got 3}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 1 split_k = 1 col_tiles = 3
  return
}

// -----

// Rule: at most 512 threads per block.
func.func @fused_threads(%a: memref<?x512xbf16>, %w: memref<64x256xi8>, %s: memref<64x32xf8E4M3FN>,
                         %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{warps_n x split_k x 32 threads must be at most 512, got 1024}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x512xbf16>, memref<64x256xi8>, memref<64x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 8 split_k = 4 col_tiles = 1
  return
}

// -----

// Rule: the accumulators fit the registers.
func.func @fused_accumulators(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{col_tiles x m_tile / 2 accumulators per lane must be at most 64, got 128}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 2
  return
}

// -----

// Rule: the staged activations and the split-K sums fit the static workgroup
// memory (48 KB in the warp form).
func.func @fused_shared(%a: memref<?x512xbf16>, %w: memref<64x256xi8>, %s: memref<64x32xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{the staged activations and split-K sums need 65536 bytes of workgroup memory, more than the 49152 a block of this form may have}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x512xbf16>, memref<64x256xi8>, memref<64x32xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 2 col_tiles = 2
  return
}

// -----

// Rule: every warp of a block walks as many K steps.
func.func @fused_steps(%a: memref<?x384xbf16>, %w: memref<64x192xi8>, %s: memref<64x24xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{split_k must divide the K/128 = 3 steps, got 2}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x384xbf16>, memref<64x192xi8>, memref<64x24xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 1 split_k = 2 col_tiles = 1
  return
}

// -----

// Rule: every block of a cluster walks as many K steps.
func.func @fused_slice_steps(%a: memref<?x768xbf16>, %w: memref<64x384xi8>, %s: memref<64x48xf8E4M3FN>,
                             %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{split_k x k_slices must divide the K/128 = 6 steps, got 2 x 2}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x768xbf16>, memref<64x384xi8>, memref<64x48xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 1 split_k = 2 col_tiles = 1 stages = 2 k_slices = 2
  return
}

// -----

// Rule: clusters of up to 8 blocks (the portable size).
func.func @fused_slices(%a: memref<?x2048xbf16>, %w: memref<64x1024xi8>, %s: memref<64x128xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{k_slices must be one of 1, 2, 4, 8, got 16}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x2048xbf16>, memref<64x1024xi8>, memref<64x128xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 1 split_k = 1 col_tiles = 1 stages = 2 k_slices = 16
  return
}

// -----

// Rule: K slices are a form of the warp and specialized tilings.
func.func @fused_slices_warpgroup(%a: memref<?x1024xbf16>, %w: memref<64x512xi8>, %s: memref<64x64xf8E4M3FN>,
                                  %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{k_slices > 1 is a form of the warp and specialized tilings, got k_slices = 2 with warpgroup}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<64x512xi8>, memref<64x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 k_slices = 2 warpgroup
  return
}

// -----

// Rule: a specialized tiling's K slices need the weights as A and no
// multicast (the slices' cluster is along z).
func.func @specialized_slices_weights_as_b(%a: memref<?x1024xbf16>, %w: memref<64x512xi8>, %s: memref<64x64xf8E4M3FN>,
                                           %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{k_slices > 1 with specialized needs the weights as A and multicast = 1 (the slices' cluster is along z), got weights_as_b = 1, multicast = 1}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<64x512xi8>, memref<64x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 4 stages = 4 k_slices = 2 warpgroup specialized weights_as_b
  return
}

// -----

// Rule: a specialized tiling's K slices park every thread's sums in its
// stages: 256 x 2 has 196608 bytes of them, three stages 147456.
func.func @specialized_slices_parked(%a: memref<?x1024xbf16>, %w: memref<128x512xi8>, %s: memref<128x64xf8E4M3FN>,
                                     %g: memref<f32>, %y: memref<?x128xbf16>) {
  // expected-error @+1 {{k_slices > 1 parks every thread's m_tile / 2 sums in the stages' workgroup memory: 196608 bytes, more than the 147456 of 3 stages}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x1024xbf16>, memref<128x512xi8>, memref<128x64xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 2 stages = 3 k_slices = 2 warpgroup specialized
  return
}

// -----

// Rule: the prepared layout needs N % 16 == 0.
func.func @fused_prepared(%a: memref<?x256xbf16>, %w: memref<40x128xi8>, %s: memref<40x16xf8E4M3FN>,
                          %g: memref<f32>, %y: memref<?x40xbf16>) {
  // expected-error @+1 {{prepared_weights needs packed 4-bit codes, K % 128 == 0 and N % 16 == 0, got nvfp4, K = 256, N = 40}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<40x128xi8>, memref<40x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x40xbf16>)
      m_tile = 16 warps_n = 1 split_k = 1 col_tiles = 1 prepared_weights
  return
}

// -----

// Rule: tiles of activations in the main loop's pipeline.
func.func @fused_stages(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{stages must be one of 1, 2, 3, 4, 5, got 6}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 1 split_k = 1 col_tiles = 1 stages = 6
  return
}

// -----

// Rule: every stage's tile counts against the workgroup memory (4 x 16 KB).
func.func @fused_stages_shared(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                               %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{the staged activations and split-K sums need 65536 bytes of workgroup memory, more than the 49152 a block of this form may have}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 1 stages = 4
  return
}

// -----

// Rule: the warpgroup form takes whole warpgroups, one 64-row instruction
// per column tile, over three or four staged tiles.
func.func @fused_warpgroup(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                           %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{warpgroup needs warps_n = 4 or 8, col_tiles = 1 or 2 and stages = 3 or 4 (whole warpgroups, one 64-row instruction per column tile, a staged tile for the instructions in flight besides the one being copied and the one being decoded), got warps_n = 2, col_tiles = 2, stages = 2}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 2 split_k = 1 col_tiles = 2 stages = 2 warpgroup
  return
}

// -----

// Rule: two stages are too few for the warpgroup form, whose instructions
// still read one stage while the next is decoded and a third is copied.
func.func @fused_warpgroup_two_stages(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                      %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{warpgroup needs warps_n = 4 or 8, col_tiles = 1 or 2 and stages = 3 or 4 (whole warpgroups, one 64-row instruction per column tile, a staged tile for the instructions in flight besides the one being copied and the one being decoded), got warps_n = 4, col_tiles = 1, stages = 2}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 2 warpgroup
  return
}

// -----

// Rule: the warpgroup form's stages hold the codes too, in its dynamic
// workgroup memory (112 KB): 4 x (16 KB of activations + 16 KB of codes) is
// more, though the activations alone would fit.
func.func @fused_warpgroup_shared(%a: memref<?x256xbf16>, %w: memref<256x128xi8>, %s: memref<256x16xf8E4M3FN>,
                                  %g: memref<f32>, %y: memref<?x256xbf16>) {
  // expected-error @+1 {{the staged activations and codes and split-K sums need 131072 bytes of workgroup memory, more than the 114688 a block of this form may have}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<256x128xi8>, memref<256x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x256xbf16>)
      m_tile = 64 warps_n = 8 split_k = 1 col_tiles = 2 stages = 4 warpgroup
  return
}

// -----

// Rule: the fused GEMM multiplies with a matrix instruction.
func.func @config_fused_scalar(%a: memref<?x256xbf16>, %w: memref<6144x128xi8>, %s: memref<6144x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x6144xbf16>) {
  // expected-error @+1 {{config matrix must be mma_16x8x16, mfma_16x16x16 or wgmma_64xnx16 for the fused GEMM, got scalar}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<6144x128xi8>, memref<6144x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x6144xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2 config = #qmat.kernel_config<matrix = scalar, decode = magic_bias>
  return
}

// -----

// Rule: the warpgroup instruction needs the warpgroup tiling.
func.func @config_fused_wgmma(%a: memref<?x256xbf16>, %w: memref<6144x128xi8>, %s: memref<6144x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x6144xbf16>) {
  // expected-error @+1 {{config matrix = wgmma_64xnx16 needs the warpgroup tiling (warpgroup is not set)}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<6144x128xi8>, memref<6144x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x6144xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 2 config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = magic_bias>
  return
}

// -----

// Rule: the warpgroup instruction takes the packed decodes (the lanes
// exchange packed codes to decode in its K order).
func.func @config_fused_wgmma_fp8(%a: memref<?x256xbf16>, %w: memref<64x256xf8E4M3FN>, %s: memref<64x2xf32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config matrix = wgmma_64xnx16 needs a packed decode (nvfp4, mxfp4 or int4 with decode = magic_bias), got fp8 with decode = native}}
  qmat.fused_gemm <fp8, block = 128> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x256xf8E4M3FN>, memref<64x2xf32>)
      outs(%y : memref<?x64xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = native>
  return
}

// -----

// Rule: the warpgroup instruction decodes nvfp4 by the packed decode only.
func.func @config_fused_wgmma_lookup(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{config matrix = wgmma_64xnx16 needs a packed decode (nvfp4, mxfp4 or int4 with decode = magic_bias), got nvfp4 with decode = lookup}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup config = #qmat.kernel_config<matrix = wgmma_64xnx16, decode = lookup>
  return
}

// -----

// Rule: whole lines and half steps are layouts of the GEMV.
func.func @config_fused_whole_lines(%a: memref<?x256xbf16>, %w: memref<6144x128xi8>, %s: memref<6144x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x6144xbf16>) {
  // expected-error @+1 {{config whole_lines and half_steps are GEMV layouts; the fused GEMM takes neither}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<6144x128xi8>, memref<6144x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x6144xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2 config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_lines = true>
  return
}

// -----

// Rule: whole blocks need N to be a multiple of a block's rows.
func.func @config_fused_whole_blocks(%a: memref<?x256xbf16>, %w: memref<6160x128xi8>, %s: memref<6160x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x6160xbf16>) {
  // expected-error @+1 {{config whole_blocks needs N to be a multiple of the 64 rows a block produces, got N = 6160}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<6160x128xi8>, memref<6160x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x6160xbf16>) m_tile = 32 warps_n = 2 split_k = 2 col_tiles = 2 stages = 2 config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias, whole_blocks = true>
  return
}

// -----

// Rule: the fused GEMM's own decode, where set, is its config's.
func.func @config_fused_decode(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>, %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{decode = lookup but its config decodes with magic_bias}}
  qmat.fused_gemm <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>) m_tile = 16 warps_n = 2 split_k = 2 col_tiles = 1 decode = lookup config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>
  return
}

// -----

// Rule: the specialized form is a form of the warpgroup tiling.
func.func @specialized_without_warpgroup(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                         %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{specialized is a form of the warpgroup tiling (warpgroup is not set)}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 specialized
  return
}

// -----

// Rule: one multiplying warpgroup, one 64-row instruction per column tile.
func.func @specialized_tiling(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{specialized needs warps_n = 4, split_k = 1 and col_tiles = 1 or 2 (one multiplying warpgroup per 64-row column tile), got warps_n = 8, split_k = 1, col_tiles = 1}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 8 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized
  return
}

// -----

// Rule: three stages at least: one multiplied, one decoded, one copied.
func.func @specialized_stages(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{specialized needs stages = 3, 4 or 5 (a stage being multiplied, one being decoded, one being copied), got 2}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 2 warpgroup specialized
  return
}


// -----

// Rule: m_tile 256 is the specialized form's only.
func.func @m_tile_256_warpgroup(%a: memref<?x256xbf16>, %w: memref<128x128xi8>, %s: memref<128x16xf8E4M3FN>,
                                %g: memref<f32>, %y: memref<?x128xbf16>) {
  // expected-error @+1 {{m_tile must be one of 16, 32, 64, 128, got 256}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<128x128xi8>, memref<128x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x128xbf16>)
      m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup
  return
}

// -----

// Rule: the specialized form reads the codes in the checkpoint's layout.
func.func @specialized_prepared(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{specialized reads the codes in the checkpoint's layout; prepared_weights is not taken}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 prepared_weights warpgroup specialized
  return
}

// -----

// Rule: its warps multiply through the warpgroup instruction only.
func.func @specialized_config(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{specialized needs config matrix = wgmma_64xnx16 (its warps multiply through the warpgroup instruction only), got mma_16x8x16}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized
      config = #qmat.kernel_config<matrix = mma_16x8x16, decode = magic_bias>
  return
}

// -----

// Rule: the weights as B are a form of the specialized tiling.
func.func @weights_as_b_without_specialized(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                            %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{weights_as_b is a form of the specialized tiling (specialized is not set)}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 4 stages = 4 warpgroup weights_as_b
  return
}

// -----

// Rule: with the weights as B, one block row of warps (warps_n = 1).
func.func @weights_as_b_warps(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{weights_as_b needs warps_n = 1, split_k = 1, m_tile = 64 or 128 (a multiplying warpgroup per 64 tokens, 512 threads at most) and col_tiles 1 to 16 (the instruction's N, 16 rows per column tile), got warps_n = 4, split_k = 1, m_tile = 64, col_tiles = 1}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized weights_as_b
  return
}

// -----

// Rule: each of the two decoding warpgroups of 64 x 9 waits for the stage
// it fills stages - 2 iterations ahead, which must be its own iteration.
func.func @specialized_decoder_stages(%a: memref<?x256xbf16>, %w: memref<144x128xi8>, %s: memref<144x16xf8E4M3FN>,
                                      %g: memref<f32>, %y: memref<?x144xbf16>) {
  // expected-error @+1 {{specialized with 2 decoding warpgroups needs stages - 2 to be a multiple of them (each waits for the stage it fills, which it decodes next), got stages = 3}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<144x128xi8>, memref<144x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x144xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 3 warpgroup specialized weights_as_b
  return
}

// -----

// Rule: three decoding warpgroups (decoders = 3) take stages 5: 4 leaves
// the third's stage unguarded.
func.func @specialized_three_decoder_stages(%a: memref<?x256xbf16>, %w: memref<144x128xi8>, %s: memref<144x16xf8E4M3FN>,
                                            %g: memref<f32>, %y: memref<?x144xbf16>) {
  // expected-error @+1 {{specialized with 3 decoding warpgroups needs stages - 2 to be a multiple of them (each waits for the stage it fills, which it decodes next), got stages = 4}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<144x128xi8>, memref<144x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x144xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b decoders = 3
  return
}

// -----

// Rule: 1 to 3 decoding warpgroups.
func.func @specialized_decoders_range(%a: memref<?x256xbf16>, %w: memref<144x128xi8>, %s: memref<144x16xf8E4M3FN>,
                                      %g: memref<f32>, %y: memref<?x144xbf16>) {
  // expected-error @+1 {{decoders must be 1 to 3 (decoding warpgroups beside the multiplying ones), got 4}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<144x128xi8>, memref<144x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x144xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 9 stages = 4 warpgroup specialized weights_as_b decoders = 4
  return
}

// -----

// Rule: the warpgroups fit a block's 512 threads: 128 x 9 with the
// weights as B multiplies in two, so three decoding ones are one too many.
func.func @specialized_decoder_threads(%a: memref<?x256xbf16>, %w: memref<144x128xi8>, %s: memref<144x16xf8E4M3FN>,
                                       %g: memref<f32>, %y: memref<?x144xbf16>) {
  // expected-error @+1 {{specialized with 3 decoding warpgroups needs 640 threads, more than the 512 a block may take}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<144x128xi8>, memref<144x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x144xbf16>)
      m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 9 stages = 5 warpgroup specialized weights_as_b decoders = 3
  return
}

// -----

// Rule: the decoding warpgroups are the specialized form's, with the
// decoded weights in workgroup memory.
func.func @decoders_in_registers(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                 %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{decoders is a form of the specialized tiling with the decoded weights in workgroup memory (specialized without weights_in_registers)}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup specialized weights_in_registers decoders = 2
  return
}

// -----

// Rule: five stages are the specialized form's (three decoding warpgroups).
func.func @warpgroup_five_stages(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                 %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{stages = 5 is a form of the specialized tiling (three decoding warpgroups each a stage ahead), got stages = 5 without specialized}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 5 warpgroup
  return
}

// -----

// Rule: with the weights as B, a multiplying warpgroup per 64 tokens: m_tile
// 256 would take five warpgroups.
func.func @weights_as_b_m_tile(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                               %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{got warps_n = 1, split_k = 1, m_tile = 256, col_tiles = 4}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 256 warps_n = 1 split_k = 1 col_tiles = 4 stages = 4 warpgroup specialized weights_as_b
  return
}

// -----

// Rule: the instruction's N is at most 256: 16 column tiles of 16 rows.
func.func @weights_as_b_col_tiles(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                  %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{got warps_n = 1, split_k = 1, m_tile = 128, col_tiles = 17}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 128 warps_n = 1 split_k = 1 col_tiles = 17 stages = 4 warpgroup specialized weights_as_b
  return
}

// -----

// Rule: a multicast cluster holds 1, 2 or 4 blocks.
func.func @fused_multicast(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                           %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{multicast must be one of 1, 2, 4, got 3}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized multicast = 3
  return
}

// -----

// Rule: multicast is a form of the specialized tiling, whose activations
// arrive through the tensor copy.
func.func @multicast_without_specialized(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                         %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{multicast > 1 is a form of the specialized tiling (specialized is not set)}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup multicast = 2
  return
}

// -----

// Rule: each block of the cluster loads whole 8-row atoms of the M tile.
func.func @multicast_m_tile(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                            %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{multicast = 4 gives each block of the cluster m_tile / multicast activation rows, whole 8-row atoms: m_tile must be a multiple of 32, got 16}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 16 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized multicast = 4
  return
}

// -----

// Rule: the specialized form's M tile is the multiplying instruction's N:
// 16 to 128, 192 or 256.
func.func @specialized_m_tile(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                              %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{m_tile must be one of 16, 32, 64, 128, 192, 256, got 96}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 96 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup specialized
  return
}

// -----

// Rule: the decoded weights in registers are a form of the specialized
// tiling.
func.func @registers_without_specialized(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                         %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{weights_in_registers is a form of the specialized tiling (specialized is not set)}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 4 split_k = 1 col_tiles = 1 stages = 4 warpgroup weights_in_registers
  return
}

// -----

// Rule: the decoded weights in registers are the instruction's A operand,
// in one block per tile.
func.func @registers_weights_as_b(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                                  %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{weights_in_registers needs the weights as A, multicast = 1 and k_slices = 1, got weights_as_b = 1, multicast = 1, k_slices = 1}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 64 warps_n = 1 split_k = 1 col_tiles = 4 stages = 4 warpgroup specialized weights_as_b weights_in_registers
  return
}

// -----

// Rule: with the decoded weights in registers a multiplying lane holds
// m_tile / 2 sums besides two K steps' A fragments: m_tile 64 or 128.
func.func @registers_m_tile(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                            %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{weights_in_registers needs warps_n = 4, split_k = 1, m_tile = 64 or 128 (each multiplying lane holds m_tile / 2 sums and two K steps' A fragments) and col_tiles = 1 or 2, got warps_n = 4, split_k = 1, m_tile = 256, col_tiles = 1}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 256 warps_n = 4 split_k = 1 col_tiles = 1 stages = 3 warpgroup specialized weights_in_registers
  return
}

// -----

// Rule: with the decoded weights in registers a stage is 128 K elements,
// three or four of them.
func.func @registers_stages(%a: memref<?x256xbf16>, %w: memref<64x128xi8>, %s: memref<64x16xf8E4M3FN>,
                            %g: memref<f32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{weights_in_registers needs stages = 3 or 4 (the K step being multiplied, the one before it still in flight, one being loaded) within 232448 bytes of workgroup memory, got 2}}
  qmat.fused_gemm <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x256xbf16>, memref<64x128xi8>, memref<64x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x64xbf16>)
      m_tile = 128 warps_n = 4 split_k = 1 col_tiles = 2 stages = 2 warpgroup specialized weights_in_registers
  return
}
