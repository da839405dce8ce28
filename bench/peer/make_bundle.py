#!/usr/bin/env python3
"""Builds, where qmat is built, what bench/peer/run.sh needs on the GPU
machine: the qmat-aot bundle (prefix `peer`: int4 block 128 with zero points
and mxfp4 block 32, bf16 activations, the example model's layers) and the
gemlite source it is compared with, downloaded with pip and unpacked.

OUT_DIR/           model.mlir, peer.h, peer.manifest.json, peer.cpp (or
                   peer.cpp.gz when large; run.sh unpacks it); the cubin is
                   removed (the launcher embeds it)
OUT_DIR/gemlite/   gemlite's sdist unpacked: PYTHONPATH=OUT_DIR/gemlite
OUT_DIR/peer-bundle.json  what was built, with the sdist's sha256

Usage: make_bundle.py QMAT_AOT OUT_DIR [--shapes=6144x5120,...]
       [--gemlite-sdist=PATH] [-- QMAT_AOT_FLAGS]
e.g. .venv/bin/python bench/peer/make_bundle.py build/bin/qmat-aot .bench-out/peer
     (-- --gemv-split-k=4 --gemv-col-tiles=1 compiles fewer GEMV variants,
     for a smaller launcher)
"""
import argparse
import glob
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench", "prefill"))
from make_bundle import write_bundle  # noqa: E402

PREFIX = "peer"
GEMLITE_VERSION = "0.6.0.post2"
# The example model's layers: qkv, o, gate_up, down and the lm_head.
SHAPES = [(6144, 5120), (5120, 6144), (17408, 5120), (5120, 17408), (248320, 5120)]
SCHEMES = [("int4", 128, True), ("mxfp4", 32, False)]
GZIP_ABOVE = 8 << 20  # bytes of launcher source
CARRY_LIMIT = 64 << 20


def layers(shapes):
    return [(scheme, block, zp, "bf16", n, k) for scheme, block, zp in SCHEMES for n, k in shapes]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch_gemlite(out, sdist=None):
    """gemlite==GEMLITE_VERSION's sdist (downloaded with this interpreter's
    pip unless given), unpacked so that OUT/gemlite/gemlite/ is the package."""
    target = os.path.join(out, "gemlite")
    if sdist is None:
        download = os.path.join(out, "gemlite-dist")
        found = glob.glob(os.path.join(download, f"gemlite-{GEMLITE_VERSION}.tar.gz"))
        if not found:
            os.makedirs(download, exist_ok=True)
            subprocess.run([sys.executable, "-m", "pip", "download", f"gemlite=={GEMLITE_VERSION}",
                            "--no-deps", "--no-binary", ":all:", "-d", download], check=True)
            found = glob.glob(os.path.join(download, f"gemlite-{GEMLITE_VERSION}.tar.gz"))
        if not found:
            sys.exit(f"pip did not leave gemlite-{GEMLITE_VERSION}.tar.gz in {download}")
        sdist = found[0]
    digest = sha256(sdist)
    staging = tempfile.mkdtemp(prefix="gemlite-", dir=out)
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers()
                   if m.isfile() and "/gemlite/" in m.name and not m.name.startswith("/")
                   and ".." not in m.name.split("/")]
        tar.extractall(staging, members=members)
    top = os.path.join(staging, f"gemlite-{GEMLITE_VERSION}")
    package = os.path.join(top, "gemlite")
    if not os.path.isfile(os.path.join(package, "__init__.py")):
        sys.exit(f"{sdist} holds no gemlite/__init__.py")
    with open(os.path.join(package, "__init__.py")) as f:
        if f'__version__ = "{GEMLITE_VERSION}"' not in f.read():
            sys.exit(f"{sdist} is not gemlite {GEMLITE_VERSION}")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    shutil.move(package, os.path.join(target, "gemlite"))
    # vllm/ (a vLLM plugin) is not imported by the package and not used here.
    shutil.rmtree(os.path.join(target, "gemlite", "vllm"), ignore_errors=True)
    shutil.rmtree(staging)
    return {"version": GEMLITE_VERSION, "sdist": os.path.basename(sdist), "sha256": digest,
            "pythonpath": "gemlite"}


def tree_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qmat_aot")
    parser.add_argument("out_dir")
    parser.add_argument("--shapes", default=",".join(f"{n}x{k}" for n, k in SHAPES),
                        help="NxK,... (default: the example model's five layers)")
    parser.add_argument("--gemlite-sdist", default=None,
                        help=f"a gemlite-{GEMLITE_VERSION}.tar.gz already downloaded")
    args = parser.parse_args(argv)
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",") if s]
    out = os.path.abspath(args.out_dir)
    os.makedirs(out, exist_ok=True)

    started = time.time()
    gemlite = fetch_gemlite(out, args.gemlite_sdist)
    print(f"gemlite {gemlite['version']} ({gemlite['sha256'][:16]}...) in {out}/gemlite")

    for stale in glob.glob(os.path.join(out, f"{PREFIX}.*")):
        os.remove(stale)
    write_bundle(args.qmat_aot, out, layers(shapes), flags=extra, prefix=PREFIX)
    for cubin in glob.glob(os.path.join(out, f"{PREFIX}.*.cubin")):
        os.remove(cubin)  # embedded in the launcher
    source = os.path.join(out, f"{PREFIX}.cpp")
    compressed = os.path.getsize(source) > GZIP_ABOVE
    if compressed:
        with open(source, "rb") as f, gzip.open(source + ".gz", "wb", compresslevel=6) as g:
            shutil.copyfileobj(f, g)
        os.remove(source)

    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    info = {"prefix": PREFIX, "shapes": [list(s) for s in shapes],
            "schemes": [{"scheme": s, "block": b, "zero_points": zp, "act": "bf16"}
                        for s, b, zp in SCHEMES],
            "qmat_aot": os.path.abspath(args.qmat_aot), "qmat_aot_flags": extra,
            "commit": commit, "launcher_source": os.path.basename(source)
            + (".gz" if compressed else ""), "gemlite": gemlite,
            "built": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "seconds": round(time.time() - started, 1)}
    with open(os.path.join(out, "peer-bundle.json"), "w") as f:
        json.dump(info, f, indent=2)
    size = tree_size(out)
    print(f"bundle in {out}: {len(shapes) * len(SCHEMES)} layers, {size / 2**20:.1f} MiB "
          f"({'launcher gzipped, ' if compressed else ''}{info['seconds']} s)")
    if size > CARRY_LIMIT:
        print(f"warning: {size / 2**20:.1f} MiB is over the {CARRY_LIMIT >> 20} MiB a GPU machine "
              f"copy takes; rebuild with -- --gemv-split-k=4 --gemv-col-tiles=1", file=sys.stderr)


if __name__ == "__main__":
    main()
