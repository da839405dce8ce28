#!/usr/bin/env bash
# On a machine with the GPU: the lm_head GEMVs (the launcher's policy at M = 1,
# 4, 8, and M = 8 with zero activations), the read ceiling's kernel and two
# copies, each run back to back for two seconds, with the power, energy per
# byte and SM clock the board's power limit leaves them
# (gemv_bench.cpp, runPowerSection).
# Usage: [POWER_VARIANTS=splitK:colTiles,...] bench/gemv/power.sh BUNDLES OUT [LAYER_FILTER]
#   (BUNDLES from make_bundle.py; POWER_VARIANTS: pinned variants, also run at M = 8)
set -euo pipefail
bundles=$1; out=$2; filter=${3:-}
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE > "$out/gpu-state.txt" 2>&1 || true
nvcc -O2 -std=c++17 -arch=sm_90 -I include -I "$bundles/main" bench/gemv/gemv_bench.cpp bench/common/ceiling.cu \
  "$bundles/main/bench.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas -ldl \
  -o /tmp/gemv_bench_power
/tmp/gemv_bench_power "$out/power.json" power "$filter" 2>&1 | tee "$out/power.log"
