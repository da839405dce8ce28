#!/usr/bin/env python3
"""Builds the prefill (qmat-aot) bundle checked and timed on the H200.

Writes OUT_DIR/model.mlir (one qmat.matmul per scheme x dtype x shape),
runs qmat-aot on it (prefix `bench`), and writes OUT_DIR/layers.inc, one
BENCH_LAYER(name, scheme, act, n, k, block, zero_points) per layer, which
bench/prefill/prefill_bench.cpp includes.

Usage: make_bundle.py QMAT_AOT OUT_DIR [--no-lm-head]
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
from qmat import ir  # noqa: E402

SHAPES = [(6144, 5120), (17408, 5120), (5120, 17408), (248320, 5120)]
SCHEMES = [("nvfp4", 16, False), ("mxfp4", 32, False), ("fp8", 128, False), ("int4", 128, True)]


def layer_mlir(name, scheme, block, zp, act, n, k):
    wt, st, zt = ir.operand_types(scheme, k, block, act, rows=n)
    args = [f"%a: memref<?x{k}x{act}>", f"%w: {wt}", f"%s: {st}"]
    extras = ""
    if scheme == "nvfp4":
        args.append("%g: memref<f32>")
        extras += " global_scale(%g : memref<f32>)"
    if zp:
        args.append(f"%zp: {zt}")
        extras += f" zero_points(%zp : {zt})"
    args.append(f"%y: memref<?x{n}x{act}>")
    return (f"func.func @{name}({', '.join(args)}) {{\n"
            f"  qmat.matmul <{scheme}, block = {block}> ins(%a, %w, %s : memref<?x{k}x{act}>, {wt}, {st})"
            f"{extras}\n      outs(%y : memref<?x{n}x{act}>)\n  return\n}}\n")


def write_bundle(aot, out, layers, flags=(), prefix="bench", env=None):
    """model.mlir, layers.inc and the qmat-aot output (prefix `bench`, or
    `exp` for the second build of bench/gemv/ab.sh) for `layers`:
    (scheme, block, zero_points, act, n, k) tuples; `env`: qmat-aot's
    environment (bench/gemv/make_experiment.py's switches)."""
    os.makedirs(out, exist_ok=True)
    mlir, inc = [], []
    for scheme, block, zp, act, n, k in layers:
        name = f"{scheme}_{act}_{n}x{k}"
        mlir.append(layer_mlir(name, scheme, block, zp, act, n, k))
        inc.append(f"BENCH_LAYER({name}, {scheme.upper()}, {act.upper()}, {n}, {k}, "
                   f"{block}, {'true' if zp else 'false'})\n")
    with open(os.path.join(out, "model.mlir"), "w") as f:
        f.writelines(mlir)
    with open(os.path.join(out, "layers.inc"), "w") as f:
        f.writelines(inc)
    # sm_90 unless the flags name the target (sm_90a for the warpgroup kernels).
    target = [] if any(f.startswith("--target=") for f in flags) else ["--target=sm_90"]
    subprocess.run([aot, os.path.join(out, "model.mlir"), "--prefix=" + prefix,
                    "-o", out] + target + list(flags), check=True, env=env)


def main():
    aot, out = sys.argv[1], sys.argv[2]
    shapes = [s for s in SHAPES if s[0] != 248320] if "--no-lm-head" in sys.argv[3:] else SHAPES
    write_bundle(aot, out, [(scheme, block, zp, act, n, k)
                            for scheme, block, zp in SCHEMES
                            for act in ["bf16", "f16"]
                            for n, k in shapes])


if __name__ == "__main__":
    main()
