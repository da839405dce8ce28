#!/usr/bin/env bash
# How the tools grow with their input (no GPU needed): qmat-aot for sm_90 on
# modules of 250, 1000 and 4000 layers, and qmat-opt parsing, verifying and
# printing modules of 12.5 and 50 MB (35,750 and 143,000 layers); wall time
# and peak resident memory of each into OUT/scale.json.
# Usage: bash bench/generation/scale.sh OUT [BUILD_DIR]
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$here/../../build}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$work/rows"
run() { # name, then the command: appends "name wall_s rss_kb input_bytes"
  local name=$1 input=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" > /dev/null 2>&1
  echo "$name $(cat "$work/t") $(stat -c %s "$input")" >> "$work/rows"
}
for layers in 250 1000 4000; do
  python3 "$here/many_layers.py" "$layers" > "$work/m.mlir"
  run "aot_sm90_${layers}_layers" "$work/m.mlir" "$build/bin/qmat-aot" "$work/m.mlir" --quiet \
    --target=sm_90 --prefix=s -o "$work/o"
done
for layers in 35750 143000; do
  python3 "$here/many_layers.py" "$layers" > "$work/m.mlir"
  run "opt_parse_print_${layers}_layers" "$work/m.mlir" "$build/bin/qmat-opt" "$work/m.mlir" -o /dev/null
done
python3 - "$work/rows" "$out/scale.json" <<'PY'
import json, os, sys
steps = {}
for line in open(sys.argv[1]):
    name, wall, rss, size = line.split()
    steps[name] = {"wall_s": float(wall), "peak_rss_mib": round(int(rss) / 1024, 1),
                   "input_bytes": int(size)}
json.dump({"cores": os.cpu_count(), "load_average": os.getloadavg(), "steps": steps},
          open(sys.argv[2], "w"), indent=2)
print(json.dumps(steps, indent=2))
PY
