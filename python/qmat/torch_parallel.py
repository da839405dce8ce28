"""Tensor-parallel QuantLinear layers over torch.distributed (docs/python.md,
"Tensor parallel in torch"; the numerics in docs/numerics.md,
"Tensor-parallel layers").

    dist.init_process_group("nccl")                 # one process per GPU
    torch.cuda.set_device(local_rank)
    lib = qmat.torch_parallel.load_library(bundle)  # the bundle holds the shard shapes
    qkv = ColumnParallelQuantLinear.from_full(lib, layer, tensors)        # N split
    o = RowParallelQuantLinear.from_imported("out", "model.layers.0.self_attn.o_proj")
    y = o(qkv(x))                                   # the same [M, N] on every rank

* ColumnParallelQuantLinear holds this rank's rows of N; it returns its
  [..., N/tp] columns, or with gather_output=True the whole [..., N],
  all-gathered into a staging buffer kept across calls.
* RowParallelQuantLinear holds this rank's whole scale blocks of K; it takes
  the input already split along K (input_is_parallel=True) or the whole
  input, computes its partial product without the bias, combines the
  partials over the group and adds the bias once. The default reduction,
  "ordered", all-gathers the partials (bytes; no arithmetic in the
  collective) and sums them in fp32 in rank order on every rank, so every
  rank, every run and every NCCL algorithm give the same bits;
  "all_reduce" is one fp32 all-reduce (the same bits for tp = 2).
* ParallelQuantMLP is down(silu(gate(x)) * up(x)) with gate and up (or one
  merged gate_up, split per part) column-parallel and down row-parallel:
  the hidden columns never leave their rank, one reduction per block.

The collectives are ordered on torch's current stream (torch.distributed
makes that stream wait for them). The plans, the splits and the reduction's
definition are torch-free, in qmat.parallel.
"""
import os

import numpy as np
import torch
import torch.distributed as dist

from . import parallel as plans
from .checkpoint import ImportedCheckpoint, check_prepared, open_imported
from .errors import ArgumentError, DTypeError, QMatError
from .torch import QuantLinear
from .torch import load_library as _load_library
from .torch import move_buffers_keeping_dtypes

__all__ = ["ColumnParallelQuantLinear", "ParallelQuantMLP", "RowParallelQuantLinear",
           "load_library", "ordered_sum", "silu_and_mul"]

_ACT_TORCH = {"f16": torch.float16, "bf16": torch.bfloat16}


# --- the group ------------------------------------------------------------------

def _world(group, name):
    """(world size, rank) of `group`; (1, 0) without torch.distributed for
    a layer of one rank."""
    if not (dist.is_available() and dist.is_initialized()):
        if group is not None:
            raise ArgumentError(f"layer {name}: a process group was given, but "
                                f"torch.distributed is not initialized")
        return 1, 0
    return dist.get_world_size(group), dist.get_rank(group)


def load_library(source, group=None):
    """qmat.torch.load_library in every rank of `group`: rank 0 loads first,
    building lib<prefix>.so where the bundle has none, while the others
    wait, so no two ranks compile the same file at once. A failure on rank
    0 is raised on every rank."""
    world, rank = _world(group, "load_library")
    if world == 1:
        return _load_library(source)
    first = 0 if group is None else dist.get_global_rank(group, 0)
    if rank == 0:
        try:
            library = _load_library(source)
        except Exception as e:  # told to the other ranks, then raised here too
            dist.broadcast_object_list([f"{type(e).__name__}: {e}"], src=first, group=group)
            raise
        dist.broadcast_object_list([None], src=first, group=group)
        return library
    message = [None]
    dist.broadcast_object_list(message, src=first, group=group)
    if message[0] is not None:
        raise QMatError(f"rank 0 could not load the library {source}: {message[0]}")
    return _load_library(source)


def _import_library(checkpoint, group):
    bundle = checkpoint.manifest.get("bundle")
    if not bundle:
        raise ArgumentError(f"{checkpoint.directory} was imported without a bundle "
                            f"(--no-bundle): pass library=")
    return load_library(os.path.join(checkpoint.directory, bundle["directory"]), group)


def _open(checkpoint):
    if isinstance(checkpoint, ImportedCheckpoint):
        return checkpoint
    return open_imported(checkpoint)


# --- the arithmetic ---------------------------------------------------------------

def ordered_sum(stacked, bias=None, out=None):
    """The row-parallel reduction: stacked [tp, ..., N] partial outputs (rank
    r's at index r, in the activation type) summed in fp32 in rank order,
    the bias [N] added once, rounded once to the activation type:
    rne(((p0 + p1) + ... + p[tp-1]) + bias). Each step is one elementwise
    fp32 addition, so the result is qmat.parallel.reduce_partials's bit
    for bit. Writes `out` (the activation type, [..., N]) if given."""
    acc = stacked[0].to(torch.float32)
    for r in range(1, stacked.shape[0]):
        acc.add_(stacked[r])          # widened exactly, added in fp32
    if bias is not None:
        acc.add_(bias)
    if out is None:
        return acc.to(stacked.dtype)
    out.copy_(acc)
    return out


def silu_and_mul(gate, up):
    """rne(silu(g) * u) for the activation-type gate and up values: silu(g) =
    g * sigmoid(g) and the product in fp32, one rounding."""
    hidden = torch.nn.functional.silu(gate.to(torch.float32))
    hidden.mul_(up)
    return hidden.to(gate.dtype)


def _act_tensor(bits, act, device):
    """The activation-type tensor of uint16 bits (or of a tensor), on device."""
    if isinstance(bits, torch.Tensor):
        value = bits
    else:
        array = np.ascontiguousarray(bits)
        if array.dtype in (np.uint16, np.int16) or array.dtype.name == "bfloat16":
            value = torch.from_numpy(array.view(np.int16).copy()).view(_ACT_TORCH[act])
        else:
            value = torch.from_numpy(array.astype(np.float32))
    if value.dtype != _ACT_TORCH[act]:
        raise DTypeError(f"the bias must hold {act} values (uint16 bits or a "
                         f"{_ACT_TORCH[act]} tensor), got {value.dtype}")
    return value.to(device).contiguous()


def _quant_linear(library, info, tensors, device, prepared=False):
    return QuantLinear(library, info.name, tensors["weights"], tensors["scales"],
                       tensors.get("global_scale"), tensors.get("zero_points"),
                       tensors.get("bias"), device=device, prepared=prepared)


def _imported_linear(library, module, held, device):
    """The QuantLinear of an imported shard, its codes as the import wrote
    them: prepared codes need a layer compiled for the prepared layout."""
    info = plans.find_compiled(held.plan, library.layers, held.layer_name)
    check_prepared(module, held.prepared, info)
    return _quant_linear(library, info, held.tensors, device, prepared=held.prepared)


# --- the common part of both layers ------------------------------------------------

class _Parallel(torch.nn.Module):
    _KIND = None

    def __init__(self, local, plan, group):
        super().__init__()
        if not isinstance(plan, plans.Plan):
            raise ArgumentError(f"expected a qmat.parallel.Plan, got {type(plan).__name__}")
        if plan.kind != self._KIND:
            raise ArgumentError(f"layer {plan.name}: {type(self).__name__} takes a "
                                f"{self._KIND}-parallel plan, this one is {plan.kind}-parallel")
        world, rank = _world(group, plan.name)
        plans.check_world(plan, world, rank)
        info = getattr(local, "layer_info", None)
        if info is None:
            raise ArgumentError(f"layer {plan.name}: the local layer must be a QuantLinear "
                                f"(or have its layer_info and forward(x, out=None)), got "
                                f"{type(local).__name__}")
        plans.check_compiled(plan, info)
        self.local = local
        self.plan = plan
        self.group = group
        self._act = _ACT_TORCH[plan.layer.act]
        self._staging = None
        self._where = (f"{plan.kind}-parallel layer {plan.name} (rank {plan.rank} of "
                       f"{plan.tp})")

    def _check_input(self, x, k, what):
        if not isinstance(x, torch.Tensor):
            raise DTypeError(f"{self._where}: the input must be a torch.Tensor, got "
                             f"{type(x).__name__}")
        if x.dtype != self._act:
            raise DTypeError(f"{self._where}: the input must have dtype {self._act} (the "
                             f"layer is {self.plan.layer.act}), got {x.dtype}")
        if x.dim() < 1 or x.shape[-1] != k:
            raise ArgumentError(f"{self._where}: {what}, got {list(x.shape)}")

    def _output(self, x, n, out):
        """`out` checked (or allocated) as [..., n] and its [M, n] matrix."""
        shape = (*x.shape[:-1], n)
        if out is None:
            out = torch.empty(shape, dtype=self._act, device=x.device)
        else:
            if not isinstance(out, torch.Tensor):
                raise DTypeError(f"{self._where}: out must be a torch.Tensor, got "
                                 f"{type(out).__name__}")
            if out.dtype != self._act:
                raise DTypeError(f"{self._where}: out must have dtype {self._act}, got "
                                 f"{out.dtype}")
            if tuple(out.shape) != shape:
                raise ArgumentError(f"{self._where}: out must have shape {list(shape)}, got "
                                    f"{list(out.shape)}")
            if out.device != x.device:
                raise ArgumentError(f"{self._where}: out is on {out.device}, the input on "
                                    f"{x.device}")
            if not out.is_contiguous():
                raise ArgumentError(f"{self._where}: out must be contiguous")
        return out, out.view(-1, n)

    def _stage(self, rows, n, device):
        """A [rows, n] staging matrix of the activation type, kept for the
        largest rows seen (a fresh one per call would cost an allocation)."""
        held = self._staging
        if (held is None or held.device != device or held.shape[0] < rows
                # one made under inference_mode cannot be written outside it
                or (held.is_inference() and not torch.is_inference_mode_enabled())):
            held = torch.empty((rows, n), dtype=self._act, device=device)
            self._staging = held
        return held[:rows]

    def _apply(self, fn, recurse=True):
        # As QuantLinear: buffers move between devices but keep their dtype
        # (the kernels are compiled for one activation type).
        self.local._apply(fn)
        move_buffers_keeping_dtypes(self, fn)
        self._staging = None
        return self

    @property
    def tp(self):
        return self.plan.tp

    @property
    def rank(self):
        return self.plan.rank


class ColumnParallelQuantLinear(_Parallel):
    """This rank's rows of N of a quantized linear layer (with their bias).

    forward(x [..., K]) returns this rank's [..., N/tp] columns, or with
    gather_output=True the whole layer's [..., N], every rank's columns put
    where the whole layer has them (for a merged layer, `parts`, each
    part's columns in part order; a replicated kv head from the first rank
    holding it). The gathered values are the ranks' outputs moved, not
    recomputed."""
    _KIND = "column"

    def __init__(self, local, plan, *, group=None, gather_output=False):
        super().__init__(local, plan, group)
        self.gather_output = bool(gather_output)
        self.in_features = plan.layer.k
        self.out_features = plan.layer.n if self.gather_output else plan.shard.n
        self._single_part = len(plan.parts) == 1

    @classmethod
    def from_full(cls, library, layer, tensors, *, compiled=None, group=None,
                  gather_output=False, parts=None, name=None, device=None):
        """This rank's shard of a whole layer: `layer` (qmat.Layer) and its
        `tensors` ({operand: array}, e.g. a tp 1 import's linear(); the
        codes in the checkpoint layout, not an import's prepared ones), split
        with qmat.shard for the group; `library` must hold a layer of the
        shard's shape (`compiled` names it; else the one that fits).
        `parts`: the matrices a merged layer stacks along N (sizes, (name,
        size) pairs or qmat.shard.Part objects; make_plan)."""
        library = _load_library(library)
        world, rank = _world(group, name or layer.name)
        plan = plans.make_plan(layer, "column", world, rank, parts=parts, name=name)
        info = plans.find_compiled(plan, library.layers, compiled)
        held = plans.shard_tensors(plan, tensors)
        return cls(_quant_linear(library, info, held.tensors, device), plan, group=group,
                   gather_output=gather_output)

    @classmethod
    def from_imported(cls, checkpoint, module, library=None, *, group=None,
                      gather_output=False, device=None):
        """This rank's shard of `module` from `qmat import --tp N`'s output
        directory (or an ImportedCheckpoint), a fused gate_up_proj / qkv_proj
        with the parts its manifest records; the library defaults to the
        import's bundle, loaded with load_library."""
        checkpoint = _open(checkpoint)
        world, rank = _world(group, module)
        held = plans.imported_shard(checkpoint, module, "column", world, rank)
        library = _load_library(library) if library is not None else _import_library(
            checkpoint, group)
        return cls(_imported_linear(library, module, held, device), held.plan, group=group,
                   gather_output=gather_output)

    def forward(self, x, out=None):
        plan = self.plan
        self._check_input(x, plan.layer.k, f"the input must have shape [..., {plan.layer.k}]")
        if not self.gather_output or plan.tp == 1:
            return self.local(x, out)
        out, matrix = self._output(x, plan.layer.n, out)
        m, width = matrix.shape[0], plan.shard.n
        if m == 0:
            return out
        local = self.local(x.reshape(-1, plan.layer.k))
        if m == 1 and self._single_part:
            # One row: rank r's columns are r·N/tp.., exactly the gather's layout.
            dist.all_gather_into_tensor(matrix.view(plan.tp, width), local, group=self.group)
            return out
        staged = self._stage(plan.tp * m, width, x.device)
        dist.all_gather_into_tensor(staged, local, group=self.group)
        staged = staged.view(plan.tp, m, width)
        for (a, b, _), split in zip(plan.output_ranges(0), plan.splits):
            # a kv head replicated on R ranks is taken from the first of them
            groups = plan.tp // split.replicas
            target = matrix[:, split.offset:split.offset + split.part.size].view(m, groups, b - a)
            target.copy_(staged[::split.replicas, :, a:b].transpose(0, 1))
        return out

    def extra_repr(self):
        return (f"{self.plan.describe()}, gather_output={self.gather_output}"
                + (f", parts={list(self.plan.parts)}" if not self._single_part else ""))


class RowParallelQuantLinear(_Parallel):
    """This rank's whole scale blocks of K of a quantized linear layer.

    forward(x) takes this rank's K/tp input columns (input_is_parallel=True,
    what a column-parallel layer before it returns) or the whole [..., K]
    input, and returns the whole [..., N] output, the same bits on every
    rank: the partial products (the shard layers have no bias) combined by
    `reduction` and the bias added once (docs/numerics.md)."""
    _KIND = "row"

    def __init__(self, local, plan, bias=None, *, group=None, input_is_parallel=True,
                 reduction="ordered"):
        super().__init__(local, plan, group)
        if reduction not in plans.REDUCTIONS:
            raise ArgumentError(f"{self._where}: unknown reduction {reduction!r} (expected "
                                f"one of {', '.join(plans.REDUCTIONS)})")
        if plan.bias_after_reduce and bias is None:
            raise ArgumentError(f"{self._where}: the layer has a bias, added once after the "
                                f"sum over ranks: every rank needs the whole bias [N]")
        if bias is not None and not plan.bias_after_reduce:
            raise ArgumentError(f"{self._where}: bias must be None: "
                                + ("the layer has none" if not plan.layer.bias else
                                   "with tp = 1 the layer's kernel adds it"))
        self.reduction = reduction
        self.input_is_parallel = bool(input_is_parallel)
        self.in_features = plan.shard.k if self.input_is_parallel else plan.layer.k
        self.out_features = plan.layer.n
        value = None
        if bias is not None:
            value = _act_tensor(bias, plan.layer.act, _local_device(local))
            if tuple(value.shape) != (plan.layer.n,):
                raise ArgumentError(f"{self._where}: the bias must have shape "
                                    f"[{plan.layer.n}], got {list(value.shape)}")
        self.register_buffer("bias", value)

    @classmethod
    def from_full(cls, library, layer, tensors, *, compiled=None, group=None,
                  input_is_parallel=True, reduction="ordered", name=None, device=None):
        """This rank's shard of a whole layer, split with qmat.shard (see
        ColumnParallelQuantLinear.from_full); every rank keeps the whole
        bias for after the reduction."""
        library = _load_library(library)
        world, rank = _world(group, name or layer.name)
        plan = plans.make_plan(layer, "row", world, rank, name=name)
        info = plans.find_compiled(plan, library.layers, compiled)
        held = plans.shard_tensors(plan, tensors)
        return cls(_quant_linear(library, info, held.tensors, device), plan, held.bias,
                   group=group, input_is_parallel=input_is_parallel, reduction=reduction)

    @classmethod
    def from_imported(cls, checkpoint, module, library=None, *, group=None,
                      input_is_parallel=True, reduction="ordered", device=None):
        """This rank's shard of `module` from `qmat import --tp N`'s output;
        the bias (kept once, in rank 0's file) is read by every rank."""
        checkpoint = _open(checkpoint)
        world, rank = _world(group, module)
        held = plans.imported_shard(checkpoint, module, "row", world, rank)
        library = _load_library(library) if library is not None else _import_library(
            checkpoint, group)
        return cls(_imported_linear(library, module, held, device), held.plan, held.bias,
                   group=group, input_is_parallel=input_is_parallel, reduction=reduction)

    def forward(self, x, out=None):
        plan = self.plan
        if self.input_is_parallel:
            k0, k1 = plan.input_range()
            self._check_input(x, plan.shard.k,
                              f"the input must be this rank's K shard, shape [..., "
                              f"{plan.shard.k}] (inputs {k0}..{k1} of K = {plan.layer.k}); "
                              f"the whole input takes input_is_parallel=False")
        else:
            self._check_input(x, plan.layer.k,
                              f"the input must be the whole input, shape [..., "
                              f"{plan.layer.k}] (input_is_parallel=False)")
            if plan.tp > 1:
                k0, k1 = plan.input_range()
                x = x[..., k0:k1].contiguous()
        if plan.tp == 1:
            return self.local(x, out)
        out, matrix = self._output(x, plan.layer.n, out)
        m, n = matrix.shape
        if m == 0:
            return out
        partial = self.local(x.reshape(-1, plan.shard.k))
        if self.reduction == "ordered":
            staged = self._stage(plan.tp * m, n, x.device)
            dist.all_gather_into_tensor(staged, partial, group=self.group)
            ordered_sum(staged.view(plan.tp, m, n), self.bias, matrix)
        else:
            acc = partial.to(torch.float32)
            dist.all_reduce(acc, op=dist.ReduceOp.SUM, group=self.group)
            if self.bias is not None:
                acc.add_(self.bias)
            matrix.copy_(acc)
        return out

    def extra_repr(self):
        return (f"{self.plan.describe()}, input_is_parallel={self.input_is_parallel}, "
                f"reduction={self.reduction!r}, bias={self.bias is not None}")


def _local_device(local):
    for buffer in local.buffers():
        return buffer.device
    return torch.device("cuda", torch.cuda.current_device())


class ParallelQuantMLP(torch.nn.Module):
    """down(silu(gate(x)) * up(x)) over a tensor-parallel group: gate and up
    (or one merged gate_up whose parts are the gate and up rows, as
    `qmat import --tp` splits a gate_up_proj) are column-parallel without
    gathering, down row-parallel on the rank's own hidden columns, so the
    block has one reduction, down's. silu_and_mul rounds once to the
    activation type."""

    def __init__(self, down, *, gate=None, up=None, gate_up=None):
        super().__init__()
        for what, module, cls in (("down", down, RowParallelQuantLinear),
                                  ("gate", gate, ColumnParallelQuantLinear),
                                  ("up", up, ColumnParallelQuantLinear),
                                  ("gate_up", gate_up, ColumnParallelQuantLinear)):
            if module is not None and not isinstance(module, cls):
                raise ArgumentError(f"the MLP's {what} must be a {cls.__name__}, got "
                                    f"{type(module).__name__}")
        if down is None:
            raise ArgumentError("the MLP's down projection (a RowParallelQuantLinear) is "
                                "required")
        plans.check_mlp(down.plan, gate=gate and gate.plan, up=up and up.plan,
                        gate_up=gate_up and gate_up.plan)
        for module in (gate, up, gate_up):
            if module is not None and module.gather_output:
                raise ArgumentError(f"MLP with down {down.plan.name}: {module.plan.name} must "
                                    f"not gather its output (gather_output=False): each rank "
                                    f"multiplies its own hidden columns")
        if not down.input_is_parallel:
            raise ArgumentError(f"MLP with down {down.plan.name}: down must take the rank's "
                                f"hidden columns (input_is_parallel=True)")
        self.down, self.gate, self.up, self.gate_up = down, gate, up, gate_up
        self.hidden_shard = down.plan.shard.k

    @classmethod
    def from_imported(cls, checkpoint, prefix, library=None, *, group=None,
                      reduction="ordered", device=None):
        """The block `prefix` (e.g. model.layers.0.mlp) of an import: its
        gate_proj and up_proj, or a merged gate_up_proj (each rank's
        [gate_r; up_r] rows, as the manifest's parts say), and down_proj."""
        checkpoint = _open(checkpoint)
        if library is None:
            library = _import_library(checkpoint, group)
        linears = checkpoint.manifest.get("linears", {})
        down = RowParallelQuantLinear.from_imported(checkpoint, f"{prefix}.down_proj", library,
                                                    group=group, reduction=reduction,
                                                    device=device)
        if f"{prefix}.gate_up_proj" in linears:
            merged = ColumnParallelQuantLinear.from_imported(
                checkpoint, f"{prefix}.gate_up_proj", library, group=group, device=device)
            return cls(down, gate_up=merged)
        gate, up = (ColumnParallelQuantLinear.from_imported(checkpoint, f"{prefix}.{name}",
                                                            library, group=group, device=device)
                    for name in ("gate_proj", "up_proj"))
        return cls(down, gate=gate, up=up)

    def forward(self, x):
        if self.gate_up is not None:
            both = self.gate_up(x)
            g, u = both[..., :self.hidden_shard], both[..., self.hidden_shard:]
        else:
            g, u = self.gate(x), self.up(x)
        return self.down(silu_and_mul(g, u))
