"""Block-scaled FP8 checkpoints (config.json quantization_config with
quant_method fp8 and weight_block_size [BN, BK], DeepSeek-V3 / Qwen3 style).

Per linear M: M.weight F8_E4M3 [N, K]; M.weight_scale_inv F32
[ceil(N/BN), ceil(K/BK)], one scale per BN x BK tile, multiplied (despite
its name): w[n, k] = e4m3 * weight_scale_inv[n / BN, k / BK] in fp32.
qmat's fp8 scales are per row and per K block, so each tile's scale is
repeated on its BN rows (block BK); the fp32 values are copied, so the
products are the same.
"""
import numpy as np

from .bias import add_bias
from .common import (LinearPlan, check_config_shape, exact_float32, expect_shape,
                     quantization_config, require)
from .errors import UnsupportedFormatError

NAME = "fp8-block"


def parse_config(ckpt):
    qc = quantization_config(ckpt, "fp8")
    source = "config.json quantization_config"
    fmt = str(qc.get("fmt", "e4m3")).lower()
    if fmt != "e4m3":
        raise UnsupportedFormatError(f"{source}: fmt {fmt!r}; qmat's fp8 is e4m3")
    blocks = qc.get("weight_block_size")
    if (not isinstance(blocks, (list, tuple)) or len(blocks) != 2
            or not all(isinstance(b, int) and b > 0 for b in blocks)):
        raise UnsupportedFormatError(
            f"{source}: weight_block_size {blocks!r}; qmat reads block-scaled fp8 with "
            f"weight_block_size [BN, BK] (per-tensor fp8 is not read)")
    return {"source": source, "weight_block_size": list(blocks),
            "activation_scheme": qc.get("activation_scheme")}


def find_linears(ckpt, qc):
    return sorted(name[:-len(".weight_scale_inv")] for name in ckpt.tensors
                  if name.endswith(".weight_scale_inv"))


def default_act(ckpt, qc):
    return None


def plan(ckpt, module, qc, ctx):
    bn, bk = qc["weight_block_size"]
    weight = require(ckpt, f"{module}.weight", ("F8_E4M3",), 2, "e4m3 weights [N, K]")
    n, k = weight.shape
    scale = require(ckpt, f"{module}.weight_scale_inv", ("F32", "BF16", "F16", "F64"), 2,
                    "one scale per weight_block_size tile")
    expect_shape(scale, (-(-n // bn), -(-k // bk)),
                 f"[ceil(N/{bn}), ceil(K/{bk})] for weight [{n}, {k}] and weight_block_size "
                 f"[{bn}, {bk}]")
    if ctx["check_config"]:
        check_config_shape(module, n, k, ckpt, weight.name)
    rule = "qmat's fp8 scales are float32"
    tiles = exact_float32(np.asarray(ckpt.get(scale.name)), scale.dtype, scale.name, rule)
    cols = tiles.shape[1]

    def scale_rows(r0, r1):
        t0 = r0 // bn
        rows = np.repeat(tiles[t0:(r1 - 1) // bn + 1], bn, axis=0)
        return np.ascontiguousarray(rows[r0 - t0 * bn:r1 - t0 * bn], dtype=np.float32)

    p = LinearPlan(module, NAME, "fp8", n, k, bk, ctx["act"])
    p.sources = [weight.name, scale.name]
    p.add("codes", "F8_E4M3", (n, k), lambda r0, r1: ckpt.get(weight.name)[r0:r1], row_bytes=k)
    p.add("scales", "F32", (n, cols), scale_rows, row_bytes=cols * 4)
    p.notes["weight_block_size"] = [bn, bk]
    if f"{module}.input_scale" in ckpt:
        p.ignored.append(f"{module}.input_scale")
    add_bias(p, ckpt)
    return p
