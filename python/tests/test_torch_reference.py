"""qmat.torch_reference.dequantize against qmat.reference.dequantize, bit for
bit: every code against every scale byte (fp4, fp8) or a spread of scales
and every zero point (int4), both activation types, partial trailing blocks
and row slices."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from qmat import reference, torch_reference  # noqa: E402

# The same bits on the GPU where there is one (load_model dequantizes on the
# model's device).
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


def _bits(tensor):
    return tensor.cpu().view(torch.int16).numpy().view(np.uint16)


def _check(scheme, act, weights, scales, k, block, global_scale=None, zero_points=None,
           device="cpu"):
    expected = reference.dequantize(scheme, weights, scales, k, act, block=block,
                                    global_scale=global_scale, zero_points=zero_points)
    got = torch_reference.dequantize(scheme, weights, scales, k, act, block=block,
                                     global_scale=global_scale, zero_points=zero_points,
                                     device=device)
    assert got.device.type == device
    assert got.dtype == {"bf16": torch.bfloat16, "f16": torch.float16}[act]
    assert got.shape == (weights.shape[0], k)
    mismatch = np.flatnonzero(_bits(got) != expected)
    assert mismatch.size == 0, (
        f"{mismatch.size} elements differ, first at {np.unravel_index(mismatch[0], expected.shape)}:"
        f" {_bits(got).reshape(-1)[mismatch[0]]:#06x} != {expected.reshape(-1)[mismatch[0]]:#06x}")


@pytest.mark.parametrize("act", ["bf16", "f16"])
@pytest.mark.parametrize("scheme,block", [("nvfp4", 16), ("mxfp4", 32)])
def test_fp4_every_code_and_scale_byte(scheme, act, block, device):
    # Row r: scale byte r (every byte, NaN and infinite ones included), the
    # 16 codes twice over the row's K = 2 blocks.
    codes = np.tile(np.arange(16, dtype=np.uint8), (256, 2 * block // 16))
    weights = reference.pack_nibbles(codes)
    scales = np.repeat(np.arange(256, dtype=np.uint8)[:, None], 2, axis=1)
    _check(scheme, act, weights, scales, 2 * block, block,
           global_scale=np.float32(3.0e-3) if scheme == "nvfp4" else None, device=device)


@pytest.mark.parametrize("act", ["bf16", "f16"])
def test_fp8_every_code_and_scale(act, device):
    weights = np.tile(np.arange(256, dtype=np.uint8), (64, 1))
    scales = np.array([[2.0 ** e, -(2.0 ** -e)] for e in range(-40, 24)], dtype=np.float32)
    scales[0, 0], scales[1, 0] = np.nan, np.inf
    _check("fp8", act, weights, scales, 256, 128, device=device)


@pytest.mark.parametrize("act", ["bf16", "f16"])
@pytest.mark.parametrize("with_zero_points", [False, True])
def test_int4_every_code_and_zero_point(act, with_zero_points, device):
    rng = np.random.default_rng(7)
    n, k, block = 96, 128, 32
    codes = np.tile(np.arange(16, dtype=np.uint8), (n, k // 16))
    weights = reference.pack_nibbles(codes)
    floats = rng.standard_normal((n, k // block)).astype(np.float32) * np.float32(
        2.0 ** rng.integers(-30, 14, (n, 1)))
    scales = reference.round_to_act(floats, act)
    scales[0, 0] = 0x7C00 if act == "f16" else 0x7F80  # infinity
    zero_points = None
    if with_zero_points:
        zp = (np.arange(n * (k // block)) % 16).reshape(n, k // block).astype(np.uint8)
        zero_points = reference.pack_nibbles(zp)
    _check("int4", act, weights, scales, k, block, zero_points=zero_points, device=device)


def test_partial_block_and_row_slices(monkeypatch, device):
    # K = 100 with blocks of 32: the last block holds 4 elements. Slices of
    # 3 rows: every slice's rows land where the reference puts them.
    monkeypatch.setattr(torch_reference, "_SLICE_ELEMENTS", 300)
    rng = np.random.default_rng(11)
    n, k, block = 10, 100, 32
    weights = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)
    scales = rng.integers(100, 140, (n, 4), dtype=np.uint8)
    _check("mxfp4", "bf16", weights, scales, k, block, device=device)


def test_refusals():
    weights = np.zeros((2, 16), dtype=np.uint8)
    scales = np.zeros((2, 2), dtype=np.uint8)
    with pytest.raises(ValueError, match="global scale"):
        torch_reference.dequantize("nvfp4", weights, scales, 32, "bf16", block=16)
    with pytest.raises(ValueError, match="global scale"):
        torch_reference.dequantize("mxfp4", weights, scales[:, :1], 32, "bf16", block=32,
                                   global_scale=1.0)
    with pytest.raises(ValueError, match=r"scales must have shape \[N, ceil\(K/bs\)\]"):
        torch_reference.dequantize("mxfp4", weights, scales, 32, "bf16", block=32)
