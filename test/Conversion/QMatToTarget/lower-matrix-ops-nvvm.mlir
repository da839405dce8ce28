// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=sm_90a | FileCheck %s --enable-var-scope

// The matrix ops and their ordering pieces as NVIDIA runs them (the
// warpgroup ops on sm_90a alone).

// NVIDIA: qmat.warp_mma is nvvm.mma.sync m16n8k16, row-major A and
// column-major B; its bf16 form takes each pair as an i32 register.
// CHECK-LABEL: func.func @warp_mma_bf16(
// CHECK-COUNT-6: vector.bitcast %{{.+}} : vector<2xbf16> to vector<1xi32>
// CHECK: %[[MMA:.+]] = nvvm.mma.sync A[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}]  B[%{{.+}}, %{{.+}}]  C[%arg2, %arg2, %arg2, %arg2]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[S0:.+]] = llvm.extractvalue %[[MMA]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[S3:.+]] = llvm.extractvalue %[[MMA]][3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: return %[[S0]], %[[S3]] : f32, f32
func.func @warp_mma_bf16(%a: vector<2xbf16>, %b: vector<2xbf16>, %c: f32) -> (f32, f32) {
  %d:4 = qmat.warp_mma [%a, %a, %a, %a] * [%b, %b] + [%c, %c, %c, %c]
      : vector<2xbf16>, vector<2xbf16>, f32
  return %d#0, %d#3 : f32, f32
}

// -----


// The f16 form takes the pairs as they are.
// CHECK-LABEL: func.func @warp_mma_f16(
// CHECK: nvvm.mma.sync A[%arg0, %arg0, %arg0, %arg0]  B[%arg1, %arg1]  C[%arg2, %arg2, %arg2, %arg2]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @warp_mma_f16(%a: vector<2xf16>, %b: vector<2xf16>, %c: f32) -> f32 {
  %d:4 = qmat.warp_mma [%a, %a, %a, %a] * [%b, %b] + [%c, %c, %c, %c]
      : vector<2xf16>, vector<2xf16>, f32
  return %d#1 : f32
}

// -----


// The warpgroup ops are inline PTX with side effects and a memory clobber
// (kept in order with each other and with the stores of the tiles they
// read), the registers they order tied through them: in wgmma the sums are
// $0-$3, their tied inputs $4-$7, A $8-$11, B's descriptor $12 and the
// accumulate flag $13.
// CHECK-LABEL: func.func @warpgroup(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: vector<2xbf16>, %[[DESC:[a-z0-9_]+]]: i64, %[[C:[a-z0-9_]+]]: f32)
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: %[[AREG:.+]] = vector.extract %{{.+}}[0] : i32 from vector<1xi32>
// CHECK: %[[FENCE:.+]] = llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;", "=r,=f,0,1,~{memory}" %[[AREG]], %[[C]] : (i32, f32) -> !llvm.struct<(i32, f32)>
// CHECK: %[[FA:.+]] = llvm.extractvalue %[[FENCE]][0] : !llvm.struct<(i32, f32)>
// CHECK: %[[FC:.+]] = llvm.extractvalue %[[FENCE]][1] : !llvm.struct<(i32, f32)>
// CHECK: %[[MMA:.+]] = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $13, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, {$8, $9, $10, $11}, $12, p, 1, 1, 0;\0A}", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,l,r,~{memory}" %[[FC]], %[[FC]], %[[FC]], %[[FC]], %[[FA]], %[[FA]], %[[FA]], %[[FA]], %[[DESC]], %[[ONE]] : (f32, f32, f32, f32, i32, i32, i32, i32, i64, i32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.inline_asm has_side_effects "wgmma.commit_group.sync.aligned;", "~{memory}"  : () -> ()
// CHECK: %[[WAIT:.+]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "=f,=f,=f,=f,0,1,2,3,~{memory}"
// CHECK: %[[W0:.+]] = llvm.extractvalue %[[WAIT]][0]
// CHECK: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;", "~{memory}"  : () -> ()
// CHECK: return %[[W0]] : f32
func.func @warpgroup(%a: vector<2xbf16>, %desc: i64, %c: f32) -> f32 {
  %f:2 = qmat.warpgroup_fence %a, %c : vector<2xbf16>, f32
  %d:4 = qmat.warpgroup_mma [%f#0, %f#0, %f#0, %f#0] * %desc + [%f#1, %f#1, %f#1, %f#1]
      : vector<2xbf16>, f32
  qmat.warpgroup_commit
  %r:4 = qmat.warpgroup_wait 1, %d#0, %d#1, %d#2, %d#3 : f32
  qmat.async_proxy_fence
  return %r#0 : f32
}

// -----

// The asynchronous copies: nvgpu's cp.async (16 bytes, bypassing L1), then
// NVVM's own commit and wait (a pipelined loop waits for a group committed
// an iteration earlier, not for a token).
// CHECK-LABEL: func.func @async_copies(
// CHECK-NEXT: %{{.+}} = nvgpu.device_async_copy %arg0[%arg2, %arg3], %arg1[%arg3], 8 {bypassL1} : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %{{.+}} = nvgpu.device_async_copy %arg0[%arg2, %arg3], %arg1[%arg3], 8, %arg4 {bypassL1} : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: return
func.func @async_copies(%a: memref<?x256xbf16>, %staged: memref<2048xbf16, #gpu.address_space<workgroup>>,
                        %m: index, %k: index, %read: index) {
  qmat.async_copy %a[%m, %k], %staged[%k], 8
      : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  qmat.async_copy %a[%m, %k], %staged[%k], 8, %read
      : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  qmat.async_commit
  qmat.async_wait 1
  return
}

// -----

// With A in workgroup memory too, wgmma takes two descriptors: the sums are
// $0-$3, their tied inputs $4-$7, A's descriptor $8, B's $9 and the
// accumulate flag $10, both tiles K-major (the two transpose flags 0).
// CHECK-LABEL: func.func @warpgroup_shared(
// CHECK-SAME: %[[DA:[a-z0-9_]+]]: i64, %[[DB:[a-z0-9_]+]]: i64, %[[C:[a-z0-9_]+]]: f32)
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: %[[MMA:.+]] = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $10, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $8, $9, p, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,0,1,2,3,l,l,r,~{memory}" %[[C]], %[[C]], %[[C]], %[[C]], %[[DA]], %[[DB]], %[[ONE]] : (f32, f32, f32, f32, i64, i64, i32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @warpgroup_shared(%descA: i64, %descB: i64, %c: f32) -> f32 {
  %d:4 = qmat.warpgroup_mma_shared %descA * %descB + [%c, %c, %c, %c] : f16, f32
  return %d#0 : f32
}

// -----

// The barrier objects and the tensor load as PTX text, each on the 32-bit
// workgroup-memory address of its element (the memref's aligned pointer
// plus index x element bytes): mbarrier.init with the count, arrive with
// its state discarded (`_`), arrive.expect_tx with the bytes, a try-wait
// loop on the parity (its label local to the braces), and the 2-D tensor
// load into this block's memory with the map's generic address, the inner
// coordinate first and the barrier that counts its bytes.
// CHECK-LABEL: func.func @stage_barriers(
// CHECK-SAME: %[[BARS:[a-z0-9_]+]]: memref<8xi64, #gpu.address_space<workgroup>>, %[[I:[a-z0-9_]+]]: index, %[[PARITY:[a-z0-9_]+]]: i32, %[[MAP:[a-z0-9_]+]]: !llvm.ptr, %[[DST:[a-z0-9_]+]]: memref<32768xbf16, #gpu.address_space<workgroup>>, %[[K:[a-z0-9_]+]]: index, %[[M:[a-z0-9_]+]]: index, %[[AT:[a-z0-9_]+]]: index)
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[BYTES:.+]] = arith.constant 16384 : i32
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[COUNT:.+]] = arith.constant 129 : i32
// CHECK: %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[BARS]]
// CHECK-NEXT: %[[OFFSET:.+]] = arith.muli %[[I]], %[[C8]] : index
// CHECK-NEXT: %[[ADDRESS:.+]] = arith.addi %[[BASE]], %[[OFFSET]] : index
// CHECK-NEXT: %[[BAR:.+]] = arith.index_cast %[[ADDRESS]] : index to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}" %[[BAR]], %[[COUNT]] : (i32, i32) -> ()
// CHECK: llvm.inline_asm has_side_effects "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}" %{{.+}} : (i32) -> ()
// CHECK: llvm.inline_asm has_side_effects "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}" %{{.+}}, %[[BYTES]] : (i32, i32) -> ()
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred done;\0Aretry:\0Ambarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\0A@!done bra retry;\0A}", "r,r,~{memory}" %{{.+}}, %[[PARITY]] : (i32, i32) -> ()
// CHECK: %[[MAP64:.+]] = llvm.ptrtoint %[[MAP]] : !llvm.ptr to i64
// CHECK-NEXT: %[[DST_BASE:.+]] = memref.extract_aligned_pointer_as_index %[[DST]]
// CHECK-NEXT: %[[DST_OFFSET:.+]] = arith.muli %[[AT]], %[[C2]] : index
// CHECK-NEXT: %[[DST_ADDRESS:.+]] = arith.addi %[[DST_BASE]], %[[DST_OFFSET]] : index
// CHECK-NEXT: %[[TILE:.+]] = arith.index_cast %[[DST_ADDRESS]] : index to i32
// CHECK-NEXT: %[[K32:.+]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT: %[[M32:.+]] = arith.index_cast %[[M]] : index to i32
// CHECK: %[[LOAD_BAR:.+]] = arith.index_cast %{{.+}} : index to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "r,l,r,r,r,~{memory}" %[[TILE]], %[[MAP64]], %[[K32]], %[[M32]], %[[LOAD_BAR]] : (i32, i64, i32, i32, i32) -> ()
func.func @stage_barriers(%bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index, %parity: i32,
                          %map: !llvm.ptr, %dst: memref<32768xbf16, #gpu.address_space<workgroup>>,
                          %k: index, %m: index, %at: index) {
  qmat.mbarrier_init %bars[%i], 129 : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.mbarrier_arrive %bars[%i] : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.mbarrier_arrive %bars[%i] expect 16384 : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.mbarrier_wait %bars[%i], %parity : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.tensor_load %map[%k, %m] box [64, 128], %dst[%at], %bars[%i]
      : !llvm.ptr, memref<32768xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
  return
}

// -----

// The cluster barrier's arrive (release) and wait (acquire) in one
// statement ordered by the memory clobber; a peer's four floats through
// mapa and ld.shared::cluster, the results tied operands $0 .. $3, the
// address of this block's element and the rank $8 and $9.
// CHECK-LABEL: func.func @cluster(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: memref<1024xf32, #gpu.address_space<workgroup>>, %[[I:[a-z0-9_]+]]: index, %[[R:[a-z0-9_]+]]: index)
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: llvm.inline_asm has_side_effects "barrier.cluster.arrive.aligned;\0Abarrier.cluster.wait.aligned;", "~{memory}"  : () -> ()
// CHECK-NEXT: %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[P]]
// CHECK-NEXT: %[[OFFSET:.+]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT: %[[ADDRESS:.+]] = arith.addi %[[BASE]], %[[OFFSET]] : index
// CHECK-NEXT: %[[ADDRESS32:.+]] = arith.index_cast %[[ADDRESS]] : index to i32
// CHECK-NEXT: %[[RANK32:.+]] = arith.index_cast %[[R]] : index to i32
// CHECK-NEXT: %[[LOADED:.+]] = llvm.inline_asm has_side_effects "{\0A.reg .b32 peer;\0Amapa.shared::cluster.u32 peer, $8, $9;\0Ald.shared::cluster.v4.f32 {$0, $1, $2, $3}, [peer];\0A}", "=f,=f,=f,=f,0,1,2,3,r,r,~{memory}" %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ADDRESS32]], %[[RANK32]] : (f32, f32, f32, f32, i32, i32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %[[X:.+]] = llvm.extractvalue %[[LOADED]][0]
// CHECK-NEXT: %[[Y:.+]] = llvm.extractvalue %[[LOADED]][1]
// CHECK-NEXT: %[[Z:.+]] = llvm.extractvalue %[[LOADED]][2]
// CHECK-NEXT: %[[W:.+]] = llvm.extractvalue %[[LOADED]][3]
// CHECK-NEXT: %[[V:.+]] = vector.from_elements %[[X]], %[[Y]], %[[Z]], %[[W]] : vector<4xf32>
// CHECK-NEXT: return %[[V]] : vector<4xf32>
func.func @cluster(%p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index, %r: index) -> vector<4xf32> {
  qmat.cluster_barrier
  %v = qmat.load_cluster_peer %p[%i] rank %r : memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// Sharing a stage across a cluster: the barrier set-ups published to the
// cluster, an arrival at the barrier object of the block of rank %r (mapa
// of this block's address, then a release at cluster scope), and the
// tensor load delivered to every block of the 16-bit mask (operand $5, a
// 16-bit register).
// CHECK-LABEL: func.func @cluster_stages(
// CHECK-SAME: %[[BARS:[a-z0-9_]+]]: memref<8xi64, #gpu.address_space<workgroup>>, %[[I:[a-z0-9_]+]]: index, %[[R:[a-z0-9_]+]]: index, %[[MAP:[a-z0-9_]+]]: !llvm.ptr, %[[DST:[a-z0-9_]+]]: memref<32768xbf16, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[MASK:.+]] = arith.constant 3 : i16
// CHECK: llvm.inline_asm has_side_effects "fence.mbarrier_init.release.cluster;", "~{memory}"  : () -> ()
// CHECK-NEXT: %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[BARS]]
// CHECK-NEXT: %[[OFFSET:.+]] = arith.muli %[[I]], %[[C8]] : index
// CHECK-NEXT: %[[ADDRESS:.+]] = arith.addi %[[BASE]], %[[OFFSET]] : index
// CHECK-NEXT: %[[BAR:.+]] = arith.index_cast %[[ADDRESS]] : index to i32
// CHECK-NEXT: %[[RANK32:.+]] = arith.index_cast %[[R]] : index to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "{\0A.reg .b32 peer;\0Amapa.shared::cluster.u32 peer, $0, $1;\0Ambarrier.arrive.release.cluster.shared::cluster.b64 _, [peer];\0A}", "r,r,~{memory}" %[[BAR]], %[[RANK32]] : (i32, i32) -> ()
// CHECK: llvm.inline_asm has_side_effects "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$0], [$1, {$2, $3}], [$4], $5;", "r,l,r,r,r,h,~{memory}" %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[MASK]] : (i32, i64, i32, i32, i32, i16) -> ()
func.func @cluster_stages(%bars: memref<8xi64, #gpu.address_space<workgroup>>, %i: index, %r: index,
                          %map: !llvm.ptr, %dst: memref<32768xbf16, #gpu.address_space<workgroup>>) {
  qmat.mbarrier_init_fence
  qmat.mbarrier_arrive_cluster %bars[%i] rank %r : memref<8xi64, #gpu.address_space<workgroup>>
  qmat.tensor_load %map[%i, %i] box [64, 64] multicast 3, %dst[%i], %bars[%i]
      : !llvm.ptr, memref<32768xbf16, #gpu.address_space<workgroup>>, memref<8xi64, #gpu.address_space<workgroup>>
  return
}
