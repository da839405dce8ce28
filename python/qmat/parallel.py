"""Tensor-parallel plans of quantized layers, in numpy and without torch.

A Plan says, for one rank of a tensor-parallel group of `tp` ranks:

* which shard of the layer the rank holds and the layer it runs (qmat.shard's
  split: column-parallel takes rows of N, row-parallel whole scale blocks of
  K; one shard shape for every rank);
* column-parallel: where the rank's output columns go in the gathered
  [..., N] (`output_ranges`), also for a merged layer whose outputs are
  several matrices stacked along N (gate and up, q, k and v: `parts`,
  qmat.shard.Part), each split on its own;
* row-parallel: which input columns the rank reads (`input_range`).

`reduce_partials` is the row-parallel combination: the ranks' partial
outputs summed in fp32 in rank order 0, 1, ..., tp-1, the bias added once
to that sum, one rounding to the activation type (docs/numerics.md,
"Tensor-parallel layers"). qmat.torch_parallel runs the plans with
torch.distributed; the functions here are the definitions it is tested
against, and what bench/tp uses to combine shards computed on one GPU.

Arrays of the activation type are uint16 bit patterns, as in
qmat.reference.
"""
import dataclasses
import warnings

import numpy as np

from . import reference
from . import shard as sharding
from .errors import ArgumentError, QMatError, ShardError
from .layers import Layer

KINDS = ("column", "row")
# ordered: all-gather the partials (bytes, no arithmetic) and sum them in
# rank order on every rank; all_reduce: one fp32 all-reduce (for tp = 2 the
# same bits, since one fp32 addition is commutative).
REDUCTIONS = ("ordered", "all_reduce")
BOUNDS = {"f16": 2e-3, "bf16": 1e-2}   # docs/numerics.md, relative Frobenius error


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


@dataclasses.dataclass(frozen=True)
class Plan:
    """One rank's part of a tensor-parallel layer.

    `name` names the layer in messages (a model path such as
    model.layers.0.mlp.down_proj, or the layer's own name); `layer` is the
    whole layer, `shard` the layer every rank runs; `parts` the sizes along
    N of the matrices a merged column-parallel layer stacks (one part, N,
    for a plain layer), each split tp ways on its own; `splits` how
    (qmat.shard.PartSplit: a part's rows per rank, its names, its heads
    and how many ranks hold each replicated kv head)."""
    name: str
    kind: str
    tp: int
    rank: int
    layer: Layer
    shard: Layer
    parts: tuple
    splits: tuple = None

    @property
    def part_names(self):
        return tuple(s.part.name for s in self.splits) if self.splits else ()

    @property
    def bias_after_reduce(self):
        """Whether the bias is added after the sum over ranks (row-parallel
        with a bias and tp > 1) rather than by each shard's kernel."""
        return self.kind == "row" and self.tp > 1 and self.layer.bias

    def output_ranges(self, rank=None):
        """Column-parallel: [(local start, local stop, global start)] of
        `rank`'s (default this plan's) output columns in the gathered
        output, one range per part: part p of size S puts rank r's S/tp
        columns at offset(p) + r·S/tp; a part of kv heads replicated on
        R ranks puts rank r's head at offset(p) + (r // R)·head rows."""
        self._require("column", "output_ranges")
        rank = self.rank if rank is None else self._rank(rank)
        ranges, local = [], 0
        for split in self.splits:
            start, _ = split.rows(rank)
            ranges.append((local, local + split.rank_size, start))
            local += split.rank_size
        return ranges

    def rows(self, rank=None):
        """Column-parallel: the whole layer's rows (output features) that
        `rank` holds, in its local order."""
        return np.concatenate([np.arange(g, g + (b - a))
                               for a, b, g in self.output_ranges(rank)])

    def input_range(self, rank=None):
        """Row-parallel: the input columns [k0, k1) that `rank` reads."""
        self._require("row", "input_range")
        rank = self.rank if rank is None else self._rank(rank)
        width = self.shard.k
        return rank * width, (rank + 1) * width

    def for_rank(self, rank):
        """The same layer's plan for another rank."""
        return dataclasses.replace(self, rank=self._rank(rank))

    def describe(self):
        split = "N" if self.kind == "column" else "K"
        if self.kind == "column" and len(self.parts) > 1:
            split += " per part (" + ", ".join(
                f"{s.part.name} {s.part.size}" + (f" on {s.replicas} ranks each"
                                                  if s.replicas > 1 else "")
                for s in self.splits) + ")"
        return (f"{self.kind}-parallel layer {self.name} (rank {self.rank} of {self.tp}: "
                f"{self.layer.scheme} {self.layer.n}x{self.layer.k} split along {split}, "
                f"shard {self.shard.n}x{self.shard.k})")

    def _require(self, kind, what):
        if self.kind != kind:
            raise ArgumentError(f"layer {self.name}: {what} is for {kind}-parallel layers, "
                                f"this one is {self.kind}-parallel")

    def _rank(self, rank):
        if not _is_int(rank) or not 0 <= rank < self.tp:
            raise ArgumentError(f"layer {self.name}: rank must be an integer in "
                                f"0..{self.tp - 1} (tp = {self.tp}), got {rank!r}")
        return int(rank)


def make_plan(layer, kind, tp, rank, parts=None, name=None):
    """The Plan of `layer` (a qmat.Layer: the whole layer) split `tp` ways,
    for `rank`. `parts`: for a merged column-parallel layer, its stacked
    matrices, as sizes along N (e.g. (I, I) for gate and up), (name, size)
    pairs or qmat.shard.Part objects (heads, replicated kv heads), each
    split on its own so that every rank holds its rows of each part.
    Raises ShardError for a split that is not exact, ArgumentError for
    anything else that is wrong."""
    if not isinstance(layer, Layer):
        raise ArgumentError(f"expected a qmat.Layer for the whole layer, got "
                            f"{type(layer).__name__}")
    name = layer.name if name is None else str(name)
    if kind == "replicate":
        raise ArgumentError(f"layer {name} is replicated, not split: every rank runs the "
                            f"whole layer (qmat.torch.QuantLinear)")
    if kind not in KINDS:
        raise ArgumentError(f"layer {name}: unknown parallel kind {kind!r} "
                            f"(expected one of {', '.join(KINDS)})")
    if not _is_int(tp) or tp < 1:
        raise ArgumentError(f"layer {name}: the TP degree must be a positive integer, "
                            f"got {tp!r}")
    tp = int(tp)
    if not _is_int(rank) or not 0 <= rank < tp:
        raise ArgumentError(f"layer {name}: rank must be an integer in 0..{tp - 1} "
                            f"(tp = {tp}), got {rank!r}")
    splits = None
    if parts is not None:
        if kind != "column":
            raise ArgumentError(f"layer {name}: parts (stacked outputs) are for "
                                f"column-parallel layers, this one is {kind}-parallel")
        parts = sharding.as_parts(parts, layer.n, name)
        if len(parts) > 1 or parts[0].heads is not None:
            splits = sharding.check_parts(name, parts, layer.n, tp)
    if splits is None:
        n, k = sharding.check(name, layer.scheme, layer.n, layer.k, layer.block, kind, tp)
        if kind == "column":
            part = parts[0] if parts is not None else sharding.Part("0", layer.n)
            splits = (sharding.PartSplit(part, 0, tp, n),)
    else:
        n, k = sum(s.rank_size for s in splits), layer.k
    shard_layer = Layer(layer.name if tp == 1 else f"{layer.name}_tp{tp}_{kind}", layer.scheme,
                        n, k, block=layer.block, act=layer.act,
                        bias=layer.bias and not (kind == "row" and tp > 1),
                        zero_points=layer.zero_points)
    sizes = tuple(s.part.size for s in splits) if splits else (layer.n,)
    return Plan(name, kind, tp, rank, layer, shard_layer, sizes, splits)


# --- the world ----------------------------------------------------------------

def check_world(plan, world_size, rank):
    """That a process group of `world_size` ranks, this process being
    `rank`, runs `plan`."""
    if not _is_int(world_size) or world_size < 1:
        raise ArgumentError(f"layer {plan.name}: the world size must be a positive integer, "
                            f"got {world_size!r}")
    if world_size != plan.tp:
        raise ArgumentError(f"layer {plan.name}: the shards are for tp = {plan.tp} ranks, but "
                            f"the process group has {world_size}; the TP degree is the "
                            f"group's size")
    if rank != plan.rank:
        raise ArgumentError(f"layer {plan.name}: this process is rank {rank} of the group, "
                            f"but holds rank {plan.rank}'s shard")


def check_compiled(plan, info):
    """That the compiled layer `info` (a LayerInfo or Layer) runs the plan's
    shard: the same scheme, shape, block, activation type, bias and zero
    points."""
    expected, got = _signature(plan.shard), _signature(info)
    if expected != got:
        raise ArgumentError(f"layer {plan.name}: rank {plan.rank}'s shard is "
                            f"{_signature_text(expected)}, but the compiled layer "
                            f"{info.name} is {_signature_text(got)}")


def _signature(layer):
    return (layer.scheme, layer.n, layer.k, layer.block, layer.act, bool(layer.bias),
            bool(layer.zero_points))


def _signature_text(sig):
    scheme, n, k, block, act, bias, zp = sig
    return (f"{scheme} {n}x{k} (block {block}, {act}, {'bias' if bias else 'no bias'}"
            f"{', zero points' if zp else ''})")


def find_compiled(plan, layers, name=None):
    """The compiled layer that runs the plan's shard: `name` if given
    (checked), else among `layers` (LayerInfo / Layer objects) the one
    named as qmat.shard.shard_layer names the shard, else the first with
    the shard's signature (layers of one bundle with the same signature
    run the same kernels)."""
    layers = list(layers)
    if name is not None:
        for info in layers:
            if info.name == name:
                check_compiled(plan, info)
                return info
        raise ArgumentError(f"layer {plan.name}: the library has no layer {name!r} "
                            f"(layers: {', '.join(l.name for l in layers)})")
    sig = _signature(plan.shard)
    found = [info for info in layers if _signature(info) == sig]
    for info in found:
        if info.name == plan.shard.name:
            return info
    if found:
        return found[0]
    raise ArgumentError(f"layer {plan.name}: no compiled layer runs rank {plan.rank}'s "
                        f"shard, {_signature_text(sig)} (layers: "
                        f"{', '.join(l.name for l in layers)}); compile "
                        f"qmat.shard.shard_layer(layer, {plan.kind!r}, {plan.tp})")


# --- tensors ------------------------------------------------------------------

def check_tensors(layer, tensors, name=None):
    """That `tensors` ({operand: array}) are the whole layer's: the operands
    it has, of its shapes (dtypes are the launcher's to check)."""
    name = layer.name if name is None else name
    if not isinstance(tensors, dict):
        raise ArgumentError(f"layer {name}: tensors must be a dict {{operand: array}}, got "
                            f"{type(tensors).__name__}")
    n, k, cols = layer.n, layer.k, layer.scale_cols
    shapes = {"weights": (n, k) if layer.scheme == "fp8" else (n, k // 2),
              "scales": (n, cols)}
    if layer.scheme == "nvfp4":
        shapes["global_scale"] = (1,)
    if layer.zero_points:
        shapes["zero_points"] = (n, -(-cols // 2))
    if layer.bias:
        shapes["bias"] = (n,)
    unknown = sorted(set(tensors) - {"weights", "scales", "global_scale", "zero_points",
                                     "bias"})
    if unknown:
        raise ArgumentError(f"layer {name}: unknown operands {', '.join(unknown)} (expected "
                            f"{', '.join(shapes)})")
    for role, shape in shapes.items():
        if tensors.get(role) is None:
            raise ArgumentError(f"layer {name}: {role} is required (the whole layer, "
                                f"{_shape(shape)})")
        got = tuple(np.shape(tensors[role]))
        if role == "global_scale":
            if int(np.prod(got)) != 1:
                raise ArgumentError(f"layer {name}: global_scale must hold one value, got "
                                    f"shape {_shape(got)}")
        elif got != shape:
            raise ArgumentError(f"layer {name}: {role} must have the whole layer's shape "
                                f"{_shape(shape)}, got {_shape(got)}")
    for role in ("global_scale", "zero_points", "bias"):
        if role not in shapes and tensors.get(role) is not None:
            raise ArgumentError(f"layer {name}: {role} must be absent: the layer "
                                f"({_signature_text(_signature(layer))}) has none")


def _shape(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


@dataclasses.dataclass
class RankTensors:
    """What one rank holds: `tensors` ({operand: array} of the shard layer)
    and `bias` (row-parallel with tp > 1: the whole bias, which every rank
    adds once after the sum; else None)."""
    plan: Plan
    tensors: dict
    bias: object = None


def shard_tensors(plan, tensors):
    """The plan's rank's RankTensors, from the whole layer's tensors (as
    qmat.checkpoint.open_imported(...).linear returns them)."""
    layer = plan.layer
    check_tensors(layer, tensors, plan.name)
    tensors = {role: np.asarray(value) for role, value in tensors.items() if value is not None}
    if "global_scale" in tensors:
        tensors["global_scale"] = tensors["global_scale"].reshape(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sharding.ShardWarning)   # make_plan warned
        if plan.kind == "row":
            shard = sharding.shard_tensors(layer, tensors, "row", plan.tp, plan.rank)
            bias = tensors["bias"].copy() if plan.bias_after_reduce else None
            return RankTensors(plan, shard.tensors, bias)
        shard = sharding.shard_tensors(layer, tensors, "column", plan.tp, plan.rank,
                                       _fused_parts(plan))
    return RankTensors(plan, shard.tensors)


def _fused_parts(plan):
    """The Parts qmat.shard splits one by one, or None for N as one block."""
    splits = plan.splits
    if len(splits) == 1 and splits[0].part.heads is None:
        return None
    return [s.part for s in splits]


# --- running the plan in numpy --------------------------------------------------

def split_input(plan, x):
    """Row-parallel: the columns of x [..., K] that the plan's rank reads."""
    x = np.asarray(x)
    if x.ndim < 1 or x.shape[-1] != plan.layer.k:
        raise ArgumentError(f"layer {plan.name}: the whole input must have shape "
                            f"[..., {plan.layer.k}], got {list(x.shape)}")
    k0, k1 = plan.input_range()
    return np.ascontiguousarray(x[..., k0:k1])


def gather_outputs(plan, outputs):
    """Column-parallel: the ranks' outputs (a sequence in rank order, each
    [..., N/tp]) as the whole layer's [..., N]; every value is moved, none
    computed."""
    outputs = _rank_sequence(plan, outputs, "outputs")
    shape = outputs[0].shape
    if outputs[0].ndim < 1 or shape[-1] != plan.shard.n:
        raise ArgumentError(f"layer {plan.name}: each rank's output must have shape "
                            f"[..., {plan.shard.n}], got {list(shape)}")
    for rank, y in enumerate(outputs):
        if y.shape != shape:
            raise ArgumentError(f"layer {plan.name}: rank {rank}'s output has shape "
                                f"{list(y.shape)}, rank 0's {list(shape)}")
    full = np.empty(shape[:-1] + (plan.layer.n,), dtype=outputs[0].dtype)
    for rank, y in enumerate(outputs):
        for split, (a, b, g) in zip(plan.splits, plan.output_ranges(rank)):
            if rank % split.replicas == 0:   # a replicated head: from its first rank
                full[..., g:g + (b - a)] = y[..., a:b]
    return full


def reduce_partials(plan, partials, bias=None):
    """Row-parallel: the ranks' partial outputs (a sequence in rank order of
    [..., N] activation-type bits) combined as every rank combines them:
    rne_act(((p0 + p1) + ... + p[tp-1]) + bias), each + in fp32 (a
    float32 addition, rounded to nearest even), the bias added once, one
    rounding at the end. `bias`: the whole bias [N] (bits), or None."""
    partials = _rank_sequence(plan, partials, "partials")
    act, n = plan.layer.act, plan.layer.n
    shape = partials[0].shape
    if partials[0].ndim < 1 or shape[-1] != n:
        raise ArgumentError(f"layer {plan.name}: each rank's partial output must have shape "
                            f"[..., {n}], got {list(shape)}")
    for rank, p in enumerate(partials):
        if p.shape != shape:
            raise ArgumentError(f"layer {plan.name}: rank {rank}'s partial output has shape "
                                f"{list(p.shape)}, rank 0's {list(shape)}")
    if plan.bias_after_reduce and bias is None:
        raise ArgumentError(f"layer {plan.name} has a bias: it is added once, after the sum "
                            f"over ranks, and must be given")
    if bias is not None and not plan.bias_after_reduce:
        raise ArgumentError(f"layer {plan.name}: no bias is added after the sum ("
                            + ("the layer has none)" if not plan.layer.bias else
                               "with tp = 1 the kernel adds it)"))
    acc = reference.to_float32(partials[0], act).copy()
    with np.errstate(over="ignore", invalid="ignore"):
        for p in partials[1:]:
            acc += reference.to_float32(p, act)
        if bias is not None:
            bias = np.asarray(bias)
            if bias.shape != (n,):
                raise ArgumentError(f"layer {plan.name}: the bias must have shape [{n}], "
                                    f"got {list(bias.shape)}")
            acc += reference.to_float32(bias, act)
    return reference.round_to_act(acc, act)


def _rank_sequence(plan, values, what):
    values = [np.asarray(v) for v in values]
    if len(values) != plan.tp:
        raise ArgumentError(f"layer {plan.name}: {what} of {plan.tp} ranks are needed, got "
                            f"{len(values)}")
    return values


def relative_error(y, ref):
    """||y - ref||_F / ||ref||_F in float64 (0 for two zero arrays)."""
    y, ref = np.asarray(y, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    denominator = np.linalg.norm(ref)
    if denominator == 0:
        return 0.0 if np.linalg.norm(y) == 0 else float("inf")
    return float(np.linalg.norm(y - ref) / denominator)


def silu_and_mul(gate, up, act):
    """The MLP's activation on activation-type bits: rne(silu(g) * u) with
    silu(g) = g / (1 + exp(-g)) and the product in fp32, one rounding.
    numpy's exp and CUDA's may differ in an fp32 last bit, so this host
    version is compared with the GPU's within bounds, not bit for bit."""
    g = reference.to_float32(gate, act)
    u = reference.to_float32(up, act)
    with np.errstate(over="ignore", invalid="ignore"):
        hidden = (g / (np.float32(1) + np.exp(-g))) * u
    return reference.round_to_act(hidden.astype(np.float32), act)


# --- the MLP block ----------------------------------------------------------------

def check_mlp(down, gate=None, up=None, gate_up=None):
    """That column-parallel plans (gate and up, or one merged gate_up whose
    parts are (I, I)) and a row-parallel `down` make one MLP block
    down(silu(gate(x)) * up(x)) whose hidden columns never leave their rank:
    the same tp and rank, gate/up N = I = down's K, so rank r's hidden
    columns r·I/tp .. are its down inputs."""
    if down is None or down.kind != "row":
        raise ArgumentError("the MLP's down projection must be row-parallel, got "
                            + ("none" if down is None else f"{down.kind}-parallel layer "
                               f"{down.name}"))
    if gate_up is not None:
        if gate is not None or up is not None:
            raise ArgumentError(f"MLP with down {down.name}: give gate and up, or one merged "
                                f"gate_up, not both")
        columns = [gate_up]
    else:
        if gate is None or up is None:
            raise ArgumentError(f"MLP with down {down.name}: gate and up (or a merged "
                                f"gate_up) are required")
        columns = [gate, up]
    for plan in columns:
        if plan.kind != "column":
            raise ArgumentError(f"MLP with down {down.name}: {plan.name} must be "
                                f"column-parallel, it is {plan.kind}-parallel")
        if (plan.tp, plan.rank) != (down.tp, down.rank):
            raise ArgumentError(f"MLP with down {down.name}: {plan.name} is rank {plan.rank} "
                                f"of {plan.tp}, down rank {down.rank} of {down.tp}")
        if plan.layer.k != down.layer.n:
            raise ArgumentError(f"MLP with down {down.name}: {plan.name} takes K = "
                                f"{plan.layer.k}, but down gives N = {down.layer.n} (the "
                                f"block maps the hidden size to itself)")
        if plan.layer.act != down.layer.act:
            raise ArgumentError(f"MLP with down {down.name}: {plan.name} is {plan.layer.act}, "
                                f"down {down.layer.act}")
    hidden = down.layer.k
    if gate_up is not None:
        if gate_up.parts != (hidden, hidden):
            raise ArgumentError(
                f"MLP with down {down.name}: the merged {gate_up.name} must stack gate and up "
                f"as parts ({hidden}, {hidden}), each split on its own so that every rank "
                f"holds its gate and up rows; its parts are {list(gate_up.parts)}"
                + (" (one block of rows: rank 0 would hold gate rows only; give make_plan / "
                   "from_full parts=(I, I), or import with qmat import --tp, which splits "
                   "gate_up_proj per part and records the parts)"
                   if gate_up.parts == (2 * hidden,) and gate_up.splits[0].part.heads is None
                   else f" (one part of {gate_up.splits[0].part.heads} groups of "
                        f"{gate_up.splits[0].part.head_dim} rows, such as gpt-oss' interleaved "
                        f"(gate, up) pairs: not the stacked gate and up this block computes)"
                   if gate_up.parts == (2 * hidden,) else ""))
    else:
        for plan in columns:
            if plan.parts != (plan.layer.n,):
                raise ArgumentError(f"MLP with down {down.name}: {plan.name} must be one "
                                    f"matrix, it stacks parts {list(plan.parts)}")
            if plan.layer.n != hidden:
                raise ArgumentError(f"MLP with down {down.name}: {plan.name} has N = "
                                    f"{plan.layer.n}, down K = {hidden}: they must be equal")


# --- per-rank weights written by `qmat import --tp N` ------------------------------

@dataclasses.dataclass
class ImportedShard:
    """One rank's shard of an imported linear: its plan, the compiled
    layer's name in the import's bundle, the rank's tensors, and whether
    the import wrote its codes in the prepared layout (`prepared`: they
    need a layer compiled for it, qmat.checkpoint.check_prepared)."""
    plan: Plan
    layer_name: str
    tensors: dict
    bias: object = None
    prepared: bool = False


def imported_shard(checkpoint, module, kind, tp, rank):
    """Rank `rank`'s shard of `module` from an import
    (qmat.checkpoint.open_imported), checked against a group of `tp` ranks
    and the `kind` ('column' or 'row') of the layer asked for. A tp N
    import holds rank r's tensors in rank<r>/; a tp 1 import, whole layers
    for a group of one."""
    manifest = checkpoint.manifest
    linears = manifest.get("linears", {})
    where = getattr(checkpoint, "directory", "the import")
    if module not in linears:
        known = ", ".join(list(linears)[:6]) + (", ..." if len(linears) > 6 else "")
        raise ArgumentError(f"{where}: no quantized linear {module!r} (linears: {known})")
    entry = linears[module]
    imported_tp = int(manifest.get("tp", 1))
    if imported_tp != tp:
        if imported_tp == 1:
            raise ArgumentError(
                f"layer {module}: {where} holds whole layers (imported without --tp), but the "
                f"process group has {tp} ranks: shard them in memory (from_full) or import "
                f"with --tp {tp}")
        raise ArgumentError(f"layer {module}: {where} was imported with --tp {imported_tp}, "
                            f"but the process group has {tp} ranks")
    imported_kind = entry.get("parallel", kind)
    if imported_kind == "replicate":
        raise ArgumentError(f"layer {module} is replicated by the import (every rank holds "
                            f"it whole): run it with qmat.torch.QuantLinear")
    if imported_kind != kind:
        raise ArgumentError(f"layer {module} was imported {imported_kind}-parallel, not "
                            f"{kind}-parallel (qmat.shard.parallel_kind names the split by "
                            f"the linear's last name, or import_checkpoint's parallel=)")
    if not _is_int(rank) or not 0 <= rank < tp:
        raise ArgumentError(f"layer {module}: rank must be an integer in 0..{tp - 1} "
                            f"(tp = {tp}), got {rank!r}")
    shard_layer, tensors = checkpoint.linear(module, int(rank))
    n, k = entry.get("shape", (shard_layer.n, shard_layer.k))
    has_bias = bool(shard_layer.bias or "reduce_bias" in entry)
    whole = Layer(shard_layer.name, shard_layer.scheme, int(n), int(k), block=shard_layer.block,
                  act=shard_layer.act, bias=has_bias, zero_points=shard_layer.zero_points)
    parts = _manifest_parts(module, entry.get("parts")) if kind == "column" else None
    plan = make_plan(whole, kind, tp, rank, parts=parts, name=module)
    if parts is not None:
        recorded = [p.get("rank_size") for p in entry["parts"]]
        split = [s.rank_size for s in plan.splits]
        if recorded != split:
            raise QMatError(f"layer {module}: the manifest's parts hold {recorded} rows per "
                            f"rank, but splitting them {tp} ways gives {split}")
    if _signature(plan.shard) != _signature(shard_layer):
        raise QMatError(f"layer {module}: the manifest's shard "
                        f"{_signature_text(_signature(shard_layer))} is not the {kind}-parallel "
                        f"split of {_signature_text(_signature(whole))} {tp} ways")
    bias = None
    if plan.bias_after_reduce:
        bias = checkpoint.reduce_bias(module)
        if bias is None:
            raise QMatError(f"layer {module}: the manifest names a bias for after the sum, but "
                            f"rank 0's file does not hold it")
    return ImportedShard(plan, entry["layer"], dict(tensors), bias,
                         bool(entry.get("prepared_weights", False)))


def _manifest_parts(module, entries):
    """The qmat.shard.Parts of a manifest's "parts" list (None without one)."""
    if entries is None:
        return None
    try:
        return [sharding.Part(str(e["name"]), int(e["size"]),
                              heads=None if e.get("heads") is None else int(e["heads"]),
                              replicate=int(e.get("replicas", 1)) > 1)
                for e in entries]
    except (KeyError, TypeError, ValueError):
        raise QMatError(f"layer {module}: the manifest's parts {entries!r} are not a list of "
                        f"{{name, size, rank_size}}") from None


__all__ = ["BOUNDS", "ImportedShard", "KINDS", "Plan", "REDUCTIONS", "RankTensors",
           "ShardError", "check_compiled", "check_mlp", "check_tensors", "check_world",
           "find_compiled", "gather_outputs", "imported_shard", "make_plan", "reduce_partials",
           "relative_error", "shard_tensors", "silu_and_mul", "split_input"]
