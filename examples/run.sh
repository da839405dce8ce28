#!/usr/bin/env bash
# `make run`: compile the bundled example model's layers for the H200
# (sm_90) down to a cubin, and print what was chosen for each layer.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
model="$here/qwen-like-27b-nvfp4.mlir"
out="$build/examples"
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
opt="$build/bin/qmat-opt"

echo "== qmat: $model -> sm_90"
"$opt" "$model" --qmat-select-strategy=target=sm_90 -o "$out/planned.mlir"
"$opt" "$model" --qmat-to-gpu-binary=target=sm_90 -o "$out/qwen-like-27b-nvfp4.sm_90.mlir"
"$opt" "$model" --pass-pipeline='builtin.module(qmat-to-gpu-binary{target=sm_90 format=isa}, qmat-print-gpu-assembly)' \
  -o /dev/null > "$out/qwen-like-27b-nvfp4.sm_90.ptx"

printf '%-14s %-8s %-8s %-10s %-8s %-7s %-10s\n' layer N K small_m dequant decode tile_rows
awk '
  /func.func @/ { match($0, /@[a-z_]+/); layer = substr($0, RSTART + 1, RLENGTH - 1) }
  /qmat.matmul/ { in_op = 1 }
  in_op && /plan = / {
    match($0, /memref<\?x[0-9]+x/); k = substr($0, RSTART + 9, RLENGTH - 10)
    match($0, /outs\(%[a-z0-9]+ : memref<\?x[0-9]+/); o = substr($0, RSTART, RLENGTH); sub(/.*x/, "", o)
    match($0, /small_m = [a-z_]+/); sm = substr($0, RSTART + 10, RLENGTH - 10)
    match($0, /dequant = [a-z0-9]+/); dq = substr($0, RSTART + 10, RLENGTH - 10)
    match($0, /decode = [a-z_]+/); de = substr($0, RSTART + 9, RLENGTH - 9)
    match($0, /tile_rows = [0-9]+/); tr = substr($0, RSTART + 12, RLENGTH - 12)
    printf "%-14s %-8s %-8s %-10s %-8s %-7s %-10s\n", layer, o, k, sm, dq, de, tr
    in_op = 0
  }' "$out/planned.mlir"
kernels=$(grep -c '^.visible .entry' "$out/qwen-like-27b-nvfp4.sm_90.ptx")
echo "== $kernels distinct dequant kernel(s); cubin in $out/qwen-like-27b-nvfp4.sm_90.mlir (gpu.binary @qmat_kernels)"
grep '^.visible .entry' "$out/qwen-like-27b-nvfp4.sm_90.ptx" | sed 's/^.visible .entry /   /; s/($//'
