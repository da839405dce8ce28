#!/usr/bin/env python3
"""Builds, where qmat is built (qmat-aot), the bundle that bench/model/run.sh
needs on the GPU machine, which has no MLIR: every distinct layer of the
benchmark model's NVFP4 and GPTQ imports (bench/model/llama.py, the Llama
or with --model qwen3-moe the Qwen3-MoE model; bf16 activations), for sm_90
(or --target), prefix `llama`, named as the importer names them. The imports on the GPU machine are made with bundle=False and run on
this bundle (load_model matches layers by name, else by description).

OUT_DIR/  llama.mlir (the module), llama.h, llama.cpp, llama.manifest.json,
          the cubin, llama-bundle.json (the config and the layers)

Usage: make_bundle.py OUT_DIR [--qmat-aot PATH] [--model llama|qwen3-moe]
       [--target sm_90|sm_90a|...]
(qmat-aot is otherwise found as qmat.find_tool does: $QMAT_BUILD_DIR/bin,
$QMAT_AOT, PATH.) The layer shapes do not depend on the number of decoder
layers, so one bundle serves every --layers of model_bench.py.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import qmat  # noqa: E402
import llama  # noqa: E402

PREFIX = "llama"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--qmat-aot", default=None)
    parser.add_argument("--model", choices=sorted(llama.MODELS), default="llama")
    parser.add_argument("--target", default="sm_90",
                        help="the NVIDIA target (sm_90a: the specialized fused GEMM to M = 256)")
    args = parser.parse_args()
    config = llama.MODELS[args.model]
    layers = llama.bundle_layers(config)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, f"{PREFIX}.mlir"), "w") as f:
        f.write(qmat.emit_module(layers))
    started = time.monotonic()
    bundle = qmat.compile(layers, targets=(args.target,), out_dir=args.out_dir, prefix=PREFIX,
                          qmat_aot=args.qmat_aot)
    seconds = time.monotonic() - started
    print(bundle.summary, end="")
    with open(os.path.join(args.out_dir, f"{PREFIX}-bundle.json"), "w") as f:
        json.dump({"config": config, "model": args.model, "prefix": PREFIX, "targets": bundle.targets,
                   "layers": [l.name for l in bundle.layers], "compile_s": round(seconds, 1)},
                  f, indent=1)
    size = sum(os.path.getsize(os.path.join(args.out_dir, n)) for n in os.listdir(args.out_dir))
    print(f"bundle in {bundle.directory}: {len(bundle.layers)} layers, {size / 2**20:.1f} MiB, "
          f"{seconds:.0f} s")


if __name__ == "__main__":
    main()
