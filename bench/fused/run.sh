#!/usr/bin/env bash
# On a machine with the GPU: compile the qmat-aot launcher and the harness
# with its nvcc, then check and time (bench/fused/fused_bench.cpp).
# Usage: bash bench/fused/run.sh BUNDLE OUT [LAYER_FILTER] [check|time|all] [M,M,...]
set -euo pipefail
bundle=$1; out=$2; filter=${3:-}; mode=${4:-all}; ms=${5:-16,32,64,128,256,512,1024}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader | tee "$out/gpu.txt"
nvcc -O2 -std=c++17 -arch=sm_90 -I include -I "$bundle" bench/fused/fused_bench.cpp \
  "$bundle/bench.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas -o /tmp/fused_bench
/tmp/fused_bench "$out/fused.json" "$filter" "$mode" "$ms" 2>&1 | tee "$out/fused.log"
