#!/usr/bin/env bash
# On a machine with the GPU: every kernel a bench/fused bundle launches
# through its launcher (the fused GEMM's variants and policy, the
# dequantization kernels and cuBLASLt above fused_max_m; M = 9 .. 8192, exact
# allocations) under compute-sanitizer's memcheck, racecheck, initcheck and
# synccheck, with bench/fused/fused_bench.cpp's checks. Writes
# OUT/<tool>.log and OUT/sanitize.json (the error count of each tool).
# Usage: bash bench/sanitize/run.sh BUNDLE OUT [tool,tool,...] [LAYER_FILTER] [M,M,...]
# (the M list, by default fused_bench.cpp's, may reach into the GEMV: at
# M <= 8 every compiled GEMV (split-K, column tiles) pair is checked)
# (SANITIZE_TIMEOUT=seconds bounds each tool's run.)
set -uo pipefail
bundle=$1; out=$2; tools=${3:-memcheck,racecheck,initcheck,synccheck}; filter=${4:-}
ms=${5:-}
mkdir -p "$out"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
"$sanitizer" --version | tail -1 | tee -a "$out/gpu.txt"
nvcc -O2 -std=c++17 -arch=sm_90 -lineinfo -I include -I "$bundle" bench/fused/fused_bench.cpp \
  "$bundle/bench.cpp" lib/Reference/Numerics.cpp -lcuda -lcublasLt -lcublas -o /tmp/fused_bench_sanitize || exit 1
summary="{"
for tool in ${tools//,/ }; do
  extra=()
  [ "$tool" = racecheck ] && extra=(--racecheck-report hazard)
  timeout "${SANITIZE_TIMEOUT:-3600}" "$sanitizer" --tool "$tool" "${extra[@]}" --print-limit 20 \
    /tmp/fused_bench_sanitize "$out/$tool.json" "$filter" check $ms > "$out/$tool.log" 2>&1
  rc=$?
  # memcheck, initcheck and synccheck end with "ERROR SUMMARY: N errors",
  # racecheck with "RACECHECK SUMMARY: ... (N errors, M warnings)".
  errors=$(sed -n -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
    -e 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) errors.*/\1/p' "$out/$tool.log" | tail -1)
  checks=$(grep -c " ok$" "$out/$tool.log")
  echo "$tool: exit $rc, ${errors:-?} errors, $checks checks within bounds"
  summary+="\"$tool\": {\"exit\": $rc, \"errors\": ${errors:-null}, \"checks_ok\": $checks}, "
done
echo "${summary%, }}" > "$out/sanitize.json"
cat "$out/sanitize.json"
