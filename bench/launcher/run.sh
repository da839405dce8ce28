#!/usr/bin/env bash
# On the GPU machine (python3 with torch): what the launcher's device-pointer
# check sees under torch's allocators, and what a query costs.
# Usage: bash bench/launcher/run.sh OUT
set -uo pipefail
out=$1; here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for conf in "" "expandable_segments:True"; do
  PYTORCH_CUDA_ALLOC_CONF=$conf python3 "$here/pointer_query.py"
done 2>&1 | tee "$out/pointer_query.log"
