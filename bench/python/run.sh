#!/usr/bin/env bash
# On the GPU machine (python3 with torch and numpy, nvcc or g++ with the CUDA
# headers; no MLIR): check every layer of a bench/python/make_bundle.py
# bundle through qmat.torch, time QuantLinear's per-call overhead over the
# raw launcher, then run the GPU pytest against the same bundle.
# Usage: bench/python/run.sh BUNDLE OUT
set -uo pipefail
bundle=$1; out=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# The C++ fast path must build here (a failure is an error, not a silent
# measurement of the ctypes path), in a fresh extensions directory.
export QMAT_TORCH_FASTPATH=${QMAT_TORCH_FASTPATH:-1}
export TORCH_EXTENSIONS_DIR=${TORCH_EXTENSIONS_DIR:-/tmp/qmat-torch-extensions}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$out/gpu.txt"
python3 "$here/torch_overhead.py" "$bundle" "$out/torch_overhead.json" 2>&1 | tee "$out/torch_overhead.log"
bench_rc=${PIPESTATUS[0]}
QMAT_TEST_BUNDLE="$bundle" python3 -m pytest -q -p no:cacheprovider "$repo/python/tests/test_torch_gpu.py" "$repo/python/tests/test_torch_fastpath.py" 2>&1 \
  | tee "$out/pytest_gpu.log"
test_rc=${PIPESTATUS[0]}
echo "torch_overhead.py exit $bench_rc, test_torch_gpu.py exit $test_rc"
exit $(( bench_rc != 0 || test_rc != 0 ))
