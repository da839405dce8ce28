"""Tensor-parallel shards of one quantized layer's tensors (docs/checkpoints.md,
"Tensor parallel").

* column-parallel splits N: rank r holds rows r*N/tp .. (r+1)*N/tp of the
  codes, scales, zero points and bias;
* row-parallel splits K in whole scale blocks: rank r holds the columns
  of its K/tp inputs in the codes (K/(2 tp) bytes for the 4-bit schemes),
  its K/(tp block) scale columns and their zero points; the layer of a
  row-parallel shard has no bias: the bias is kept once, with rank 0
  (`Shard.reduce_bias`), to be added once after the reduction;
* the nvfp4 global scale is copied to every shard;
* a fused column-parallel layer (gate_up_proj: [gate; up], qkv_proj:
  [q; k; v]) is split part by part (`Part`, `parts=`): rank r holds its
  rows of every part, stacked in part order ([gate_r; up_r]); a part of
  attention heads is split in whole heads, and kv heads fewer than tp
  (tp a multiple of them) are replicated, each on tp/heads ranks.
  `fused_parts` reads the parts from config.json.

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


# --- fused layers: parts stacked along N -----------------------------------------

@dataclasses.dataclass(frozen=True)
class Part:
    """One matrix of a fused column-parallel layer, the parts stacked along
    N in order. `size`: its rows. `heads`: for attention projections, the
    number of heads (size / heads rows each), which every rank must hold
    whole. `replicate`: heads fewer than tp, tp a multiple of them, are
    copied to tp / heads ranks each instead of refused (the kv heads of
    grouped-query attention); a part of q heads is never replicated."""
    name: str
    size: int
    heads: int = None
    replicate: bool = False

    @property
    def head_dim(self):
        return None if self.heads is None else self.size // self.heads


@dataclasses.dataclass(frozen=True)
class PartSplit:
    """How one part is split `tp` ways: rows `offset` .. offset + size of
    the whole layer; every rank holds `rank_size` of them (rank_heads heads
    of a part of heads); `replicas` ranks hold each of those rows (1: an
    even split; > 1: replicated kv heads, ranks r with the same
    r // replicas hold the same head)."""
    part: Part
    offset: int
    tp: int
    rank_size: int
    replicas: int = 1

    @property
    def rank_heads(self):
        return None if self.part.heads is None else self.rank_size // self.part.head_dim

    def rows(self, rank):
        """[start, stop) of `rank`'s rows of this part, in whole-layer rows."""
        start = self.offset + (rank // self.replicas) * self.rank_size
        return start, start + self.rank_size

    def describe(self):
        """The part as the manifest records it."""
        entry = {"name": self.part.name, "size": self.part.size, "rank_size": self.rank_size}
        if self.part.heads is not None:
            entry["heads"] = self.part.heads
            entry["rank_heads"] = self.rank_heads
        if self.replicas > 1:
            entry["replicas"] = self.replicas
        return entry


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def as_parts(parts, n, name):
    """`parts` as a tuple of Part, checked against N: each item a Part, a
    (name, size) pair or a size (named by its index)."""
    try:
        items = list(parts)
    except TypeError:
        raise ArgumentError(f"layer {name}: parts must be a sequence of sizes along N, "
                            f"got {parts!r}") from None
    out = []
    for index, item in enumerate(items):
        if isinstance(item, Part):
            part = item
        elif (isinstance(item, (tuple, list)) and len(item) == 2
              and isinstance(item[0], str)):
            part = Part(item[0], item[1])
        else:
            part = Part(str(index), item)
        out.append(part)
    sizes = [p.size for p in out]
    if not out or not all(_is_int(v) and v > 0 for v in sizes):
        raise ArgumentError(f"layer {name}: parts must be positive integers, got {sizes}")
    out = [dataclasses.replace(p, size=int(p.size)) for p in out]
    for p in out:
        if not isinstance(p.name, str) or not p.name:
            raise ArgumentError(f"layer {name}: a part's name must be a non-empty string, "
                                f"got {p.name!r}")
        if p.heads is not None and (not _is_int(p.heads) or p.heads <= 0
                                    or p.size % p.heads):
            raise ArgumentError(f"layer {name}: part {p.name}: {p.size} rows are not "
                                f"{p.heads!r} heads of equal size")
        if not isinstance(p.replicate, bool):
            raise ArgumentError(f"layer {name}: part {p.name}: replicate must be True or "
                                f"False, got {p.replicate!r}")
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise ArgumentError(f"layer {name}: two parts have the same name ({', '.join(names)})")
    if sum(sizes) != n:
        raise ArgumentError(f"layer {name}: parts {sizes} add up to {sum(sizes)}, not N = {n}")
    return tuple(dataclasses.replace(p, heads=None if p.heads is None else int(p.heads))
                 for p in out)


def _part_split(part, tp):
    """(rank_size, replicas) of `part` split tp ways, or the reason it cannot be."""
    if part.heads is None:
        if part.size % tp:
            return f"{part.size} rows, which cannot be split {tp} ways " \
                   f"({part.size / tp:g} rows per rank)"
        return part.size // tp, 1
    heads, dim = part.heads, part.head_dim
    if heads % tp == 0:
        return part.size // tp, 1
    what = f"{heads} heads of {dim} rows"
    if heads < tp and part.replicate:
        if tp % heads == 0:
            return dim, tp // heads
        return (f"{what}, fewer than tp = {tp}, which is not a multiple of {heads}, so they "
                f"can be neither split nor replicated evenly ({tp / heads:g} ranks per head)")
    return (f"{what}, which cannot be split {tp} ways ({heads / tp:g} heads per rank; a "
            f"rank holds whole heads)")


def legal_part_degrees(parts, limit=MAX_TP):
    """The TP degrees 1..limit that split every part exactly."""
    return [t for t in range(1, limit + 1)
            if all(not isinstance(_part_split(p, t), str) for p in parts)]


def check_parts(name, parts, n, tp):
    """The PartSplits of a fused layer's `parts` (anything as_parts takes)
    split `tp` ways, or a ShardError naming the layer, the part, its rows,
    its size and the legal TP degrees of the layer."""
    if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
        raise ArgumentError(f"the TP degree must be a positive integer, got {tp!r}")
    parts = as_parts(parts, n, name)
    splits, offset = [], 0
    for part in parts:
        got = _part_split(part, tp)
        if isinstance(got, str):
            legal = legal_part_degrees(parts)
            raise ShardError(f"layer {name}: part {part.name} (rows {offset}..{offset + part.size}"
                             f" of N = {n}) has {got}; legal TP degrees: "
                             f"{', '.join(map(str, legal))}")
        splits.append(PartSplit(part, offset, tp, *got))
        offset += part.size
    return tuple(splits)


# Fused linears by their last name: how config.json gives their parts.
FUSED_NAMES = ("gate_up_proj", "qkv_proj")


def fused_parts(module, config, n=None):
    """The parts of a fused linear (gate_up_proj: gate and up, each
    intermediate_size rows, moe_intermediate_size under .experts., ...;
    qkv_proj: q, k and v, num_attention_heads and num_key_value_heads heads
    of head_dim rows, head_dim defaulting to hidden_size /
    num_attention_heads, the kv heads replicable; a separate q_proj, k_proj
    or v_proj: its one part of heads, or None without the head counts) from
    config.json's language-model part `config`; None for a linear of
    another name. With
    `n`, the parts must add up to the linear's N."""
    parts = _config_parts(module, config)
    if parts is not None and n is not None and sum(p.size for p in parts) != n:
        sizes = " + ".join(f"{p.name} {p.size}" for p in parts)
        raise ShardError(f"layer {module}: config.json gives parts {sizes} = "
                         f"{sum(p.size for p in parts)} rows, but the layer has N = {n} (pass "
                         f"import_checkpoint's parts=)")
    return parts


# Separate attention projections: one part of whole heads each.
HEAD_NAMES = {"q_proj": "q", "k_proj": "k", "v_proj": "v"}


def _config_parts(module, config):
    leaf = module.rsplit(".", 1)[-1]
    config = config if isinstance(config, dict) else {}
    if leaf in HEAD_NAMES:
        return _head_part(HEAD_NAMES[leaf], config)
    if leaf not in FUSED_NAMES:
        return None

    def need(keys):
        return ShardError(f"layer {module}: a fused {leaf} is split part by part, but "
                          f"config.json gives no {keys} (pass import_checkpoint's parts=, or "
                          f"qmat.shard's parts=)")
    if leaf == "gate_up_proj":
        # the same keys as the config check of separate gate_proj / up_proj
        if ".shared_experts." in module:   # DeepSeek: n_shared_experts side by side
            keys = ("moe_intermediate_size", "n_shared_experts")
        elif ".shared_expert." in module:  # Qwen-MoE
            keys = ("shared_expert_intermediate_size",)
        elif ".experts." in module:
            keys = ("moe_intermediate_size",)
        else:
            keys = ("intermediate_size",)
        values = [config.get(key) for key in keys]
        if not all(_is_int(v) and v > 0 for v in values):
            raise need(" * ".join(keys))
        size = int(np.prod(values))
        return (Part("gate", size), Part("up", size))
    if "kv_lora_rank" in config or "qk_nope_head_dim" in config:
        raise ShardError(f"layer {module}: config.json describes latent attention "
                         f"(kv_lora_rank / qk_nope_head_dim), not [q; k; v] heads (pass "
                         f"import_checkpoint's parts=)")
    counts = _head_counts(config)
    if counts is None:
        raise need("num_attention_heads, num_key_value_heads and head_dim (or hidden_size)")
    heads, kv, dim = counts
    return (Part("q", heads * dim, heads=heads), Part("k", kv * dim, heads=kv, replicate=True),
            Part("v", kv * dim, heads=kv, replicate=True))


def _head_counts(config):
    """(q heads, kv heads, head rows) from config.json, head_dim defaulting
    to hidden_size / num_attention_heads and the kv heads to the q heads; None
    where they are missing or not positive integers."""
    heads = config.get("num_attention_heads")
    kv = config.get("num_key_value_heads", heads)
    dim = config.get("head_dim")
    hidden = config.get("hidden_size")
    if not _is_int(dim) and _is_int(hidden) and _is_int(heads) and heads > 0 \
            and hidden % heads == 0:
        dim = hidden // heads
    if not (_is_int(heads) and _is_int(kv) and _is_int(dim)) or min(heads, kv, dim) <= 0:
        return None
    return heads, kv, dim


def _attention_head_counts(config):
    """_head_counts of a [q; k; v] attention, or None where config.json
    describes latent attention (kv_lora_rank / qk_nope_head_dim)."""
    if "kv_lora_rank" in config or "qk_nope_head_dim" in config:
        return None
    return _head_counts(config)


def _head_part(name, config):
    """A separate q_proj / k_proj / v_proj as one part of whole heads (k and v
    replicable), so that no rank holds part of a head; None where config.json
    does not give the heads (or describes latent attention): split as rows."""
    counts = _attention_head_counts(config)
    if counts is None:
        return None
    heads, kv, dim = counts
    if name == "q":
        return (Part("q", heads * dim, heads=heads),)
    return (Part(name, kv * dim, heads=kv, replicate=True),)


# Row-parallel attention outputs by their last name: their K is the heads'
# outputs laid end to end, and each rank computes whole heads.
OUTPUT_HEAD_NAMES = ("o_proj",)


def check_output_heads(name, scheme, n, k, block, config, tp):
    """A row-parallel o_proj reads each rank's attention output, which holds
    whole heads (the q heads are split that way): its K must fall on head
    boundaries. Raises a ShardError naming the heads and the TP degrees that
    split both the heads and the blocks; nothing to check where config.json
    gives no head counts (or describes latent attention)."""
    if name.rsplit(".", 1)[-1] not in OUTPUT_HEAD_NAMES or tp == 1:
        return
    counts = _attention_head_counts(config if isinstance(config, dict) else {})
    if counts is None:
        return
    heads, _, dim = counts
    if heads * dim != k:
        raise ShardError(f"layer {name}: config.json gives {heads} heads of {dim} columns = "
                         f"{heads * dim}, but the layer has K = {k} (pass import_checkpoint's "
                         f"parallel= to split it otherwise)")
    if heads % tp:
        legal = [t for t in legal_degrees(scheme, n, k, block, "row") if heads % t == 0]
        raise ShardError(f"layer {name}: K = {k} is {heads} heads of {dim} columns, which "
                         f"cannot be split {tp} ways ({heads / tp:g} heads per rank; a rank "
                         f"holds whole heads); legal TP degrees: {', '.join(map(str, legal))}")


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


def _column_splits(layer, kind, tp, parts):
    """The PartSplits of a fused column-parallel layer, or None for a split
    of N as one block (no parts, or one part without heads)."""
    if parts is None:
        return None
    if kind != "column":
        raise ArgumentError(f"layer {layer.name}: parts (stacked outputs) are for "
                            f"column-parallel layers, this one is {kind}-parallel")
    parts = as_parts(parts, layer.n, layer.name)
    if len(parts) == 1 and parts[0].heads is None:
        return None
    return check_parts(layer.name, parts, layer.n, tp)


def _shard_layer(layer, kind, tp, name, splits):
    n, k = check(layer.name, layer.scheme, layer.n, layer.k, layer.block, kind, tp) \
        if splits is None else (sum(s.rank_size for s in splits), layer.k)
    bias = layer.bias and not (kind == "row" and tp > 1)
    if name is None:
        name = layer.name if (kind == "replicate" or tp == 1) else f"{layer.name}_tp{tp}_{kind}"
    return Layer(name, layer.scheme, n, k, block=layer.block, act=layer.act, bias=bias,
                 zero_points=layer.zero_points)


def shard_layer(layer, kind, tp, name=None, parts=None):
    """The qmat.Layer every rank's shard runs (one shape for all ranks).
    `parts`: a fused column-parallel layer's parts (as_parts), each split
    on its own; with replicated kv heads the shard's N is more than N/tp."""
    return _shard_layer(layer, kind, tp, name, _column_splits(layer, kind, tp, parts))


@dataclasses.dataclass
class Shard:
    """One rank's part of a layer: `layer` (the shard's shape), `tensors`
    ({operand: array} of that layer), and for a row-parallel layer with a
    bias, on rank 0, `reduce_bias`: the full bias, to add once after the
    sum over ranks. `parts`: for a fused layer, its PartSplits (the
    rank's rows of part i are parts[i].rows(rank), stacked in part order)."""
    rank: int
    kind: str
    layer: Layer
    tensors: dict
    reduce_bias: object = None
    parts: tuple = None


def shard_tensors(layer, tensors, kind, tp, rank, parts=None):
    """{operand: array} of `rank`'s shard (plus the bias kept for after the
    reduction, on rank 0 of a row-parallel split) as a Shard; `parts`: see
    shard_layer."""
    splits = _column_splits(layer, kind, tp, parts)
    shard = _shard_layer(layer, kind, tp, None, splits)
    if not 0 <= rank < tp:
        raise ArgumentError(f"rank must be in 0..{tp - 1}, got {rank}")
    out, reduce_bias = {}, None
    for role, array in tensors.items():
        array = np.asarray(array)
        if role == "global_scale" or kind == "replicate" or tp == 1:
            out[role] = array.copy()
        elif kind == "column" and splits is not None:
            # the rank's rows of each part, in part order; scales, zero
            # points and bias are per row, so they follow the codes' rows
            out[role] = np.concatenate([array[a:b] for a, b in
                                        (s.rows(rank) for s in splits)], axis=0)
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
    return Shard(rank, kind, shard, out, reduce_bias, splits)


def shard(layer, tensors, kind, tp, rank=None, parts=None):
    """The Shard of `rank`, or with rank=None the list of all tp Shards."""
    if rank is not None:
        return shard_tensors(layer, tensors, kind, tp, rank, parts)
    shard_layer(layer, kind, tp, parts=parts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ShardWarning)   # warned once by shard_layer above
        return [shard_tensors(layer, tensors, kind, tp, r, parts) for r in range(tp)]


def shard_column(layer, tensors, tp, parts=None):
    """All tp column-parallel Shards (N split; a fused layer's `parts` each
    on its own)."""
    return shard(layer, tensors, "column", tp, parts=parts)


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
