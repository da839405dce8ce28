#!/usr/bin/env bash
# `make run`: generate the deployable kernel bundle for the bundled example
# model (a Qwen-like 27B NVFP4 model's distinct layers) for the H200 (sm_90)
# and Blackwell (sm_100), print what runs, and check that the generated
# launcher compiles.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
model="$here/qwen-like-27b-nvfp4.mlir"
out="$build/examples/qwen-like-27b"
export PATH="/usr/local/cuda/bin:$PATH"

echo "== qmat-aot $model --target=sm_90,sm_100 -o $out"
"$build/bin/qmat-aot" "$model" --target=sm_90,sm_100 --emit=ptx --prefix=qwen27b -o "$out"
g++ -std=c++17 -O2 -c "$out/qwen27b.cpp" -I/usr/local/cuda/include -o "$out/qwen27b.o"
echo "== bundle in $out: qwen27b.h, qwen27b.cpp (compiled: qwen27b.o), qwen27b.manifest.json"
