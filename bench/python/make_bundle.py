#!/usr/bin/env python3
"""Builds the bundle that bench/python/torch_overhead.py checks and times on
the H200 (which has no MLIR): one layer per scheme x activation type, through
qmat.compile (qmat-aot), for sm_90.

Layers: nvfp4, mxfp4, fp8, int4 with zero points (f16, bf16 each) and int4
without zero points, at N = 1024, K = 1024 (fp8: K = 1000, a partial last
block), half of them with a bias; plus one nvfp4 layer of N = 2304 whose
scratch (4.5 MiB) exceeds the 2 MiB cap set here, so the launcher's N-tile
loop (3 tiles, the bias offset per tile) is exercised too; and the two mxfp4
expert projections (with a bias, bf16) of the GPU pytest's small gpt-oss
model. OUT_DIR/prepared holds the same layers compiled with
--prepared-weights.

Usage: make_bundle.py OUT_DIR [--qmat-aot PATH]
(qmat-aot is otherwise found as qmat.find_tool does: $QMAT_BUILD_DIR/bin,
$QMAT_AOT, PATH; `make build` puts it in build/bin.)
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import qmat  # noqa: E402

PREFIX = "pybench"
SCRATCH_CAP_MIB = 2


def layers():
    out = []
    for act in ("bf16", "f16"):
        with_bias = act == "bf16"
        out += [
            qmat.Layer(f"nvfp4_{act}", "nvfp4", 1024, 1024, act=act, bias=with_bias),
            qmat.Layer(f"mxfp4_{act}", "mxfp4", 1024, 1024, act=act, bias=not with_bias),
            qmat.Layer(f"fp8_{act}", "fp8", 1024, 1000, act=act, bias=with_bias),
            qmat.Layer(f"int4_zp_{act}", "int4", 1024, 1024, act=act, bias=not with_bias,
                       zero_points=True),
            qmat.Layer(f"int4_{act}", "int4", 1024, 1024, act=act, block=128),
        ]
    out.append(qmat.Layer("nvfp4_tiled_bf16", "nvfp4", 2304, 1024, act="bf16", bias=True))
    out += [qmat.Layer("gptoss_gate_up", "mxfp4", 512, 256, act="bf16", bias=True),
            qmat.Layer("gptoss_down", "mxfp4", 256, 256, act="bf16", bias=True)]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--qmat-aot", default=None)
    args = parser.parse_args()
    bundle = qmat.compile(layers(), targets=("sm_90",), out_dir=args.out_dir, prefix=PREFIX,
                          scratch_cap_mib=SCRATCH_CAP_MIB, qmat_aot=args.qmat_aot)
    print(bundle.summary, end="")
    tiled = bundle.layer("nvfp4_tiled_bf16").strategy["tiles"]
    if tiled < 2:
        sys.exit(f"nvfp4_tiled_bf16 should be tiled under the {SCRATCH_CAP_MIB} MiB cap, "
                 f"got {tiled} tile")
    print(f"bundle in {bundle.directory} ({len(bundle.layers)} layers, prefix {PREFIX})")
    # The same layers with prepared codes, for the GPU pytest's comparison.
    prepared = qmat.compile(layers(), targets=("sm_90",),
                            out_dir=os.path.join(args.out_dir, "prepared"),
                            prefix=PREFIX + "_prepared", scratch_cap_mib=SCRATCH_CAP_MIB,
                            prepared_weights=True, qmat_aot=args.qmat_aot)
    names = [l.name for l in prepared.layers if l.prepared_weights]
    print(f"prepared bundle in {prepared.directory} (prepared codes: {', '.join(names)})")


if __name__ == "__main__":
    main()
