#!/usr/bin/env python3
"""Builds, where qmat is built (qmat-aot; no GPU needed), what bench/tp/run.sh
needs on the GPU machine (torch, nvcc or g++, NCCL; no MLIR there):

OUT_DIR/            the bundle (prefix `tp`, sm_90, bf16): per scheme the
                    example model's layers whole and their tp-way shards
                    (qmat.shard.shard_layer), every one with a bias:
                      qkv      6144 x 5120   column-parallel
                      o        5120 x 6144   row-parallel
                      gate_up 17408 x 5120   column-parallel (the MLP's gate and up)
                      down     5120 x 17408  row-parallel
                      lm_head 248320 x 5120  column-parallel (--lm-head only)
                    tp.cpp is gzipped when large (run.sh unpacks it) and the
                    cubins are removed (the launcher embeds them)
OUT_DIR/test/       the GPU pytest's bundle (python/tests/tp_workers.py's
                    layers; run.sh passes it as QMAT_TP_TEST_BUNDLE)
OUT_DIR/tp-bundle.json  what was built: the layers by role, tp, the flags

The row layers carry a bias, which the example model's do not, so that the
bias added once after the reduction is checked and timed.

Usage: prepare.py OUT_DIR [--qmat-aot PATH] [--tp 2] [--schemes nvfp4,int4]
                  [--lm-head] [-- QMAT_AOT_FLAGS]
e.g. .venv/bin/python bench/tp/prepare.py bench/out/tp --qmat-aot build/bin/qmat-aot
"""
import argparse
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "python", "tests"))
import qmat  # noqa: E402
from qmat import shard as sh  # noqa: E402

PREFIX = "tp"
# role -> (N, K, kind): examples/qwen-like-27b-nvfp4.mlir's layers
SHAPES = {
    "qkv": (6144, 5120, "column"),
    "o": (5120, 6144, "row"),
    "gate_up": (17408, 5120, "column"),
    "down": (5120, 17408, "row"),
}
LM_HEAD = {"lm_head": (248320, 5120, "column")}
# scheme -> (block, zero points): int4 as GPTQ / AWQ checkpoints have it
SCHEMES = {"nvfp4": (16, False), "int4": (128, True), "mxfp4": (32, False),
           "fp8": (128, False)}
GZIP_ABOVE = 8 << 20          # bytes of launcher source
CARRY_LIMIT = 64 << 20        # what a copy to the GPU machine takes


def bench_layers(schemes, tp, lm_head=False):
    """[(role, scheme, whole Layer, shard Layer, kind)] of the bundle."""
    shapes = dict(SHAPES, **(LM_HEAD if lm_head else {}))
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sh.ShardWarning)
        for scheme in schemes:
            block, zp = SCHEMES[scheme]
            for role, (n, k, kind) in shapes.items():
                whole = qmat.Layer(f"{scheme}_{role}", scheme, n, k, block=block, act="bf16",
                                   bias=True, zero_points=zp)
                out.append((role, scheme, whole, sh.shard_layer(whole, kind, tp), kind))
    return out


def tree_size(path):
    return sum(os.path.getsize(os.path.join(root, name))
               for root, _, files in os.walk(path) for name in files)


def compile_bundle(aot, out, layers, prefix, flags):
    """qmat-aot on `layers` into `out` (the module kept as <prefix>.mlir),
    cubins removed, the launcher gzipped when large."""
    os.makedirs(out, exist_ok=True)
    for stale in glob.glob(os.path.join(out, f"{prefix}.*")) + glob.glob(
            os.path.join(out, f"lib{prefix}.so")):
        os.remove(stale)
    module = os.path.join(out, f"{prefix}.mlir")
    with open(module, "w") as f:
        f.write(qmat.emit_module(layers))
    subprocess.run([aot, module, "--target=sm_90", f"--prefix={prefix}", "-o", out] + flags,
                   check=True)
    for cubin in glob.glob(os.path.join(out, f"{prefix}.*.cubin")):
        os.remove(cubin)
    source = os.path.join(out, f"{prefix}.cpp")
    if os.path.getsize(source) > GZIP_ABOVE:
        with open(source, "rb") as f, gzip.open(source + ".gz", "wb", compresslevel=6) as g:
            shutil.copyfileobj(f, g)
        os.remove(source)
        return os.path.basename(source) + ".gz"
    return os.path.basename(source)


def main():
    argv = sys.argv[1:]
    flags = []
    if "--" in argv:
        flags = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--qmat-aot", default=None,
                        help="default: as qmat.find_tool ($QMAT_BUILD_DIR/bin, $QMAT_AOT, PATH)")
    parser.add_argument("--tp", type=int, default=2)
    parser.add_argument("--schemes", default="nvfp4,int4")
    parser.add_argument("--lm-head", action="store_true",
                        help="also the 248320 x 5120 lm_head (a larger launcher, and 0.6-1 GB "
                             "of weights per scheme on the GPU)")
    args = parser.parse_args(argv)
    schemes = [s for s in args.schemes.split(",") if s]
    for scheme in schemes:
        if scheme not in SCHEMES:
            sys.exit(f"unknown scheme {scheme!r} (expected some of {', '.join(SCHEMES)})")
    aot = qmat.find_tool("qmat-aot", args.qmat_aot)
    out = os.path.abspath(args.out_dir)
    started = time.time()

    layers = bench_layers(schemes, args.tp, args.lm_head)
    try:
        for _, _, whole, _, kind in layers:
            sh.check(whole.name, whole.scheme, whole.n, whole.k, whole.block, kind, args.tp)
    except qmat.ShardError as e:
        sys.exit(str(e))
    compiled = [layer for _, _, whole, shard, _ in layers for layer in (whole, shard)]
    source = compile_bundle(aot, out, compiled, PREFIX, flags)

    import tp_workers
    test_source = compile_bundle(aot, os.path.join(out, "test"), tp_workers.gpu_layers(),
                                 "tpgpu", [])

    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    info = {
        "prefix": PREFIX, "tp": args.tp, "target": "sm_90", "act": "bf16",
        "layers": [{"role": role, "scheme": scheme, "kind": kind, "whole": whole.name,
                    "shard": shard.name, "n": whole.n, "k": whole.k, "block": whole.block,
                    "zero_points": whole.zero_points, "bias": whole.bias,
                    "shard_n": shard.n, "shard_k": shard.k}
                   for role, scheme, whole, shard, kind in layers],
        "qmat_aot": aot, "qmat_aot_flags": flags, "commit": commit,
        "launcher_source": source, "test_bundle": {"directory": "test", "prefix": "tpgpu",
                                                   "launcher_source": test_source},
        "built": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "seconds": round(time.time() - started, 1),
    }
    with open(os.path.join(out, "tp-bundle.json"), "w") as f:
        json.dump(info, f, indent=1)
    size = tree_size(out)
    print(f"bundle in {out}: {len(compiled)} layers ({', '.join(schemes)}; tp {args.tp}), "
          f"{size / 2**20:.1f} MiB, {info['seconds']} s")
    if size > CARRY_LIMIT:
        print(f"warning: {size / 2**20:.1f} MiB is over the {CARRY_LIMIT >> 20} MiB a GPU "
              f"machine copy takes; rebuild with -- --gemv-split-k=4 --gemv-col-tiles=1 "
              f"(fewer GEMV variants)", file=sys.stderr)


if __name__ == "__main__":
    main()
