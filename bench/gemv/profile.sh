#!/usr/bin/env bash
# On a machine with the GPU: Nsight Compute on the decode GEMV's first M = 1
# launch of each layer in BUNDLE (the policy's variant), full section set;
# GEMV_PROFILE_SKIP=7 profiles the M = 8 launch instead (the error pass
# launches M = 1..8 in order).
# Usage: bench/gemv/profile.sh BUNDLE OUT LAYER...
set -euo pipefail
bundle=$1; out=$2; shift 2
nvcc -O2 -std=c++17 -arch=sm_90 -I include -I "$bundle" bench/gemv/gemv_bench.cpp bench/common/ceiling.cu \
  "$bundle/bench.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas \
  -o /tmp/gemv_profile
for layer in "$@"; do
  ncu --clock-control none --set full -k regex:gemv_ --launch-skip "${GEMV_PROFILE_SKIP:-0}" --launch-count 1 \
    --import-source no -o "$out/ncu-$layer" /tmp/gemv_profile /tmp/unused.json main "$layer" \
    > "$out/run-$layer.log" 2>&1 || true
  ncu --import "$out/ncu-$layer.ncu-rep" --page details > "$out/ncu-$layer.txt" 2>&1 || true
  ncu --import "$out/ncu-$layer.ncu-rep" --page source --csv --print-source sass \
    > "$out/ncu-$layer-sass.csv" 2>&1 || true
done
