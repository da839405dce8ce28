#!/usr/bin/env bash
# On the GPU machine (python3 with torch, triton and numpy; g++ or nvcc with
# the CUDA headers; no MLIR, no network): qmat's launcher against gemlite and
# cuBLAS bf16 in one process (bench/peer/gemlite_bench.py), on a bundle that
# bench/peer/make_bundle.py wrote (it carries gemlite's source).
# Usage: bash bench/peer/run.sh BUNDLE OUT [gemlite_bench.py options]
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$out"
if [ ! -f "$bundle/peer.cpp" ] && [ -f "$bundle/peer.cpp.gz" ]; then
  gunzip -c "$bundle/peer.cpp.gz" > "$bundle/peer.cpp.tmp" && mv "$bundle/peer.cpp.tmp" "$bundle/peer.cpp"
fi
if [ ! -f "$bundle/gemlite/gemlite/__init__.py" ]; then
  echo "no gemlite source in $bundle/gemlite: rebuild the bundle with bench/peer/make_bundle.py" >&2
  exit 2
fi
export PYTHONPATH="$repo/python:$bundle/gemlite${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv 2>&1 | tee "$out/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)" 2>&1 | tee -a "$out/gpu.txt"
started=$(date +%s)
python3 "$here/gemlite_bench.py" "$bundle" "$out/peer.json" "$@" 2>&1 | tee "$out/peer.log"
rc=${PIPESTATUS[0]}
echo "gemlite_bench.py exit $rc after $(( $(date +%s) - started )) s"
exit "$rc"
