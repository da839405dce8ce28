#!/usr/bin/env python3
"""Writes the fuzzers' seed inputs: every *.mlir of test/ and examples/,
split at `// -----` as qmat-opt -split-input-file does, with its comment
lines dropped (short inputs keep the mutation rate high). A file whose RUN
lines pass options to qmat-to-gpu-binary gives each piece twice: bare, and
behind an options line (fuzz/FuzzCommon.h) with those options.

usage: make_seeds.py <source root> <output dir>
"""
import hashlib
import pathlib
import re
import sys

OPTIONS_PREFIX = "// qmat-fuzz-options:"
PIPELINE_OPTIONS = re.compile(r"qmat-to-gpu-binary\{([^}]*)\}")


def pieces(text):
    for piece in re.split(r"^// -----.*$", text, flags=re.M):
        lines = [l for l in piece.splitlines() if not l.lstrip().startswith("//")]
        body = "\n".join(l for l in lines).strip()
        if body:
            yield body + "\n"


def main():
    root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted(list(root.glob("test/**/*.mlir")) +
                       list(root.glob("examples/**/*.mlir"))):
        text = path.read_text()
        options = set()
        for match in PIPELINE_OPTIONS.finditer(text):
            # The fuzz targets never serialize: a format is meaningless.
            kept = [o for o in match.group(1).split() if not o.startswith("format=")]
            options.add(" ".join(kept))
        for body in pieces(text):
            seeds = [body] + [f"{OPTIONS_PREFIX} {o}\n{body}" for o in sorted(options) if o]
            for seed in seeds:
                name = hashlib.sha1(seed.encode()).hexdigest()
                (out / name).write_text(seed)
                count += 1
    print(f"{count} seeds in {out}")


if __name__ == "__main__":
    main()
