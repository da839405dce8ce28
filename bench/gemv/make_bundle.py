#!/usr/bin/env python3
"""Builds the decode-GEMV bundles checked and timed on the H200.

OUT_DIR/main: every scheme x f16/bf16 x N in {36, 40, 512, 2048, 8704,
17408, 248320} at K = 5120, plus one K = 1000 layer per scheme (K % 32 != 0:
the element-wise scalar GEMV) and one K = 1056 layer (K % 128 != 0,
K % 32 == 0: the chunked dot GEMV), with the default variant lists and
gemv-max-m = 8.
OUT_DIR/wide: N in {40, 2048} with --gemv-max-m=64 (M = 16, 32, 64), the
variants restricted to split-K 1 and 4, one column tile.

Both compile every variant of their lists (--all-gemv-variants), also
those the launcher's policy never chooses for a layer, so that the harness
times each against the policy's choice.

Each directory gets model.mlir, the qmat-aot output (prefix `bench`) and
layers.inc (BENCH_LAYER(name, scheme, act, n, k, block, zero_points)).

With --prepared-weights both bundles take the prepared code layout where a
layer can (qmat-aot --prepared-weights; the harness writes each layer's
codes through <prefix>_<layer>_prepare_weights).

Usage: make_bundle.py QMAT_AOT OUT_DIR [--prepared-weights]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "prefill"))
from make_bundle import write_bundle  # noqa: E402

SCHEMES = [("nvfp4", 16, False), ("mxfp4", 32, False), ("fp8", 128, False), ("int4", 128, True)]
MAIN_N = [36, 40, 512, 2048, 8704, 17408, 248320]


def main():
    aot, out = sys.argv[1], sys.argv[2]
    extra = ["--all-gemv-variants"]
    if "--prepared-weights" in sys.argv[3:]:
        extra.append("--prepared-weights")
    main_layers, wide_layers = [], []
    for scheme, block, zp in SCHEMES:
        for act in ["bf16", "f16"]:
            for n in MAIN_N:
                main_layers.append((scheme, block, zp, act, n, 5120))
            main_layers.append((scheme, block, zp, act, 2048, 1000))
            main_layers.append((scheme, block, zp, act, 2048, 1056))
            for n in [40, 2048]:
                wide_layers.append((scheme, block, zp, act, n, 5120))
    write_bundle(aot, os.path.join(out, "main"), main_layers, extra)
    write_bundle(aot, os.path.join(out, "wide"), wide_layers,
                 ["--gemv-max-m=64", "--gemv-split-k=1,4", "--gemv-col-tiles=1"] + extra)


if __name__ == "__main__":
    main()
