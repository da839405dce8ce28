#!/usr/bin/env python3
"""Builds the GPU bundle for the dequantization checks and benchmarks.

Writes into OUT_DIR: kernels.mlir (one qmat.dequantize per variant), the
sm_90 PTX and cubin produced by qmat-opt's pipeline + ptxas, and
manifest.txt (one kernel per line: name scheme act K block kernel decode zp
threads) that bench/dequant/dequant_bench.cpp reads on the device.

Usage: make_bundle.py QMAT_OPT PTXAS OUT_DIR [--target sm_90]
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
from qmat import ir  # noqa: E402

def variants():
    out = []
    for act in ["bf16", "f16"]:
        # All byte values against all scale bytes, every decode rewrite.
        for decode in ["arith", "lookup", "magic_bias"]:
            for kernel in ["vec8", "scalar"]:
                out.append(("nvfp4", 512, 16, kernel, decode, False, act))
                out.append(("mxfp4", 512, 32, kernel, decode, False, act))
            out.append(("nvfp4", 520, 6, "vec8", decode, False, act))
            out.append(("nvfp4", 510, 17, "scalar", decode, False, act))
            # K % 32 == 0, K % 32 == 16 and K % 8 == 4: every tail case.
            for k in [128, 1040, 5120, 17408, 4096]:
                for bs in [16, 32]:
                    out.append(("nvfp4", k, bs, "vec8", decode, False, act))
            out.append(("nvfp4", 1036, 16, "scalar", decode, False, act))
            out.append(("nvfp4", 5120, 16, "scalar", decode, False, act))
            out.append(("mxfp4", 5120, 32, "vec8", decode, False, act))
        for kernel in ["vec8", "scalar"]:
            out.append(("fp8", 256, 128, kernel, "arith", False, act))
            out.append(("fp8", 5120, 128, kernel, "arith", False, act))
            for decode in ["arith", "magic_bias"]:
                for zp in [False, True]:
                    out.append(("int4", 512, 32, kernel, decode, zp, act))
                    out.append(("int4", 5120, 128, kernel, decode, zp, act))
        out.append(("fp8", 260, 7, "scalar", "arith", False, act))
        out.append(("int4", 516, 7, "scalar", "magic_bias", True, act))
    # Deduplicate while keeping order.
    seen, uniq = set(), []
    for v in out:
        if v not in seen:
            seen.add(v)
            uniq.append(v)
    return uniq


def func_of(i, v):
    scheme, k, bs, kernel, decode, zp, act = v
    return ir.dequantize_func(f"v{i}", scheme, k, bs, act, kernel, decode, zp)


NAME_RE = re.compile(
    r"dequant_(nvfp4|mxfp4|fp8|int4)_bs(\d+)_k(\d+)_(f16|bf16)_(vec8|scalar)_"
    r"(arith|lookup|magic_bias|native)(_zp)?_u(\d+)(_p)?_t(\d+)$")


def tuning_variants():
    return [("nvfp4", 5120, 16, "vec8", "lookup", False, "bf16"),
            ("nvfp4", 4096, 16, "vec8", "lookup", False, "bf16")]


def compile_bundle(a, mlir_text, tag, extra_opts="", persistent_blocks=0):
    """Compiles one module of variants; returns manifest lines."""
    mlir = os.path.join(a.out_dir, f"kernels{tag}.mlir")
    with open(mlir, "w") as f:
        f.write(mlir_text)
    pipeline = (f"builtin.module(qmat-kernels-to-gpu-binary{{target={a.target} format=isa"
                f"{extra_opts}}},qmat-print-gpu-assembly)")
    run = subprocess.run([a.qmat_opt, mlir, f"--pass-pipeline={pipeline}", "-o", os.devnull],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(run.stderr[:4000])
    ptx = run.stdout.split("\n", 1)[1]  # drop the qmat-gpu-assembly header line
    ptx_path = os.path.join(a.out_dir, f"kernels{tag}.ptx")
    with open(ptx_path, "w") as f:
        f.write(ptx)
    cubin = f"kernels{tag}.cubin"
    subprocess.run([a.ptxas, f"-arch={a.target}", "-O3", ptx_path, "-o",
                    os.path.join(a.out_dir, cubin)], check=True)
    lines = []
    for n in re.findall(r"\.visible \.entry (\w+)\(", ptx):
        m = NAME_RE.match(n)
        if not m:
            raise SystemExit(f"unexpected kernel name {n}")
        scheme, bs, k, act, kernel, decode, zp, per_thread, persistent, threads = m.groups()
        lines.append(f"{n} {scheme} {act} {k} {bs} {kernel} {decode} {1 if zp else 0} "
                     f"{threads} {per_thread} {cubin} "
                     f"{persistent_blocks if persistent else 0}\n")
    return lines


def main():
    p = argparse.ArgumentParser()
    p.add_argument("qmat_opt")
    p.add_argument("ptxas")
    p.add_argument("out_dir")
    p.add_argument("--target", default="sm_90")
    p.add_argument("--tune", action="store_true", help="add thread-mapping sweeps")
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    text = "".join(func_of(i, v) for i, v in enumerate(variants()))
    lines = compile_bundle(a, text, "")
    if a.tune:
        # Thread-mapping sweeps for the bandwidth shapes, one module each.
        # Row-looping (persistent) kernels: blocks = SMs x resident blocks
        # per SM (H200: 132 SMs), and half / twice that.
        for threads, items, blocks in [(128, 5, 2112), (128, 5, 1056), (128, 5, 4224),
                                       (256, 2, 1056), (128, 4, 2112), (128, 1, 2112),
                                       (256, 1, 1056), (64, 5, 4224)]:
            tune = [v for v in tuning_variants() if (v[1] // 8) % (threads * items) == 0]
            text = "".join(func_of(i, v) for i, v in enumerate(tune))
            lines += compile_bundle(a, text, f"-t{threads}u{items}p{blocks}",
                                    f" threads-per-block={threads} items-per-thread={items}"
                                    f" persistent-blocks={blocks}", blocks)
    with open(os.path.join(a.out_dir, "manifest.txt"), "w") as f:
        f.writelines(lines)
    print(f"{len(lines)} kernels -> {a.out_dir}")

if __name__ == "__main__":
    main()
