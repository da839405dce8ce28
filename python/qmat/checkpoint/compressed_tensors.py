"""compressed-tensors checkpoints (config.json quantization_config with
quant_method compressed-tensors): the nvfp4-pack-quantized,
mxfp4-pack-quantized and pack-quantized (int4) formats.

nvfp4-pack-quantized, per linear M: M.weight_packed U8 [N, K/2] (the even k
in the low nibble), M.weight_scale F8_E4M3 [N, K/16], M.weight_global_scale
F32 [1] stored inverted: w = e2m1 * (float(weight_scale) / weight_global_scale),
the quotient in fp32. M.input_global_scale is the activations' and unused.

mxfp4-pack-quantized, per linear M: M.weight_packed U8 [N, K/2] (as nvfp4's),
M.weight_scale U8 or F8_E8M0 [N, K/32] (e8m0 exponents: 2^(e - 127));
w = e2m1 * 2^(e - 127), no tensor scale. M.input_global_scale (w4a4
checkpoints) is the activations' and unused.

pack-quantized (int4), per linear M: M.weight_packed I32 [N, ceil(K/8)],
eight values per word along K, value j in bits 4j..4j+3, each stored as
q + 8 (q in [-8, 7]); M.weight_shape [2] = [N, K]; M.weight_scale [N, K/G]
(group), [N, 1] (channel) or one value (tensor); asymmetric checkpoints add
M.weight_zero_point I32 [ceil(N/8), K/G] packed the same way along N;
w = (q - zero_point) * scale.
"""
import re

import numpy as np

from .bias import add_bias
from .common import (ACT_DTYPE, LinearPlan, check_config_shape, expect_shape,
                     nvfp4_global_scale, pack_u4, quantization_config,
                     refuse_swizzled_nvfp4_scale, require, scalar, scale_bytes_present,
                     to_act_bits, unpack_int32_nibbles)
from .errors import ShapeError, UnsupportedFormatError

NAME_NVFP4 = "compressed-tensors-nvfp4"
NAME_MXFP4 = "compressed-tensors-mxfp4"
NAME_INT4 = "compressed-tensors-int4"
FORMATS = ("nvfp4-pack-quantized", "mxfp4-pack-quantized", "pack-quantized")


def parse_config(ckpt):
    qc = quantization_config(ckpt, "compressed-tensors")
    groups = qc.get("config_groups") or {}
    if not isinstance(groups, dict) or not groups:
        raise UnsupportedFormatError("config.json quantization_config: no config_groups")
    status = qc.get("quantization_status")
    if status not in (None, "compressed"):
        raise UnsupportedFormatError(
            f"config.json quantization_config: quantization_status {status!r}; qmat reads "
            f"compressed checkpoints (status 'compressed')")
    parsed = []
    for gname, group in groups.items():
        weights = group.get("weights") or {}
        fmt = group.get("format") or qc.get("format")
        parsed.append({"name": gname, "targets": list(group.get("targets") or []),
                       "weights": weights, "format": fmt,
                       "input_activations": group.get("input_activations")})
    return {"groups": parsed, "ignore": list(qc.get("ignore") or []),
            "format": qc.get("format")}


def _matches(target, module):
    if target.startswith("re:"):
        return re.match(target[3:], module) is not None
    return target == module or module.endswith("." + target) or target == "Linear"


def _group_for(qc, module):
    """The config group whose targets name `module` (a name or an re:
    pattern), else the one that targets every Linear."""
    for group in qc["groups"]:
        if any(t != "Linear" and _matches(t, module) for t in group["targets"]):
            return group
    for group in qc["groups"]:
        if "Linear" in group["targets"]:
            return group
    raise UnsupportedFormatError(f"{module}.weight_packed: no config group of "
                                 f"quantization_config targets {module}")


def find_linears(ckpt, qc):
    return sorted(name[:-len(".weight_packed")] for name in ckpt.tensors
                  if name.endswith(".weight_packed"))


def default_act(ckpt, qc):
    for module in find_linears(ckpt, qc):
        scale = f"{module}.weight_scale"
        if ckpt.info(f"{module}.weight_packed").dtype == "I32" and scale in ckpt:
            return {"F16": "f16", "BF16": "bf16"}.get(ckpt.info(scale).dtype)
    return None


def plan(ckpt, module, qc, ctx):
    group = _group_for(qc, module)
    w = group["weights"]
    fmt = group["format"]
    where = f"config group {group['name']}"
    if fmt not in FORMATS:
        raise UnsupportedFormatError(f"{module}.weight_packed: {where} has format {fmt!r}; qmat "
                                     f"reads {', '.join(FORMATS)}")
    bits = w.get("num_bits")
    if bits != 4:
        raise UnsupportedFormatError(f"{module}.weight_packed: {where} has num_bits {bits}; "
                                     f"qmat's schemes are 4-bit (nvfp4, mxfp4, int4)")
    if fmt == "nvfp4-pack-quantized":
        return _plan_nvfp4(ckpt, module, w, where, ctx)
    if fmt == "mxfp4-pack-quantized":
        return _plan_mxfp4(ckpt, module, w, where, ctx)
    return _plan_int4(ckpt, module, w, where, ctx)


def _check_g_idx(ckpt, module, group, where):
    """A weight_g_idx (actorder) is read only when it is the trivial k // G."""
    name = f"{module}.weight_g_idx"
    if name not in ckpt:
        return
    from .gptq import check_trivial_g_idx
    require(ckpt, name, ("I32", "I64"), 1, "the group of each k")
    check_trivial_g_idx(ckpt.get(name), group, name, f"actorder, {where}")


def _fp4_codes(ckpt, module, w, where, scheme, block):
    """The checks an fp4 config group and its weight_packed pass (float,
    symmetric, blocks of `block`): (packed info, N, K/2, K, K/block)."""
    if w.get("type") != "float":
        raise UnsupportedFormatError(f"{module}.weight_packed: {where} has type {w.get('type')!r}, "
                                     f"{scheme}-pack-quantized is 'float'")
    zp_name = f"{module}.weight_zero_point"
    if w.get("symmetric") is False or zp_name in ckpt:
        name = zp_name if zp_name in ckpt else f"{module}.weight_packed"
        raise UnsupportedFormatError(f"{name}: asymmetric fp4 ({where}); qmat's {scheme} has no "
                                     f"zero points")
    if w.get("group_size", block) != block:
        raise UnsupportedFormatError(f"{module}.weight_packed: {where} has group_size "
                                     f"{w.get('group_size')}; {scheme.upper()} blocks are {block}")
    packed = require(ckpt, f"{module}.weight_packed", ("U8",), 2, "two e2m1 codes per byte")
    n, half = packed.shape
    k = 2 * half
    return packed, n, half, k, -(-k // block)


def _plan_nvfp4(ckpt, module, w, where, ctx):
    act = ctx["act"]
    packed, n, half, k, cols = _fp4_codes(ckpt, module, w, where, "nvfp4", 16)
    scale = require(ckpt, f"{module}.weight_scale", ("F8_E4M3",), 2, "e4m3 block scales")
    refuse_swizzled_nvfp4_scale(scale, n, cols)
    expect_shape(scale, (n, cols), "[N, K/16] for weight_packed [N, K/2]")
    if ctx["check_config"]:
        check_config_shape(module, n, k, ckpt, packed.name)
    _check_g_idx(ckpt, module, 16, where)
    gs_name = f"{module}.weight_global_scale"
    gs = scalar(ckpt, gs_name, ("F32", "BF16", "F16"), "the inverted fp32 tensor scale")
    with np.errstate(divide="ignore", invalid="ignore"):
        g0 = np.float32(1) / gs
    present = scale_bytes_present(ckpt, scale.name)
    g_used, step = nvfp4_global_scale(
        present, lambda e2m1, s: e2m1 * (s / gs).astype(np.float32), g0, act, gs_name,
        "compressed-tensors dequantizes e2m1 * (weight_scale / weight_global_scale)")
    p = LinearPlan(module, NAME_NVFP4, "nvfp4", n, k, 16, act)
    p.sources = [packed.name, scale.name, gs_name]
    p.add("codes", "U8", (n, half), lambda r0, r1: ckpt.get(packed.name)[r0:r1], row_bytes=half)
    p.add("scales", "F8_E4M3", (n, cols), lambda r0, r1: ckpt.get(scale.name)[r0:r1],
          row_bytes=cols)
    p.add("global_scale", "F32", (1,), lambda r0, r1: np.array([g_used], dtype=np.float32))
    p.notes["global_scale"] = {"source": float(gs), "inverted": float(g0), "used": float(g_used),
                               "fp32_steps": step, "exact_inverse": bool(
                                   np.float64(g0) * np.float64(gs) == 1.0)}
    for extra in ("input_global_scale",):
        if f"{module}.{extra}" in ckpt:
            p.ignored.append(f"{module}.{extra}")
    add_bias(p, ckpt)
    return p


def _plan_mxfp4(ckpt, module, w, where, ctx):
    packed, n, half, k, cols = _fp4_codes(ckpt, module, w, where, "mxfp4", 32)
    scale = require(ckpt, f"{module}.weight_scale", ("U8", "F8_E8M0"), 2,
                    "e8m0 block scales (exponents)")
    expect_shape(scale, (n, cols), "[N, K/32] for weight_packed [N, K/2]")
    if ctx["check_config"]:
        check_config_shape(module, n, k, ckpt, packed.name)
    _check_g_idx(ckpt, module, 32, where)
    p = LinearPlan(module, NAME_MXFP4, "mxfp4", n, k, 32, ctx["act"])
    p.sources = [packed.name, scale.name]
    p.add("codes", "U8", (n, half), lambda r0, r1: ckpt.get(packed.name)[r0:r1], row_bytes=half)
    p.add("scales", "F8_E8M0", (n, cols), lambda r0, r1: ckpt.get(scale.name)[r0:r1],
          row_bytes=cols)
    for extra in ("input_global_scale",):
        if f"{module}.{extra}" in ckpt:
            p.ignored.append(f"{module}.{extra}")
    add_bias(p, ckpt)
    return p


def _plan_int4(ckpt, module, w, where, ctx):
    act = ctx["act"]
    if w.get("type", "int") != "int":
        raise UnsupportedFormatError(f"{module}.weight_packed: {where} has type {w.get('type')!r}, "
                                     f"pack-quantized int4 is 'int'")
    packed = require(ckpt, f"{module}.weight_packed", ("I32",), 2,
                     "eight 4-bit values per int32 along K")
    shape_name = f"{module}.weight_shape"
    require(ckpt, shape_name, ("I32", "I64"), 1, "the unpacked [N, K]")
    shape = [int(x) for x in np.asarray(ckpt.get(shape_name))]
    if len(shape) != 2:
        raise ShapeError(f"{shape_name}: holds {shape}, expected [N, K]")
    n, k = shape
    expect_shape(packed, (n, -(-k // 8)), f"[N, ceil(K/8)] for weight_shape {shape}")
    if k % 2:
        raise ShapeError(f"{shape_name}: K = {k} is odd; qmat packs two int4 codes per byte")
    if ctx["check_config"]:
        check_config_shape(module, n, k, ckpt, packed.name)
    strategy = w.get("strategy", "group")
    if strategy == "group":
        block = int(w.get("group_size") or 0)
        if block <= 0:
            raise UnsupportedFormatError(f"{module}.weight_packed: {where} has strategy group "
                                         f"without a positive group_size")
    elif strategy in ("channel", "tensor"):
        block = k
    else:
        raise UnsupportedFormatError(f"{module}.weight_packed: {where} has strategy "
                                     f"{strategy!r}; qmat reads group, channel and tensor")
    cols = -(-k // block)
    _check_g_idx(ckpt, module, block, where)
    scale = require(ckpt, f"{module}.weight_scale", ("F16", "BF16", "F32", "F64"),
                    why="the int4 scales")
    tensor_scale = strategy == "tensor"
    if tensor_scale:
        if int(np.prod(scale.shape, dtype=np.int64)) != 1:
            raise ShapeError(f"{scale.name}: shape {list(scale.shape)}, expected one value "
                             f"(strategy tensor)")
    else:
        expect_shape(scale, (n, cols), f"[N, ceil(K/{block})] for strategy {strategy}")
    rule = (f"qmat's int4 scales are {act}, the activation type; import with act matching "
            f"the scales' dtype")
    zp_name = f"{module}.weight_zero_point"
    symmetric = w.get("symmetric", True)
    if symmetric and zp_name in ckpt and np.any(np.asarray(ckpt.get(zp_name)) != 0):
        raise UnsupportedFormatError(f"{zp_name}: non-zero zero points in a symmetric group "
                                     f"({where})")
    has_zp = not symmetric
    if has_zp:
        if tensor_scale:
            raise UnsupportedFormatError(f"{zp_name}: asymmetric int4 with one tensor-wide "
                                         f"zero point is not read (group or channel only)")
        zinfo = require(ckpt, zp_name, ("I32",), 2, "packed zero points, eight per int32 along N")
        expect_shape(zinfo, (-(-n // 8), cols), "[ceil(N/8), ceil(K/G)] packed along N")

    def scales_rows(r0, r1):
        raw = np.asarray(ckpt.get(scale.name))
        rows = np.broadcast_to(raw.reshape(1, 1), (r1 - r0, 1)) if tensor_scale else raw[r0:r1]
        return to_act_bits(rows, scale.dtype, act, scale.name, rule, offset=r0)

    def zero_rows(r0, r1):
        words = np.asarray(ckpt.get(zp_name)[r0 // 8:-(-r1 // 8)])      # [rows/8, cols]
        nib = unpack_int32_nibbles(words.T)                            # [cols, 8 * rows/8]
        zero = nib[:, r0 - (r0 // 8) * 8:r0 - (r0 // 8) * 8 + (r1 - r0)].T  # [rows, cols]
        return pack_u4(zero)

    # Refuse inexact scales before anything is written.
    step = max(1, (32 << 20) // max(1, cols * 4))
    rows_total = 1 if tensor_scale else n
    for r0 in range(0, rows_total, step):
        scales_rows(r0, min(rows_total, r0 + step))

    p = LinearPlan(module, NAME_INT4, "int4", n, k, block, act, zero_points=has_zp)
    p.sources = [packed.name, shape_name, scale.name] + ([zp_name] if has_zp else [])
    if symmetric and zp_name in ckpt:
        p.ignored.append(zp_name)
    words = -(-k // 8)
    p.add("codes", "U8", (n, k // 2),
          lambda r0, r1: np.ascontiguousarray(ckpt.get(packed.name)[r0:r1]).astype("<i4")
          .view(np.uint8)[:, :k // 2], row_bytes=4 * words)
    p.add("scales", ACT_DTYPE[act], (n, cols), scales_rows, row_bytes=cols * 4)
    if has_zp:
        p.add("zero_points", "U8", (n, -(-cols // 2)), zero_rows, row_bytes=cols)
    if f"{module}.weight_g_idx" in ckpt:
        p.sources.append(f"{module}.weight_g_idx")
    add_bias(p, ckpt)
    return p
