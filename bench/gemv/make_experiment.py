#!/usr/bin/env python3
"""Bundles for an interleaved A/B (bench/gemv/ab.sh) of a kernel or launcher
experiment kept as a patch against this tree: A from the current
qmat-aot, B from qmat-aot with the patch applied and its switch (an
environment variable the patch reads while generating) set. The patch is
reverted and qmat-aot rebuilt afterwards, also when something fails.

Usage (from the repository root, after `make build`; BUILD_DIR as in the
Makefile):
  python3 bench/gemv/make_experiment.py PATCH SWITCH[=VALUE] OUT LAYER...
  PATCH: the experiment's patch file (git keeps the recorded ones in the
  history of bench/gemv/experiments/)
  LAYER: scheme,block,zero_points(0|1),act,n,k  e.g. nvfp4,16,0,bf16,248320,5120
Then on a machine with the GPU: bash bench/gemv/ab.sh $OUT OUT/a OUT/b
(the carveout patch is read by the launcher at run time: set its switch in
the GPU machine's command instead, e.g. QMAT_EXP_CARVEOUT=40 bash bench/gemv/ab.sh ...).
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "prefill"))
from make_bundle import write_bundle  # noqa: E402


def layer(spec):
    try:
        scheme, block, zp, act, n, k = spec.split(",")
        if zp not in ("0", "1"):
            raise ValueError
        return scheme, int(block), zp == "1", act, int(n), int(k)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{spec}' is not scheme,block,zero_points(0|1),act,n,k")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("patch")
    parser.add_argument("switch", help="SWITCH or SWITCH=VALUE (default 1)")
    parser.add_argument("out")
    parser.add_argument("layers", nargs="+", type=layer)
    args = parser.parse_args()
    switch, has_value, value = args.switch.partition("=")
    patch = args.patch
    build = os.environ.get("BUILD_DIR", "build")
    aot = os.path.join(build, "bin", "qmat-aot")
    rebuild = ["ninja", "-C", build, "qmat-aot"]
    # Fails here, before any build, on a missing or stale patch.
    subprocess.run(["git", "apply", "--check", patch], check=True)
    os.makedirs(args.out, exist_ok=True)
    aot_a = os.path.join(args.out, "qmat-aot-a")
    aot_b = os.path.join(args.out, "qmat-aot-b")
    try:
        subprocess.run(rebuild, check=True)
        shutil.copy(aot, aot_a)
        subprocess.run(["git", "apply", patch], check=True)
        try:
            subprocess.run(rebuild, check=True)
            shutil.copy(aot, aot_b)
        finally:
            subprocess.run(["git", "apply", "-R", patch], check=True)
            subprocess.run(rebuild, check=True)
        write_bundle(aot_a, os.path.join(args.out, "a"), args.layers,
                     prefix="bench")
        write_bundle(aot_b, os.path.join(args.out, "b"), args.layers,
                     prefix="exp",
                     env=dict(os.environ, **{switch: value if has_value else "1"}))
        # The launchers embed the cubins: less to copy to the GPU machine.
        for path in glob.glob(os.path.join(args.out, "*", "*.cubin")):
            os.remove(path)
    finally:
        for path in (aot_a, aot_b):
            if os.path.exists(path):
                os.remove(path)


if __name__ == "__main__":
    main()
