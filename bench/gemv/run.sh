#!/usr/bin/env bash
# On a machine with the GPU: compile the two qmat-aot launchers and the harness
# with its nvcc, then check and time.
# Usage: bench/gemv/run.sh BUNDLES OUT [LAYER_FILTER]   (BUNDLES from make_bundle.py)
set -euo pipefail
bundles=$1; out=$2; filter=${3:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
# The GPU's power limit, clocks and clock-event reasons before the run.
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE > "$out/gpu-state.txt" 2>&1 || true
for kind in main wide; do
  nvcc -O2 -std=c++17 -arch=sm_90 -I include -I "$bundles/$kind" bench/gemv/gemv_bench.cpp bench/common/ceiling.cu \
    "$bundles/$kind/bench.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas -ldl \
    -o /tmp/gemv_bench_$kind &
done
wait
status=0
for kind in main wide; do
  /tmp/gemv_bench_$kind "$out/gemv-$kind.json" "$kind" "$filter" 2>&1 | tee "$out/gemv-$kind.log" || status=1
done
exit $status
