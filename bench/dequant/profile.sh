#!/usr/bin/env bash
# On a machine with the GPU: Nsight Compute counters for one dequant kernel.
# Usage: bench/dequant/profile.sh BUNDLE_DIR OUT_DIR KERNEL_SUBSTRING
set -euo pipefail
bundle=$1; out=$2; kernel=$3
nvcc -O2 -std=c++17 -arch=sm_90 -I include bench/dequant/dequant_bench.cpp bench/common/ceiling.cu \
  lib/Reference/Numerics.cpp -lcuda -o /tmp/dequant_bench
ncu --clock-control none --kernel-name "regex:$kernel" --launch-skip 10 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section Occupancy --section LaunchStats --section SchedulerStats \
  /tmp/dequant_bench "$bundle" "$out/profile.json" --only "$kernel" 2>&1 | tee "$out/ncu.txt"
