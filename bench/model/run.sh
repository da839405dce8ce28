#!/usr/bin/env bash
# On the GPU machine (python3 with torch, transformers and numpy; g++ or nvcc
# with the CUDA headers; no MLIR): the Llama model of bench/model/llama.py as
# ModelOpt NVFP4 and GPTQ int4 checkpoints, imported with --no-bundle and run
# through qmat.torch.load_model on BUNDLE (bench/model/make_bundle.py's),
# against the same model with the reference-dequantized weights in bf16.
# Usage: bash bench/model/run.sh BUNDLE OUT [model_bench.py options]
# (--reps, --batches, --formats, --budget-s ...: model_bench.py --help)
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$out"
export PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# The C++ fast path must build (a failure is an error, not a silent
# measurement of the ctypes path).
export QMAT_TORCH_FASTPATH=${QMAT_TORCH_FASTPATH:-1}
export TORCH_EXTENSIONS_DIR=${TORCH_EXTENSIONS_DIR:-/tmp/qmat-torch-extensions}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv 2>&1 | tee "$out/gpu.txt"
python3 -c "import torch, transformers; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'transformers', transformers.__version__)" 2>&1 | tee -a "$out/gpu.txt"
started=$(date +%s)
# model_bench.py skips cases past its --budget-s (540 s by default) and
# rewrites its JSON after every case; the timeout is the hard stop under the
# machine's 10 minutes.
timeout --signal=INT --kill-after=10 "${MODEL_BENCH_TIMEOUT:-585}" \
  python3 "$here/model_bench.py" "$bundle" "$out/model.json" "$@" 2>&1 | tee "$out/model.log"
rc=${PIPESTATUS[0]}
echo "model_bench.py exit $rc after $(( $(date +%s) - started )) s"
exit "$rc"
