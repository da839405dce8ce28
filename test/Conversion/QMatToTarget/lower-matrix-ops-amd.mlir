// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=gfx942 | FileCheck %s --check-prefix=AMD --enable-var-scope
// RUN: qmat-opt %s -split-input-file --qmat-lower-to-target=target=gfx950 | FileCheck %s --check-prefix=AMD --enable-var-scope

// The matrix op AMD has, as it runs it.

// qmat.wave_mma is amdgpu.mfma 16x16x16 (v_mfma_f32_16x16x16).
// AMD-LABEL: func.func @wave_mma(
// AMD-NEXT: %[[R:.+]] = amdgpu.mfma 16x16x16 %arg0 * %arg1 + %arg2 blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// AMD-NEXT: return %[[R]]
func.func @wave_mma(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = qmat.wave_mma %a * %b + %c : vector<4xbf16>, vector<4xf32>
  return %d : vector<4xf32>
}
