// RUN: qmat-opt %s -split-input-file --qmat-lower-dequant-to-gpu --qmat-expand-load-tile | FileCheck %s --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-lower-dequant-to-gpu=target=sm_100 --qmat-expand-load-tile=target=sm_100 | FileCheck %s --enable-var-scope --check-prefix=SM100
// RUN: qmat-opt %s -split-input-file --qmat-lower-dequant-to-gpu=threads-per-block=64 --qmat-expand-load-tile | FileCheck %s --enable-var-scope --check-prefix=OPT
// RUN: qmat-opt %s -split-input-file --qmat-lower-dequant-to-gpu=items-per-thread=1 --qmat-expand-load-tile | FileCheck %s --enable-var-scope --check-prefix=U1

// vec8, K = 2048: 256 chunks of 8 per row, so 256 threads, one chunk each,
// one block per row (grid x = N), no bounds check.
// CHECK-LABEL: func.func @vec8_bf16(
// CHECK-SAME: %[[W:[a-z0-9_]+]]: memref<64x1024xi8>, %[[S:[a-z0-9_]+]]: memref<64x128xf8E4M3FN>, %[[G:[a-z0-9_]+]]: memref<f32>, %[[O:[a-z0-9_]+]]: memref<64x2048xbf16>)
// Kernels take row-dynamic strided views, so that one kernel serves every
// layer and every N tile with the same K.
// CHECK: %[[WC:.+]] = memref.cast %[[W]] : memref<64x1024xi8> to memref<?x1024xi8, strided<[1024, 1], offset: ?>>
// CHECK-NEXT: %[[SC:.+]] = memref.cast %[[S]] : memref<64x128xf8E4M3FN> to memref<?x128xf8E4M3FN, strided<[128, 1], offset: ?>>
// CHECK-NEXT: %[[OC:.+]] = memref.cast %[[O]] : memref<64x2048xbf16> to memref<?x2048xbf16, strided<[2048, 1], offset: ?>>
// CHECK: %[[ROWS:.+]] = memref.dim %[[WC]], %{{.+}} : memref<?x1024xi8, strided<[1024, 1], offset: ?>>
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256
// CHECK-SAME: blocks in (%[[ROWS]], %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// CHECK-SAME: args(%[[WC]] : memref<?x1024xi8, strided<[1024, 1], offset: ?>>, %[[SC]] : memref<?x128xf8E4M3FN, strided<[128, 1], offset: ?>>, %[[G]] : memref<f32>, %[[OC]] : memref<?x2048xbf16, strided<[2048, 1], offset: ?>>)
// CHECK-NOT: qmat.dequantize
// CHECK: gpu.module @qmat_kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// CHECK-NEXT: gpu.func @dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256(
// CHECK-SAME: %[[KW:[a-z0-9_]+]]: memref<?x1024xi8, strided<[1024, 1], offset: ?>>, %[[KS:[a-z0-9_]+]]: memref<?x128xf8E4M3FN, strided<[128, 1], offset: ?>>, %[[KG:[a-z0-9_]+]]: memref<f32>, %[[KO:[a-z0-9_]+]]: memref<?x2048xbf16, strided<[2048, 1], offset: ?>>)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// The global scale is read once, before anything else.
// CHECK-NEXT: %[[GLOBAL:.+]] = memref.load %[[KG]][] : memref<f32>
// CHECK-NEXT: %[[ROW:.+]] = gpu.block_id x
// CHECK-NEXT: %[[BY:.+]] = gpu.block_id y
// CHECK-NEXT: %[[TX:.+]] = gpu.thread_id x
// CHECK-NEXT: %[[C256:.+]] = arith.constant 256 : index
// CHECK-NEXT: %[[BASE:.+]] = arith.muli %[[BY]], %[[C256]] : index
// CHECK-NEXT: %[[ITEM:.+]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-NOT: scf.if
// One scale for the whole chunk: block = item / (16 / 8), computed before
// the loads so that both loads issue together.
// CHECK: %[[BLOCK:.+]] = arith.divui %{{.+}}, %c2_i32{{(_[0-9]+)?}} : i32
// 4 packed bytes at byte column item * 4 of row blockIdx.x.
// CHECK: %[[COL:.+]] = arith.muli %[[ITEM]], %{{.+}} : index
// CHECK-NEXT: %[[CODES:.+]] = vector.load %[[KW]][%[[ROW]], %[[COL]]] {alignment = 4 : i64} : memref<?x1024xi8, strided<[1024, 1], offset: ?>>, vector<4xi8>
// CHECK-NEXT: %[[BLOCKIDX:.+]] = arith.index_castui %[[BLOCK]] : i32 to index
// CHECK-NEXT: %[[RAW:.+]] = memref.load %[[KS]][%[[ROW]], %[[BLOCKIDX]]] : memref<?x128xf8E4M3FN, strided<[128, 1], offset: ?>>
// CHECK: %[[VALUES:.+]] = qmat.decode e2m1 %[[CODES]] method = lookup : vector<4xi8> -> vector<8xf32>
// CHECK: qmat.decode e4m3 %{{.+}} : vector<1xi8> -> vector<1xf32>
// CHECK: %[[SCALED:.+]] = arith.mulf %[[VALUES]], %{{.+}} : vector<8xf32>
// CHECK-NEXT: %[[GVEC:.+]] = vector.broadcast %[[GLOBAL]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[PRODUCT:.+]] = arith.mulf %[[SCALED]], %[[GVEC]] : vector<8xf32>
// NVVM's cvt.rn already returns the canonical NaN: no select.
// CHECK-NEXT: %[[OUT:.+]] = arith.truncf %[[PRODUCT]] : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT: %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT: %[[K0:.+]] = arith.muli %[[ITEM]], %[[C8]] : index
// One 16-byte store per thread.
// CHECK-NEXT: vector.store %[[OUT]], %[[KO]][%[[ROW]], %[[K0]]] {alignment = 16 : i64} : memref<?x2048xbf16, strided<[2048, 1], offset: ?>>, vector<8xbf16>
// CHECK-NEXT: gpu.return
// Blackwell: the module is for sm_100a; the op's own lookup stands.
// SM100-LABEL: func.func @vec8_bf16(
// SM100: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256
// SM100: gpu.module @qmat_kernels [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">]
// 64 threads: 256 / 64 = 4 items a thread, 64 apart, so that every store
// instruction of a warp covers one contiguous span; one block a row.
// OPT-LABEL: func.func @vec8_bf16(
// OPT: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u4_t64
// OPT-SAME: blocks in (%{{.+}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c64{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// OPT: gpu.func @dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u4_t64(
// OPT-SAME: known_block_size = array<i32: 64, 1, 1>
// OPT: %[[C256:.+]] = arith.constant 256 : index
// OPT-NEXT: %[[BASE:.+]] = arith.muli %{{.+}}, %[[C256]] : index
// OPT-NEXT: %[[FIRST:.+]] = arith.addi %[[BASE]], %{{.+}} : index
// OPT-NEXT: %[[C64:.+]] = arith.constant 64 : index
// OPT-NEXT: %[[SECOND:.+]] = arith.addi %[[FIRST]], %[[C64]] : index
// OPT-NEXT: %[[C128:.+]] = arith.constant 128 : index
// OPT-NEXT: %[[THIRD:.+]] = arith.addi %[[FIRST]], %[[C128]] : index
// OPT-NEXT: %[[C192:.+]] = arith.constant 192 : index
// OPT-NEXT: %[[FOURTH:.+]] = arith.addi %[[FIRST]], %[[C192]] : index
// All four loads are issued before the first store.
// OPT-COUNT-4: vector.load %{{.+}} : memref<?x1024xi8, strided<[1024, 1], offset: ?>>, vector<4xi8>
// OPT-NOT: vector.store
// OPT: arith.muli %[[FIRST]], %{{.+}} : index
// OPT-NEXT: vector.store %{{.+}} {alignment = 16 : i64} : memref<?x2048xbf16, strided<[2048, 1], offset: ?>>, vector<8xbf16>
// OPT: arith.muli %[[SECOND]], %{{.+}} : index
// OPT-NEXT: vector.store %{{.+}} {alignment = 16 : i64} : memref<?x2048xbf16, strided<[2048, 1], offset: ?>>, vector<8xbf16>
// OPT: arith.muli %[[THIRD]], %{{.+}} : index
// OPT-NEXT: vector.store
// OPT: arith.muli %[[FOURTH]], %{{.+}} : index
// OPT-NEXT: vector.store
// OPT-NOT: vector.store
// OPT: gpu.return
func.func @vec8_bf16(%w: memref<64x1024xi8>, %s: memref<64x128xf8E4M3FN>, %g: memref<f32>,
                     %o: memref<64x2048xbf16>) {
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<64x1024xi8>, memref<64x128xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%o : memref<64x2048xbf16>) kernel = vec8 decode = lookup
  return
}

// -----

// The Qwen3 shape, K = 5120: 640 chunks a row = 128 threads x 5 chunks, so
// one block covers a row (grid y = 1). The five loads come first.
// CHECK-LABEL: func.func @vec8_qwen3(
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128
// CHECK-SAME: blocks in (%{{.+}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c128{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// CHECK: gpu.func @dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u5_t128(
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-DAG: arith.constant 640 : index
// CHECK-DAG: arith.constant 128 : index
// CHECK-DAG: arith.constant 256 : index
// CHECK-DAG: arith.constant 384 : index
// CHECK-DAG: arith.constant 512 : index
// CHECK-COUNT-5: vector.load %{{.+}} {alignment = 4 : i64} : memref<?x2560xi8, strided<[2560, 1], offset: ?>>, vector<4xi8>
// CHECK-NOT: vector.store
// CHECK: qmat.decode e2m1
// CHECK-COUNT-5: vector.store %{{.+}} {alignment = 16 : i64} : memref<?x5120xbf16, strided<[5120, 1], offset: ?>>, vector<8xbf16>
// CHECK-NOT: vector.store
// CHECK: gpu.return
// One item a thread: 640 / 128 = 5 blocks along y.
// U1-LABEL: func.func @vec8_qwen3(
// U1: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u1_t128
// U1-SAME: blocks in (%{{.+}}, %c5{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c128{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// U1: gpu.func @dequant_nvfp4_bs16_k5120_bf16_vec8_lookup_u1_t128(
// U1-COUNT-1: vector.load
// U1-NOT: vector.load
// U1: vector.store
// U1-NOT: vector.store
// U1: gpu.return
func.func @vec8_qwen3(%w: memref<17408x2560xi8>, %s: memref<17408x320xf8E4M3FN>, %g: memref<f32>,
                      %o: memref<17408x5120xbf16>) {
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<17408x2560xi8>, memref<17408x320xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%o : memref<17408x5120xbf16>) kernel = vec8 decode = lookup
  return
}

// -----

// Scalar, K = 516 (K % 8 != 0): one thread per packed byte, 258 a row.
// No power of two divides 258, so 128 threads, ceil(258 / 128) = 3 blocks
// along y and a bounds check.
// CHECK-LABEL: func.func @scalar_f16(
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k516_f16_scalar_lookup_u1_t128
// CHECK-SAME: blocks in (%{{.+}}, %c3{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) threads in (%c128{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// CHECK: gpu.func @dequant_nvfp4_bs16_k516_f16_scalar_lookup_u1_t128(
// CHECK-SAME: %[[KW:[a-z0-9_]+]]: memref<?x258xi8, strided<[258, 1], offset: ?>>,
// CHECK-SAME: %[[KO:[a-z0-9_]+]]: memref<?x516xf16, strided<[516, 1], offset: ?>>)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: %[[ROW:.+]] = gpu.block_id x
// CHECK: %[[ITEM:.+]] = arith.addi
// CHECK-NEXT: %[[N:.+]] = arith.constant 258 : index
// CHECK-NEXT: %[[IN:.+]] = arith.cmpi ult, %[[ITEM]], %[[N]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: vector.load %[[KW]][%[[ROW]], %{{.+}}] {alignment = 1 : i64} : memref<?x258xi8, strided<[258, 1], offset: ?>>, vector<1xi8>
// CHECK: qmat.decode e2m1 %{{.+}} method = lookup : vector<1xi8> -> vector<2xf32>
// CHECK: vector.store %{{.+}}, %[[KO]][%[[ROW]], %{{.+}}] {alignment = 4 : i64} : memref<?x516xf16, strided<[516, 1], offset: ?>>, vector<2xf16>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @scalar_f16(%w: memref<64x258xi8>, %s: memref<64x33xf8E4M3FN>, %g: memref<f32>,
                      %o: memref<64x516xf16>) {
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<64x258xi8>, memref<64x33xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%o : memref<64x516xf16>) kernel = scalar decode = lookup
  return
}

// -----

// Scalar with an odd block (17): the byte's two nibbles may need two
// scales; the second index steps from the first, with no second division.
// CHECK-LABEL: func.func @scalar_odd_block(
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs17_k510_bf16_scalar_lookup_u1_t128
// CHECK-SAME: blocks in (%{{.+}}, %c2{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// CHECK: gpu.func @dequant_nvfp4_bs17_k510_bf16_scalar_lookup_u1_t128(
// CHECK: arith.cmpi ult, %{{.+}}, %c255
// CHECK: scf.if
// CHECK: %[[B0:.+]] = arith.divui %{{.+}}, %{{.+}} : i32
// CHECK: %[[CARRY:.+]] = arith.cmpi uge
// CHECK: %[[CARRY32:.+]] = arith.extui %[[CARRY]] : i1 to i32
// CHECK-NEXT: %[[B1:.+]] = arith.addi %[[B0]], %[[CARRY32]] : i32
// CHECK-COUNT-2: memref.load %{{.+}} : memref<?x30xf8E4M3FN, strided<[30, 1], offset: ?>>
// CHECK-NOT: arith.divui
// CHECK: vector.store %{{.+}} {alignment = 4 : i64} : memref<?x510xbf16, strided<[510, 1], offset: ?>>, vector<2xbf16>
func.func @scalar_odd_block(%w: memref<64x255xi8>, %s: memref<64x30xf8E4M3FN>, %g: memref<f32>,
                            %o: memref<64x510xbf16>) {
  qmat.dequantize <nvfp4, block = 17>
      ins(%w, %s : memref<64x255xi8>, memref<64x30xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%o : memref<64x510xbf16>) kernel = scalar decode = lookup
  return
}

// -----

// fp8 with K = 77: one element a thread, 96 threads (77 rounded up to a
// warp multiple); the codes are reinterpreted as bytes for the decode.
// CHECK-LABEL: func.func @fp8_scalar(
// CHECK: gpu.launch_func @qmat_kernels::@dequant_fp8_bs128_k77_bf16_scalar_arith_u1_t96
// CHECK-SAME: threads in (%c96{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
// CHECK: gpu.func @dequant_fp8_bs128_k77_bf16_scalar_arith_u1_t96(
// CHECK-SAME: known_block_size = array<i32: 96, 1, 1>
// CHECK-NOT: memref.load %{{.+}}[] : memref<f32>
// CHECK: arith.cmpi ult, %{{.+}}, %c77
// CHECK: %[[CODES:.+]] = vector.load %{{.+}} {alignment = 1 : i64} : memref<?x77xf8E4M3FN, strided<[77, 1], offset: ?>>, vector<1xf8E4M3FN>
// CHECK-NEXT: %[[BYTES:.+]] = arith.bitcast %[[CODES]] : vector<1xf8E4M3FN> to vector<1xi8>
// CHECK: qmat.decode e4m3 %[[BYTES]] method = arith : vector<1xi8> -> vector<1xf32>
// CHECK: vector.store %{{.+}} {alignment = 2 : i64} : memref<?x77xbf16, strided<[77, 1], offset: ?>>, vector<1xbf16>
func.func @fp8_scalar(%w: memref<4x77xf8E4M3FN>, %s: memref<4x1xf32>, %o: memref<4x77xbf16>) {
  qmat.dequantize <fp8, block = 128>
      ins(%w, %s : memref<4x77xf8E4M3FN>, memref<4x1xf32>) outs(%o : memref<4x77xbf16>)
      kernel = scalar
  return
}

// -----

// Identical layers share one kernel, and so does a tile view of the same
// K: every operand is cast to the kernel's row-dynamic strided view.
// CHECK-LABEL: func.func @shared(
// CHECK-SAME: %[[WT:[a-z0-9_]+]]: memref<?x1024xi8, strided<[1024, 1], offset: ?>>, %[[ST:[a-z0-9_]+]]: memref<?x128xf8E4M3FN, strided<[128, 1], offset: ?>>, %[[OT:[a-z0-9_]+]]: memref<?x2048xbf16, strided<[2048, 1]>>)
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256 blocks
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256 blocks
// The tile's weights and scales already have the kernel's types; only the
// scratch view's static offset is made dynamic.
// CHECK-NOT: memref.cast %[[WT]]
// CHECK-NOT: memref.cast %[[ST]]
// CHECK: %[[OTC:.+]] = memref.cast %[[OT]] : memref<?x2048xbf16, strided<[2048, 1]>> to memref<?x2048xbf16, strided<[2048, 1], offset: ?>>
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256 blocks
// CHECK-SAME: args(%[[WT]] : memref<?x1024xi8, strided<[1024, 1], offset: ?>>, %[[ST]] : memref<?x128xf8E4M3FN, strided<[128, 1], offset: ?>>, %{{.+}} : memref<f32>, %[[OTC]] : memref<?x2048xbf16, strided<[2048, 1], offset: ?>>)
// CHECK-COUNT-1: gpu.module
// CHECK: gpu.func @dequant_nvfp4_bs16_k2048_bf16_vec8_lookup_u1_t256(
// CHECK-NOT: gpu.func
func.func @shared(%w: memref<64x1024xi8>, %s: memref<64x128xf8E4M3FN>, %g: memref<f32>,
                  %o: memref<64x2048xbf16>,
                  %w2: memref<64x1024xi8>, %s2: memref<64x128xf8E4M3FN>, %g2: memref<f32>,
                  %o2: memref<64x2048xbf16>,
                  %wt: memref<?x1024xi8, strided<[1024, 1], offset: ?>>,
                  %st: memref<?x128xf8E4M3FN, strided<[128, 1], offset: ?>>,
                  %ot: memref<?x2048xbf16, strided<[2048, 1]>>) {
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<64x1024xi8>, memref<64x128xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%o : memref<64x2048xbf16>) kernel = vec8 decode = lookup
  qmat.dequantize <nvfp4, block = 16>
      ins(%w2, %s2 : memref<64x1024xi8>, memref<64x128xf8E4M3FN>) global_scale(%g2 : memref<f32>)
      outs(%o2 : memref<64x2048xbf16>) kernel = vec8 decode = lookup
  qmat.dequantize <nvfp4, block = 16>
      ins(%wt, %st : memref<?x1024xi8, strided<[1024, 1], offset: ?>>, memref<?x128xf8E4M3FN, strided<[128, 1], offset: ?>>)
      global_scale(%g : memref<f32>)
      outs(%ot : memref<?x2048xbf16, strided<[2048, 1]>>) kernel = vec8 decode = lookup
  return
}

// -----

// With no decode on the op, the target's default is used (lookup before
// Blackwell, native on it); int4 zero points are a kernel argument and part
// of the name.
// CHECK-LABEL: func.func @target_default(
// CHECK: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_f16_vec8_lookup_u1_t256 blocks
// CHECK: gpu.launch_func @qmat_kernels::@dequant_int4_bs32_k4096_f16_vec8_magic_bias_zp_u2_t256 blocks
// CHECK-SAME: args(%{{.+}} : memref<?x2048xi8, strided<[2048, 1], offset: ?>>, %{{.+}} : memref<?x128xf16, strided<[128, 1], offset: ?>>, %{{.+}} : memref<?x64xi8, strided<[64, 1], offset: ?>>, %{{.+}} : memref<?x4096xf16, strided<[4096, 1], offset: ?>>)
// CHECK: gpu.func @dequant_nvfp4_bs16_k2048_f16_vec8_lookup_u1_t256(
// CHECK: qmat.decode e2m1 %{{.+}} method = lookup : vector<4xi8> -> vector<8xf32>
// CHECK: gpu.func @dequant_int4_bs32_k4096_f16_vec8_magic_bias_zp_u2_t256(
// CHECK-COUNT-2: qmat.decode u4 %{{.+}} method = magic_bias : vector<4xi8> -> vector<8xf32>
// SM100-LABEL: func.func @target_default(
// SM100: gpu.launch_func @qmat_kernels::@dequant_nvfp4_bs16_k2048_f16_vec8_native_u1_t256 blocks
// SM100: gpu.launch_func @qmat_kernels::@dequant_int4_bs32_k4096_f16_vec8_magic_bias_zp_u2_t256 blocks
// SM100: gpu.func @dequant_nvfp4_bs16_k2048_f16_vec8_native_u1_t256(
// SM100: qmat.decode e2m1 %{{.+}} method = native : vector<4xi8> -> vector<8xf32>
func.func @target_default(%w: memref<64x1024xi8>, %s: memref<64x128xf8E4M3FN>, %g: memref<f32>,
                          %o: memref<64x2048xf16>,
                          %wi: memref<8x2048xi8>, %si: memref<8x128xf16>, %zp: memref<8x64xi8>,
                          %oi: memref<8x4096xf16>) {
  qmat.dequantize <nvfp4, block = 16>
      ins(%w, %s : memref<64x1024xi8>, memref<64x128xf8E4M3FN>) global_scale(%g : memref<f32>)
      outs(%o : memref<64x2048xf16>) kernel = vec8
  qmat.dequantize <int4, block = 32>
      ins(%wi, %si : memref<8x2048xi8>, memref<8x128xf16>) zero_points(%zp : memref<8x64xi8>)
      outs(%oi : memref<8x4096xf16>) kernel = vec8
  return
}

// -----

// Nothing to lower: no gpu.module, no container attribute.
// CHECK-LABEL: module {
// CHECK-NOT: gpu.
// CHECK: func.func @nothing()
func.func @nothing() {
  return
}

// -----

// Prepared codes (PreparedWeights.h): a vec8 item's 4 bytes at row r, byte
// j come from tile r / 16 (16 * 128 bytes each here), step j / 64 (1024
// bytes), half (r % 16) / 8 (512), piece 4 (r % 8) + (j % 64) / 16, taken
// back to [row, byte] indices of the [N, K / 2] codes.
// CHECK-LABEL: func.func @prepared(
// CHECK: gpu.func @dequant_nvfp4_bs16_k256_bf16_vec8_lookup_u{{[0-9]+}}_prepared_t{{[0-9]+}}(
// CHECK-DAG: arith.constant 1024 : index
// CHECK-DAG: arith.constant 512 : index
// CHECK: vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 4 : i64} : memref<?x128xi8, strided<[128, 1], offset: ?>>, vector<4xi8>
func.func @prepared(%w: memref<?x128xi8>, %s: memref<?x16xf8E4M3FN>, %g: memref<f32>,
                    %scratch: memref<?x256xbf16>) {
  qmat.dequantize <nvfp4, block = 16> ins(%w, %s : memref<?x128xi8>, memref<?x16xf8E4M3FN>)
      global_scale(%g : memref<f32>) outs(%scratch : memref<?x256xbf16>) kernel = vec8 decode = lookup prepared_weights
  return
}
