#!/usr/bin/env bash
# On the GPU machine (python3 with torch and numpy, NCCL through torch, g++ or
# nvcc with the CUDA headers; no MLIR): check and time qmat.torch_parallel on
# the bundle bench/tp/prepare.py wrote, then run the two-GPU pytest.
# Usage: bash bench/tp/run.sh BUNDLE OUT [auto|dist|single|all] [tp_bench.py options]
#   auto (default): with 2 or more GPUs `dist` twice, the two runs' digests
#   compared, and python/tests/test_torch_parallel_gpu.py; with one GPU
#   `single` twice, compared. all: both. Writes OUT/*.json and OUT/*.log.
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; mode=${3:-auto}; shift 2; [ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$out"
export PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# NVLink SHARP reductions are off: the all_reduce reduction is then NCCL's
# ring / tree, and the machine's multicast set-up is left alone.
export NCCL_NVLS_ENABLE=0
export TORCH_EXTENSIONS_DIR=${TORCH_EXTENSIONS_DIR:-/tmp/qmat-torch-extensions}
for source in "$bundle/tp.cpp" "$bundle/test/tpgpu.cpp"; do
  if [ ! -f "$source" ] && [ -f "$source.gz" ]; then
    gunzip -c "$source.gz" > "$source.tmp" && mv "$source.tmp" "$source"
  fi
done
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv 2>&1 | tee "$out/gpu.txt"
nvidia-smi topo -m >> "$out/gpu.txt" 2>&1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version(), 'gpus', torch.cuda.device_count())" 2>&1 | tee -a "$out/gpu.txt"
gpus=$(python3 -c "import torch; print(torch.cuda.device_count())")
started=$(date +%s)
rc=0
step() {  # name, then the command; a failure is remembered, the next step still runs
  local name=$1; shift
  echo "== $name: $*"
  timeout 420 "$@" 2>&1 | tee "$out/$name.log"
  local status=${PIPESTATUS[0]}
  echo "== $name exit $status after $(( $(date +%s) - started )) s"
  [ "$status" -eq 0 ] || rc=1
}
run_pair() {  # mode, options: two runs and their digests compared
  local m=$1; shift
  step "$m-1" python3 "$here/tp_bench.py" "$m" "$bundle" "$out/$m-1.json" "$@"
  step "$m-2" python3 "$here/tp_bench.py" "$m" "$bundle" "$out/$m-2.json" "$@"
  step "$m-compare" python3 "$here/tp_bench.py" compare "$out/$m-1.json" "$out/$m-2.json"
}
case "$mode" in
  auto) if [ "$gpus" -ge 2 ]; then run_pair dist "$@"; else run_pair single "$@"; fi ;;
  dist) run_pair dist "$@" ;;
  single) run_pair single "$@" ;;
  all) run_pair dist "$@"; run_pair single "$@" ;;
  *) echo "unknown mode $mode (auto, dist, single, all)" >&2; exit 2 ;;
esac
if [ "$gpus" -ge 2 ] && [ "$mode" != single ]; then
  export QMAT_TP_TEST_BUNDLE="$bundle/test"
  step pytest-gpu python3 -m pytest -q -p no:cacheprovider \
    "$repo/python/tests/test_torch_parallel_gpu.py"
fi
echo "bench/tp/run.sh: exit $rc after $(( $(date +%s) - started )) s"
exit "$rc"
