#!/usr/bin/env bash
# How long a bundle takes to generate, on the machine that builds it (no GPU
# needed): qmat-aot on the example model for sm_90, the README's two-target
# command, and g++ compiling the sm_90 launcher, each REPEATS times; the
# median wall and CPU seconds go to OUT/generation.json with the machine's
# core count and load average. FLAGS go to every qmat-aot call
# (--all-gemv-variants compiles the GEMV variants the policy cannot choose
# too, as bundles did before they were left out).
# Usage: bash bench/generation/run.sh OUT [QMAT_AOT] [REPEATS] [FLAGS...]
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
aot=${2:-$repo/build/bin/qmat-aot}
repeats=${3:-3}
flags=("${@:4}")
cuda=${CUDA_ROOT:-/usr/local/cuda}
model=$repo/examples/qwen-like-27b-nvfp4.mlir
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# name, then the command: one line "name wall user+sys" per run.
measure() {
  local name=$1; shift
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "$name %e %U %S" -o "$work/t" "$@" > /dev/null 2>&1
    cat "$work/t" >> "$work/times"
  done
}
measure aot_sm90 "$aot" "$model" "${flags[@]}" --quiet --target=sm_90 --prefix=qwen -o "$work/sm90"
measure aot_sm90_sm100a_ptx "$aot" "$model" "${flags[@]}" --quiet --target=sm_90,sm_100a --emit=ptx \
  --prefix=qwen -o "$work/two"
measure launcher_gxx_O2 g++ -std=c++17 -O2 -shared -fPIC -I"$cuda/include" -I"$work/sm90" \
  "$work/sm90/qwen.cpp" -o "$work/qwen.so"
python3 - "$work/times" "$out/generation.json" "$work/sm90/qwen.cpp" "${flags[@]}" <<'PY'
import json, os, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, user, system = line.split()
    rows.setdefault(name, []).append((float(wall), float(user) + float(system)))
result = {"qmat_aot_flags": sys.argv[4:], "cores": os.cpu_count(), "load_average": os.getloadavg(),
          "launcher_source_bytes": os.path.getsize(sys.argv[3]), "steps": {}}
for name, runs in rows.items():
    result["steps"][name] = {"wall_s": [w for w, _ in runs], "cpu_s": [c for _, c in runs],
                             "median_wall_s": statistics.median(w for w, _ in runs),
                             "median_cpu_s": statistics.median(c for _, c in runs)}
json.dump(result, open(sys.argv[2], "w"), indent=1)
for name, step in result["steps"].items():
    print(f"{name}: median {step['median_wall_s']:.2f} s wall, {step['median_cpu_s']:.2f} s CPU")
PY
