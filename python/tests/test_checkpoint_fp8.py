"""Block-scaled FP8 checkpoints (weight_scale_inv per 128 x 128 tile),
expanded to qmat's per-row fp32 block scales and compared bit for bit."""
import numpy as np
import pytest

from qmat import checkpoint as ck
from checkpoint_util import (CONFIG, LINEARS, assert_same_bits, e4m3, qmat_bits, unquantized,
                             write_checkpoint)

EXTRA = "model.layers.0.mlp.extra_proj"   # partial tiles on both axes


def fp8_checkpoint(tmp_path, rng, block=(128, 128), scale_dtype="F32"):
    bn, bk = block
    tensors, want = unquantized(rng), {}
    shapes = dict(LINEARS, **{EXTRA: (200, 320)})
    for module, (n, k) in shapes.items():
        weight = rng.integers(0, 256, (n, k), dtype=np.uint8)
        weight.reshape(-1)[:256] = np.arange(256)   # every e4m3 byte, NaN included
        tiles = rng.uniform(1e-4, 1e-2, (-(-n // bn), -(-k // bk))).astype(np.float32)
        tensors[f"{module}.weight"] = ("F8_E4M3", weight)
        if scale_dtype == "BF16":
            bits = (tiles.view(np.uint32) >> 16).astype(np.uint16)
            tiles = (bits.astype(np.uint32) << 16).view(np.float32)
            tensors[f"{module}.weight_scale_inv"] = ("BF16", bits)
        else:
            tensors[f"{module}.weight_scale_inv"] = tiles
        # w[n, k] = e4m3 * weight_scale_inv[n // BN, k // BK], in fp32.
        per_element = np.repeat(np.repeat(tiles, bn, axis=0), bk, axis=1)[:n, :k]
        with np.errstate(invalid="ignore"):
            want[module] = (e4m3(weight) * per_element).astype(np.float32)
    qc = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
          "weight_block_size": list(block)}
    write_checkpoint(tmp_path / "ckpt", tensors, dict(CONFIG, quantization_config=qc))
    return tensors, want, shapes


@pytest.mark.parametrize("act,block,scale_dtype", [
    ("bf16", (128, 128), "F32"), ("f16", (128, 128), "F32"), ("bf16", (64, 96), "BF16")])
def test_fp8_block_bit_exact(tmp_path, act, block, scale_dtype):
    rng = np.random.default_rng(40)
    tensors, want, shapes = fp8_checkpoint(tmp_path, rng, block, scale_dtype)
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", act=act, bundle=False,
                                  quiet=True, chunk_bytes=1000)
    imported = ck.open_imported(tmp_path / "out")
    for module, (n, k) in shapes.items():
        layer, t = imported.linear(module)
        assert (layer.scheme, layer.block, layer.n, layer.k) == ("fp8", block[1], n, k)
        assert t["scales"].dtype == np.float32 and t["scales"].shape == (n, -(-k // block[1]))
        assert np.array_equal(t["weights"], tensors[f"{module}.weight"][1])
        assert_same_bits(qmat_bits(imported, module), want[module], act)
    assert result.manifest["linears"][EXTRA]["layer"] == (
        "fp8_200x320" if block[1] == 128 else "fp8_200x320_b96")
    assert result.manifest["linears"][EXTRA]["notes"] == {"weight_block_size": list(block)}
