"""MXFP4 checkpoints: compressed-tensors mxfp4-pack-quantized, imported and
compared bit for bit with the format's own dequantization."""

import numpy as np
import pytest

from qmat import checkpoint as ck
from checkpoint_util import LINEARS, assert_same_bits, qmat_bits, unquantized, write_checkpoint
from test_checkpoint_nvfp4 import ct_config, e2m1_values


def ct_mxfp4_config(**weights):
    w = {"strategy": "group", "group_size": 32}
    w.update(weights)
    return ct_config("mxfp4-pack-quantized", w)


def ct_mxfp4_tensors(rng, scale_dtype="U8"):
    tensors = unquantized(rng)
    for module, (n, k) in LINEARS.items():
        tensors[f"{module}.weight_packed"] = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)
        exponents = rng.integers(110, 140, (n, k // 32), dtype=np.uint8)
        exponents[0, :3] = (0, 254, 255)   # 2^-127, 2^127 and NaN
        tensors[f"{module}.weight_scale"] = (scale_dtype, exponents)
    return tensors


def mxfp4_dequant(packed, exponents, k):
    """e2m1 * 2^(e - 127), e = 255 NaN, in fp32."""
    n = packed.shape[0]
    e = np.asarray(exponents).astype(np.int32)
    with np.errstate(over="ignore"):   # 2^128 (e = 255) and 6 * 2^127 overflow fp32
        scale = np.where(e == 255, np.float32(np.nan),
                         np.ldexp(np.float32(1), e - 127).astype(np.float32))
        return (e2m1_values(packed, k).reshape(n, -1, 32) * scale[:, :, None]).reshape(n, k)


@pytest.mark.parametrize("act,scale_dtype", [("bf16", "U8"), ("f16", "U8"), ("bf16", "F8_E8M0")])
def test_compressed_tensors_mxfp4_bit_exact(tmp_path, act, scale_dtype):
    rng = np.random.default_rng(31)
    tensors = ct_mxfp4_tensors(rng, scale_dtype)
    q = next(iter(LINEARS))
    tensors[f"{q}.input_global_scale"] = np.array([100.0], dtype=np.float32)
    write_checkpoint(tmp_path / "ckpt", tensors, ct_mxfp4_config())
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", act=act, bundle=False,
                                  quiet=True)
    imported = ck.open_imported(tmp_path / "out")
    for module, (n, k) in LINEARS.items():
        layer, t = imported.linear(module)
        assert (layer.scheme, layer.block, layer.n, layer.k) == ("mxfp4", 32, n, k)
        assert "global_scale" not in t
        want = mxfp4_dequant(tensors[f"{module}.weight_packed"],
                             tensors[f"{module}.weight_scale"][1], k)
        assert_same_bits(qmat_bits(imported, module), want, act)
        entry = result.manifest["linears"][module]
        assert entry["format"] == "compressed-tensors-mxfp4"
        assert entry["ignored_tensors"] == ([f"{q}.input_global_scale"] if module == q else [])


DOWN = "model.layers.0.mlp.down_proj.weight_packed: "
K_SCALE = "model.layers.0.self_attn.k_proj.weight_scale: "


@pytest.mark.parametrize("weights,scale,message", [
    ({"group_size": 16}, None,
     f"{DOWN}config group group_0 has group_size 16; MXFP4 blocks are 32"),
    ({"symmetric": False}, None,
     f"{DOWN}asymmetric fp4 (config group group_0); qmat's mxfp4 has no zero points"),
    ({"type": "int"}, None,
     f"{DOWN}config group group_0 has type 'int', mxfp4-pack-quantized is 'float'"),
    ({}, ("F8_E4M3", (128, 8)),
     f"{K_SCALE}dtype F8_E4M3, expected U8 or F8_E8M0 (e8m0 block scales (exponents))"),
    ({}, ("U8", (128, 4)),
     f"{K_SCALE}shape [128, 4], expected [128, 8] ([N, K/32] for weight_packed [N, K/2])"),
])
def test_compressed_tensors_mxfp4_refusals(tmp_path, weights, scale, message):
    rng = np.random.default_rng(32)
    tensors = ct_mxfp4_tensors(rng)
    module = "model.layers.0.self_attn.k_proj"
    if scale is not None:
        dtype, shape = scale
        tensors[f"{module}.weight_scale"] = (dtype, rng.integers(0, 255, shape, dtype=np.uint8))
    write_checkpoint(tmp_path / "ckpt", tensors, ct_mxfp4_config(**weights))
    with pytest.raises(ck.CheckpointError) as e:
        ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True)
    assert str(e.value) == message
    assert not (tmp_path / "out").exists()
