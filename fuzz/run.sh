#!/usr/bin/env bash
# Runs every fuzz target of a build-fuzz/ tree for a bounded time:
#   fuzz/run.sh <build dir> <seconds per target> [target...]
# Each target keeps its corpus in <build>/fuzz-corpus/<target> (seeded from
# test/ and examples/ on every run) and writes a crashing input to
# <build>/fuzz-artifacts/<target>/; the script fails when one was found.
set -euo pipefail
build=$1 seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(qmat-fuzz-parse qmat-fuzz-pipeline qmat-fuzz-aot)
src=$(cd "$(dirname "$0")/.." && pwd)
python3 "$src/fuzz/make_seeds.py" "$src" "$build/fuzz-seeds"
# detect_leaks=0: leaks are make check-sanitize's to find (whole tool runs
# under LeakSanitizer); here a leak check after inputs would cost rate.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its
# slabs in the instrumented inline code qmat's files contain and unpoisons
# what it hands out only there; the uninstrumented copy inside libMLIR.so
# hands out the same slabs still poisoned, and ASan would report its first
# write into one (a use-after-poison that is no bug).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rc=0
for t in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$t artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  # 4 KiB holds every seed but the largest example. -timeout makes a pass
  # that loops report as a hang (the limit is wall time); a pipeline input
  # of many GEMV variants takes up to half a minute of CPU under ASan.
  timeout=${FUZZ_TIMEOUT:-300}
  [ "$t" = qmat-fuzz-parse ] && timeout=${FUZZ_TIMEOUT:-20}
  status=0
  "$build/bin/$t" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-4096}" \
    -timeout="$timeout" -rss_limit_mb=4096 -print_final_stats=1 \
    -dict="$src/fuzz/qmat.dict" -artifact_prefix="$artifacts/" \
    "$corpus" "$build/fuzz-seeds" >"$build/fuzz-$t.log" 2>&1 || status=$?
  echo "== $t"
  grep -E '^#[0-9]+.*DONE|^stat::|ERROR|SUMMARY' "$build/fuzz-$t.log" || true
  if [ "$status" -ne 0 ]; then
    echo "$t: found a failure (see $build/fuzz-$t.log and $artifacts)"
    rc=1
  fi
done
exit $rc
