#!/usr/bin/env bash
# On a machine with the GPU: the GEMV harness (bench/gemv/gemv_bench.cpp, main
# mode) on several bundles in one run, so that kernel versions are compared
# on the same GPU, clocks and copy baseline.
# Usage: bench/gemv/compare.sh OUT BUNDLE...   (each BUNDLE from write_bundle)
set -euo pipefail
out=$1; shift
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
for bundle in "$@"; do
  name=$(basename "$bundle")
  nvcc -O2 -std=c++17 -arch=sm_90 -I include -I "$bundle" bench/gemv/gemv_bench.cpp bench/common/ceiling.cu \
    "$bundle/bench.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas \
    -o "/tmp/gemv_bench_$name" &
done
wait
status=0
for bundle in "$@"; do
  name=$(basename "$bundle")
  "/tmp/gemv_bench_$name" "$out/gemv-$name.json" main 2>&1 | tee "$out/gemv-$name.log" || status=1
done
exit $status
