"""GPTQ checkpoints (config.json quantization_config with quant_method gptq,
or quantize_config.json), 4-bit.

Per linear M: M.qweight I32 [K/8, N], eight 4-bit values per word along K
(k = 8i + j in bits 4j..4j+3 of word [i, n]); M.qzeros I32 [ceil(K/G), N/8],
eight zero points per word along N (n = 8c + j in bits 4j.. of word [g, c]);
M.scales F16 [ceil(K/G), N]; M.g_idx I32 [K], the group of each k.
checkpoint_format gptq (v1, the default) stores zero - 1, gptq_v2 the zero
itself; w[n, k] = (q[k, n] - zero[g_idx[k], n]) * scale[g_idx[k], n].
"""
import numpy as np

from .bias import add_bias
from .common import (ACT_DTYPE, LinearPlan, check_config_shape, default_act_from_scales,
                     expect_shape, find_qweight_linears, pack_u4, require, to_act_bits,
                     unpack_int32_nibbles)
from .errors import InexactError, UnsupportedFormatError

NAME = "gptq"


def quant_config(ckpt):
    qc = ckpt.config.get("quantization_config")
    if isinstance(qc, dict) and str(qc.get("quant_method", "")).lower() == "gptq":
        return dict(qc, _source="config.json quantization_config")
    qc = ckpt.json("quantize_config.json")
    if isinstance(qc, dict):
        return dict(qc, _source="quantize_config.json")
    return None


def parse_config(ckpt):
    qc = quant_config(ckpt)
    if qc is None:
        raise UnsupportedFormatError(
            f"{ckpt.directory}: no GPTQ quantization config (config.json quantization_config "
            f"with quant_method gptq, or quantize_config.json)")
    source = qc["_source"]
    bits = qc.get("bits")
    if bits != 4:
        raise UnsupportedFormatError(f"{source}: bits {bits}; qmat reads 4-bit GPTQ only")
    fmt = str(qc.get("checkpoint_format", "gptq")).lower()
    if fmt not in ("gptq", "gptq_v2"):
        raise UnsupportedFormatError(f"{source}: checkpoint_format {fmt!r}; qmat reads gptq (v1) "
                                     f"and gptq_v2")
    group = int(qc.get("group_size", 128))
    if group == 0 or group < -1:
        raise UnsupportedFormatError(f"{source}: group_size {group}")
    return {"source": source, "bits": 4, "group_size": group, "sym": bool(qc.get("sym", True)),
            "desc_act": bool(qc.get("desc_act", False)), "checkpoint_format": fmt}


def find_linears(ckpt, qc):
    return find_qweight_linears(ckpt)


def default_act(ckpt, qc):
    return default_act_from_scales(ckpt, find_linears(ckpt, qc))


def check_trivial_g_idx(g_idx, group, name, option):
    """Refuses a g_idx other than k // group (act-order)."""
    g_idx = np.asarray(g_idx).astype(np.int64)
    expected = np.arange(g_idx.size, dtype=np.int64) // group
    bad = np.nonzero(g_idx != expected)[0]
    if bad.size:
        i = int(bad[0])
        raise UnsupportedFormatError(
            f"{name}: act-order ({option}) puts k = {i} in group {int(g_idx[i])}, not "
            f"{i} // {group} = {int(expected[i])}; qmat's blocks are runs of {group} consecutive "
            f"k (quantize without act-order, or with static groups)")


def plan(ckpt, module, qc, ctx):
    act = ctx["act"]
    qweight = require(ckpt, f"{module}.qweight", ("I32",), 2,
                      "eight 4-bit values per int32 along K, [K/8, N]")
    words, n = qweight.shape
    k = 8 * words
    group = k if qc["group_size"] == -1 else qc["group_size"]
    cols = -(-k // group)
    scales = require(ckpt, f"{module}.scales", ("F16", "BF16", "F32"), 2, "[K/G, N]")
    expect_shape(scales, (cols, n), f"[ceil(K/G), N] with K = {k}, G = {group}")
    qzeros = require(ckpt, f"{module}.qzeros", ("I32",), 2, "[K/G, N/8]")
    expect_shape(qzeros, (cols, -(-n // 8)), f"[ceil(K/G), ceil(N/8)] with K = {k}, G = {group}")
    if ctx["check_config"]:
        check_config_shape(module, n, k, ckpt, qweight.name)
    g_name = f"{module}.g_idx"
    if g_name in ckpt:
        info = require(ckpt, g_name, ("I32", "I64"), 1, "the group of each k")
        expect_shape(info, (k,), "one group index per k")
        check_trivial_g_idx(ckpt.get(g_name), group, g_name, "desc_act")

    stored = unpack_int32_nibbles(np.asarray(ckpt.get(qzeros.name)))[:, :n]   # [cols, N]
    if qc["checkpoint_format"] == "gptq":
        if (stored == 15).any():
            g, c = (int(i) for i in np.argwhere(stored == 15)[0])
            raise InexactError(
                f"{qzeros.name}: group {g}, column {c} stores 15, which the GPTQ v1 format "
                f"(zero - 1 stored) reads as zero point 16; qmat's zero points are 0..15")
        zero = stored + 1
    else:
        zero = stored
    if qc["sym"]:
        if (zero != 8).any():
            g, c = (int(i) for i in np.argwhere(zero != 8)[0])
            raise UnsupportedFormatError(
                f"{qzeros.name}: sym is true but group {g}, column {c} has zero point "
                f"{int(zero[g, c])}, not 8; readers of symmetric GPTQ disagree on which applies")
    rule = (f"qmat's int4 scales are {act}, the activation type; import with act matching "
            f"the scales' dtype")

    def scales_rows(r0, r1):
        rows = np.asarray(ckpt.get(scales.name)[:, r0:r1]).T
        return to_act_bits(rows, scales.dtype, act, scales.name, rule)

    to_act_bits(np.asarray(ckpt.get(scales.name)), scales.dtype, act, scales.name, rule)

    def codes_rows(r0, r1):
        block = np.ascontiguousarray(ckpt.get(qweight.name)[:, r0:r1]).astype("<i4")
        as_bytes = block.view(np.uint8).reshape(words, r1 - r0, 4)
        return np.ascontiguousarray(as_bytes.transpose(1, 0, 2)).reshape(r1 - r0, 4 * words)

    p = LinearPlan(module, NAME, "int4", n, k, group, act, zero_points=not qc["sym"])
    p.sources = [qweight.name, scales.name, qzeros.name]
    if g_name in ckpt:
        p.sources.append(g_name)
    p.add("codes", "U8", (n, k // 2), codes_rows, row_bytes=4 * words)
    p.add("scales", ACT_DTYPE[act], (n, cols), scales_rows, row_bytes=cols * 2)
    if not qc["sym"]:
        p.add("zero_points", "U8", (n, -(-cols // 2)),
              lambda r0, r1: pack_u4(zero[:, r0:r1].T), row_bytes=cols)
    add_bias(p, ckpt)
    return p
