#!/usr/bin/env bash
# On a machine with the GPU: bench/prefill/alignment_check.cpp against BUNDLE
# (qmat-aot test/AOT/Inputs/tensor-core-layer.mlir --target=sm_90
#  --gemv-max-m=0 --fused-max-m=0 --prefix=align -o BUNDLE).
# Usage: bash bench/prefill/alignment_check.sh BUNDLE OUT
set -euo pipefail
bundle=$1; out=$2
mkdir -p "$out"
nvcc -O2 -std=c++17 -arch=sm_90 -I "$bundle" bench/prefill/alignment_check.cpp "$bundle/align.cpp" \
  -lcuda -lcublasLt -o /tmp/alignment_check
/tmp/alignment_check 2>&1 | tee "$out/alignment_check.log"
