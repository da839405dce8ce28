#!/usr/bin/env bash
# On a machine with the GPU: Nsight Compute (full section set and the SASS
# source page) on one launch of a fused tiling of LAYER at M, for each
# TILING:M pair (TILING as in kernel names, e.g. mt64_w4_s1_c2_p2); then
# bench/gemv/ncu_summary.py on the source page.
# Usage: bash bench/fused/profile.sh BUNDLE OUT LAYER TILING:M...
set -euo pipefail
bundle=$1; out=$2; layer=$3; shift 3
nvcc -O2 -std=c++17 -arch=sm_90 -I include -I "$bundle" bench/fused/fused_bench.cpp \
  "$bundle/bench.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas -o /tmp/fused_profile
for pair in "$@"; do
  tiling=${pair%%:*}; m=${pair##*:}; name="$layer-$tiling-m$m"
  ncu --clock-control none --set full -k "regex:fused_.*_${tiling}(_wg)?\$" --launch-skip 3 \
    --launch-count 1 --import-source no -o "$out/ncu-$name" \
    /tmp/fused_profile /tmp/unused.json "$layer" time "$m" > "$out/run-$name.log" 2>&1 || true
  ncu --import "$out/ncu-$name.ncu-rep" --page details > "$out/ncu-$name.txt" 2>&1 || true
  ncu --import "$out/ncu-$name.ncu-rep" --page source --csv --print-source sass \
    > "$out/ncu-$name-sass.csv" 2>&1 || true
  python3 bench/gemv/ncu_summary.py "$out/ncu-$name-sass.csv" > "$out/ncu-$name-summary.txt" 2>&1 || true
done
