#!/usr/bin/env bash
# On a machine with the GPU: compile the qmat-aot launcher and the harness with
# its nvcc, then check and time.
# Usage: bench/prefill/run.sh BUNDLE OUT [FILTER] [bitwise]
# (bitwise: only the single-tile check, launcher vs an untiled cuBLASLt GEMM)
set -euo pipefail
bundle=$1; out=$2; filter=${3:-}
nvcc -O2 -std=c++17 -arch=sm_90 -I include -I "$bundle" bench/prefill/prefill_bench.cpp \
  "$bundle/bench.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas -o /tmp/prefill_bench
/tmp/prefill_bench "$out/prefill.json" "$filter" "${4:-}" 2>&1 | tee "$out/prefill.log"
