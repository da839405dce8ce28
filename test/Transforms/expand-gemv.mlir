// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv="split-k=1,4 col-tiles=1,2 all-gemv-variants=1" | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv=all-gemv-variants=1 | FileCheck %s --check-prefix=DEFAULT
// With col-tiles 2 alone no variant holds @wide's 20 rows (two column
// tiles stop at 16): that layer is refused, the others still expand.
// RUN: not qmat-opt %s -split-input-file --qmat-expand-gemv="split-k=4 col-tiles=2 all-gemv-variants=1" 2>%t.err | FileCheck %s --check-prefix=NOTIER
// RUN: FileCheck %s --check-prefix=NOTIER-ERR < %t.err
// NOTIER-ERR: error: 'qmat.matmul' op gemv-max-m = 20 needs a GEMV variant of 20 rows, but gemv-split-k 4 and gemv-col-tiles 2 compile none beyond 16 rows
// Without all-gemv-variants only the variants the launcher's policy can
// choose for the layer's N and K are compiled.
// RUN: qmat-opt %s -split-input-file --qmat-expand-gemv | FileCheck %s --check-prefix=REACH
// RUN: not qmat-opt %s --qmat-expand-gemv="split-k=5" 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not qmat-opt %s --qmat-expand-gemv="col-tiles=8" 2>&1 | FileCheck %s --check-prefix=TILES

// SPLIT: error: split-k values must be among 1, 2, 3, 4, 8, 16, got 5
// TILES: error: col-tiles values must be among 1, 2, 4, got 8

// M <= gemv_max_m switches over the variants (column tiles outer, split-K
// inner) on a new index argument; the matmul stays on the other side for
// qmat-expand-prefill. nvfp4 with K a
// multiple of 256 on sm_90 first has the whole-line tier (max_m = 4, one
// column tile), then the 16-row kernels; the default region runs the last
// variant, whose row capacity holds every M the switch takes.
// CHECK-LABEL: func.func @tensor_core(
// CHECK-SAME: %[[Y:[a-z0-9_]+]]: memref<?x48xbf16>, %[[V:[a-z0-9_]+]]: index {qmat.gemv_variant})
// CHECK: %[[M:.+]] = memref.dim %[[Y]], %{{.+}} : memref<?x48xbf16>
// CHECK: %[[MAX:.+]] = arith.constant 8 : index
// CHECK: %[[SMALL:.+]] = arith.cmpi ule, %[[M]], %[[MAX]] : index
// CHECK: scf.if %[[SMALL]] {
// CHECK-NEXT: scf.index_switch %[[V]]
// CHECK-NEXT: case 0 {
// CHECK-NEXT: qmat.gemv <nvfp4, block = 16> {{.*}} global_scale({{.*}}) outs(%[[Y]] : memref<?x48xbf16>) max_m = 4 split_k = 1 col_tiles = 1 tensor_core{{$}}
// CHECK: case 1 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 4 split_k = 4 col_tiles = 1 tensor_core{{$}}
// CHECK: case 2 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core{{$}}
// CHECK: case 3 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 4 col_tiles = 1 tensor_core{{$}}
// CHECK: case 4 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 2 tensor_core{{$}}
// CHECK: case 5 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 4 col_tiles = 2 tensor_core{{$}}
// CHECK: default {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 4 col_tiles = 2 tensor_core{{$}}
// CHECK: } else {
// CHECK-NEXT: qmat.matmul <nvfp4, block = 16> {{.*}} {plan = #qmat.plan<{{.*}}>}{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: return
// The default set: 6 whole-line variants (split-K 1, 2, 3, 4, 8, 16), then
// 15 16-row ones (no split-K 3).
// DEFAULT-LABEL: func.func @tensor_core(
// DEFAULT: case 2 {
// DEFAULT-NEXT: qmat.gemv {{.*}} max_m = 4 split_k = 3 col_tiles = 1 tensor_core{{$}}
// DEFAULT: case 5 {
// DEFAULT-NEXT: qmat.gemv {{.*}} max_m = 4 split_k = 16 col_tiles = 1 tensor_core{{$}}
// DEFAULT: case 6 {
// DEFAULT-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core{{$}}
// DEFAULT: case 7 {
// DEFAULT-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 2 col_tiles = 1 tensor_core{{$}}
// DEFAULT: case 8 {
// DEFAULT-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 4 col_tiles = 1 tensor_core{{$}}
// DEFAULT: case 20 {
// DEFAULT-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 16 col_tiles = 4 tensor_core{{$}}
// DEFAULT-NOT: case 21
// 48 x 256: two 128-element K steps, one 256-element whole line, so every
// split leaves a warp under two steps and loses to split-K 1; from M = 4
// two column tiles are wanted, so the 16-row tier keeps split-K 1 with two.
// REACH-LABEL: func.func @tensor_core(
// REACH: scf.index_switch
// REACH-NEXT: case 0 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 4 split_k = 1 col_tiles = 1 tensor_core{{$}}
// REACH: case 1 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 2 tensor_core{{$}}
// REACH-NEXT: scf.yield
// REACH-NEXT: }
// REACH-NEXT: default {
func.func @tensor_core(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x16xf8E4M3FN>,
                       %g: memref<f32>, %y: memref<?x48xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48>}
  return
}

// -----

// gemv_max_m = 4 with the whole-line tier: only that tier.
// CHECK-LABEL: func.func @whole_lines_only(
// CHECK: arith.constant 4 : index
// CHECK: case 1 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 4 split_k = 4 col_tiles = 1 tensor_core{{$}}
// CHECK-NOT: case 2
// CHECK: default
// Without one column tile among the compiled ones the tier is empty: the
// 16-row kernels take M <= 4 rather than no GEMV at all.
// NOTIER-LABEL: func.func @whole_lines_only(
// NOTIER: case 0 {
// NOTIER-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 4 col_tiles = 2 tensor_core{{$}}
// NOTIER-NOT: case 1
// NOTIER: default
func.func @whole_lines_only(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x16xf8E4M3FN>,
                            %g: memref<f32>, %y: memref<?x48xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 4, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48>}
  return
}

// -----

// mxfp4 has the whole-line tier too.
// CHECK-LABEL: func.func @whole_lines_mxfp4(
// CHECK: case 0 {
// CHECK-NEXT: qmat.gemv <mxfp4, block = 32> {{.*}} max_m = 4 split_k = 1 col_tiles = 1 tensor_core{{$}}
// CHECK: case 2 {
// CHECK-NEXT: qmat.gemv <mxfp4, block = 32> {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core{{$}}
func.func @whole_lines_mxfp4(%a: memref<?x256xf16>, %w: memref<48x128xi8>, %s: memref<48x8xf8E8M0FNU>,
                             %y: memref<?x48xf16>) {
  qmat.matmul <mxfp4, block = 32> ins(%a, %w, %s : memref<?x256xf16>, memref<48x128xi8>, memref<48x8xf8E8M0FNU>)
      outs(%y : memref<?x48xf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48>}
  return
}

// -----

// No whole-line tier: K = 384 (not a multiple of 256), int4, or an AMD
// target (its GEMV is the 16x16x16 wavefront mapping).
// CHECK-LABEL: func.func @no_whole_lines(
// CHECK: case 0 {
// CHECK-NEXT: qmat.gemv <nvfp4, block = 16> {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core{{$}}
// CHECK-NOT: max_m = 4
// CHECK: case 0 {
// CHECK-NEXT: qmat.gemv <int4, block = 128> {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core{{$}}
// CHECK-NOT: max_m = 4
// CHECK: case 0 {
// CHECK-NEXT: qmat.gemv <nvfp4, block = 16> {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core{{$}}
// CHECK-NOT: max_m = 4
// CHECK: return
// K = 384: three steps, so split-K 2 (two steps per warp) stays too.
// REACH-LABEL: func.func @no_whole_lines(
// REACH: case 0 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core{{$}}
// REACH: case 1 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 2 col_tiles = 1 tensor_core{{$}}
// REACH: case 2 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 2 tensor_core{{$}}
// REACH: case 3 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 2 col_tiles = 2 tensor_core{{$}}
// REACH-NOT: case 4 {
// REACH: default {
func.func @no_whole_lines(%a: memref<?x384xbf16>, %w: memref<48x192xi8>, %s: memref<48x24xf8E4M3FN>,
                          %g: memref<f32>, %y: memref<?x48xbf16>,
                          %a2: memref<?x256xbf16>, %w2: memref<48x128xi8>, %s2: memref<48x2xbf16>,
                          %w3: memref<48x128xi8>, %s3: memref<48x16xf8E4M3FN>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x384xbf16>, memref<48x192xi8>, memref<48x24xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48>}
  qmat.matmul <int4, block = 128> ins(%a2, %w2, %s2 : memref<?x256xbf16>, memref<48x128xi8>, memref<48x2xbf16>)
      outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 48>}
  qmat.matmul <nvfp4, block = 16> ins(%a2, %w3, %s3 : memref<?x256xbf16>, memref<48x128xi8>, memref<48x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <gfx942>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48>}
  return
}

// -----

// gemv_max_m = 20: row capacities 8, 16 and 32; M <= 20 takes the switch.
// Several row groups keep to two column tiles while that is at most 4
// accumulator tiles: 16 rows take 1 and 2, 32 rows only 1.
// CHECK-LABEL: func.func @wide(
// DEFAULT-LABEL: func.func @wide(
// CHECK: arith.constant 20 : index
// CHECK: case 0 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core
// CHECK: case 4 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 16 split_k = 1 col_tiles = 1 tensor_core
// CHECK: case 7 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 16 split_k = 4 col_tiles = 2 tensor_core
// CHECK: case 8 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 32 split_k = 1 col_tiles = 1 tensor_core
// CHECK: case 9 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 32 split_k = 4 col_tiles = 1 tensor_core
// CHECK-NOT: case 10
// Every row capacity up to gemv_max_m keeps a variant.
// REACH-LABEL: func.func @wide(
// REACH: case 0 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core{{$}}
// REACH: case 1 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 16 split_k = 1 col_tiles = 1 tensor_core{{$}}
// REACH: case 2 {
// REACH-NEXT: qmat.gemv {{.*}} max_m = 32 split_k = 1 col_tiles = 1 tensor_core{{$}}
// REACH-NEXT: scf.yield
// REACH-NEXT: }
// REACH-NEXT: default {
func.func @wide(%a: memref<?x256xf16>, %w: memref<48x256xf8E4M3FN>, %s: memref<48x2xf32>,
                %y: memref<?x48xf16>) {
  qmat.matmul <fp8, block = 128> ins(%a, %w, %s : memref<?x256xf16>, memref<48x256xf8E4M3FN>, memref<48x2xf32>)
      outs(%y : memref<?x48xf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 20, small_m = gemv_tensor_core, dequant = vec8, decode = arith, scratch_cap_mib = 256, tile_rows = 48>}
  return
}

// -----

// An odd block takes the one scalar GEMV.
// CHECK-LABEL: func.func @scalar(
// CHECK: scf.index_switch
// CHECK-NEXT: case 0 {
// CHECK-NEXT: qmat.gemv <int4, block = 7> {{.*}} max_m = 8 split_k = 1 col_tiles = 1{{$}}
// CHECK-NOT: case 1
// CHECK: default
func.func @scalar(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x37xbf16>,
                  %y: memref<?x48xbf16>) {
  qmat.matmul <int4, block = 7> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x37xbf16>)
      outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_scalar, dequant = scalar, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 48>}
  return
}

// -----

// gemv_max_m = 0: every M takes the prefill path, nothing changes.
// CHECK-LABEL: func.func @prefill_only(
// CHECK-NOT: qmat.gemv_variant
// CHECK-NOT: scf.if
// CHECK: qmat.matmul
func.func @prefill_only(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x16xf8E4M3FN>,
                        %g: memref<f32>, %y: memref<?x48xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 0, small_m = prefill, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48>}
  return
}

// -----

// Prepared codes: the same variants (the whole-line tier reads the prepared
// layout too), each carrying the layout.
// CHECK-LABEL: func.func @prepared(
// CHECK: case 0 {
// CHECK-NEXT: qmat.gemv <nvfp4, block = 16> {{.*}} max_m = 4 split_k = 1 col_tiles = 1 tensor_core prepared_weights{{$}}
// CHECK: case 2 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 1 col_tiles = 1 tensor_core prepared_weights{{$}}
// CHECK: case 5 {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 4 col_tiles = 2 tensor_core prepared_weights{{$}}
// CHECK-NOT: case 6
// CHECK: default {
// CHECK-NEXT: qmat.gemv {{.*}} max_m = 8 split_k = 4 col_tiles = 2 tensor_core prepared_weights{{$}}
func.func @prepared(%a: memref<?x256xbf16>, %w: memref<48x128xi8>, %s: memref<48x16xf8E4M3FN>,
                    %g: memref<f32>, %y: memref<?x48xbf16>) {
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x256xbf16>, memref<48x128xi8>, memref<48x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x48xbf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 48, prepared_weights = true>}
  return
}
