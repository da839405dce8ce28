#!/usr/bin/env python3
"""Bundles for an interleaved A/B (bench/gemv/ab.sh) of a kernel or launcher
experiment kept as a patch in bench/gemv/experiments/: A from the current
qmat-aot, B from qmat-aot with the patch applied, its switch (an environment
variable the patch reads while generating) set. The patch is reverted and
qmat-aot rebuilt afterwards, also when something fails.

Usage (from the repository root, after `make build`):
  python3 bench/gemv/make_experiment.py PATCH SWITCH[=VALUE] OUT LAYER...
  LAYER: scheme,block,zero_points,act,n,k  e.g. nvfp4,16,0,bf16,248320,5120
Then on the device: bash bench/gemv/ab.sh $OUT OUT/a OUT/b
(the carveout patch is read by the launcher at run time: set its switch in
the device command instead, e.g. QMAT_EXP_CARVEOUT=40 bash bench/gemv/ab.sh ...).
"""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "prefill"))
from make_bundle import write_bundle  # noqa: E402


def build_aot():
    subprocess.run(["ninja", "-C", "build", "qmat-aot"], check=True)


def main():
    patch, switch, out = sys.argv[1:4]
    switch, _, value = switch.partition("=")
    layers = []
    for spec in sys.argv[4:]:
        scheme, block, zp, act, n, k = spec.split(",")
        layers.append((scheme, int(block), zp == "1", act, int(n), int(k)))
    patch_path = os.path.join("bench/gemv/experiments", patch + ".patch")
    os.makedirs(out, exist_ok=True)
    aot_a, aot_b = os.path.join(out, "qmat-aot-a"), os.path.join(out, "qmat-aot-b")
    build_aot()
    shutil.copy("build/bin/qmat-aot", aot_a)
    subprocess.run(["git", "apply", patch_path], check=True)
    try:
        build_aot()
        shutil.copy("build/bin/qmat-aot", aot_b)
    finally:
        subprocess.run(["git", "apply", "-R", patch_path], check=True)
        build_aot()
    write_bundle(aot_a, os.path.join(out, "a"), layers, prefix="bench")
    write_bundle(aot_b, os.path.join(out, "b"), layers, prefix="exp",
                 env=dict(os.environ, **{switch: value or "1"}))
    for path in [aot_a, aot_b] + glob.glob(os.path.join(out, "*", "*.cubin")):
        os.remove(path)


if __name__ == "__main__":
    main()
