"""Tensor-parallel shards of one quantized layer's tensors (docs/checkpoints.md,
"Tensor parallel").

* column-parallel splits N: rank r holds rows r*N/tp .. (r+1)*N/tp of the
  codes, scales, zero points and bias;
* row-parallel splits K in whole scale blocks: rank r holds the columns
  of its K/tp inputs in the codes (K/(2 tp) bytes for the 4-bit schemes),
  its K/(tp block) scale columns and their zero points; the layer of a
  row-parallel shard has no bias: the bias is kept once, with rank 0
  (`Shard.reduce_bias`), to be added once after the reduction;
* the nvfp4 global scale is copied to every shard.

Every split is exact or refused with a ShardError; nothing is padded.
Tensors are given by the launcher's operand names: weights, scales,
global_scale, zero_points, bias (as qmat.checkpoint.open_imported returns
them).
"""
import dataclasses
import warnings

import numpy as np

from .errors import ArgumentError, ShardError
from .layers import Layer

KINDS = ("column", "row", "replicate")
MAX_TP = 16
TENSOR_CORE_K = 128   # shard K that keeps the tensor-core (fused / GEMV) paths


class ShardWarning(UserWarning):
    """A legal split whose shard K leaves the tensor-core paths (K % 128 != 0)."""


def _four_bit(scheme):
    return scheme != "fp8"


def _problem(name, scheme, n, k, block, kind, tp):
    """Why `kind` cannot split this layer `tp` ways (None when it can)."""
    if kind == "replicate" or tp == 1:
        return None
    if kind == "column":
        if n % tp:
            return (f"layer {name}: N = {n} cannot be split {tp} ways "
                    f"({n / tp:g} rows per rank; blocks of {block} run along K)")
        return None
    if k % block:
        return (f"layer {name}: K = {k} in blocks of {block} cannot be split {tp} ways "
                f"(its last block is partial: {k / block:g} blocks)")
    blocks = k // block
    if blocks % tp:
        return (f"layer {name}: K = {k} in blocks of {block} cannot be split {tp} ways "
                f"({blocks / tp:g} blocks per rank)")
    shard_k = k // tp
    if _four_bit(scheme) and shard_k % 2:
        return (f"layer {name}: K = {k} in blocks of {block} cannot be split {tp} ways "
                f"(shard K = {shard_k} is odd and {scheme} packs two codes per byte)")
    return None


def legal_degrees(scheme, n, k, block, kind, limit=MAX_TP):
    """The TP degrees 1..limit that split this layer exactly."""
    return [t for t in range(1, limit + 1)
            if _problem("", scheme, n, k, block, kind, t) is None]


def check(name, scheme, n, k, block, kind, tp):
    """(shard N, shard K), or a ShardError naming the layer, the dimension,
    its size, the block size and the legal TP degrees up to 16."""
    if kind not in KINDS:
        raise ArgumentError(f"layer {name}: unknown parallel kind {kind!r} "
                            f"(expected one of {', '.join(KINDS)})")
    if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
        raise ArgumentError(f"the TP degree must be a positive integer, got {tp!r}")
    problem = _problem(name, scheme, n, k, block, kind, tp)
    if problem:
        legal = legal_degrees(scheme, n, k, block, kind)
        raise ShardError(f"{problem}; legal TP degrees: {', '.join(map(str, legal))}")
    if kind == "column":
        return n // tp, k
    if kind == "row":
        shard_k = k // tp
        if k % TENSOR_CORE_K == 0 and shard_k % TENSOR_CORE_K:
            warnings.warn(f"layer {name}: shard K = {shard_k} is not a multiple of "
                          f"{TENSOR_CORE_K}; qmat compiles it, but not on the tensor-core "
                          f"paths that K = {k} takes", ShardWarning, stacklevel=3)
        return n, shard_k
    return n, k


def columns(role, scheme, k, block, tp, rank):
    """For a row-parallel split: the column range [c0, c1) of `role`'s
    stored tensor held by `rank`, or None when the role is not split along
    columns (global scale: copied; bias: rank 0 alone). Zero points are
    handled by slice_zero_points."""
    shard_k = k // tp
    if role in ("weights", "codes"):
        width = shard_k // 2 if _four_bit(scheme) else shard_k
        return rank * width, (rank + 1) * width
    if role in ("scales", "zero_points"):
        width = shard_k // block
        return rank * width, (rank + 1) * width
    return None


def slice_zero_points(packed, b0, b1):
    """Zero points of blocks b0..b1 from u4 bytes packed two per byte along
    the blocks (the even block in the low nibble). An even b0 takes whole
    bytes; an odd one re-packs the nibbles, exactly."""
    packed = np.asarray(packed, dtype=np.uint8)
    if b0 % 2 == 0:
        out = packed[:, b0 // 2:-(-b1 // 2)].copy()
        if (b1 - b0) % 2:   # the high nibble past the last block is zero
            out[:, -1] &= 0xF
        return out
    nibbles = np.empty((packed.shape[0], 2 * packed.shape[1]), dtype=np.uint8)
    nibbles[:, 0::2] = packed & 0xF
    nibbles[:, 1::2] = packed >> 4
    part = nibbles[:, b0:b1]
    if part.shape[1] % 2:
        part = np.pad(part, ((0, 0), (0, 1)))
    return (part[:, 0::2] & 0xF) | ((part[:, 1::2] & 0xF) << 4)


def shard_layer(layer, kind, tp, name=None):
    """The qmat.Layer every rank's shard runs (one shape for all ranks)."""
    n, k = check(layer.name, layer.scheme, layer.n, layer.k, layer.block, kind, tp)
    bias = layer.bias and not (kind == "row" and tp > 1)
    if name is None:
        name = layer.name if (kind == "replicate" or tp == 1) else f"{layer.name}_tp{tp}_{kind}"
    return Layer(name, layer.scheme, n, k, block=layer.block, act=layer.act, bias=bias,
                 zero_points=layer.zero_points)


@dataclasses.dataclass
class Shard:
    """One rank's part of a layer: `layer` (the shard's shape), `tensors`
    ({operand: array} of that layer), and for a row-parallel layer with a
    bias, on rank 0, `reduce_bias`: the full bias, to add once after the
    sum over ranks."""
    rank: int
    kind: str
    layer: Layer
    tensors: dict
    reduce_bias: object = None


def shard_tensors(layer, tensors, kind, tp, rank):
    """{operand: array} of `rank`'s shard (plus the bias kept for after the
    reduction, on rank 0 of a row-parallel split) as a Shard."""
    shard = shard_layer(layer, kind, tp)
    if not 0 <= rank < tp:
        raise ArgumentError(f"rank must be in 0..{tp - 1}, got {rank}")
    out, reduce_bias = {}, None
    for role, array in tensors.items():
        array = np.asarray(array)
        if role == "global_scale" or kind == "replicate" or tp == 1:
            out[role] = array.copy()
        elif kind == "column":
            rows = shard.n
            out[role] = array[rank * rows:(rank + 1) * rows].copy()
        elif role == "bias":
            if rank == 0:
                reduce_bias = array.copy()
        elif role == "zero_points":
            b0, b1 = columns("scales", layer.scheme, layer.k, layer.block, tp, rank)
            out[role] = slice_zero_points(array, b0, b1)
        elif role in ("weights", "scales"):
            c0, c1 = columns(role, layer.scheme, layer.k, layer.block, tp, rank)
            out[role] = array[:, c0:c1].copy()
        else:
            raise ArgumentError(f"layer {layer.name}: unknown operand {role!r}")
    return Shard(rank, kind, shard, out, reduce_bias)


def shard(layer, tensors, kind, tp, rank=None):
    """The Shard of `rank`, or with rank=None the list of all tp Shards."""
    if rank is not None:
        return shard_tensors(layer, tensors, kind, tp, rank)
    check(layer.name, layer.scheme, layer.n, layer.k, layer.block, kind, tp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ShardWarning)   # warned once by check above
        return [shard_tensors(layer, tensors, kind, tp, r) for r in range(tp)]


def shard_column(layer, tensors, tp):
    """All tp column-parallel Shards (N split)."""
    return shard(layer, tensors, "column", tp)


def shard_row(layer, tensors, tp):
    """All tp row-parallel Shards (K split in whole scale blocks)."""
    return shard(layer, tensors, "row", tp)


# Llama / Qwen linear names -> parallel kind; anything else is replicated.
COLUMN_NAMES = ("q_proj", "k_proj", "v_proj", "qkv_proj", "gate_proj", "up_proj",
                "gate_up_proj", "lm_head")
ROW_NAMES = ("o_proj", "down_proj")


def parallel_kind(module):
    """The parallel kind of a model linear by its last name component."""
    last = module.rsplit(".", 1)[-1]
    if last in COLUMN_NAMES:
        return "column"
    if last in ROW_NAMES:
        return "row"
    return "replicate"
