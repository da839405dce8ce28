#!/usr/bin/env python3
"""Builds the fused dequant-GEMM bundle checked and timed on the H200.

Writes OUT_DIR/model.mlir (one qmat.matmul per scheme x dtype x shape),
runs qmat-aot on it (prefix `bench`), OUT_DIR/layers.inc (one BENCH_LAYER
per layer), OUT_DIR/variants.inc (every fused tiling compiled, which
bench/fused/fused_bench.cpp times one by one) and OUT_DIR/gemv_variants.inc
(the GEMV's largest M and every (split-K, column tiles) pair of its
variants, which the checks in that range pin).

Usage: make_bundle.py QMAT_AOT OUT_DIR [--schemes=nvfp4,int4] [--acts=bf16,f16]
       [--shapes=17408x5120,...] [--fused-variants=m,w,s,c,p,...]
       [--fused-warpgroup-variants=m,w,s,c,...]
       [--fused-specialized-variants=m,c,...]
       [--fused-sliced-variants=m,w,s,c,p,k,...]
       [--fused-multicast-variants=m,c,b,x,...] [--timed=specialized]
       [-- QMAT_AOT_FLAGS]

--timed=specialized writes only the specialized tilings to variants.inc
(the warp tilings are still compiled and the policy may take them; they are
not timed one by one, which saves most of a large-M run).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "prefill"))
from make_bundle import SCHEMES, write_bundle  # noqa: E402

# The example model's layers (qkv, o, gate_up, down) and its lm_head.
SHAPES = [(6144, 5120), (5120, 6144), (17408, 5120), (5120, 17408), (248320, 5120)]


def main():
    aot, out = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    extra = []
    if "--" in rest:
        extra = rest[rest.index("--") + 1:]
        rest = rest[:rest.index("--")]
    opts = dict(a[2:].split("=", 1) for a in rest)
    schemes = [s for s in SCHEMES if s[0] in opts.get("schemes", "nvfp4,mxfp4,fp8,int4").split(",")]
    acts = opts.get("acts", "bf16,f16").split(",")
    shapes = SHAPES
    if "shapes" in opts:
        shapes = [tuple(int(x) for x in s.split("x")) for s in opts["shapes"].split(",")]
    flags = list(extra)
    tiles = opts.get("fused-variants")
    if tiles:
        flags.append("--fused-variants=" + tiles)
    warpgroup = opts.get("fused-warpgroup-variants")
    if warpgroup:
        flags.append("--fused-warpgroup-variants=" + warpgroup)
    specialized = opts.get("fused-specialized-variants")
    if specialized:
        flags.append("--fused-specialized-variants=" + specialized)
    sliced = opts.get("fused-sliced-variants")
    if sliced:
        flags.append("--fused-sliced-variants=" + sliced)
    multicast = opts.get("fused-multicast-variants")
    if multicast:
        flags.append("--fused-multicast-variants=" + multicast)
    write_bundle(aot, out, [(scheme, block, zp, act, n, k)
                            for scheme, block, zp in schemes
                            for act in acts
                            for n, k in shapes], flags=flags)
    # The tilings the bundle compiled, read back from its manifest.
    import json
    with open(os.path.join(out, "bench.manifest.json")) as f:
        manifest = json.load(f)
    seen = []
    for layer in manifest["layers"]:
        for v in layer["strategy"]["fused_variants"]:
            t = (v["m_tile"], v["warps_n"], v["split_k"], v["col_tiles"], v.get("stages", 1),
                 int(v.get("warpgroup", False)) + int(v.get("specialized", False))
                 + int(v.get("weights_in_registers", False)),
                 v.get("k_slices", 1), v.get("multicast", 1))
            if opts.get("timed") == "specialized" and not v.get("specialized"):
                continue
            if t not in seen:
                seen.append(t)
    with open(os.path.join(out, "variants.inc"), "w") as f:
        for t in seen:
            f.write("{%d, %d, %d, %d, %d, %d, %d, %d},\n" % t)
    # The GEMV's range and its (split-K, column tiles) pairs, which the
    # checks in that range pin one by one.
    pairs, gemv_max_m = [], 0
    for layer in manifest["layers"]:
        gemv_max_m = max(gemv_max_m, layer["strategy"]["gemv_max_m"])
        for v in layer["strategy"]["gemv_variants"]:
            p = (v["split_k"], v["col_tiles"])
            if p not in pairs:
                pairs.append(p)
    with open(os.path.join(out, "gemv_variants.inc"), "w") as f:
        f.write("constexpr int64_t kGemvMaxM = %d;\n" % gemv_max_m)
        f.write("const GemvPair kGemvPairs[] = {\n")
        for p in pairs or [(0, 0)]:
            f.write("    {%d, %d},\n" % p)
        f.write("};\n")


if __name__ == "__main__":
    main()
