#!/usr/bin/env python3
"""Compares the kernels two qmat-aot builds generate, kernel by kernel.

A change to the compiler that should not change any kernel (a refactor)
is checked by generating the example bundle and the benchmark bundles with
the qmat-aot before and after it and comparing every kernel's PTX (NVIDIA
targets) and ISA (AMD targets), every cubin, launcher and manifest, byte
for byte.

Usage: compare_kernels.py BEFORE_QMAT_AOT AFTER_QMAT_AOT WORK_DIR [CASE ...]

CASE is one of the names below (default: all of them). For each case the
bundle is generated twice, under WORK_DIR/before/CASE and
WORK_DIR/after/CASE; a second run reuses WORK_DIR/before (delete it to
regenerate; AFTER_QMAT_AOT `-` only generates them). The manifests are compared without the generator's version
(which names the commit). Prints one line per case and per differing kernel, and exits
with 1 when anything differs.

ISA comes from `llvm-objdump -d` of each .hsaco (LLVM_OBJDUMP, default
/usr/lib/llvm-22/bin/llvm-objdump).
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
EXAMPLE = os.path.join(ROOT, "examples", "qwen-like-27b-nvfp4.mlir")
ALL_TARGETS = "sm_80,sm_89,sm_90,sm_90a,sm_100a,sm_120a,gfx942,gfx950"


def example(flags):
    return lambda aot, out: run_aot(aot, out, EXAMPLE, flags)


def bench(script, *args):
    return lambda aot, out: subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", script), aot, out, *args],
        check=True, stdout=subprocess.DEVNULL)


# name -> how to generate it with a qmat-aot that also writes PTX.
CASES = {
    "example": example(["--target=" + ALL_TARGETS]),
    "example-prepared": example(["--target=sm_90,gfx942", "--prepared-weights"]),
    "example-wide": example(["--target=sm_90,gfx942", "--gemv-max-m=64"]),
    "gemv": bench("gemv/make_bundle.py"),
    "gemv-prepared": bench("gemv/make_bundle.py", "--prepared-weights"),
    "fused": bench("fused/make_bundle.py"),
    "fused-warpgroup": bench("fused/make_bundle.py", "--schemes=nvfp4,int4",
                             "--fused-warpgroup-variants=64,4,1,1,64,8,1,2",
                             "--", "--target=sm_90a"),
    "prefill": bench("prefill/make_bundle.py"),
}


def run_aot(aot, out, model, flags):
    os.makedirs(out, exist_ok=True)
    subprocess.run([aot, model, "--quiet", "--prefix=ex", "-o", out] + flags,
                   check=True, stdout=subprocess.DEVNULL)


def with_ptx(aot, work, name):
    """A qmat-aot that always embeds (and so writes) each target's PTX, and
    prints no progress."""
    path = os.path.join(work, name + "-qmat-aot")
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec "%s" "$@" --emit=ptx --quiet\n' % os.path.abspath(aot))
    os.chmod(path, 0o755)
    return path


def split_kernels(text, label):
    """{kernel name: its text} of an assembly listing whose kernels start at
    lines matching `label` (a regex whose group 1 is the name); the text
    before the first kernel is "<header>"."""
    # Split before each label (its group made non-capturing, or re.split
    # would return the names as parts too).
    parts = re.split(r"(?m)^(?=%s)" % re.sub(r"\((?!\?)", "(?:", label), text)
    kernels = {"<header>": parts[0]}
    for part in parts[1:]:
        kernels[re.match(label, part).group(1)] = part
    return kernels


def kernels_of_ptx(path):
    with open(path) as f:
        return split_kernels(f.read(), r"(?:\.visible )?\.entry (\w+)")


def kernels_of_hsaco(path):
    objdump = os.environ.get("LLVM_OBJDUMP", "/usr/lib/llvm-22/bin/llvm-objdump")
    text = subprocess.run([objdump, "-d", "--no-show-raw-insn", path], check=True,
                          capture_output=True, text=True).stdout
    # The listing names its file: drop that line.
    text = "\n".join(line for line in text.splitlines()
                     if not line.endswith("file format elf64-amdgpu"))
    return split_kernels(text, r"[0-9a-f]+ <(\w+)>:")


def manifest(path):
    """The manifest without the generator's version (it names the commit)."""
    with open(path) as f:
        data = json.load(f)
    data.pop("generator_version", None)
    return data


def compare_dirs(before, after):
    """(files compared, kernels compared, [differences])."""
    diffs, files, kernels = [], 0, 0
    names = sorted(set(os.listdir(before)) | set(os.listdir(after)))
    for name in names:
        b, a = os.path.join(before, name), os.path.join(after, name)
        if os.path.isdir(b) or os.path.isdir(a):
            sub = compare_dirs(b, a) if os.path.isdir(b) and os.path.isdir(a) else (0, 0, [name + "/: only on one side"])
            files, kernels = files + sub[0], kernels + sub[1]
            diffs += [name + "/" + d for d in sub[2]]
            continue
        if not (os.path.exists(b) and os.path.exists(a)):
            diffs.append(name + ": only " + ("before" if os.path.exists(b) else "after"))
            continue
        files += 1
        if name.endswith((".ptx", ".hsaco")):
            split = kernels_of_ptx if name.endswith(".ptx") else kernels_of_hsaco
            kb, ka = split(b), split(a)
            kernels += len(set(kb) | set(ka)) - 1
            for k in sorted(set(kb) | set(ka)):
                if kb.get(k) != ka.get(k):
                    diffs.append("%s: %s %s" % (name, k, "differs" if k in kb and k in ka
                                                else "only " + ("before" if k in kb else "after")))
        elif name.endswith(".manifest.json"):
            if manifest(b) != manifest(a):
                diffs.append(name + ": manifest differs")
        elif name.endswith((".cpp", ".h")):
            if open(b, "rb").read() != open(a, "rb").read():
                diffs.append(name + ": launcher source differs")
        elif name.endswith(".cubin"):
            if open(b, "rb").read() != open(a, "rb").read():
                diffs.append(name + ": cubin differs")
    return files, kernels, diffs


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    before_aot, after_aot, work = sys.argv[1:4]
    cases = sys.argv[4:] or list(CASES)
    os.makedirs(work, exist_ok=True)
    failed = False
    for case in cases:
        if case not in CASES:
            sys.exit("unknown case %s (cases: %s)" % (case, ", ".join(CASES)))
        for side, aot in (("before", before_aot), ("after", after_aot)):
            out = os.path.join(work, side, case)
            if aot == "-":
                continue
            if side == "before" and os.path.isdir(out):
                continue
            CASES[case](with_ptx(aot, work, side), out)
        if after_aot == "-":
            print("%-18s generated under %s" % (case, os.path.join(work, "before", case)))
            continue
        files, kernels, diffs = compare_dirs(os.path.join(work, "before", case),
                                             os.path.join(work, "after", case))
        print("%-18s %4d files, %5d kernels: %s" % (
            case, files, kernels, "identical" if not diffs else "%d differences" % len(diffs)))
        for d in diffs:
            print("  " + d)
        failed = failed or bool(diffs)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
