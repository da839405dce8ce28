"""NVIDIA ModelOpt NVFP4 checkpoints (hf_quant_config.json quant_algo NVFP4,
or config.json quantization_config with quant_method modelopt).

Per linear `M`: M.weight U8 [N, K/2] (two e2m1 codes per byte, the even k
in the low nibble), M.weight_scale F8_E4M3 [N, K/16] (row-major, one scale
per 16 consecutive k), M.weight_scale_2 F32 (or BF16) one value, M.input_scale
(the activations' scale, unused by a weight-only matmul). ModelOpt's own
dequantization is e2m1 * (float(weight_scale) * weight_scale_2) in fp32.
"""
import numpy as np

from .common import (LinearPlan, check_config_shape, expect_shape, nvfp4_global_scale,
                     refuse_swizzled_nvfp4_scale, require, scalar, scale_bytes_present)
from .errors import UnsupportedFormatError
from .bias import add_bias

NAME = "modelopt-nvfp4"


def quant_config(ckpt):
    """ModelOpt's quantization section: hf_quant_config.json's
    `quantization`, else config.json's quantization_config; None if neither
    is ModelOpt's."""
    hf = ckpt.json("hf_quant_config.json")
    if isinstance(hf, dict):
        section = hf.get("quantization", hf)
        return dict(section, _source="hf_quant_config.json")
    qc = ckpt.config.get("quantization_config")
    if isinstance(qc, dict) and str(qc.get("quant_method", "")).lower() == "modelopt":
        section = qc.get("quantization", qc)
        return dict(section, _source="config.json quantization_config")
    return None


def parse_config(ckpt):
    qc = quant_config(ckpt)
    if qc is None:
        raise UnsupportedFormatError(
            f"{ckpt.directory}: no ModelOpt quantization config (hf_quant_config.json, or "
            f"config.json quantization_config with quant_method modelopt)")
    algo = str(qc.get("quant_algo", "")).upper()
    if algo != "NVFP4":
        raise UnsupportedFormatError(
            f"{qc['_source']}: quant_algo {qc.get('quant_algo')!r}; qmat imports ModelOpt's "
            f"NVFP4 (weight-only) checkpoints")
    group = qc.get("group_size", 16)
    if group != 16:
        raise UnsupportedFormatError(f"{qc['_source']}: group_size {group}; NVFP4 blocks are 16")
    return {"group_size": 16, "exclude_modules": list(qc.get("exclude_modules") or []),
            "source": qc["_source"], "quant_algo": algo}


def find_linears(ckpt, qc):
    modules = set()
    for name, info in ckpt.tensors.items():
        if name.endswith(".weight_scale_2"):
            modules.add(name[:-len(".weight_scale_2")])
        elif name.endswith(".weight_scale") and f"{name[:-len('_scale')]}" in ckpt:
            if ckpt.info(name[:-len("_scale")]).dtype in ("U8", "I8"):
                modules.add(name[:-len(".weight_scale")])
        elif name.endswith(".weight") and info.dtype in ("U8", "I8") and len(info.shape) == 2:
            modules.add(name[:-len(".weight")])
    return sorted(modules)


def default_act(ckpt, qc):
    return None


def plan(ckpt, module, qc, ctx):
    act = ctx["act"]
    weight = require(ckpt, f"{module}.weight", ("U8", "I8"), 2,
                     "two e2m1 codes per byte, [N, K/2]")
    n, half = weight.shape
    k = 2 * half
    cols = -(-k // 16)
    scale = require(ckpt, f"{module}.weight_scale", why="e4m3 block scales [N, K/16]")
    if scale.dtype == "U8" and len(scale.shape) == 1:
        raise UnsupportedFormatError(
            f"{scale.name}: a flat U8 block-scale tensor is the swizzled (CUTLASS / TensorRT-LLM) "
            f"layout; qmat reads the linear row-major [N, K/16] F8_E4M3 layout (re-export with "
            f"ModelOpt's Hugging Face export)")
    if scale.dtype != "F8_E4M3":
        raise UnsupportedFormatError(f"{scale.name}: dtype {scale.dtype}, expected F8_E4M3 "
                                     f"(e4m3 block scales)")
    refuse_swizzled_nvfp4_scale(scale, n, cols)
    expect_shape(scale, (n, cols), "[N, K/16] for weight [N, K/2], one e4m3 scale per 16 k")
    if ctx["check_config"]:
        check_config_shape(module, n, k, ckpt, weight.name)
    g_name = f"{module}.weight_scale_2"
    g = scalar(ckpt, g_name, ("F32", "BF16", "F16"), "the fp32 tensor scale")
    if f"{module}.pre_quant_scale" in ckpt:
        raise UnsupportedFormatError(
            f"{module}.pre_quant_scale: a per-input-channel activation scale (NVFP4 with AWQ "
            f"pre-scaling); qmat's matmul has no input scaling")
    present = scale_bytes_present(ckpt, scale.name)
    g_used, step = nvfp4_global_scale(
        present, lambda e2m1, s: e2m1 * (s * g).astype(np.float32), g, act, g_name,
        "ModelOpt dequantizes e2m1 * (weight_scale * weight_scale_2)")
    p = LinearPlan(module, NAME, "nvfp4", n, k, 16, act)
    p.sources = [weight.name, scale.name, g_name]
    p.add("codes", "U8", (n, half), lambda r0, r1: ckpt.get(weight.name)[r0:r1].view(np.uint8),
          row_bytes=half)
    p.add("scales", "F8_E4M3", (n, cols), lambda r0, r1: ckpt.get(scale.name)[r0:r1],
          row_bytes=cols)
    p.add("global_scale", "F32", (1,), lambda r0, r1: np.array([g_used], dtype=np.float32))
    p.notes["global_scale"] = {"source": float(g), "used": float(g_used), "fp32_steps": step}
    for extra in ("input_scale",):
        if f"{module}.{extra}" in ckpt:
            p.ignored.append(f"{module}.{extra}")
    add_bias(p, ckpt)
    return p
