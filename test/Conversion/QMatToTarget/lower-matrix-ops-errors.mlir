// A matrix op on a target without its instruction is an error naming the
// op and the target, never left for a later pass to trip over.
// RUN: not qmat-opt %s -split-input-file --qmat-lower-to-target=target=sm_90 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not qmat-opt %s -split-input-file --qmat-lower-to-target=target=gfx942 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not qmat-opt %s -split-input-file --qmat-lower-to-target=target=host 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not qmat-opt %s -split-input-file --qmat-lower-to-target=target=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// SM90-NOT: 'qmat.warp_mma'
// AMD: error: 'qmat.warp_mma' op has no lowering on target 'gfx942'
// HOST: error: 'qmat.warp_mma' op has no lowering on target 'host'
func.func @warp_mma(%a: vector<2xbf16>, %c: f32) -> f32 {
  %d:4 = qmat.warp_mma [%a, %a, %a, %a] * [%a, %a] + [%c, %c, %c, %c]
      : vector<2xbf16>, vector<2xbf16>, f32
  return %d#0 : f32
}

// -----

// SM90: error: 'qmat.wave_mma' op has no lowering on target 'sm_90'
// AMD-NOT: 'qmat.wave_mma'
// HOST: error: 'qmat.wave_mma' op has no lowering on target 'host'
func.func @wave_mma(%a: vector<4xbf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = qmat.wave_mma %a * %a + %c : vector<4xbf16>, vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// The warpgroup instruction is sm_90a's alone.
// SM90: error: 'qmat.warpgroup_fence' op has no lowering on target 'sm_90'
// AMD: error: 'qmat.warpgroup_fence' op has no lowering on target 'gfx942'
// HOST: error: 'qmat.warpgroup_fence' op has no lowering on target 'host'
func.func @warpgroup(%a: vector<2xbf16>, %desc: i64, %c: f32) -> f32 {
  %f:2 = qmat.warpgroup_fence %a, %c : vector<2xbf16>, f32
  %d:4 = qmat.warpgroup_mma [%f#0, %f#0, %f#0, %f#0] * %desc + [%f#1, %f#1, %f#1, %f#1]
      : vector<2xbf16>, f32
  qmat.warpgroup_commit
  %r:4 = qmat.warpgroup_wait 0, %d#0, %d#1, %d#2, %d#3 : f32
  return %r#0 : f32
}

// -----

// Asynchronous copies are NVIDIA's here.
// SM90-NOT: 'qmat.async_copy'
// AMD: error: 'qmat.async_copy' op has no lowering on target 'gfx942'
// HOST: error: 'qmat.async_copy' op has no lowering on target 'host'
func.func @async_copy(%a: memref<256xbf16>, %s: memref<2048xbf16, #gpu.address_space<workgroup>>, %i: index) {
  qmat.async_copy %a[%i], %s[%i], 8 : memref<256xbf16> to memref<2048xbf16, #gpu.address_space<workgroup>>
  qmat.async_commit
  qmat.async_wait 0
  return
}

// -----

// Thread-block clusters exist from sm_90 on.
// SM90-NOT: 'qmat.cluster_barrier'
// SM80: error: 'qmat.cluster_barrier' op has no lowering on target 'sm_80'
// AMD: error: 'qmat.cluster_barrier' op has no lowering on target 'gfx942'
// HOST: error: 'qmat.cluster_barrier' op has no lowering on target 'host'
func.func @cluster_barrier() {
  qmat.cluster_barrier
  return
}

// -----

// SM90-NOT: 'qmat.load_cluster_peer'
// SM80: error: 'qmat.load_cluster_peer' op has no lowering on target 'sm_80'
// AMD: error: 'qmat.load_cluster_peer' op has no lowering on target 'gfx942'
// HOST: error: 'qmat.load_cluster_peer' op has no lowering on target 'host'
func.func @load_cluster_peer(%p: memref<1024xf32, #gpu.address_space<workgroup>>, %i: index) -> vector<4xf32> {
  %v = qmat.load_cluster_peer %p[%i] rank %i : memref<1024xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// SM90-NOT: 'qmat.mbarrier_arrive_cluster'
// SM80: error: 'qmat.mbarrier_arrive_cluster' op has no lowering on target 'sm_80'
// AMD: error: 'qmat.mbarrier_arrive_cluster' op has no lowering on target 'gfx942'
// HOST: error: 'qmat.mbarrier_arrive_cluster' op has no lowering on target 'host'
func.func @mbarrier_arrive_cluster(%b: memref<8xi64, #gpu.address_space<workgroup>>, %i: index) {
  qmat.mbarrier_arrive_cluster %b[%i] rank %i : memref<8xi64, #gpu.address_space<workgroup>>
  return
}

// -----

// SM90-NOT: 'qmat.mbarrier_init_fence'
// SM80: error: 'qmat.mbarrier_init_fence' op has no lowering on target 'sm_80'
// AMD: error: 'qmat.mbarrier_init_fence' op has no lowering on target 'gfx942'
// HOST: error: 'qmat.mbarrier_init_fence' op has no lowering on target 'host'
func.func @mbarrier_init_fence() {
  qmat.mbarrier_init_fence
  return
}
