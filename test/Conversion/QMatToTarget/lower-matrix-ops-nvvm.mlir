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
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: return
func.func @async_copies(%a: memref<?x256xbf16>, %staged: memref<2048xbf16, #gpu.address_space<workgroup>>,
                        %m: index, %k: index) {
  qmat.async_copy %a[%m, %k], %staged[%k], 8
      : memref<?x256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  qmat.async_commit
  qmat.async_wait 1
  return
}

// -----

// With A in workgroup memory too, wgmma takes two descriptors: the sums are
// $0-$3, their tied inputs $4-$7, A's descriptor $8, B's $9 and the
// accumulate flag $10, both tiles K-major (the two transpose flags 0). The
// numbered barriers: bar.arrive as PTX text (its id and count in
// registers), bar.sync as NVVM's barrier.
// CHECK-LABEL: func.func @warpgroup_shared(
// CHECK-SAME: %[[DA:[a-z0-9_]+]]: i64, %[[DB:[a-z0-9_]+]]: i64, %[[C:[a-z0-9_]+]]: f32, %[[ID:[a-z0-9_]+]]: i32)
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[THREADS:.+]] = arith.constant 384 : i32
// CHECK-DAG: %[[SYNC:.+]] = arith.constant 256 : i32
// CHECK: %[[MMA:.+]] = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $10, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $8, $9, p, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,0,1,2,3,l,l,r,~{memory}" %[[C]], %[[C]], %[[C]], %[[C]], %[[DA]], %[[DB]], %[[ONE]] : (f32, f32, f32, f32, i64, i64, i32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.inline_asm has_side_effects "bar.arrive $0, $1;", "r,r,~{memory}" %[[ID]], %[[THREADS]] : (i32, i32) -> ()
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[SYNC]]
func.func @warpgroup_shared(%descA: i64, %descB: i64, %c: f32, %id: i32) -> f32 {
  %d:4 = qmat.warpgroup_mma_shared %descA * %descB + [%c, %c, %c, %c] : f16, f32
  qmat.barrier_arrive %id, 384
  qmat.barrier_sync %id, 256
  return %d#0 : f32
}
