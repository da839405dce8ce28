#!/usr/bin/env bash
# On a machine with the GPU: two builds of the same layers compared in one
# process, rounds interleaved (bench/gemv/ab_bench.cpp).
# Usage: bench/gemv/ab.sh OUT A_BUNDLE B_BUNDLE [LAYER_FILTER]
#   A_BUNDLE from write_bundle(..., prefix="bench"), B_BUNDLE with
#   prefix="exp", same layers. It compares kernels: the launchers' policy
#   is one set of inline functions (qmat_policy), which the linker keeps
#   once, so both builds must carry the same policy (pin variants with
#   AB_SPLIT_K / AB_COL_TILES to compare two).
set -euo pipefail
out=$1; a=$2; b=$3; filter=${4:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
nvcc -O2 -std=c++17 -arch=sm_90 -I include -I "$a" -I "$b" bench/gemv/ab_bench.cpp \
  "$a/bench.cpp" "$b/exp.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas \
  -o /tmp/ab_bench
/tmp/ab_bench "$out/ab.json" "$filter" 2>&1 | tee "$out/ab.log"
