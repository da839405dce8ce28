#!/usr/bin/env python3
"""Replays every input of a fuzz regression corpus through the tools the
fuzz targets stand for (fuzz/README.md): qmat-opt's parse and verify, the
qmat-to-gpu-binary pipeline (PTX text: no ptxas) with the options of the
input's options line, and qmat-aot with the same options. Each run must
end in success or in a diagnostic (exit status 1 with an `error:` line);
a signal, an exit status above 1, a sanitizer report or a failure without
a diagnostic fails the replay.

usage: replay.py <qmat-opt> <qmat-aot> <corpus dir> <scratch dir>
"""
import pathlib
import shlex
import subprocess
import sys

OPTIONS_PREFIX = "// qmat-fuzz-options:"
# qmat-aot's spelling of the pipeline options it shares.
AOT_FLAGS = {"target", "gemv-max-m", "fused-max-m", "fused-variants",
             "scratch-cap-mib", "gemv-split-k", "gemv-col-tiles",
             "prepared-weights"}


def options_of(text):
    if not text.startswith(OPTIONS_PREFIX):
        return []
    return text.split("\n", 1)[0][len(OPTIONS_PREFIX):].split()


def check(name, what, command):
    try:
        result = subprocess.run(command, capture_output=True, text=True,
                                errors="replace", timeout=600)
    except subprocess.TimeoutExpired:
        return f"{name}: {what} did not finish in 600 s"
    err = result.stderr
    if result.returncode < 0 or result.returncode > 1:
        return f"{name}: {what} exited with {result.returncode}\n{err[-4000:]}"
    if "Sanitizer" in err or "runtime error:" in err:
        return f"{name}: {what} reported\n{err[-4000:]}"
    # qmat-aot's own refusals start with its name instead of `error:`.
    if result.returncode == 1 and "error:" not in err and "qmat-aot:" not in err:
        return f"{name}: {what} failed without a diagnostic\n{err[-4000:]}"
    return None


def main():
    qmat_opt, qmat_aot, corpus, scratch = sys.argv[1:5]
    scratch = pathlib.Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    inputs = sorted(pathlib.Path(corpus).glob("*.input"))
    if not inputs:
        print(f"no *.input in {corpus}", file=sys.stderr)
        return 1
    failures = []
    for path in inputs:
        options = options_of(path.read_text(errors="replace"))
        pipeline = " ".join(options + ["format=isa"])
        aot = [f"--{o}" for o in options if o.split("=", 1)[0] in AOT_FLAGS]
        runs = [
            ("parse and verify", [qmat_opt, str(path), "-o", "/dev/null"]),
            ("qmat-to-gpu-binary",
             [qmat_opt, str(path), f"--pass-pipeline=builtin.module(qmat-to-gpu-binary{{{pipeline}}})",
              "-o", "/dev/null"]),
            ("qmat-aot", [qmat_aot, str(path), "-o", str(scratch / path.stem)] + aot),
        ]
        for what, command in runs:
            failure = check(path.name, what, command)
            if failure:
                failures.append(failure + "\n  command: " + shlex.join(command))
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"replayed {len(inputs)} inputs, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
