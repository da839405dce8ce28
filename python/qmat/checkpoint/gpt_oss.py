"""gpt-oss MXFP4 checkpoints (config.json quantization_config with
quant_method mxfp4): the mixture-of-experts weights of every layer, all
experts of a projection in one tensor.

Per expert block P (model.layers.L.mlp.experts), E experts
(num_local_experts), hidden size H, intermediate size I:

    P.gate_up_proj_blocks  U8 [E, 2I, H/32, 16]   P.gate_up_proj_scales  U8 [E, 2I, H/32]
    P.down_proj_blocks     U8 [E, H, I/32, 16]    P.down_proj_scales     U8 [E, H, I/32]
    P.gate_up_proj_bias    BF16 [E, 2I]           P.down_proj_bias       BF16 [E, H]

Byte j of a 16-byte block holds the e2m1 codes of k = 2j (low nibble) and
2j + 1 (high nibble) of 32 consecutive k; its scale is e8m0:
w[e, n, k] = e2m1 * 2^(s - 127), s = 255 NaN (qmat's e8m0). Expert e's
product is y = x @ W_e^T + b_e with W_e [rows, K] row-major, so its blocks
[rows, K/32, 16] are qmat's mxfp4 codes [rows, K/2] as they are and its
scales qmat's [rows, K/32]: both are copied.

Every expert is a linear of its own, P.<e>.gate_up_proj and
P.<e>.down_proj, read expert by expert in row chunks from the memory map.
gate_up_proj keeps the checkpoint's row order, gate and up interleaved (row
2i gate unit i, row 2i + 1 up unit i); a column-parallel split keeps whole
(gate, up) pairs.
"""
import weakref

import numpy as np

from ..shard import Part
from .common import ACT_DTYPE, LinearPlan, expect_shape, quantization_config, require, to_act_bits
from .errors import MissingTensorError, ShapeError, UnsupportedFormatError

NAME = "gpt-oss-mxfp4"
PROJECTIONS = ("gate_up_proj", "down_proj")
BLOCK = 32
ROWS_NOTE = "gate and up interleaved: row 2i is gate unit i, row 2i + 1 up unit i"
# The per-projection checks, done once for all its experts: Checkpoint ->
# {(prefix, projection): _Projection}.
_CHECKED = weakref.WeakKeyDictionary()


def parse_config(ckpt):
    qc = quantization_config(ckpt, "mxfp4")
    return dict(qc)


def default_act(ckpt, qc):
    return None


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _projections(ckpt):
    """{(prefix, projection)} of the checkpoint's MXFP4 tensors: every
    `*_blocks` tensor, and the `_scales` of a gate_up_proj / down_proj.
    A `_blocks` tensor that is not an expert projection is refused."""
    found = set()
    for name in ckpt.tensors:
        if name.endswith("_blocks"):
            base = name[:-len("_blocks")]
        elif name.endswith("_scales") and name[:-len("_scales")].rsplit(".", 1)[-1] in PROJECTIONS:
            base = name[:-len("_scales")]
        else:
            continue
        prefix, _, projection = base.rpartition(".")
        if projection not in PROJECTIONS or prefix.rsplit(".", 1)[-1] != "experts":
            raise UnsupportedFormatError(
                f"{name}: not a gpt-oss expert projection; qmat reads the MXFP4 tensors "
                f"<...>.experts.gate_up_proj_blocks and <...>.experts.down_proj_blocks (with "
                f"their _scales), [experts, rows, K/32, 16]")
        found.add((prefix, projection))
    return found


def _blocks(ckpt, prefix, projection):
    """The TensorInfo of a projection's blocks, checked to be U8 [E, rows, K/32, 16]."""
    name = f"{prefix}.{projection}_blocks"
    if name not in ckpt:
        raise MissingTensorError(f"{name}: missing (the e2m1 codes that "
                                 f"{prefix}.{projection}_scales scales)")
    info = require(ckpt, name, ("U8",), 4,
                   "two e2m1 codes per byte, [experts, rows, K/32, 16]")
    if info.shape[3] != BLOCK // 2:
        raise ShapeError(f"{name}: shape {list(info.shape)}, expected 16 bytes in the last "
                         f"dimension (a block of 32 e2m1 codes, two per byte)")
    if projection == "gate_up_proj" and info.shape[1] % 2:
        raise ShapeError(f"{name}: gate_up_proj has N = {info.shape[1]} rows, an odd number; "
                         f"its rows are (gate, up) pairs")
    return info


def find_linears(ckpt, qc):
    modules = []
    for prefix, projection in sorted(_projections(ckpt)):
        experts = _blocks(ckpt, prefix, projection).shape[0]
        modules += [f"{prefix}.{e}.{projection}" for e in range(experts)]
    return modules


class _Projection:
    """The checked tensors of one projection of all experts."""

    def __init__(self, blocks, scales, bias, experts, rows, k):
        self.blocks, self.scales, self.bias = blocks, scales, bias
        self.experts, self.rows, self.k = experts, rows, k


def _check_config(ckpt, blocks, projection, experts, rows, groups):
    """Refuses an expert tensor whose experts, N or K differ from config.json
    (keys it lacks are not checked), or a K from config.json that whole
    blocks of 32 cannot hold."""
    cfg = ckpt.text_config()
    hidden, inter = cfg.get("hidden_size"), cfg.get("intermediate_size")
    if projection == "gate_up_proj":
        want_n = ("2 * intermediate_size", 2 * inter if _is_int(inter) else None)
        want_k = ("hidden_size", hidden)
    else:
        want_n = ("hidden_size", hidden)
        want_k = ("intermediate_size", inter)
    rule = (f"(pass check_config=False / --no-config-check for an architecture whose "
            f"{projection} differs)")
    count = cfg.get("num_local_experts")
    if _is_int(count) and count != experts:
        raise ShapeError(f"{blocks.name}: holds {experts} experts, but config.json gives "
                         f"num_local_experts = {count} {rule}")
    expression, value = want_k
    if _is_int(value) and value % BLOCK:
        raise ShapeError(f"{blocks.name}: config.json gives K = {expression} = {value}, not a "
                         f"multiple of 32: MXFP4 blocks hold 32 values of K each, so K must be "
                         f"a multiple of 32")
    for dim, got, shown, (expression, value) in (
            ("N", rows, f"{rows}", want_n),
            ("K", BLOCK * groups, f"{BLOCK * groups} ({groups} blocks of 32)", want_k)):
        if _is_int(value) and value != got:
            raise ShapeError(f"{blocks.name}: {projection} has {dim} = {shown}, but config.json "
                             f"gives {expression} = {value} {rule}")


def _projection(ckpt, prefix, projection, ctx):
    cache = _CHECKED.setdefault(ckpt, {})
    key = (prefix, projection, ctx["act"], ctx["check_config"])
    if key in cache:
        return cache[key]
    blocks = _blocks(ckpt, prefix, projection)
    experts, rows, groups, _ = blocks.shape
    if ctx["check_config"]:
        _check_config(ckpt, blocks, projection, experts, rows, groups)
    scales = require(ckpt, f"{prefix}.{projection}_scales", ("U8", "F8_E8M0"), 3,
                     f"the e8m0 block scales of {blocks.name}")
    expect_shape(scales, (experts, rows, groups),
                 f"[experts, rows, K/32] for {blocks.name} {list(blocks.shape)}")
    bias = None
    name = f"{prefix}.{projection}_bias"
    if name in ckpt:
        bias = require(ckpt, name, ("F16", "BF16", "F32", "F64"), 2,
                       "one bias per expert and output row, [experts, rows]")
        expect_shape(bias, (experts, rows),
                     f"[experts, rows] for {blocks.name} {list(blocks.shape)}")
        to_act_bits(ckpt.get(name), bias.dtype, ctx["act"], name,
                    "the bias is added in the activation type")   # refuse before writing
    cache[key] = _Projection(blocks, scales, bias, experts, rows, BLOCK * groups)
    return cache[key]


def plan(ckpt, module, qc, ctx):
    prefix, expert, projection = module.rsplit(".", 2)
    e = int(expert)
    proj = _projection(ckpt, prefix, projection, ctx)
    act, n, k = ctx["act"], proj.rows, proj.k
    blocks, scales, bias = proj.blocks.name, proj.scales.name, proj.bias
    p = LinearPlan(module, NAME, "mxfp4", n, k, BLOCK, act)
    p.sources = [blocks, scales]
    p.add("codes", "U8", (n, k // 2),
          lambda r0, r1: ckpt.get(blocks)[e, r0:r1].reshape(r1 - r0, k // 2), row_bytes=k // 2)
    p.add("scales", "F8_E8M0", (n, k // BLOCK), lambda r0, r1: ckpt.get(scales)[e, r0:r1],
          row_bytes=k // BLOCK)
    if bias is not None:
        rule = "the bias is added in the activation type"
        p.bias = True
        p.sources.append(bias.name)
        p.add("bias", ACT_DTYPE[act], (n,),
              lambda r0, r1: to_act_bits(ckpt.get(bias.name)[e, r0:r1], bias.dtype, act,
                                         bias.name, rule),
              row_bytes=np.dtype("<u2").itemsize)
    p.notes["expert"] = e
    if projection == "gate_up_proj":
        p.notes["rows"] = ROWS_NOTE
        # Split column-parallel in whole (gate, up) pairs: n / 2 groups of 2 rows.
        p.parts = (Part("gate_up", n, heads=n // 2),)
    return p
