#!/usr/bin/env bash
# On a machine with the GPU and cuobjdump: the SASS of PTX files
# and, per file, how often each opcode appears, to compare two kernels'
# instruction mixes (the PTX comes from qmat-opt ... qmat-print-gpu-assembly,
# bench/README.md).
# Usage: bench/gemv/sass.sh OUT FILE.ptx...
set -euo pipefail
out=$1; shift
for ptx in "$@"; do
  name=$(basename "$ptx" .ptx)
  ptxas -arch=sm_90 "$ptx" -o "$out/$name.cubin"
  cuobjdump -sass "$out/$name.cubin" > "$out/$name.sass"
  # Instruction lines look like "/*0120*/  @!P0 HMUL2.BF16_V2 R4, R5, R6 ;".
  grep -E '^\s+/\*[0-9a-f]{4,}\*/' "$out/$name.sass" |
    sed -E 's|^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T]+\s+)?([A-Z0-9_.]+).*|\2|' |
    sort | uniq -c | sort -rn > "$out/$name.opcodes.txt"
  echo "== $name"; head -25 "$out/$name.opcodes.txt"
done
