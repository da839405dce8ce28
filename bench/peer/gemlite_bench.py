#!/usr/bin/env python3
"""qmat against gemlite (Triton) in one process: the same int4 (block 128,
zero points) and mxfp4 weights through qmat's launcher, gemlite and, for
scale, cuBLAS bf16 on the dense weights; bf16 activations.

Usage: gemlite_bench.py BUNDLE OUT_JSON [--ms=1,8,...] [options]
       gemlite_bench.py --check-mapping      (numpy only: mapping.py's checks)
       gemlite_bench.py BUNDLE OUT_JSON --dry-run   (the plan, no GPU)

BUNDLE is what bench/peer/make_bundle.py wrote (PYTHONPATH must reach
BUNDLE/gemlite; run.sh sets it). The launcher is compiled here (g++, else
nvcc) while the rest is prepared.

Weights. Per K, a random bf16 weight (normal, sigma 0.05) of up to 17408
rows is quantized once with qmat.reference.quantize (int4 block 128 with
zero points; mxfp4); the lm_head's rows repeat with that period (the
quantization is per row: the same as quantizing the repeated weight).
qmat takes the codes, scales and zero points as they are; gemlite takes
mapping.py's equivalent (int4: GemLiteLinearTriton.pack(W_q, scales,
zeros=float(zp), fma_mode=False), i.e. (W_q - zeros) * scales; mxfp4:
A16W4_MXFP.from_packed_weights on the same packed bytes and e8m0 scales).
The dense bf16 weight for cuBLAS and for the reference is the dequantized
W, computed on the GPU and compared bit for bit with qmat.reference on
sampled rows of every chunk; gemlite's packed operands are compared with
mapping.py's prediction on the first rows of each layer.

gemlite: set_native_atomic_bfp16(False) (split-K sums in fp32), its config
cache reset, its autotune ("fast", gemlite's default) run on the first call
of every M before anything is checked or timed. Its Triton kernels are first
compiled by worker processes in parallel (each config run once, untimed, into
a fresh Triton cache); the autotune proper then runs here with the compiled
kernels, timing each candidate with triton.testing.do_bench shortened to
--autotune-warmup-ms / --autotune-rep-ms.

Checks (per layer and M): fresh random activations, outputs NaN-filled
first (gemlite allocates its own: the blocks it will get are NaN-filled and
freed first; `gemlite_output_poisoned` says whether it got them); relative
Frobenius error of all rows (M <= 64) or 16 sampled rows against the fp64
product of A and the dequantized W; bound 1e-2 (bf16, docs/numerics.md).

Timing: CUDA events around each call, each call queued behind a GPU sleep so
that host overhead is not in the figure (`*_ms`: median of --reps, after
--warmup calls), the three in interleaved rotating order, each through
copies of its weights rotated past the 60 MB L2 (>= --rotate-mib per
rotation); `*_stream_ms`: back-to-back calls between two events (host
overhead included where it exceeds the GPU time), median of 5 batches of 10.
"""
import argparse
import concurrent.futures
import functools
import gzip
import json
import math
import multiprocessing
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, HERE)
import mapping  # noqa: E402
from qmat import reference as R  # noqa: E402

SCHEMES = {"int4": {"block": 128, "zero_points": True}, "mxfp4": {"block": 32, "zero_points": False}}
BOUND = 1e-2
ROW_PERIOD = 17408
QUANT_CHUNK_ROWS = 2048
SAMPLE_ROWS_PER_CHUNK = 8
DEFAULT_MS = "1,8,16,32,64,128,256,1024"
STARTED = time.time()


def log(message):
    print(f"[{time.time() - STARTED:6.1f}s] {message}", flush=True)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bundle", nargs="?")
    p.add_argument("out_json", nargs="?")
    p.add_argument("--ms", default=DEFAULT_MS, help="M values (default %(default)s)")
    p.add_argument("--lm-head-max-m", type=int, default=1024,
                   help="largest M for N = 248320 (default %(default)s)")
    p.add_argument("--schemes", default="int4,mxfp4")
    p.add_argument("--shapes", default="", help="NxK,... to keep (default: every layer)")
    p.add_argument("--reps", type=int, default=20, help="timed calls per kernel (>= 15)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rotate-mib", type=int, default=256,
                   help="bytes of weight copies per rotation, at least (default %(default)s)")
    p.add_argument("--sleep-us", type=float, default=300.0,
                   help="GPU sleep queued before each timed call (default %(default)s)")
    p.add_argument("--warm-workers", type=int, default=None,
                   help="processes compiling gemlite's kernels first (default: CPUs - 4, "
                        "at most 12; 0: none)")
    p.add_argument("--quant-workers", type=int, default=4)
    p.add_argument("--autotune", default="fast", choices=("fast", "default", "max"),
                   help="gemlite's autotune setting (default: gemlite's own, fast)")
    p.add_argument("--autotune-warmup-ms", type=float, default=5.0)
    p.add_argument("--autotune-rep-ms", type=float, default=20.0,
                   help="do_bench's rep per autotune candidate (Triton's default 100; "
                        "0 leaves Triton's benchmarker alone)")
    p.add_argument("--gemlite-fma", action="store_true",
                   help="int4 through pack()'s default fma_mode=True (zeros = bf16(-zp*scale)), "
                        "not qmat's formula")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--compiler", default="auto", help="launcher compiler: auto, g++, nvcc")
    p.add_argument("--triton-cache", default=None,
                   help="TRITON_CACHE_DIR (default: $TRITON_CACHE_DIR, else a fresh directory)")
    p.add_argument("--check-mapping", action="store_true",
                   help="run mapping.py's numpy checks and exit")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    args = p.parse_args(argv)
    if not args.check_mapping and (args.bundle is None or args.out_json is None):
        p.error("BUNDLE and OUT_JSON are required")
    args.ms = sorted({int(m) for m in args.ms.split(",") if m})
    if not args.ms or min(args.ms) < 1:
        p.error("--ms needs positive integers")
    args.schemes = [s for s in args.schemes.split(",") if s]
    for s in args.schemes:
        if s not in SCHEMES:
            p.error(f"unknown scheme {s} (int4, mxfp4)")
    args.shapes = {tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",") if s}
    if args.reps < 15:
        p.error("--reps must be at least 15")
    if args.warm_workers is None:
        args.warm_workers = max(0, min(12, (os.cpu_count() or 4) - 4))
    return args


# --- the plan ------------------------------------------------------------------

def open_bundle(path):
    import qmat
    source = os.path.join(path, "peer.cpp")
    if not os.path.isfile(source) and os.path.isfile(source + ".gz"):
        with gzip.open(source + ".gz", "rb") as f, open(source + ".tmp", "wb") as g:
            shutil.copyfileobj(f, g)
        os.replace(source + ".tmp", source)
    return qmat.Bundle.open(path, "peer")


def manifest_layers(path):
    """The bundle's layers from its manifest alone (no launcher source needed)."""
    from qmat.bundle import LayerInfo
    with open(os.path.join(path, "peer.manifest.json")) as f:
        return [LayerInfo.from_manifest(e) for e in json.load(f)["layers"]]


def plan(args, layers):
    cases = []
    for info in layers:
        if info.scheme not in args.schemes or info.act != "bf16":
            continue
        if args.shapes and (info.n, info.k) not in args.shapes:
            continue
        want = SCHEMES[info.scheme]
        if info.block != want["block"] or info.zero_points != want["zero_points"]:
            continue
        ms = [m for m in args.ms if info.n != 248320 or m <= args.lm_head_max_m]
        cases.append({"scheme": info.scheme, "n": info.n, "k": info.k, "block": info.block,
                      "layer": info.name, "ms": ms})
    order = {s: i for i, s in enumerate(args.schemes)}
    cases.sort(key=lambda c: (order[c["scheme"]], c["n"] * c["k"]))
    return cases


def base_rows(cases):
    """Rows of the random weight quantized per (scheme, K)."""
    rows = {}
    for c in cases:
        key = (c["scheme"], c["k"])
        rows[key] = max(rows.get(key, 0), min(c["n"], ROW_PERIOD))
    return rows


def gemlite_kind(scheme, m):
    """gemlite.core.get_matmul_type's choice (W_nbits 4)."""
    if m >= 64:
        return "GEMM"
    if scheme == "mxfp4" or m > 4:
        return "GEMM_SPLITK"
    return "GEMV_REVSPLITK"


def warm_tasks(cases):
    """(scheme, n, k, block, ms) groups of M that share gemlite kernels."""
    tasks = []
    for c in cases:
        groups = {}
        for m in c["ms"]:
            kind = gemlite_kind(c["scheme"], m)
            group = (kind, "m1" if m == 1 else "m8" if m % 16 else "m16")
            if kind == "GEMM":
                group = (kind,)
            groups.setdefault(group, []).append(m)
        for ms in groups.values():
            tasks.append((c["scheme"], c["n"], c["k"], c["block"], tuple(ms)))
    tasks.sort(key=lambda t: -t[1] * t[2])  # the lm_head first
    return tasks


# --- quantization (numpy workers) -------------------------------------------------

def quantize_chunk(scheme, k, block, row0, rows, seed):
    rng = np.random.default_rng([seed, k, row0])
    w = rng.standard_normal((rows, k), dtype=np.float32) * np.float32(0.05)
    w = R.to_float32(R.round_to_act(w, "bf16"), "bf16")
    q = R.quantize(scheme, w, "bf16", block=block, zero_points=SCHEMES[scheme]["zero_points"])
    sample = min(SAMPLE_ROWS_PER_CHUNK, rows)
    ref = R.dequantize(scheme, q["weights"][:sample], q["scales"][:sample], k, "bf16",
                       block=block,
                       zero_points=None if "zero_points" not in q else q["zero_points"][:sample])
    return {"row0": row0, "weights": q["weights"], "scales": q["scales"],
            "zero_points": q.get("zero_points"), "sample": ref}


def assemble(chunks, rows):
    chunks = sorted(chunks, key=lambda c: c["row0"])
    out = {name: np.concatenate([c[name] for c in chunks])
           for name in ("weights", "scales") }
    out["zero_points"] = (None if chunks[0]["zero_points"] is None
                          else np.concatenate([c["zero_points"] for c in chunks]))
    out["samples"] = [(c["row0"], c["sample"]) for c in chunks]
    assert out["weights"].shape[0] == rows
    return out


# --- gemlite -------------------------------------------------------------------

def import_gemlite():
    try:
        import tqdm  # noqa: F401  (gemlite.helper imports it; not used here)
    except ImportError:
        stub = types.ModuleType("tqdm")
        stub.tqdm = lambda iterable=None, *a, **k: iterable
        sys.modules["tqdm"] = stub
    import gemlite
    return gemlite


def configure_gemlite(settings, bench):
    """gemlite with this benchmark's settings; `bench` is "once" (each
    autotune candidate run once, untimed: compile only) or (warmup_ms, rep_ms)
    or None (Triton's own benchmarker)."""
    os.environ["TRITON_CACHE_AUTOTUNING"] = "0"
    import torch
    import triton
    import triton.testing
    gemlite = import_gemlite()
    gemlite.set_native_atomic_bfp16(False)
    gemlite.reset_config()
    if settings["autotune"] != "fast":
        gemlite.set_autotune(settings["autotune"])
    from triton.runtime import autotuner
    patched = None
    if bench is not None and hasattr(autotuner.Autotuner, "do_bench"):
        if bench == "once":
            def run_once(fn, quantiles=None, **_):
                fn()
                torch.cuda.synchronize()
                return [1.0, 1.0, 1.0] if quantiles else 1.0
            bencher = run_once
            patched = "each candidate run once (compile only)"
        else:
            bencher = functools.partial(triton.testing.do_bench, warmup=bench[0], rep=bench[1])
            patched = f"triton.testing.do_bench(warmup={bench[0]}, rep={bench[1]})"
        autotuner.Autotuner.do_bench = property(lambda self: bencher)
    return gemlite, patched


def make_gemlite(gemlite, torch, scheme, codes, scales, zero_points, n, k, block, fma):
    """A gemlite layer holding qmat's weights in gemlite's representation;
    returns (module, tensor_args, meta_args)."""
    if scheme == "int4":
        groups = k // block
        w_q = torch.stack((codes & 15, codes >> 4), dim=-1).reshape(n, k)
        zeros = torch.stack((zero_points & 15, zero_points >> 4), dim=-1).reshape(n, -1)
        zeros = zeros[:, :groups].to(torch.bfloat16)
        layer = gemlite.GemLiteLinearTriton(4, group_size=block, in_features=k, out_features=n,
                                            input_dtype=gemlite.DType.BF16,
                                            output_dtype=gemlite.DType.BF16)
        layer.pack(w_q, scales, zeros, bias=None, fma_mode=fma)
        del w_q
    else:
        helper = gemlite.helper.A16W4_MXFP(device=str(codes.device), dtype=torch.bfloat16)
        layer = helper.from_packed_weights(codes, scales.view(torch.float8_e8m0fnu))
    return layer, layer.get_tensor_args(), layer.get_meta_args()


_WORKER = {}


def warm_init(settings):
    os.environ.update(settings["env"])
    import torch
    torch.cuda.init()
    gemlite, _ = configure_gemlite(settings, "once")
    _WORKER.update(torch=torch, gemlite=gemlite, settings=settings)


def warm_task(task):
    scheme, n, k, block, ms = task
    torch, gemlite = _WORKER["torch"], _WORKER["gemlite"]
    started = time.time()
    try:
        gen = torch.Generator(device="cuda").manual_seed(1)
        codes = torch.randint(0, 256, (n, k // 2), dtype=torch.uint8, device="cuda", generator=gen)
        if scheme == "int4":
            scales = (torch.rand(n, k // block, device="cuda", generator=gen) * 0.01 + 1e-3)
            scales = scales.to(torch.bfloat16)
            zp = torch.randint(0, 256, (n, -(-(k // block) // 2)), dtype=torch.uint8,
                               device="cuda", generator=gen)
        else:
            scales = torch.randint(118, 124, (n, k // block), dtype=torch.uint8, device="cuda",
                                   generator=gen)
            zp = None
        _, targs, margs = make_gemlite(gemlite, torch, scheme, codes, scales, zp, n, k, block,
                                       _WORKER["settings"]["fma"])
        for m in ms:
            x = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
            gemlite.forward_functional(x, None, targs, margs)
        torch.cuda.synchronize()
        error = None
    except Exception as e:  # recorded; the main process meets it again and records it
        error = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"
    finally:
        torch.cuda.empty_cache()
    return {"task": [scheme, n, k, list(ms)], "seconds": round(time.time() - started, 1),
            "error": error}


# --- the GPU side --------------------------------------------------------------------

def build_launcher(bundle, compiler, result):
    import qmat
    output = os.path.join(tempfile.mkdtemp(prefix="qmat-peer-"), f"lib{bundle.prefix}.so")
    attempts = [None, "nvcc"] if compiler == "auto" else [compiler]
    failures = []
    for attempt in attempts:
        started = time.time()
        try:
            bundle.build_library(output=output, compiler=attempt)
            result.update(path=output, compiler=attempt or "default (g++/c++)",
                          seconds=round(time.time() - started, 1), failed_attempts=failures)
            return
        except qmat.QMatError as e:
            failures.append(f"{attempt or 'default'}: {e}"
                            + (f"\n{e.stderr[-2000:]}" if getattr(e, "stderr", "") else ""))
    result.update(path=None, failed_attempts=failures)


class Timer:
    """Interleaved CUDA-event timing of several callables, each through its
    own rotation of weight copies."""

    def __init__(self, torch, sleep_cycles):
        self.torch = torch
        self.sleep_cycles = sleep_cycles

    def sleep(self):
        if self.sleep_cycles:
            self.torch.cuda._sleep(self.sleep_cycles)

    def run(self, calls, reps, warmup):
        torch = self.torch
        names = list(calls)
        for i in range(warmup):
            for name in names:
                calls[name][i % len(calls[name])]()
        torch.cuda.synchronize()
        events = {name: [] for name in names}
        for r in range(reps):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                copies = calls[name]
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                self.sleep()
                start.record()
                copies[r % len(copies)]()
                stop.record()
                events[name].append((start, stop))
        torch.cuda.synchronize()
        gpu = {name: statistics.median(a.elapsed_time(b) for a, b in events[name])
               for name in names}
        stream = {}
        for name in names:
            copies = calls[name]
            batches = []
            for b in range(5):
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                start.record()
                for i in range(10):
                    copies[(b * 10 + i) % len(copies)]()
                stop.record()
                batches.append((start, stop))
            torch.cuda.synchronize()
            stream[name] = statistics.median(a.elapsed_time(b) / 10 for a, b in batches)
        return gpu, stream


def dequantize_gpu(torch, scheme, codes, scales, zero_points, n, k, block, chunk=16384):
    """qmat.reference.dequantize on the GPU: rne((q - zp) * s) and
    rne(e2m1 * 2^(e - 127)), computed in fp32 and rounded once to bf16."""
    out = torch.empty((n, k), dtype=torch.bfloat16, device=codes.device)
    e2m1 = torch.tensor(R.E2M1_VALUES, dtype=torch.float32, device=codes.device)
    e8m0 = torch.tensor(R.E8M0_VALUES, dtype=torch.float32, device=codes.device)
    groups = k // block
    for r0 in range(0, n, chunk):
        c = codes[r0:r0 + chunk]
        q = torch.stack((c & 15, c >> 4), dim=-1).reshape(c.shape[0], k)
        if scheme == "int4":
            z = zero_points[r0:r0 + chunk]
            zp = torch.stack((z & 15, z >> 4), dim=-1).reshape(c.shape[0], -1)[:, :groups]
            s = scales[r0:r0 + chunk].float().repeat_interleave(block, dim=1)
            w = (q.float() - zp.float().repeat_interleave(block, dim=1)) * s
        else:
            s = e8m0[scales[r0:r0 + chunk].long()].repeat_interleave(block, dim=1)
            w = e2m1[q.long()] * s
        out[r0:r0 + chunk] = w.to(torch.bfloat16)
    return out


def rel_error(torch, y, ref, rows):
    d = y[rows].double() - ref
    return float(torch.linalg.norm(d) / torch.linalg.norm(ref))


def reference_rows(torch, x, w, rows, chunk=32768):
    x64 = x[rows].double()
    out = torch.empty((len(rows), w.shape[0]), dtype=torch.float64, device=x.device)
    for n0 in range(0, w.shape[0], chunk):
        out[:, n0:n0 + chunk] = x64 @ w[n0:n0 + chunk].double().T
    return out


def copies_for(nbytes, rotate):
    return int(min(64, max(2, math.ceil(rotate / max(nbytes, 1)))))


def run_case(ctx, case, base):
    torch, gemlite, lib, args = ctx["torch"], ctx["gemlite"], ctx["lib"], ctx["args"]
    scheme, n, k, block = case["scheme"], case["n"], case["k"], case["block"]
    info = lib.layer(case["layer"])
    dev = torch.device("cuda")
    rows_base = base["weights"].shape[0]
    idx = torch.arange(n, device=dev) % rows_base
    codes = torch.from_numpy(base["weights"]).to(dev)[idx].contiguous()
    if scheme == "int4":
        scales = torch.from_numpy(base["scales"].view(np.int16)).to(dev).view(torch.bfloat16)
        scales = scales[idx].contiguous()
        zp = torch.from_numpy(base["zero_points"]).to(dev)[idx].contiguous()
    else:
        scales = torch.from_numpy(base["scales"]).to(dev)[idx].contiguous()
        zp = None
    record = {"scheme": scheme, "n": n, "k": k, "block": block, "layer": case["layer"],
              "row_period": rows_base if n > rows_base else None}

    # The dense weight, and its check against qmat.reference's samples.
    dense = dequantize_gpu(torch, scheme, codes, scales, zp, n, k, block)
    checked = differing = 0
    for row0, sample in base["samples"]:
        if row0 >= n:
            continue
        got = dense[row0:row0 + sample.shape[0]].view(torch.int16).cpu().numpy().view(np.uint16)
        checked += sample.shape[0]
        differing += mapping._same_bits(got, sample[:got.shape[0]])
    record["dense_rows_checked_against_reference"] = checked
    record["dense_elements_differing"] = differing

    # gemlite's layer from the same tensors, and its operands against mapping.py.
    gl_error = None
    try:
        layer, targs, margs = make_gemlite(gemlite, torch, scheme, codes, scales, zp, n, k,
                                           block, args.gemlite_fma)
        record["gemlite_layout_matches_mapping"] = check_gemlite_layout(
            torch, scheme, layer, codes, scales, zp, k, block, args.gemlite_fma)
    except Exception as e:
        gl_error = f"{type(e).__name__}: {e}"
        layer = targs = margs = None
    record["gemlite_error"] = gl_error

    # Rotation copies.
    q_bytes = codes.numel() + scales.numel() * scales.element_size() + (
        0 if zp is None else zp.numel())
    cq = copies_for(q_bytes, args.rotate_mib << 20)
    cd = copies_for(dense.numel() * 2, args.rotate_mib << 20)
    q_sets = [(codes, scales, zp)] + [tuple(None if t is None else t.clone() for t in (codes, scales, zp))
                                      for _ in range(cq - 1)]
    g_sets = []
    if targs is not None:
        g_sets = [targs] + [[t.clone() for t in targs[:3]] + list(targs[3:]) for _ in range(cq - 1)]
    d_sets = [dense] + [dense.clone() for _ in range(cd - 1)]
    record["copies"] = {"quantized": cq, "dense": cd,
                        "quantized_set_mib": round(q_bytes / 2**20, 1)}

    ms = case["ms"]
    need = lib.workspace_size(info, max(ms))
    storage = torch.empty(need + 256, dtype=torch.uint8, device=dev)
    off = -storage.data_ptr() % 256
    workspace = storage[off:off + need]
    entry = lib.entry(info)
    stream = torch.cuda.current_stream().cuda_stream

    import qmat.torch as qt

    # gemlite's autotune, one M at a time.
    autotune_s, gemlite_failed = {}, {}
    if targs is not None:
        for m in ms:
            x = torch.randn(m, k, device=dev).to(torch.bfloat16)
            t0 = time.time()
            try:
                gemlite.forward_functional(x, None, targs, margs)
                torch.cuda.synchronize()
            except Exception as e:
                gemlite_failed[m] = f"{type(e).__name__}: {e}"
                log(f"{scheme} {n}x{k} M={m}: gemlite failed: {gemlite_failed[m]}")
                continue
            autotune_s[m] = round(time.time() - t0, 2)
    timer = Timer(torch, ctx["sleep_cycles"])
    results = []
    gen = torch.Generator(device=dev).manual_seed(args.seed + n + k)
    strategy = info.strategy
    for m in ms:
        r = {"scheme": scheme, "n": n, "k": k, "m": m, "error": None,
             "gemlite_error": gemlite_failed.get(m)}
        use_g = bool(g_sets) and m not in gemlite_failed
        try:
            r.update({"layer": case["layer"], "bound": BOUND,
                      "qmat_path": ("gemv" if m <= strategy.get("gemv_max_m", 0) else "fused"
                               if m <= strategy.get("fused_max_m", 0) else "dequant+cublaslt"),
                 "gemlite_kernel": gemlite.core.get_matmul_type(m, 4, scheme == "mxfp4")
                 if use_g else None,
                 "gemlite_autotune_s": autotune_s.get(m)})
            x = torch.randn(m, k, device=dev, generator=gen).to(torch.bfloat16)
            rows = list(range(m)) if m <= 64 else sorted(
                {0, m - 1} | set(torch.randperm(m, generator=torch.Generator().manual_seed(m))[:14].tolist()))
            ref = reference_rows(torch, x, dense, rows)
            # qmat
            y = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device=dev)
            qt.run_layer(lib, info, x, codes, scales, None, zp, None, out=y, workspace=workspace)
            torch.cuda.synchronize()
            r["qmat_rel_error"] = rel_error(torch, y, ref, rows)
            r["qmat_nan"] = bool(torch.isnan(y).any())
            del y
            # cuBLAS bf16 on the dense weight
            y = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device=dev)
            torch.matmul(x, dense.T, out=y)
            torch.cuda.synchronize()
            r["cublas_rel_error"] = rel_error(torch, y, ref, rows)
            r["cublas_nan"] = bool(torch.isnan(y).any())
            del y
            # gemlite, into NaN-filled blocks where its allocations land
            if use_g:
                try:
                    y = None
                    p32 = torch.full((m * n,), float("nan"), dtype=torch.float32, device=dev)
                    p16 = torch.full((m * n,), float("nan"), dtype=torch.bfloat16, device=dev)
                    poisoned = {p32.data_ptr(), p16.data_ptr()}
                    del p32, p16
                    y = gemlite.forward_functional(x, None, targs, margs)
                    torch.cuda.synchronize()
                    r["gemlite_output_poisoned"] = y.data_ptr() in poisoned
                    r["gemlite_rel_error"] = rel_error(torch, y, ref, rows)
                    r["gemlite_nan"] = bool(torch.isnan(y).any())
                    kernels = gemlite.core.GEMLITE_TRITON_MAPPING[r["gemlite_kernel"]].kernel
                    kern = kernels[0] if scheme == "int4" else kernels[-1]
                    r["gemlite_config"] = str(getattr(kern, "best_config", None))
                except Exception as e:
                    r["gemlite_error"] = f"{type(e).__name__}: {e}"
                    use_g = False
                del y
            r["rows_checked"] = len(rows)
            r["pass"] = (r["qmat_rel_error"] <= BOUND and not r["qmat_nan"]
                         and (not use_g or (r["gemlite_rel_error"] <= BOUND and not r["gemlite_nan"])))
            del ref

            # timing
            def qmat_call(s, y_out):
                w, sc, z = s
                status = entry.run(stream, m, x.data_ptr(), w.data_ptr(), sc.data_ptr(), None,
                                   None if z is None else z.data_ptr(), None, y_out.data_ptr(),
                                   workspace.data_ptr(), need)
                if status:
                    raise lib.error(info, status)

            y_q = torch.empty((m, n), dtype=torch.bfloat16, device=dev)
            y_c = torch.empty((m, n), dtype=torch.bfloat16, device=dev)
            calls = {"qmat": [functools.partial(qmat_call, s, y_q) for s in q_sets],
                     "cublas_bf16": [functools.partial(torch.matmul, x, w.T, out=y_c) for w in d_sets]}
            if use_g:
                calls["gemlite"] = [functools.partial(gemlite.forward_functional, x, None, t, margs)
                                    for t in g_sets]
            gpu, strm = timer.run(calls, args.reps, args.warmup)
            r["qmat_ms"] = gpu["qmat"]
            r["gemlite_ms"] = gpu.get("gemlite")
            r["cublas_bf16_ms"] = gpu["cublas_bf16"]
            r["qmat_stream_ms"] = strm["qmat"]
            r["gemlite_stream_ms"] = strm.get("gemlite")
            r["cublas_bf16_stream_ms"] = strm["cublas_bf16"]
            r["fused_over_peer"] = r["qmat_ms"] / r["gemlite_ms"] if r["gemlite_ms"] else None
            r["fused_over_cublas_bf16"] = r["qmat_ms"] / r["cublas_bf16_ms"]
            r["peer_over_cublas_bf16"] = (r["gemlite_ms"] / r["cublas_bf16_ms"]
                                          if r["gemlite_ms"] else None)
            del y_q, y_c, calls
        except Exception as e:  # recorded; the other cases still run
            r["error"] = f"{type(e).__name__}: {e}"
            r["pass"] = False
            log(f"{scheme} {n}x{k} M={m}: {r['error']}")
        results.append(r)
        g = (f"gemlite {r['gemlite_ms'] * 1e3:8.1f} us err {r['gemlite_rel_error']:.1e} "
             f"({r['gemlite_kernel']})" if use_g else "gemlite -")
        log(f"{scheme} {n}x{k} M={m:<5} qmat {r['qmat_ms'] * 1e3:8.1f} us err "
            f"{r['qmat_rel_error']:.1e} ({r['qmat_path']}) | {g} | cuBLAS "
            f"{r['cublas_bf16_ms'] * 1e3:8.1f} us | qmat/gemlite "
            f"{r['fused_over_peer'] or float('nan'):.2f} {'ok' if r['pass'] else 'FAIL'}")
    del q_sets, g_sets, d_sets, dense, codes, scales, zp, layer, targs
    torch.cuda.empty_cache()
    return record, results


def check_gemlite_layout(torch, scheme, layer, codes, scales, zp, k, block, fma, rows=256):
    """gemlite's packed operands (first `rows` rows) against mapping.py."""
    c = codes[:rows].cpu().numpy()
    if scheme == "int4":
        s = scales[:rows].view(torch.int16).cpu().numpy().view(np.uint16)
        z = zp[:rows].cpu().numpy()
        w_q, s_bits, z_bits = mapping.int4_operands(c, s, z, k, block)
        if fma:
            z_bits = mapping.int4_fma_zeros(s_bits, z_bits)
        want_w = mapping.int4_pack(w_q, 32)
        got_w = layer.W_q[:, :rows].contiguous().cpu().numpy().view(np.uint32)
        got_s = layer.scales[:, :rows].contiguous().view(torch.int16).cpu().numpy().view(np.uint16)
        got_z = layer.zeros[:, :rows].contiguous().view(torch.int16).cpu().numpy().view(np.uint16)
        return bool(np.array_equal(got_w, want_w) and np.array_equal(got_s, mapping.int4_meta(s_bits))
                    and np.array_equal(got_z, mapping.int4_meta(z_bits)))
    w_mem, s_t = mapping.mxfp4_layout(c, scales[:rows].cpu().numpy())
    n = layer.W_q.shape[1]
    ok = tuple(layer.W_q.stride()) == (1, k // 2) and tuple(layer.scales.stride()) == (1, n)
    got_w = layer.W_q.t()[:rows].cpu().numpy()
    got_s = layer.scales[:rows].cpu().numpy()
    return bool(ok and np.array_equal(got_w, c) and np.array_equal(got_s.T, s_t))


# --- main ------------------------------------------------------------------------------

def main():
    args = parse_args()
    if args.check_mapping:
        report = mapping.run_checks()
        print(json.dumps(report, indent=2))
        sys.exit(0 if report["pass"] else 1)

    cases = plan(args, manifest_layers(args.bundle))
    tasks = warm_tasks(cases)
    rows = base_rows(cases)
    if not cases:
        sys.exit(f"no layer of {args.bundle} matches --schemes / --shapes")
    if args.dry_run:
        for c in cases:
            print(f"{c['scheme']:6} {c['n']:>7}x{c['k']:<6} {c['layer']:28} M = {c['ms']}")
        print(f"quantized weights per (scheme, K): {rows}")
        print(f"{len(tasks)} kernel-compile tasks over {args.warm_workers} processes")
        return

    bundle = open_bundle(args.bundle)
    triton_cache = args.triton_cache or os.environ.get("TRITON_CACHE_DIR") or tempfile.mkdtemp(
        prefix="qmat-peer-triton-")
    gemlite_path = os.path.join(os.path.abspath(args.bundle), "gemlite")
    sys.path.insert(0, gemlite_path)
    env = {"TRITON_CACHE_DIR": triton_cache, "TRITON_CACHE_AUTOTUNING": "0",
           "PYTHONPATH": os.pathsep.join(p for p in (gemlite_path, os.path.join(REPO, "python"),
                                                     os.environ.get("PYTHONPATH")) if p)}
    os.environ.update(env)
    settings = {"env": env, "autotune": args.autotune, "fma": args.gemlite_fma}
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
              "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
              "bundle": os.path.abspath(args.bundle), "seed": args.seed, "ms": args.ms,
              "reps": args.reps, "warmup": args.warmup, "rotate_mib": args.rotate_mib,
              "bound": BOUND, "triton_cache": triton_cache,
              "gemlite_int4_mode": "fma_mode=True (W_group_mode 4)" if args.gemlite_fma
              else "fma_mode=False (W_group_mode 3: (W_q - zeros) * scales)"}
    bundle_info = os.path.join(args.bundle, "peer-bundle.json")
    if os.path.isfile(bundle_info):
        with open(bundle_info) as f:
            report["bundle_info"] = json.load(f)

    launcher = {}
    builder = threading.Thread(target=build_launcher, args=(bundle, args.compiler, launcher))
    builder.start()
    log(f"compiling the launcher; {len(cases)} layers, {len(tasks)} gemlite compile tasks over "
        f"{args.warm_workers} processes; quantizing {rows}")

    spawn = multiprocessing.get_context("spawn")
    quant_pool = concurrent.futures.ProcessPoolExecutor(max_workers=args.quant_workers,
                                                        mp_context=spawn)
    quant_futures = {}
    for (scheme, k), n_rows in rows.items():
        block = SCHEMES[scheme]["block"]
        quant_futures[(scheme, k)] = [
            quant_pool.submit(quantize_chunk, scheme, k, block, r0,
                              min(QUANT_CHUNK_ROWS, n_rows - r0), args.seed)
            for r0 in range(0, n_rows, QUANT_CHUNK_ROWS)]
    warm_pool = None
    warm_futures = []
    if args.warm_workers > 0 and tasks:
        warm_pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=args.warm_workers, mp_context=spawn, initializer=warm_init,
            initargs=(settings,))
        warm_futures = [warm_pool.submit(warm_task, t) for t in tasks]

    bases = {key: assemble([f.result() for f in futures], rows[key])
             for key, futures in quant_futures.items()}
    quant_pool.shutdown()
    log("weights quantized")
    warm = []
    for i, f in enumerate(concurrent.futures.as_completed(warm_futures)):
        try:
            w = f.result()
        except Exception as e:  # a worker that died (the pool is then broken)
            w = {"task": None, "seconds": None, "error": f"{type(e).__name__}: {e}"}
        warm.append(w)
        if (i + 1) % 5 == 0 or i + 1 == len(warm_futures) or w["error"]:
            log(f"gemlite kernels compiled: {i + 1} of {len(warm_futures)} tasks"
                + (f" ({w['task']}: {w['error']})" if w["error"] else ""))
    if warm_pool is not None:
        warm_pool.shutdown()
    report["gemlite_compile_tasks"] = warm
    report["gemlite_compile_s"] = round(time.time() - STARTED, 1)
    builder.join()
    report["launcher_build"] = launcher
    if not launcher.get("path"):
        sys.exit("could not build the launcher:\n" + "\n".join(launcher["failed_attempts"]))
    log(f"launcher built ({launcher['seconds']} s, {launcher['compiler']})")

    import torch
    import triton
    from qmat.launcher import Library
    torch.cuda.init()
    lib = Library(launcher["path"], bundle)
    bench = None if args.autotune_rep_ms <= 0 else (args.autotune_warmup_ms, args.autotune_rep_ms)
    gemlite, patched = configure_gemlite(settings, bench)
    props = torch.cuda.get_device_properties(0)
    clock_khz = getattr(props, "clock_rate", 0) or 1980000
    sleep_cycles = int(args.sleep_us * clock_khz / 1e3) if hasattr(torch.cuda, "_sleep") else 0
    report.update({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                   "torch_cuda": torch.version.cuda, "triton": triton.__version__,
                   "gemlite": gemlite.__version__, "python": platform.python_version(),
                   "gemlite_autotune": args.autotune, "gemlite_autotune_bench": patched
                   or "Triton's default benchmarker",
                   "gemlite_native_atomic_bfp16": False, "sleep_cycles": sleep_cycles,
                   "torch_bf16_reduced_precision_reduction":
                   torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
                   "mapping_check": mapping.check_layouts(n=64, k=1024)})
    ctx = {"torch": torch, "gemlite": gemlite, "lib": lib, "args": args,
           "sleep_cycles": sleep_cycles}
    layers, records = [], []
    with torch.no_grad():
        for case in cases:
            log(f"{case['scheme']} {case['n']}x{case['k']}: weights, gemlite autotune, checks, timing")
            layer, results = run_case(ctx, case, bases[(case["scheme"], case["k"])])
            layers.append(layer)
            records.extend(results)
    out_dir = os.path.dirname(os.path.abspath(args.out_json))
    os.makedirs(out_dir, exist_ok=True)
    try:
        gemlite.cache_config(os.path.join(out_dir, "gemlite_configs.json"))
    except Exception as e:
        report["gemlite_cache_config_error"] = str(e)
    report["layers"] = layers
    report["records"] = records
    report["all_pass"] = all(r["pass"] for r in records) and all(
        l["dense_elements_differing"] == 0 and l.get("gemlite_layout_matches_mapping", True)
        is not False for l in layers)
    report["gemlite_ran_everywhere"] = all(r.get("gemlite_ms") is not None for r in records)
    report["seconds"] = round(time.time() - STARTED, 1)
    with open(args.out_json, "w") as f:
        json.dump(report, f, indent=2)
    lib.unload()
    log(f"all within bounds: {report['all_pass']}; gemlite ran everywhere: "
        f"{report['gemlite_ran_everywhere']} -> {args.out_json}")
    sys.exit(0 if report["all_pass"] else 1)


if __name__ == "__main__":
    main()
