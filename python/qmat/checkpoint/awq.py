"""AWQ checkpoints (config.json quantization_config with quant_method awq,
GEMM packing), 4-bit with zero points.

Per linear M: M.qweight I32 [K, N/8] and M.qzeros I32 [ceil(K/G), N/8],
eight values per word along N in the interleaved order: nibble i (bits
4i..4i+3) of word c holds column 8c + [0, 2, 4, 6, 1, 3, 5, 7][i];
M.scales F16 [ceil(K/G), N]; w[n, k] = (q[k, n] - zero[k / G, n]) * scale[k / G, n].
"""
import numpy as np

from .bias import add_bias
from .common import (ACT_DTYPE, LinearPlan, check_config_shape, default_act_from_scales,
                     expect_shape, find_qweight_linears, pack_u4, require, to_act_bits,
                     unpack_int32_nibbles)
from .errors import UnsupportedFormatError

NAME = "awq"
ORDER = (0, 2, 4, 6, 1, 3, 5, 7)                      # nibble i holds column ORDER[i]
NIBBLE_OF_COLUMN = tuple(ORDER.index(j) for j in range(8))


def parse_config(ckpt):
    qc = ckpt.config.get("quantization_config")
    source = "config.json quantization_config"
    if not (isinstance(qc, dict) and str(qc.get("quant_method", "")).lower() == "awq"):
        qc, source = ckpt.json("quant_config.json"), "quant_config.json"
        if not isinstance(qc, dict):
            raise UnsupportedFormatError(
                f"{ckpt.directory}: no AWQ quantization config (config.json quantization_config "
                f"with quant_method awq, or quant_config.json)")
    bits = qc.get("bits", qc.get("w_bit"))
    if bits != 4:
        raise UnsupportedFormatError(f"{source}: bits {bits}; qmat reads 4-bit AWQ only")
    version = str(qc.get("version", "gemm")).lower()
    if version != "gemm":
        raise UnsupportedFormatError(f"{source}: version {version!r}; qmat reads AWQ's GEMM "
                                     f"packing (version 'gemm')")
    if qc.get("zero_point", True) is not True:
        raise UnsupportedFormatError(f"{source}: zero_point {qc.get('zero_point')!r}; qmat "
                                     f"reads AWQ with zero points")
    group = int(qc.get("group_size", qc.get("q_group_size", 128)))
    if group == 0 or group < -1:
        raise UnsupportedFormatError(f"{source}: group_size {group}")
    return {"source": source, "bits": 4, "group_size": group, "version": version}


def find_linears(ckpt, qc):
    return find_qweight_linears(ckpt)


def default_act(ckpt, qc):
    return default_act_from_scales(ckpt, find_linears(ckpt, qc))


def _columns(words):
    """int32 words [R, C] -> [R, 8C] values in column order."""
    nibbles = unpack_int32_nibbles(words)
    index = (np.arange(words.shape[1])[:, None] * 8 + np.array(NIBBLE_OF_COLUMN)).reshape(-1)
    return nibbles[:, index]


def plan(ckpt, module, qc, ctx):
    act = ctx["act"]
    qweight = require(ckpt, f"{module}.qweight", ("I32",), 2,
                      "eight 4-bit values per int32 along N, [K, N/8]")
    k, words = qweight.shape
    n = 8 * words
    if k % 2:
        raise UnsupportedFormatError(f"{qweight.name}: K = {k} is odd; qmat packs two int4 "
                                     f"codes per byte")
    group = k if qc["group_size"] == -1 else qc["group_size"]
    cols = -(-k // group)
    scales = require(ckpt, f"{module}.scales", ("F16", "BF16", "F32"), 2, "[K/G, N]")
    expect_shape(scales, (cols, n), f"[ceil(K/G), N] with K = {k}, G = {group}")
    qzeros = require(ckpt, f"{module}.qzeros", ("I32",), 2, "[K/G, N/8]")
    expect_shape(qzeros, (cols, words), f"[ceil(K/G), N/8] with K = {k}, G = {group}")
    if ctx["check_config"]:
        check_config_shape(module, n, k, ckpt, qweight.name)
    zero = _columns(np.asarray(ckpt.get(qzeros.name)))            # [cols, N]
    rule = (f"qmat's int4 scales are {act}, the activation type; import with act matching "
            f"the scales' dtype")

    def scales_rows(r0, r1):
        return to_act_bits(np.asarray(ckpt.get(scales.name)[:, r0:r1]).T, scales.dtype, act,
                           scales.name, rule)

    to_act_bits(np.asarray(ckpt.get(scales.name)), scales.dtype, act, scales.name, rule)

    def codes_rows(r0, r1):
        w0, w1 = r0 // 8, -(-r1 // 8)
        q = _columns(np.ascontiguousarray(ckpt.get(qweight.name)[:, w0:w1]))   # [K, 8(w1-w0)]
        q = q[:, r0 - 8 * w0:r1 - 8 * w0]
        return pack_u4(np.ascontiguousarray(q.T))

    p = LinearPlan(module, NAME, "int4", n, k, group, act, zero_points=True)
    p.sources = [qweight.name, scales.name, qzeros.name]
    p.add("codes", "U8", (n, k // 2), codes_rows, row_bytes=k // 2)
    p.add("scales", ACT_DTYPE[act], (n, cols), scales_rows, row_bytes=cols * 2)
    p.add("zero_points", "U8", (n, -(-cols // 2)), lambda r0, r1: pack_u4(zero[:, r0:r1].T),
          row_bytes=cols)
    add_bias(p, ckpt)
    return p
