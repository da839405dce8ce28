#!/usr/bin/env bash
# Device memory of a whole-model prefill, fused path against the dequant
# path (bench/memory/memory_bench.cpp). BUNDLES holds fused/ and dequant/,
# the example model's bundles:
#   build/bin/qmat-aot examples/qwen-like-27b-nvfp4.mlir --target=sm_90 --prefix=qwen -o BUNDLES/fused
#   build/bin/qmat-aot examples/qwen-like-27b-nvfp4.mlir --target=sm_90 --fused-max-m=0 --prefix=qwend -o BUNDLES/dequant
# Usage (on the GPU machine): bash bench/memory/run.sh BUNDLES OUT [layers] [M,M,...]
set -euo pipefail
bundles=$1; out=$2; shift 2
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
nvcc -O2 -std=c++17 -arch=sm_90 -I "$bundles/fused" -I "$bundles/dequant" \
  bench/memory/memory_bench.cpp "$bundles/fused/qwen.cpp" "$bundles/dequant/qwend.cpp" \
  -lcuda -lcublasLt -o /tmp/qmat_memory_bench
/tmp/qmat_memory_bench "$out/memory.json" "$@" | tee "$out/memory.log"
