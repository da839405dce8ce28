"""The per-rank bodies of the torch_parallel tests (not collected): each
rank builds the tensor-parallel layers, runs them, compares with what
qmat.parallel says the ranks must produce, and writes rank<r>.json into the
output directory for the parent test to read.

run_cpu: the gloo backend on CPU tensors, the layers' local matmuls stood in
for by StandIn (QuantLinear needs CUDA). run_gpu: NCCL, real QuantLinear
layers from a bundle holding the whole and the shard shapes (GPU_LAYERS).
"""
import hashlib
import json
import os
import traceback
import zlib

import numpy as np

import qmat
from qmat import parallel as par
from qmat import reference as ref

# The whole layers of the tests; tp 2 and their shards must be compiled
# for the GPU run (gpu_layers() lists them). Row layers have a bias, so the
# bias-after-the-sum path runs.
HIDDEN, INTER = 256, 512
WHOLE = {
    "qkv": qmat.Layer("tp_qkv", "nvfp4", 384, HIDDEN, bias=True),
    "gate": qmat.Layer("tp_gate", "nvfp4", INTER, HIDDEN),
    "down": qmat.Layer("tp_down", "nvfp4", HIDDEN, INTER, bias=True),
    "o_int4": qmat.Layer("tp_o_int4", "int4", HIDDEN, 512, bias=True, zero_points=True),
}
TP = 2


def gpu_layers():
    """Every layer the GPU test runs: the whole ones and their tp 2 shards."""
    import warnings
    from qmat import shard as sh
    kinds = {"qkv": "column", "gate": "column", "down": "row", "o_int4": "row"}
    layers = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sh.ShardWarning)
        for key, layer in WHOLE.items():
            layers += [layer, sh.shard_layer(layer, kinds[key], TP)]
    return layers


def dequant(layer, t):
    gs = t.get("global_scale")
    return ref.dequantize(layer.scheme, t["weights"], t["scales"], layer.k, layer.act,
                          block=layer.block,
                          global_scale=None if gs is None else float(np.ravel(gs)[0]),
                          zero_points=t.get("zero_points"))


def layer_tensors(layer, seed):
    """Finite random tensors of `layer` (outputs of order one for x ~ N(0, 1))."""
    rng = np.random.default_rng(seed)
    n, k, cols = layer.n, layer.k, layer.scale_cols
    t = {"weights": rng.integers(0, 256, (n, k // 2), dtype=np.uint8)}
    if layer.scheme == "nvfp4":
        t["scales"] = rng.integers(0x28, 0x38, (n, cols), dtype=np.uint8)   # 1/8 .. 1
        t["global_scale"] = np.array([0.5 / np.sqrt(k)], dtype=np.float32)
    else:
        t["scales"] = ref.round_to_act(rng.uniform(0.5, 1.0, (n, cols)).astype(np.float32)
                                       / np.float32(4 * np.sqrt(k)), layer.act)
        if layer.zero_points:
            t["zero_points"] = rng.integers(0, 256, (n, -(-cols // 2)), dtype=np.uint8)
    if layer.bias:
        t["bias"] = ref.round_to_act(rng.standard_normal(n).astype(np.float32), layer.act)
    return t


def bits_of(tensor):
    import torch
    return tensor.detach().cpu().contiguous().view(torch.int16).numpy().view(np.uint16)


def digest(tensor):
    return hashlib.sha256(bits_of(tensor).tobytes()).hexdigest()


class Results:
    def __init__(self, out_dir, rank):
        self.path = os.path.join(out_dir, f"rank{rank}.json")
        self.checks, self.values = {}, {}

    def check(self, name, ok, detail=None):
        self.checks[name] = bool(ok)
        if detail is not None:
            self.values[name] = detail

    def write(self, error=None):
        with open(self.path, "w") as f:
            json.dump({"checks": self.checks, "values": self.values, "error": error}, f,
                      indent=1)


def _refusal(call):
    try:
        call()
    except qmat.QMatError as e:
        return str(e)
    return None


# --- CPU, gloo ------------------------------------------------------------------

def stand_in_class():
    import torch

    class StandIn(torch.nn.Module):
        """QuantLinear's interface on the CPU: the reference-dequantized
        weight, an fp64 product, + bias in fp32, one rounding."""

        def __init__(self, layer, tensors):
            super().__init__()
            self.layer_info = layer
            w = ref.to_float32(dequant(layer, tensors), layer.act).astype(np.float64)
            self.register_buffer("weight", torch.from_numpy(w))
            self._act = {"bf16": torch.bfloat16, "f16": torch.float16}[layer.act]
            bias = tensors.get("bias") if layer.bias else None
            self.register_buffer("bias", None if bias is None else torch.from_numpy(
                ref.to_float32(bias, layer.act)))

        def forward(self, x, out=None):
            y = (x.double().reshape(-1, self.layer_info.k) @ self.weight.T).float()
            if self.bias is not None:
                y = y + self.bias
            y = y.to(self._act).reshape(*x.shape[:-1], self.layer_info.n)
            if out is not None:
                out.copy_(y)
                return out
            return y

    return StandIn


def run_cpu(rank, world, init_file, out_dir):
    import torch
    import torch.distributed as dist
    from qmat import torch_parallel as tpl

    results = Results(out_dir, rank)
    try:
        dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank,
                                world_size=world)
        StandIn = stand_in_class()
        _cpu_checks(torch, tpl, StandIn, rank, world, results)
        dist.barrier()
        dist.destroy_process_group()
        results.write()
    except Exception:
        results.write(traceback.format_exc())


def _cpu_checks(torch, tpl, StandIn, rank, world, results):
    act = torch.bfloat16
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(3, 5, HIDDEN, generator=gen).to(act)
    locals_, plans = {}, {}

    def parts_of(key, kind, parts=None):
        layer = WHOLE[key]
        t = layer_tensors(layer, zlib.crc32(key.encode()))
        out = []
        for r in range(world):
            plan = par.make_plan(layer, kind, world, r, parts=parts)
            held = par.shard_tensors(plan, t)
            out.append((plan, held, StandIn(plan.shard, held.tensors)))
        return out

    # column-parallel, plain and merged, gathered and not
    for key, parts in (("qkv", None), ("gate", (INTER // 2, INTER // 2))):
        ranks = parts_of(key, "column", parts)
        plan, held, local = ranks[rank]
        layer = tpl.ColumnParallelQuantLinear(local, plan, gather_output=True)
        y = layer(x)
        outputs = [bits_of(r[2](x)) for r in ranks]
        want = par.gather_outputs(plan, outputs)
        results.check(f"{key}_gather_bitwise", np.array_equal(bits_of(y), want))
        one = x[:1, :1]        # M = 1 gathers straight into the output
        results.check(f"{key}_gather_m1_bitwise", np.array_equal(
            bits_of(layer(one)), par.gather_outputs(plan, [bits_of(r[2](one)) for r in ranks])))
        out = torch.full((3, 5, plan.layer.n), float("nan"), dtype=act)
        results.check(f"{key}_gather_out", layer(x, out=out) is out
                      and np.array_equal(bits_of(out), want))
        results.values[f"{key}_digest"] = digest(y)
        no_gather = tpl.ColumnParallelQuantLinear(local, plan)
        results.check(f"{key}_local", np.array_equal(bits_of(no_gather(x)), outputs[rank]))
        locals_[key], plans[key] = ranks, plan

    # row-parallel, both reductions, parallel and whole inputs
    for key in ("down", "o_int4"):
        ranks = parts_of(key, "row")
        plan, held, local = ranks[rank]
        whole_x = torch.randn(4, plan.layer.k, generator=gen).to(act)
        xr = whole_x[:, slice(*plan.input_range())].contiguous()
        partials = [bits_of(r[2](whole_x[:, slice(*r[0].input_range())])) for r in ranks]
        want = par.reduce_partials(plan, partials, held.bias)
        for reduction in ("ordered", "all_reduce"):
            layer = tpl.RowParallelQuantLinear(local, plan, held.bias, reduction=reduction)
            y = layer(xr)
            again = layer(xr)
            results.check(f"{key}_{reduction}_bitwise", np.array_equal(bits_of(y), want))
            results.check(f"{key}_{reduction}_repeat", np.array_equal(bits_of(again), bits_of(y)))
            results.values[f"{key}_{reduction}_digest"] = digest(y)
        whole = tpl.RowParallelQuantLinear(local, plan, held.bias, input_is_parallel=False)
        results.check(f"{key}_whole_input", np.array_equal(bits_of(whole(whole_x)), want))
        locals_[key], plans[key] = ranks, plan

    # the MLP block: gate and up column-parallel, down row-parallel
    gate_ranks = parts_of("gate", "column")
    up_layer = qmat.Layer("tp_up", "nvfp4", INTER, HIDDEN)
    up_t = layer_tensors(up_layer, 99)
    down_ranks = locals_["down"]
    gate = tpl.ColumnParallelQuantLinear(gate_ranks[rank][2], gate_ranks[rank][0])
    up_plan = par.make_plan(up_layer, "column", world, rank)
    up_local = StandIn(up_plan.shard, par.shard_tensors(up_plan, up_t).tensors)
    up = tpl.ColumnParallelQuantLinear(up_local, up_plan)
    down = tpl.RowParallelQuantLinear(down_ranks[rank][2], down_ranks[rank][0],
                                      down_ranks[rank][1].bias)
    mlp = tpl.ParallelQuantMLP(down, gate=gate, up=up)
    y = mlp(x)
    partials = []
    for r in range(world):
        upr = par.make_plan(up_layer, "column", world, r)
        hr = tpl.silu_and_mul(gate_ranks[r][2](x),
                              StandIn(upr.shard, par.shard_tensors(upr, up_t).tensors)(x))
        partials.append(bits_of(down_ranks[r][2](hr)).reshape(-1, HIDDEN))
    want = par.reduce_partials(down_ranks[0][0], partials, down_ranks[0][1].bias)
    results.check("mlp_bitwise", np.array_equal(bits_of(y).reshape(-1, HIDDEN), want))
    results.values["mlp_digest"] = digest(y)

    # refusals through the modules
    plan, held, local = locals_["down"][rank]
    row = tpl.RowParallelQuantLinear(local, plan, held.bias)
    where = f"row-parallel layer tp_down (rank {rank} of {world})"
    results.values["refusals"] = {
        "row_whole_input": _refusal(lambda: row(torch.zeros(2, INTER, dtype=act))),
        "row_dtype": _refusal(lambda: row(torch.zeros(2, INTER // world))),
        "row_out_shape": _refusal(lambda: row(torch.zeros(2, INTER // world, dtype=act),
                                              out=torch.empty(2, 7, dtype=act))),
        "row_no_bias": _refusal(lambda: tpl.RowParallelQuantLinear(local, plan, None)),
        "row_reduction": _refusal(lambda: tpl.RowParallelQuantLinear(local, plan, held.bias,
                                                                     reduction="tree")),
        "world": _refusal(lambda: tpl.RowParallelQuantLinear(
            local, par.make_plan(WHOLE["down"], "row", 4, rank), held.bias)),
        "column_as_row": _refusal(lambda: tpl.RowParallelQuantLinear(
            locals_["qkv"][rank][2], plans["qkv"])),
        "wrong_local": _refusal(lambda: tpl.ColumnParallelQuantLinear(
            locals_["down"][rank][2], plans["qkv"])),
        "mlp_gathering": _refusal(lambda: tpl.ParallelQuantMLP(
            down, gate=tpl.ColumnParallelQuantLinear(gate_ranks[rank][2], gate_ranks[rank][0],
                                                     gather_output=True), up=up)),
    }
    results.values["where"] = where
    # rank 0 loads first; its failure reaches every rank
    results.values["load_library"] = _refusal(lambda: tpl.load_library("/nonexistent/bundle"))


# --- GPU, NCCL --------------------------------------------------------------------

def run_gpu(rank, world, init_file, out_dir, bundle_dir, library_path):
    import torch
    import torch.distributed as dist
    from qmat import torch_parallel as tpl
    import qmat.torch as qt

    results = Results(out_dir, rank)
    try:
        torch.cuda.set_device(rank)
        dist.init_process_group("nccl", init_method=f"file://{init_file}", rank=rank,
                                world_size=world, device_id=torch.device("cuda", rank))
        library = qt.load_library(qmat.launcher.Library(library_path,
                                                        qmat.Bundle.open(bundle_dir)))
        with torch.inference_mode():
            _gpu_checks(torch, dist, tpl, qt, library, rank, world, results)
        dist.barrier()
        dist.destroy_process_group()
        results.write()
    except Exception:
        results.write(traceback.format_exc())


def _gpu_checks(torch, dist, tpl, qt, library, rank, world, results, device=None):
    act = torch.bfloat16
    device = torch.device("cuda", rank) if device is None else device
    gen = torch.Generator().manual_seed(11)
    tensors = {key: layer_tensors(layer, 100 + i) for i, (key, layer) in enumerate(WHOLE.items())}

    def whole_layer(key):
        layer = WHOLE[key]
        t = tensors[key]
        return qt.QuantLinear(library, layer.name, t["weights"], t["scales"],
                              t.get("global_scale"), t.get("zero_points"), t.get("bias"),
                              device=device)

    def shard_local(key, kind, r):
        """Rank r's shard layer on this GPU, for the host combination."""
        plan = par.make_plan(WHOLE[key], kind, world, r)
        held = par.shard_tensors(plan, tensors[key])
        info = par.find_compiled(plan, library.layers)
        return plan, held, qt.QuantLinear(library, info.name, held.tensors["weights"],
                                          held.tensors["scales"], held.tensors.get("global_scale"),
                                          held.tensors.get("zero_points"),
                                          held.tensors.get("bias"), device=device)

    for m in (1, 5, 16, 300):
        x = torch.randn(m, HIDDEN, generator=gen).to(act).to(device)
        # column-parallel, gathered: the shards' outputs moved into place
        layer = tpl.ColumnParallelQuantLinear.from_full(library, WHOLE["qkv"], tensors["qkv"],
                                                        gather_output=True)
        y = layer(x)
        shards = [bits_of(shard_local("qkv", "column", r)[2](x)) for r in range(world)]
        results.check(f"qkv_m{m}_gather_bitwise",
                      np.array_equal(bits_of(y), par.gather_outputs(layer.plan, shards)))
        full = whole_layer("qkv")(x)
        error = par.relative_error(ref.to_float32(bits_of(y), "bf16"),
                                   ref.to_float32(bits_of(full), "bf16"))
        results.check(f"qkv_m{m}_whole_within_bound", error <= par.BOUNDS["bf16"], error)
        results.values[f"qkv_m{m}_whole_bitwise"] = bool(np.array_equal(bits_of(y),
                                                                         bits_of(full)))
        results.values[f"qkv_m{m}_digest"] = digest(y)
        # row-parallel, both reductions: the host's fp32 rank-order sum
        for key in ("down", "o_int4"):
            whole = WHOLE[key]
            xk = torch.randn(m, whole.k, generator=gen).to(act).to(device)
            ranks = [shard_local(key, "row", r) for r in range(world)]
            partials = [bits_of(loc(xk[:, slice(*p.input_range())].contiguous()))
                        for p, _, loc in ranks]
            want = par.reduce_partials(ranks[0][0], partials, ranks[0][1].bias)
            full = bits_of(whole_layer(key)(xk))
            for reduction in ("ordered", "all_reduce"):
                row = tpl.RowParallelQuantLinear.from_full(library, whole, tensors[key],
                                                           input_is_parallel=False,
                                                           reduction=reduction)
                y = row(xk)
                name = f"{key}_m{m}_{reduction}"
                results.check(f"{name}_host_bitwise", np.array_equal(bits_of(y), want))
                results.check(f"{name}_repeat", np.array_equal(bits_of(row(xk)), bits_of(y)))
                error = par.relative_error(ref.to_float32(bits_of(y), "bf16"),
                                           ref.to_float32(full, "bf16"))
                results.check(f"{name}_whole_within_bound", error <= par.BOUNDS["bf16"], error)
                results.values[f"{name}_digest"] = digest(y)
            # the torch reduction on the GPU is the numpy one, bit for bit
            stacked = torch.stack([torch.from_numpy(p.view(np.int16)).view(act) for p in partials])
            bias = torch.from_numpy(ranks[0][1].bias.view(np.int16)).view(act).to(device)
            results.check(f"{key}_m{m}_ordered_sum_gpu_is_host",
                          np.array_equal(bits_of(tpl.ordered_sum(stacked.to(device), bias)), want))
    # the MLP block against the whole block on one GPU
    x = torch.randn(7, HIDDEN, generator=gen).to(act).to(device)
    up_layer = qmat.Layer("tp_gate", "nvfp4", INTER, HIDDEN)   # the gate's compiled shape
    up_t = layer_tensors(up_layer, 55)
    mlp = tpl.ParallelQuantMLP(
        tpl.RowParallelQuantLinear.from_full(library, WHOLE["down"], tensors["down"]),
        gate=tpl.ColumnParallelQuantLinear.from_full(library, WHOLE["gate"], tensors["gate"]),
        up=tpl.ColumnParallelQuantLinear.from_full(library, up_layer, up_t, name="tp_up"))
    y = mlp(x)
    gate, down = whole_layer("gate"), whole_layer("down")
    up = qt.QuantLinear(library, "tp_gate", up_t["weights"], up_t["scales"],
                        up_t["global_scale"], device=device)
    single = down(tpl.silu_and_mul(gate(x), up(x)))
    error = par.relative_error(ref.to_float32(bits_of(y), "bf16"),
                               ref.to_float32(bits_of(single), "bf16"))
    results.check("mlp_whole_within_bound", error <= par.BOUNDS["bf16"], error)
    results.values["mlp_digest"] = digest(y)
    # a refusal through torch, with the layer's name
    row = tpl.RowParallelQuantLinear.from_full(library, WHOLE["down"], tensors["down"])
    results.values["refusal"] = _refusal(lambda: row(torch.zeros(2, INTER, dtype=act,
                                                                 device=device)))
