#!/usr/bin/env bash
# On a machine with the GPU: build the harness with its nvcc, check every kernel
# bit for bit, then time. Usage: bench/dequant/run.sh BUNDLE_DIR OUT_DIR [--quick]
set -euo pipefail
bundle=$1; out=$2; shift 2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
nvcc -O2 -std=c++17 -arch=sm_90 -I include bench/dequant/dequant_bench.cpp bench/common/ceiling.cu \
  lib/Reference/Numerics.cpp -lcuda -o /tmp/dequant_bench
/tmp/dequant_bench "$bundle" "$out/dequant.json" "$@" 2>&1 | tee "$out/dequant.log"
