// The distinct linear layers of a Qwen-like 27B model quantized to NVFP4
// (hidden 5120, intermediate 17408, vocabulary 248320), bf16 activations.
// Every decoder layer repeats these shapes, so one kernel set serves all.

// Attention input projection (fused q/k/v): N = 6144, K = 5120.
func.func @qkv_proj(%a: memref<?x5120xbf16>, %w: memref<6144x2560xi8>,
                    %s: memref<6144x320xf8E4M3FN>, %g: memref<f32>,
                    %y: memref<?x6144xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<6144x2560xi8>, memref<6144x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x6144xbf16>)
  return
}

// Attention output projection: N = 5120, K = 6144.
func.func @o_proj(%a: memref<?x6144xbf16>, %w: memref<5120x3072xi8>,
                  %s: memref<5120x384xf8E4M3FN>, %g: memref<f32>,
                  %y: memref<?x5120xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x6144xbf16>, memref<5120x3072xi8>, memref<5120x384xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x5120xbf16>)
  return
}

// MLP gate and up projections: N = 17408, K = 5120.
func.func @gate_up_proj(%a: memref<?x5120xbf16>, %w: memref<17408x2560xi8>,
                        %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>,
                        %y: memref<?x17408xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x17408xbf16>)
  return
}

// MLP down projection: N = 5120, K = 17408.
func.func @down_proj(%a: memref<?x17408xbf16>, %w: memref<5120x8704xi8>,
                     %s: memref<5120x1088xf8E4M3FN>, %g: memref<f32>,
                     %y: memref<?x5120xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x17408xbf16>, memref<5120x8704xi8>, memref<5120x1088xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x5120xbf16>)
  return
}

// LM head: N = 248320, K = 5120. Its untiled bf16 scratch would be 2.37 GiB;
// the 256 MiB cap tiles it into 10 tiles of 26112 rows (a multiple of 128 under the cap).
func.func @lm_head(%a: memref<?x5120xbf16>, %w: memref<248320x2560xi8>,
                   %s: memref<248320x320xf8E4M3FN>, %g: memref<f32>,
                   %y: memref<?x248320xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x5120xbf16>, memref<248320x2560xi8>, memref<248320x320xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x248320xbf16>)
  return
}
