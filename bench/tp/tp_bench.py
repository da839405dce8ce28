#!/usr/bin/env python3
"""Tensor-parallel qmat layers (qmat.torch_parallel) against one GPU running
the whole layer: the example model's layers (bench/tp/prepare.py's bundle),
nvfp4 and int4, bf16, M = 1, 16, 1024.

Usage: tp_bench.py dist BUNDLE OUT_JSON [--gpus 2] [options]
       tp_bench.py single BUNDLE OUT_JSON [options]
       tp_bench.py compare A_JSON B_JSON
       tp_bench.py cpu-check OUT_JSON

dist    one process per GPU (torch.multiprocessing spawn, NCCL; run.sh sets
        NCCL_NVLS_ENABLE=0). Per layer and M, every rank builds the whole
        layer and its own shard from the same host tensors (qmat.parallel's
        plan; rank 0 also builds every other rank's shard on its GPU):
        * column-parallel (qkv, gate_up), gather_output=True: the gathered
          [M, N] against the shards' outputs put in place on the host (bit
          for bit, required) and against the whole layer: bit for bit with
          the launcher's own variant choice (recorded: a shard of N/2 rows
          may take another GEMV split-K or fused tiling than the whole
          layer, which changes the order of fp32 additions) and with the
          same compiled variant pinned for both (<prefix>_set_gemv_override
          / _set_fused_override, required; M = 1024 runs cuBLASLt, which
          has no such switch: recorded);
        * row-parallel (o, down), input already split along K, both
          reductions: bit for bit the host's fp32 rank-order sum of the
          shards' partials (required), within the bf16 bound (relative
          Frobenius error 1e-2) of the whole layer, "ordered" and
          "all_reduce" the same bits at tp = 2;
        * the MLP block down(silu(gate(x)) * up(x)) (gate and up of the
          gate_up shape, two weight sets) within the bound of the whole
          block on one GPU;
        * every output twice, bit for bit; digests of every output in the
          JSON (`compare` checks two runs' digests);
        * errors against an fp64 product on `--reference-rows` sampled
          output features (host-dequantized with qmat.reference);
        * time: the whole layer on each GPU alone against the TP layer,
          CUDA events around batches of --calls calls, the ranks started
          together each batch (barrier), median of --rounds batches;
          `shard_us` is the rank's local matmul alone.
single  one GPU: every shard's layer run on it in turn and the results
        combined on the host as the ranks combine them (gather / fp32
        rank-order sum, qmat.parallel), against the whole layer; the GPU's
        own ordered_sum of the same partials must equal the host's bit for
        bit. Times are the whole layer and one shard alone (every shard has
        the same shape; no collective).
cpu-check  the script's logic on the CPU, two gloo processes, the kernels
        stood in for (python/tests/tp_workers.StandIn) and the shapes
        divided by 4: its timings mean nothing.
"""
import argparse
import ctypes
import hashlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
import warnings
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))

import numpy as np  # noqa: E402

import qmat  # noqa: E402
from qmat import parallel as par  # noqa: E402
from qmat import reference as ref  # noqa: E402
from qmat import shard as sh  # noqa: E402

M_VALUES = (1, 16, 1024)
BOUND = par.BOUNDS["bf16"]


# --- data ---------------------------------------------------------------------------

def seed_of(*parts):
    return zlib.crc32("/".join(map(str, parts)).encode())


def whole_tensors(layer, seed):
    """Finite random tensors of the whole layer, outputs of order one for
    x ~ N(0, 1): nvfp4 e4m3 scales 1/8..1 under a global 0.7/sqrt(K);
    int4 scales 1/(13 sqrt K)..2/(13 sqrt K) with random zero points."""
    rng = np.random.default_rng(seed)
    n, k, cols = layer.n, layer.k, layer.scale_cols
    t = {"weights": rng.integers(0, 256, (n, k // 2), dtype=np.uint8)}
    if layer.scheme == "nvfp4":
        t["scales"] = rng.integers(0x28, 0x38, (n, cols), dtype=np.uint8)
        t["global_scale"] = np.array([0.7 / np.sqrt(k)], dtype=np.float32)
    elif layer.scheme == "int4":
        t["scales"] = ref.round_to_act(
            (rng.uniform(1.0, 2.0, (n, cols)) / (13 * np.sqrt(k))).astype(np.float32), layer.act)
        if layer.zero_points:
            t["zero_points"] = rng.integers(0, 256, (n, -(-cols // 2)), dtype=np.uint8)
    else:
        raise SystemExit(f"tp_bench.py makes nvfp4 and int4 weights, not {layer.scheme}")
    if layer.bias:
        t["bias"] = ref.round_to_act((0.5 * rng.standard_normal(n)).astype(np.float32),
                                     layer.act)
    return t


def sampled_reference(layer, t, rows):
    """(rows, W[rows] as float64) of the reference-dequantized weight."""
    part = {r: (v if r == "global_scale" else v[rows]) for r, v in t.items()}
    gs = part.get("global_scale")
    bits = ref.dequantize(layer.scheme, part["weights"], part["scales"], layer.k, layer.act,
                          block=layer.block,
                          global_scale=None if gs is None else float(gs[0]),
                          zero_points=part.get("zero_points"))
    return ref.to_float32(bits, layer.act).astype(np.float64)


def digest(bits):
    return hashlib.sha256(np.ascontiguousarray(bits).tobytes()).hexdigest()[:32]


# --- backends: the GPU, or the CPU stand-in of cpu-check ------------------------------

class Backend:
    """What differs between the GPU run and the CPU check: the device, the
    local layers, timing, the variant overrides."""

    def __init__(self, torch, rank, device):
        self.torch = torch
        self.rank = rank
        self.device = device
        self.act = torch.bfloat16

    def bits(self, tensor):
        return tensor.detach().cpu().contiguous().view(self.torch.int16).numpy().view(np.uint16)

    def tensor(self, bits):
        return self.torch.from_numpy(np.ascontiguousarray(bits).view(np.int16)).view(
            self.act).to(self.device)


class GpuBackend(Backend):
    def __init__(self, torch, rank, bundle_dir, library_path):
        super().__init__(torch, rank, torch.device("cuda", rank))
        import qmat.torch as qt
        from qmat.launcher import Library
        self.qt = qt
        self.bundle = qmat.Bundle.open(bundle_dir)
        self.library = Library(library_path, self.bundle)
        cdll = ctypes.CDLL(library_path)
        prefix = self.bundle.prefix
        self._gemv = getattr(cdll, f"{prefix}_set_gemv_override")
        self._gemv.argtypes, self._gemv.restype = [ctypes.c_int] * 2, ctypes.c_int
        self._fused = getattr(cdll, f"{prefix}_set_fused_override")
        self._fused.argtypes, self._fused.restype = [ctypes.c_int] * 5, ctypes.c_int

    def local(self, name, layer, t):
        return self.qt.QuantLinear(self.library, name, t["weights"], t["scales"],
                                   t.get("global_scale"), t.get("zero_points"), t.get("bias"),
                                   device=self.device)

    def path(self, name, m):
        s = self.bundle.layer(name).strategy
        if m <= s.get("gemv_max_m", 0):
            return "gemv"
        return "fused" if m <= s.get("fused_max_m", 0) else "prefill"

    def common_variant(self, names, m):
        """A compiled variant of the path M takes that every layer of
        `names` has, or None (the prefill: cuBLASLt)."""
        path = self.path(names[0], m)
        sets = []
        for name in names:
            s = self.bundle.layer(name).strategy
            if path == "gemv":
                sets.append([(v["split_k"], v["col_tiles"]) for v in s["gemv_variants"]
                             if v["max_m"] >= m])
            elif path == "fused":
                sets.append([(v["m_tile"], v["warps_n"], v["split_k"], v["col_tiles"],
                              v["stages"]) for v in s["fused_variants"]])
            else:
                return path, None
        common = [v for v in sets[0] if all(v in other for other in sets[1:])]
        return path, (common[len(common) // 2] if common else None)

    def pin(self, path, variant):
        status = self._gemv(*variant) if path == "gemv" else self._fused(*variant)
        if status:
            raise qmat.QMatError(f"pinning {path} variant {variant}: status {status}: "
                                 f"{self.library.last_error()}")

    def unpin(self):
        self._gemv(0, 0)
        self._fused(0, 0, 0, 0, 0)

    def synchronize(self):
        self.torch.cuda.synchronize(self.device)

    def time(self, fn, calls, rounds, before_round=None):
        """(median, first quartile, third quartile) µs per call."""
        torch = self.torch
        for _ in range(3):
            fn()
        self.synchronize()
        samples = []
        for _ in range(rounds):
            if before_round:
                before_round()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) * 1000.0 / calls)
        q = statistics.quantiles(samples, n=4) if len(samples) > 1 else samples * 3
        return round(statistics.median(samples), 3), round(q[0], 3), round(q[2], 3)


class CpuBackend(Backend):
    def __init__(self, torch, rank):
        super().__init__(torch, rank, torch.device("cpu"))
        sys.path.insert(0, os.path.join(REPO, "python", "tests"))
        import tp_workers
        self._StandIn = tp_workers.stand_in_class()

    def local(self, name, layer, t):
        return self._StandIn(layer, t)

    def path(self, name, m):
        return "stand-in"

    def common_variant(self, names, m):
        return "stand-in", None

    def synchronize(self):
        pass

    def time(self, fn, calls, rounds, before_round=None):
        samples = []
        for _ in range(rounds):
            if before_round:
                before_round()
            started = time.perf_counter()
            for _ in range(calls):
                fn()
            samples.append((time.perf_counter() - started) * 1e6 / calls)
        return round(statistics.median(samples), 3), round(min(samples), 3), round(
            max(samples), 3)


# --- the layers of one scheme ------------------------------------------------------------

def scheme_layers(info, scheme, scale=1):
    """{role: (whole Layer, shard name, kind)} of one scheme in tp-bundle.json
    (shapes divided by `scale` for the CPU check)."""
    out = {}
    for entry in info["layers"]:
        if entry["scheme"] != scheme:
            continue
        whole = qmat.Layer(entry["whole"], scheme, entry["n"] // scale, entry["k"] // scale,
                           block=entry["block"], act="bf16", bias=entry["bias"],
                           zero_points=entry["zero_points"])
        out[entry["role"]] = (whole, entry["shard"], entry["kind"])
    return out


class Scheme:
    """One scheme's whole layers, this rank's tensor-parallel layers, and
    (rank 0 / one GPU) every rank's shard layer, for the host's combination."""

    def __init__(self, backend, layers, tp, rank, all_shards, dist_mode):
        from qmat import torch_parallel as tpl
        self.tpl = tpl
        self.backend, self.tp, self.rank = backend, tp, rank
        self.layers = layers
        self.tensors = {role: whole_tensors(layers[role][0], seed_of(role, layers[role][0].name))
                        for role in layers}
        gate_up = layers["gate_up"][0]
        self.tensors["up"] = whole_tensors(gate_up, seed_of("up", gate_up.name))
        roles = list(layers) + ["up"]
        self.whole, self.plans, self.held, self.shards, self.parallel = {}, {}, {}, {}, {}
        for role in roles:
            layer, shard_name, kind = layers["gate_up" if role == "up" else role]
            t = self.tensors[role]
            self.whole[role] = backend.local(layer.name, layer, t)
            ranks = range(tp) if all_shards else [rank]
            for r in ranks:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", sh.ShardWarning)
                    plan = par.make_plan(layer, kind, tp, r, name=f"{role} ({layer.name})")
                held = par.shard_tensors(plan, t)
                self.plans[role, r], self.held[role, r] = plan, held
                self.shards[role, r] = backend.local(shard_name, plan.shard, held.tensors)
            if dist_mode:
                plan, held, local = self.plans[role, rank], self.held[role, rank], \
                    self.shards[role, rank]
                if kind == "column":
                    self.parallel[role] = tpl.ColumnParallelQuantLinear(
                        local, plan, gather_output=role in ("qkv", "gate_up"))
                else:
                    self.parallel[role] = {
                        reduction: tpl.RowParallelQuantLinear(local, plan, held.bias,
                                                              reduction=reduction)
                        for reduction in par.REDUCTIONS}
        if dist_mode:
            gate = tpl.ColumnParallelQuantLinear(self.shards["gate_up", rank],
                                                 self.plans["gate_up", rank])
            up = tpl.ColumnParallelQuantLinear(self.shards["up", rank], self.plans["up", rank])
            self.mlp = tpl.ParallelQuantMLP(self.parallel["down"]["ordered"], gate=gate, up=up)

    def whole_mlp(self, x):
        w = self.whole
        return w["down"](self.tpl.silu_and_mul(w["gate_up"](x), w["up"](x)))

    def host_mlp(self, x):
        """The MLP block computed rank by rank on this device, the partials
        reduced on the host."""
        partials = []
        for r in range(self.tp):
            h = self.tpl.silu_and_mul(self.shards["gate_up", r](x), self.shards["up", r](x))
            partials.append(self.backend.bits(self.shards["down", r](h)))
        return par.reduce_partials(self.plans["down", 0], partials, self.held["down", 0].bias)


def error(a_bits, b_bits):
    return par.relative_error(ref.to_float32(a_bits, "bf16"), ref.to_float32(b_bits, "bf16"))


def reference_error(bits, x_bits, ref_rows, ref_w, bias):
    """Relative Frobenius error of output columns `ref_rows` against the
    fp64 product."""
    y = ref.to_float32(x_bits, "bf16").astype(np.float64) @ ref_w.T
    if bias is not None:
        y = y + ref.to_float32(bias, "bf16")[ref_rows]
    return par.relative_error(ref.to_float32(bits, "bf16")[:, ref_rows], y)


# --- one process of the run ----------------------------------------------------------------

def run_rank(rank, world, mode, bundle_dir, library_path, out_dir, options):
    """One rank (dist), the one GPU (single) or one CPU stand-in process."""
    import torch
    import torch.distributed as dist
    result = {"rank": rank, "cases": [], "error": None}
    try:
        if mode == "cpu-check":
            dist.init_process_group("gloo", init_method=f"file://{out_dir}/init", rank=rank,
                                    world_size=world)
            backend, scale = CpuBackend(torch, rank), 4
        else:
            torch.cuda.set_device(rank)
            if mode == "dist":
                dist.init_process_group("nccl", init_method=f"file://{out_dir}/init", rank=rank,
                                        world_size=world, device_id=torch.device("cuda", rank))
            backend, scale = GpuBackend(torch, rank, bundle_dir, library_path), 1
        distributed = mode != "single"
        with open(os.path.join(bundle_dir, "tp-bundle.json")) as f:
            info = json.load(f)
        tp = info["tp"]
        if distributed and world != tp:
            raise SystemExit(f"the bundle's shards are for tp = {tp}, {world} ranks started")

        def barrier():
            backend.synchronize()
            if distributed:
                dist.barrier()

        with torch.inference_mode():
            for scheme in options["schemes"]:
                layers = scheme_layers(info, scheme, scale)
                if not layers:
                    raise SystemExit(f"the bundle has no {scheme} layers")
                s = Scheme(backend, layers, tp, rank, all_shards=(rank == 0 or not distributed),
                           dist_mode=distributed)
                result["cases"] += run_scheme(s, scheme, backend, distributed, barrier, options)
                del s
                if not distributed or rank == 0:
                    print(f"[{mode}] {scheme}: done", flush=True)
        if distributed:
            dist.barrier()
            dist.destroy_process_group()
    except BaseException:
        result["error"] = traceback.format_exc()
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(result, f)


def run_scheme(s, scheme, backend, distributed, barrier, options):
    torch = backend.torch
    rank = s.rank
    timing = dict(calls=options["calls"], rounds=options["rounds"])
    full_check = rank == 0 or not distributed
    cases = []
    gen = torch.Generator().manual_seed(seed_of(scheme, "x"))
    refs = {}

    def ref_of(role):
        if role not in refs and options["reference_rows"] and full_check:
            layer = s.layers["gate_up" if role == "up" else role][0]
            rows = np.sort(np.random.default_rng(seed_of(role, "rows")).choice(
                layer.n, min(options["reference_rows"], layer.n), replace=False))
            refs[role] = (rows, sampled_reference(layer, s.tensors[role], rows))
        return refs.get(role)

    for m in options["m_values"]:
        for role, (layer, shard_name, kind) in s.layers.items():
            if role == "up":
                continue
            x = torch.randn(m, layer.k, generator=gen).to(backend.act).to(backend.device)
            x_bits = backend.bits(x)
            case = {"scheme": scheme, "role": role, "kind": kind, "m": m, "n": layer.n,
                    "k": layer.k, "path_whole": backend.path(layer.name, m),
                    "path_shard": backend.path(shard_name, m)}
            whole = s.whole[role]
            y_whole = backend.bits(whole(x))
            case["whole_repeat_bitwise"] = bool(np.array_equal(backend.bits(whole(x)), y_whole))
            case["whole_digest"] = digest(y_whole)
            reference = ref_of(role)
            if reference is not None:
                case["whole_error_vs_fp64"] = reference_error(y_whole, x_bits, *reference,
                                                              s.tensors[role].get("bias"))
            case["whole_us"] = backend.time(lambda: whole(x), **timing, before_round=barrier)
            if kind == "column":
                column_case(s, role, layer, shard_name, x, y_whole, case, backend, distributed,
                            barrier, timing, full_check)
            else:
                row_case(s, role, layer, x, x_bits, y_whole, case, backend, distributed, barrier,
                         timing, full_check, reference)
            cases.append(case)
        cases.append(mlp_case(s, scheme, m, gen, backend, distributed, barrier, timing,
                              full_check))
    return cases


def column_case(s, role, layer, shard_name, x, y_whole, case, backend, distributed, barrier,
                timing, full_check):
    tp, rank = s.tp, s.rank
    if full_check:
        shards = [backend.bits(s.shards[role, r](x)) for r in range(tp)]
        host = par.gather_outputs(s.plans[role, 0], shards)
        case["host_gather_vs_whole_bitwise"] = bool(np.array_equal(host, y_whole))
        case["host_gather_error_vs_whole"] = error(host, y_whole)
        path, variant = backend.common_variant([layer.name, shard_name], x.shape[0])
        if variant is not None:
            backend.pin(path, variant)
            try:
                pinned_whole = backend.bits(s.whole[role](x))
                pinned = par.gather_outputs(s.plans[role, 0], [backend.bits(s.shards[role, r](x))
                                                               for r in range(tp)])
            finally:
                backend.unpin()
            case["pinned_variant"] = [path] + list(variant)
            case["pinned_bitwise"] = bool(np.array_equal(pinned, pinned_whole))
    local = s.shards[role, rank]
    case["shard_us"] = backend.time(lambda: local(x), **timing, before_round=barrier)
    if not distributed:
        return
    layer_tp = s.parallel[role]
    y = backend.bits(layer_tp(x))
    case["tp_repeat_bitwise"] = bool(np.array_equal(backend.bits(layer_tp(x)), y))
    case["tp_digest"] = digest(y)
    case["tp_vs_whole_bitwise"] = bool(np.array_equal(y, y_whole))
    case["tp_error_vs_whole"] = error(y, y_whole)
    if full_check:
        case["tp_vs_host_gather_bitwise"] = bool(np.array_equal(y, host))
    case["tp_us"] = backend.time(lambda: layer_tp(x), **timing, before_round=barrier)
    case["speedup"] = round(case["whole_us"][0] / case["tp_us"][0], 3)


def row_case(s, role, layer, x, x_bits, y_whole, case, backend, distributed, barrier, timing,
             full_check, reference):
    tp, rank = s.tp, s.rank
    plan = s.plans[role, rank]
    xr = x[:, slice(*plan.input_range())].contiguous()
    bias = s.held[role, rank].bias
    if full_check:
        partial_tensors = [s.shards[role, r](x[:, slice(*s.plans[role, r].input_range())]
                                             .contiguous()) for r in range(tp)]
        partials = [backend.bits(p) for p in partial_tensors]
        host = par.reduce_partials(s.plans[role, 0], partials, bias)
        case["host_reduce_error_vs_whole"] = error(host, y_whole)
        device_sum = s.tpl.ordered_sum(backend.torch.stack(partial_tensors),
                                       None if bias is None else backend.tensor(bias))
        case["device_ordered_sum_is_host_bitwise"] = bool(np.array_equal(
            backend.bits(device_sum), host))
        if reference is not None:
            case["host_reduce_error_vs_fp64"] = reference_error(host, x_bits, *reference,
                                                                s.tensors[role].get("bias"))
    local = s.shards[role, rank]
    case["shard_us"] = backend.time(lambda: local(xr), **timing, before_round=barrier)
    if not distributed:
        return
    outputs = {}
    for reduction, layer_tp in s.parallel[role].items():
        y = backend.bits(layer_tp(xr))
        outputs[reduction] = y
        case[f"tp_{reduction}_repeat_bitwise"] = bool(np.array_equal(backend.bits(layer_tp(xr)),
                                                                     y))
        case[f"tp_{reduction}_digest"] = digest(y)
        case[f"tp_{reduction}_error_vs_whole"] = error(y, y_whole)
        if full_check:
            case[f"tp_{reduction}_vs_host_bitwise"] = bool(np.array_equal(y, host))
            if reference is not None:
                case[f"tp_{reduction}_error_vs_fp64"] = reference_error(
                    y, x_bits, *reference, s.tensors[role].get("bias"))
        case[f"tp_{reduction}_us"] = backend.time(lambda: layer_tp(xr), **timing,
                                                  before_round=barrier)
    case["reductions_agree_bitwise"] = bool(np.array_equal(outputs["ordered"],
                                                           outputs["all_reduce"]))
    case["speedup"] = round(case["whole_us"][0] / case["tp_ordered_us"][0], 3)


def mlp_case(s, scheme, m, gen, backend, distributed, barrier, timing, full_check):
    torch = backend.torch
    hidden = s.layers["gate_up"][0].k
    x = torch.randn(m, hidden, generator=gen).to(backend.act).to(backend.device)
    case = {"scheme": scheme, "role": "mlp", "kind": "block", "m": m, "hidden": hidden,
            "intermediate": s.layers["gate_up"][0].n}
    y_whole = backend.bits(s.whole_mlp(x))
    case["whole_digest"] = digest(y_whole)
    case["whole_us"] = backend.time(lambda: s.whole_mlp(x), **timing, before_round=barrier)
    if full_check:
        host = s.host_mlp(x)
        case["host_error_vs_whole"] = error(host, y_whole)
    if distributed:
        y = backend.bits(s.mlp(x))
        case["tp_repeat_bitwise"] = bool(np.array_equal(backend.bits(s.mlp(x)), y))
        case["tp_digest"] = digest(y)
        case["tp_error_vs_whole"] = error(y, y_whole)
        if full_check:
            case["tp_vs_host_bitwise"] = bool(np.array_equal(y, host))
        case["tp_us"] = backend.time(lambda: s.mlp(x), **timing, before_round=barrier)
        case["speedup"] = round(case["whole_us"][0] / case["tp_us"][0], 3)
    return case


# --- the verdict ------------------------------------------------------------------------------

def verdict(mode, ranks):
    """{check: bool} over every case of every rank."""
    cases0 = ranks[0]["cases"]
    checks = {}

    def all_of(name, values):
        values = list(values)
        checks[name] = bool(values) and all(values)

    col = [c for c in cases0 if c["kind"] == "column"]
    row = [c for c in cases0 if c["kind"] == "row"]
    mlp = [c for c in cases0 if c["kind"] == "block"]
    all_of("whole_repeat_bitwise", [c["whole_repeat_bitwise"] for c in col + row])
    pinned = [c["pinned_bitwise"] for c in col if "pinned_bitwise" in c]
    if pinned:
        all_of("column_host_gather_vs_whole_bitwise_pinned", pinned)
    all_of("column_host_gather_within_bound", [c["host_gather_error_vs_whole"] <= BOUND
                                               for c in col])
    all_of("row_host_reduce_within_bound", [c["host_reduce_error_vs_whole"] <= BOUND
                                            for c in row])
    all_of("row_device_ordered_sum_is_host", [c["device_ordered_sum_is_host_bitwise"]
                                              for c in row])
    all_of("mlp_host_within_bound", [c["host_error_vs_whole"] <= BOUND for c in mlp])
    fp64 = [v for c in col + row for k, v in c.items() if k.endswith("_error_vs_fp64")]
    if fp64:
        all_of("within_bound_vs_fp64", [v <= BOUND for v in fp64])
    if mode != "single":
        all_of("column_tp_vs_host_gather_bitwise", [c["tp_vs_host_gather_bitwise"] for c in col])
        all_of("column_tp_within_bound", [c["tp_error_vs_whole"] <= BOUND for c in col])
        all_of("row_tp_vs_host_bitwise", [c[f"tp_{r}_vs_host_bitwise"] for c in row
                                          for r in par.REDUCTIONS])
        all_of("row_tp_within_bound", [c[f"tp_{r}_error_vs_whole"] <= BOUND for c in row
                                       for r in par.REDUCTIONS])
        all_of("mlp_tp_within_bound", [c["tp_error_vs_whole"] <= BOUND for c in mlp])
        all_of("mlp_tp_vs_host_bitwise", [c["tp_vs_host_bitwise"] for c in mlp])
        all_of("tp_repeat_bitwise", [v for r in ranks for c in r["cases"]
                                     for k, v in c.items() if k.endswith("repeat_bitwise")])
        if ranks[0].get("tp", 2) == 2:
            all_of("reductions_agree_bitwise_tp2", [c["reductions_agree_bitwise"] for c in row])
        digests = [{(c["scheme"], c["role"], c["m"], k): v for c in r["cases"]
                    for k, v in c.items() if k.startswith("tp_") and k.endswith("digest")}
                   for r in ranks]
        all_of("ranks_agree_bitwise", [d == digests[0] for d in digests[1:]])
    informational = {
        "column_host_gather_vs_whole_bitwise_policy": all(c["host_gather_vs_whole_bitwise"]
                                                          for c in col),
        "column_not_bitwise_with_policy": [
            {"scheme": c["scheme"], "role": c["role"], "m": c["m"],
             "path": [c.get("path_whole"), c.get("path_shard")],
             "error": c["host_gather_error_vs_whole"]}
            for c in col if not c["host_gather_vs_whole_bitwise"]],
    }
    return checks, informational


# --- main --------------------------------------------------------------------------------------

def prepare_library(bundle_dir, out_dir):
    """The launcher built once, before the ranks start (unpacking the gzipped
    source prepare.py wrote)."""
    import gzip
    import shutil
    with open(os.path.join(bundle_dir, "tp-bundle.json")) as f:
        prefix = json.load(f)["prefix"]
    source = os.path.join(bundle_dir, f"{prefix}.cpp")
    if not os.path.isfile(source) and os.path.isfile(source + ".gz"):
        with gzip.open(source + ".gz", "rb") as g, open(source + ".tmp", "wb") as f:
            shutil.copyfileobj(g, f)
        os.replace(source + ".tmp", source)
    bundle = qmat.Bundle.open(bundle_dir, prefix)
    output = os.path.join(out_dir, f"lib{prefix}.so")
    started = time.time()
    try:
        bundle.build_library(output=output)
    except qmat.ToolError:
        bundle.build_library(output=output, compiler="nvcc")
    return output, round(time.time() - started, 1)


def environment(torch):
    env = {"python": platform.python_version(), "torch": torch.__version__,
           "host": platform.node(),
           "NCCL_NVLS_ENABLE": os.environ.get("NCCL_NVLS_ENABLE")}
    if torch.cuda.is_available():
        env["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        env["cuda"] = torch.version.cuda
        try:
            env["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
        except Exception as e:  # the version is informational
            env["nccl"] = f"unknown ({type(e).__name__})"
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("dist", "single", "compare", "cpu-check"))
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--schemes", default="nvfp4,int4")
    parser.add_argument("--m", default=",".join(map(str, M_VALUES)))
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--reference-rows", type=int, default=256,
                        help="output features checked against the fp64 product (0: none)")
    args = parser.parse_args()
    if args.mode == "compare":
        return compare(*args.paths)
    import torch
    import torch.multiprocessing as mp
    options = {"schemes": [s for s in args.schemes.split(",") if s],
               "m_values": [int(m) for m in args.m.split(",") if m],
               "calls": args.calls, "rounds": args.rounds,
               "reference_rows": args.reference_rows}
    started = time.time()
    work = tempfile.mkdtemp(prefix="tp-bench-")
    if args.mode == "cpu-check":
        (out_json,) = args.paths
        bundle_dir = make_cpu_bundle_info(work)
        library_path, build_s = None, 0
        world = 2
    else:
        bundle_dir, out_json = args.paths
        bundle_dir = os.path.abspath(bundle_dir)
        library_path, build_s = prepare_library(bundle_dir, work)
        world = args.gpus if args.mode == "dist" else 1
        if args.mode == "dist" and torch.cuda.device_count() < world:
            raise SystemExit(f"dist mode needs {world} GPUs, {torch.cuda.device_count()} found: "
                             f"run `single`")
    mp.spawn(run_rank, args=(world, args.mode, bundle_dir, library_path, work, options),
             nprocs=world, join=True)
    ranks = []
    for rank in range(world):
        with open(os.path.join(work, f"rank{rank}.json")) as f:
            ranks.append(json.load(f))
    errors = {r["rank"]: r["error"] for r in ranks if r["error"]}
    with open(os.path.join(bundle_dir, "tp-bundle.json")) as f:
        info = json.load(f)
    result = {"mode": args.mode, "tp": info["tp"], "world": world, "options": options,
              "bundle": info, "environment": environment(torch), "library_build_s": build_s,
              "errors": errors}
    if not errors:
        checks, informational = verdict(args.mode, ranks)
        result.update(checks=checks, informational=informational, ok=all(checks.values()),
                      cases=ranks[0]["cases"],
                      other_ranks=[{"rank": r["rank"], "cases": [
                          {k: v for k, v in c.items() if k.endswith(("_us", "_digest"))
                           or k in ("scheme", "role", "m")} for c in r["cases"]]}
                          for r in ranks[1:]])
    else:
        result["ok"] = False
    result["seconds"] = round(time.time() - started, 1)
    os.makedirs(os.path.dirname(os.path.abspath(out_json)), exist_ok=True)
    with open(out_json, "w") as f:
        json.dump(result, f, indent=1)
    summarize(result)
    return 0 if result["ok"] else 1


def make_cpu_bundle_info(work):
    """A tp-bundle.json of prepare.py's layers, for the CPU check."""
    sys.path.insert(0, HERE)
    from prepare import bench_layers
    layers = bench_layers(["nvfp4", "int4"], 2)
    info = {"prefix": "tp", "tp": 2, "layers": [
        {"role": role, "scheme": scheme, "kind": kind, "whole": whole.name, "shard": shard.name,
         "n": whole.n, "k": whole.k, "block": whole.block, "zero_points": whole.zero_points,
         "bias": whole.bias} for role, scheme, whole, shard, kind in layers]}
    with open(os.path.join(work, "tp-bundle.json"), "w") as f:
        json.dump(info, f)
    return work


def summarize(result):
    print(f"tp_bench {result['mode']}: tp {result['tp']}, {result['seconds']} s, "
          f"ok={result['ok']}")
    for rank, error_text in result.get("errors", {}).items():
        print(f"rank {rank} failed:\n{error_text}")
    for name, ok in result.get("checks", {}).items():
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    for c in result.get("cases", []):
        times = " ".join(f"{k[:-3]}={v[0]:.1f}" for k, v in c.items() if k.endswith("_us"))
        errs = " ".join(f"{k}={v:.2e}" for k, v in c.items()
                        if k.endswith(("error_vs_whole", "error_vs_fp64")))
        print(f"  {c['scheme']:5} {c['role']:7} M={c['m']:<5} {times}  "
              f"speedup={c.get('speedup', '-')}  {errs}")


def compare(a_path, b_path):
    """Two runs' digests of every output: the same bits, or the differences."""
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)

    def digests(result):
        return {(c["scheme"], c["role"], c["m"], k): v for c in result.get("cases", [])
                for k, v in c.items() if k.endswith("digest")}

    da, db = digests(a), digests(b)
    differing = sorted(str(key) for key in set(da) | set(db) if da.get(key) != db.get(key))
    same = bool(da) and not differing
    print(f"{len(da)} digests compared: {'identical' if same else 'DIFFERENT'}")
    for key in differing:
        print(f"  differs: {key}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
