// With a 1 MiB scratch cap, K = 4096 (2-byte activations) gives 128-row
// tiles; smaller layers fit in one tile.
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(qmat-select-strategy{scratch-cap-mib=1}, func.func(qmat-expand-prefill))' | FileCheck %s --enable-var-scope
// Prepared codes: every tile's dequantization reads them (tiles of 16 rows
// or more start at a tile of the layout).
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(qmat-select-strategy{scratch-cap-mib=1 prepared-weights=true}, func.func(qmat-expand-prefill))' | FileCheck %s --enable-var-scope --check-prefix=PREP
// The pass alone follows the plan it finds and leaves unplanned layers be.
// RUN: qmat-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(qmat-expand-prefill))' | FileCheck %s --enable-var-scope --check-prefix=PLAN

// One tile: dequantize the whole weight into the workspace, one GEMM.
// CHECK-LABEL: func.func @single_tile(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<?x128xbf16>, %[[W:[a-z0-9_]+]]: memref<32x64xi8>, %[[S:[a-z0-9_]+]]: memref<32x8xf8E4M3FN>, %[[G:[a-z0-9_]+]]: memref<f32>, %[[B:[a-z0-9_]+]]: memref<32xbf16>, %[[Y:[a-z0-9_]+]]: memref<?x32xbf16>,
// CHECK-SAME: %[[SCRATCH:[a-z0-9_]+]]: memref<32x128xbf16> {qmat.workspace})
// CHECK-NEXT: qmat.dequantize <nvfp4, block = 16> ins(%[[W]], %[[S]] : memref<32x64xi8>, memref<32x8xf8E4M3FN>) global_scale(%[[G]] : memref<f32>) outs(%[[SCRATCH]] : memref<32x128xbf16>) kernel = vec8 decode = lookup{{$}}
// CHECK-NEXT: qmat.gemm ins(%[[A]], %[[SCRATCH]] : memref<?x128xbf16>, memref<32x128xbf16>) bias(%[[B]] : memref<32xbf16>) outs(%[[Y]] : memref<?x32xbf16>)
// CHECK-NEXT: return
// CHECK-NOT: qmat.matmul
// PREP-LABEL: func.func @single_tile(
// PREP: qmat.dequantize <nvfp4, block = 16> {{.*}} kernel = vec8 decode = lookup prepared_weights{{$}}
func.func @single_tile(%a: memref<?x128xbf16>, %w: memref<32x64xi8>, %s: memref<32x8xf8E4M3FN>,
                       %g: memref<f32>, %b: memref<32xbf16>, %y: memref<?x32xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x128xbf16>, memref<32x64xi8>, memref<32x8xf8E4M3FN>)
      global_scale(%g : memref<f32>) bias(%b : memref<32xbf16>) outs(%y : memref<?x32xbf16>)
  return
}

// -----

// N = 769, K = 4096 under 1 MiB: 128-row tiles, ceil(769 / 128) = 7 of them,
// the last one 1 row. The workspace holds one tile; Y and the bias are
// addressed at the tile's column offset, without copies.
// CHECK-LABEL: func.func @tiles_769(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<?x4096xbf16>, %[[W:[a-z0-9_]+]]: memref<769x2048xi8>, %[[S:[a-z0-9_]+]]: memref<769x256xf8E4M3FN>, %[[G:[a-z0-9_]+]]: memref<f32>, %[[B:[a-z0-9_]+]]: memref<769xbf16>, %[[Y:[a-z0-9_]+]]: memref<?x769xbf16>,
// CHECK-SAME: %[[SCRATCH:[a-z0-9_]+]]: memref<128x4096xbf16> {qmat.workspace})
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[N:.+]] = arith.constant 769 : index
// CHECK-DAG: %[[STEP:.+]] = arith.constant 128 : index
// CHECK: scf.for %[[N0:.+]] = %[[C0]] to %[[N]] step %[[STEP]] {
// CHECK-NEXT: %[[LEFT:.+]] = arith.subi %[[N]], %[[N0]] : index
// CHECK-NEXT: %[[ROWS:.+]] = arith.minsi %[[STEP]], %[[LEFT]] : index
// CHECK-DAG: %[[WT:.+]] = memref.subview %[[W]][%[[N0]], 0] [%[[ROWS]], 2048] [1, 1] : memref<769x2048xi8> to memref<?x2048xi8, strided<[2048, 1], offset: ?>>
// CHECK-DAG: %[[ST:.+]] = memref.subview %[[S]][%[[N0]], 0] [%[[ROWS]], 256] [1, 1] : memref<769x256xf8E4M3FN> to memref<?x256xf8E4M3FN, strided<[256, 1], offset: ?>>
// CHECK-DAG: %[[SCRATCHT:.+]] = memref.subview %[[SCRATCH]][0, 0] [%[[ROWS]], 4096] [1, 1] : memref<128x4096xbf16> to memref<?x4096xbf16, strided<[4096, 1]>>
// CHECK-DAG: %[[M:.+]] = memref.dim %[[Y]], %{{.+}} : memref<?x769xbf16>
// CHECK-DAG: %[[YT:.+]] = memref.subview %[[Y]][0, %[[N0]]] [%[[M]], %[[ROWS]]] [1, 1] : memref<?x769xbf16> to memref<?x?xbf16, strided<[769, 1], offset: ?>>
// CHECK-DAG: %[[BT:.+]] = memref.subview %[[B]][%[[N0]]] [%[[ROWS]]] [1] : memref<769xbf16> to memref<?xbf16, strided<[1], offset: ?>>
// CHECK: qmat.dequantize <nvfp4, block = 16> ins(%[[WT]], %[[ST]] : {{.*}}) global_scale(%[[G]] : memref<f32>) outs(%[[SCRATCHT]] : memref<?x4096xbf16, strided<[4096, 1]>>) kernel = vec8 decode = lookup
// CHECK-NEXT: qmat.gemm ins(%[[A]], %[[SCRATCHT]] : memref<?x4096xbf16>, memref<?x4096xbf16, strided<[4096, 1]>>) bias(%[[BT]] : {{.*}}) outs(%[[YT]] : {{.*}})
// CHECK-NEXT: }
// CHECK-NEXT: return
// N % 16 != 0: the checkpoint's layout.
// PREP-LABEL: func.func @tiles_769(
// PREP: qmat.dequantize {{.*}} kernel = vec8 decode = lookup{{$}}
func.func @tiles_769(%a: memref<?x4096xbf16>, %w: memref<769x2048xi8>,
                     %s: memref<769x256xf8E4M3FN>, %g: memref<f32>, %b: memref<769xbf16>,
                     %y: memref<?x769xbf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x4096xbf16>, memref<769x2048xi8>, memref<769x256xf8E4M3FN>)
      global_scale(%g : memref<f32>) bias(%b : memref<769xbf16>) outs(%y : memref<?x769xbf16>)
  return
}

// -----

// int4 with zero points and no bias: the zero points are tiled with the
// weights and scales, the GEMM has no bias operand.
// CHECK-LABEL: func.func @tiles_int4(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: memref<?x4096xf16>, %[[W:[a-z0-9_]+]]: memref<300x2048xi8>, %[[S:[a-z0-9_]+]]: memref<300x128xf16>, %[[ZP:[a-z0-9_]+]]: memref<300x64xi8>, %[[Y:[a-z0-9_]+]]: memref<?x300xf16>,
// CHECK-SAME: %[[SCRATCH:[a-z0-9_]+]]: memref<128x4096xf16> {qmat.workspace})
// CHECK-DAG: %[[N:.+]] = arith.constant 300 : index
// CHECK-DAG: %[[STEP:.+]] = arith.constant 128 : index
// CHECK: scf.for %[[N0:.+]] = %{{.+}} to %[[N]] step %[[STEP]] {
// CHECK: %[[ROWS:.+]] = arith.minsi %[[STEP]], %{{.+}} : index
// CHECK-DAG: %[[WT:.+]] = memref.subview %[[W]][%[[N0]], 0] [%[[ROWS]], 2048] [1, 1]
// CHECK-DAG: %[[ST:.+]] = memref.subview %[[S]][%[[N0]], 0] [%[[ROWS]], 128] [1, 1]
// CHECK-DAG: %[[ZPT:.+]] = memref.subview %[[ZP]][%[[N0]], 0] [%[[ROWS]], 64] [1, 1] : memref<300x64xi8> to memref<?x64xi8, strided<[64, 1], offset: ?>>
// CHECK-DAG: %[[SCRATCHT:.+]] = memref.subview %[[SCRATCH]][0, 0] [%[[ROWS]], 4096] [1, 1]
// CHECK-DAG: %[[YT:.+]] = memref.subview %[[Y]][0, %[[N0]]] [%{{.+}}, %[[ROWS]]] [1, 1]
// CHECK: qmat.dequantize <int4, block = 32> ins(%[[WT]], %[[ST]] : {{.*}}) zero_points(%[[ZPT]] : {{.*}}) outs(%[[SCRATCHT]] : {{.*}}) kernel = vec8 decode = magic_bias
// CHECK-NEXT: qmat.gemm ins(%[[A]], %[[SCRATCHT]] : {{.*}}) outs(%[[YT]] : memref<?x?xf16, strided<[300, 1], offset: ?>>)
func.func @tiles_int4(%a: memref<?x4096xf16>, %w: memref<300x2048xi8>, %s: memref<300x128xf16>,
                      %zp: memref<300x64xi8>, %y: memref<?x300xf16>) {
  qmat.matmul <int4, block = 32>
      ins(%a, %w, %s : memref<?x4096xf16>, memref<300x2048xi8>, memref<300x128xf16>)
      zero_points(%zp : memref<300x64xi8>) outs(%y : memref<?x300xf16>)
  return
}

// -----

// Two layers, two workspaces, appended in order; the plan's scalar kernel and
// arith decode reach the dequantize.
// CHECK-LABEL: func.func @two_layers(
// CHECK-SAME: %[[W0:[a-z0-9_]+]]: memref<16x128xf16> {qmat.workspace}, %[[W1:[a-z0-9_]+]]: memref<4x77xf16> {qmat.workspace})
// CHECK-NEXT: qmat.dequantize <nvfp4, block = 16> {{.*}} outs(%[[W0]] : memref<16x128xf16>) kernel = vec8 decode = lookup
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[W0]] :
// CHECK-NEXT: qmat.dequantize <fp8, block = 128> {{.*}} outs(%[[W1]] : memref<4x77xf16>) kernel = scalar decode = arith
// CHECK-NEXT: qmat.gemm ins(%{{.+}}, %[[W1]] :
// CHECK-NEXT: return
func.func @two_layers(%a: memref<?x128xf16>, %w: memref<16x64xi8>, %s: memref<16x8xf8E4M3FN>,
                      %g: memref<f32>, %y: memref<?x16xf16>,
                      %a8: memref<?x77xf16>, %w8: memref<4x77xf8E4M3FN>, %s8: memref<4x1xf32>,
                      %y8: memref<?x4xf16>) {
  qmat.matmul <nvfp4, block = 16>
      ins(%a, %w, %s : memref<?x128xf16>, memref<16x64xi8>, memref<16x8xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%y : memref<?x16xf16>)
  qmat.matmul <fp8, block = 128>
      ins(%a8, %w8, %s8 : memref<?x77xf16>, memref<4x77xf8E4M3FN>, memref<4x1xf32>)
      outs(%y8 : memref<?x4xf16>)
  return
}

// -----

// A hand-written plan: 32-row tiles of N = 100 (the pass reads tile_rows
// from the plan, not from the cap); kernel and decode come from it too.
// PLAN-LABEL: func.func @explicit_plan(
// PLAN-SAME: %{{.+}}: memref<32x64xf16> {qmat.workspace})
// PLAN-DAG: %[[N:.+]] = arith.constant 100 : index
// PLAN-DAG: %[[STEP:.+]] = arith.constant 32 : index
// PLAN: scf.for %{{.+}} = %{{.+}} to %[[N]] step %[[STEP]] {
// PLAN: qmat.dequantize <mxfp4, block = 32> {{.*}} kernel = scalar decode = magic_bias
// PLAN: qmat.gemm
// PLAN-NOT: qmat.matmul
func.func @explicit_plan(%a: memref<?x64xf16>, %w: memref<100x32xi8>, %s: memref<100x2xf8E8M0FNU>,
                         %y: memref<?x100xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x64xf16>, memref<100x32xi8>, memref<100x2xf8E8M0FNU>)
      outs(%y : memref<?x100xf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = scalar, decode = magic_bias, scratch_cap_mib = 256, tile_rows = 32>}
  return
}

// -----

// A plan's tile larger than N is clamped to N: one tile, a [N, K] workspace.
// PLAN-LABEL: func.func @tile_over_n(
// PLAN-SAME: %[[SCRATCH:[a-z0-9_]+]]: memref<100x64xf16> {qmat.workspace})
// PLAN-NOT: scf.for
// PLAN: qmat.dequantize <mxfp4, block = 32> {{.*}} outs(%[[SCRATCH]] : memref<100x64xf16>) kernel = vec8 decode = lookup
// PLAN-NEXT: qmat.gemm ins(%{{.+}}, %[[SCRATCH]] : memref<?x64xf16>, memref<100x64xf16>) outs(%{{.+}} : memref<?x100xf16>)
func.func @tile_over_n(%a: memref<?x64xf16>, %w: memref<100x32xi8>, %s: memref<100x2xf8E8M0FNU>,
                       %y: memref<?x100xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x64xf16>, memref<100x32xi8>, memref<100x2xf8E8M0FNU>)
      outs(%y : memref<?x100xf16>)
      {plan = #qmat.plan<target = <sm_90>, gemv_max_m = 8, small_m = gemv_tensor_core, dequant = vec8, decode = lookup, scratch_cap_mib = 256, tile_rows = 4096>}
  return
}

// -----

// No plan, no expansion.
// PLAN-LABEL: func.func @no_plan(
// PLAN-SAME: %{{.+}}: memref<?x100xf16>)
// PLAN-NEXT: qmat.matmul <mxfp4, block = 32>
// PLAN-NOT: qmat.dequantize
func.func @no_plan(%a: memref<?x64xf16>, %w: memref<100x32xi8>, %s: memref<100x2xf8E8M0FNU>,
                   %y: memref<?x100xf16>) {
  qmat.matmul <mxfp4, block = 32>
      ins(%a, %w, %s : memref<?x64xf16>, memref<100x32xi8>, memref<100x2xf8E8M0FNU>)
      outs(%y : memref<?x100xf16>)
  return
}
