"""qmat.reference (numpy) against lib/Reference (C++, via qmat-ref-dump) and
ml_dtypes, plus quantize -> dequantize error bounds and argument checks."""
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from qmat import reference as R  # noqa: E402

BUILD = os.environ.get("QMAT_BUILD_DIR",
                       os.path.join(os.path.dirname(__file__), "..", "..", "build"))
REF_DUMP = os.path.join(BUILD, "bin", "qmat-ref-dump")


def dump_table(scheme, act, global_scale=None):
    """qmat-ref-dump's [scale byte, element] table for every packed byte."""
    args = [REF_DUMP, "dequant", scheme, act] + ([repr(global_scale)] if global_scale else [])
    lines = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    rows = [line.split(":", 1)[1].split() for line in lines if line.startswith("s=")]
    return np.array([[int(v, 16) for v in row] for row in rows], dtype=np.uint16)


def test_e2m1_codes():
    expected = [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6]
    got = R.decode_e2m1(np.arange(16, dtype=np.uint8))
    assert got.tolist() == expected
    assert np.signbit(got[8])


def test_e8m0_and_e4m3_specials():
    e8 = R.decode_e8m0(np.array([0, 127, 254, 255], dtype=np.uint8))
    assert e8[0] == np.float32(2.0 ** -127) and e8[1] == 1 and e8[2] == 2.0 ** 127
    assert np.isnan(e8[3])
    e4 = R.decode_e4m3(np.array([0x01, 0x7E, 0x7F, 0x80, 0xFF], dtype=np.uint8))
    assert e4[0] == 2.0 ** -9 and e4[1] == 448
    assert np.isnan(e4[2]) and np.isnan(e4[4]) and np.signbit(e4[3])


@pytest.mark.parametrize("scheme,block", [("nvfp4", 16), ("mxfp4", 32)])
@pytest.mark.parametrize("act", ["f16", "bf16"])
def test_fp4_every_byte_against_cpp(scheme, block, act):
    """Every packed byte against every scale byte, bit for bit with C++."""
    globals_ = [1.0, 0.5] if scheme == "nvfp4" else [None]
    packed = np.tile(np.arange(256, dtype=np.uint8), (256, 1))
    for g in globals_:
        scales = np.repeat(np.arange(256, dtype=np.uint8)[:, None], 512 // block, axis=1)
        got = R.dequantize(scheme, packed, scales, 512, act, block=block, global_scale=g)
        want = dump_table(scheme, act, g if scheme == "nvfp4" and g != 1.0 else None)
        assert want.shape == got.shape
        mismatches = np.argwhere(got != want)
        assert mismatches.size == 0, f"first mismatch at {mismatches[0]}"


@pytest.mark.parametrize("act", ["f16", "bf16"])
def test_fp8_every_byte(act):
    codes = np.tile(np.arange(256, dtype=np.uint8), (4, 1))
    scales = np.array([[1.0], [0.37], [-2.0], [1e30]], dtype=np.float32)
    got = R.dequantize("fp8", codes, scales, 256, act, block=256)
    e4 = codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    want = R.round_to_act(e4 * scales, act)
    assert np.array_equal(got, want)
    # NaN codes (0x7F, 0xFF) give the canonical NaN in every row.
    assert set(got[:, [0x7F, 0xFF]].ravel()) == {R.CANONICAL_NAN}


def test_int4_zero_points_and_partial_block():
    # K = 40, block 16: columns 32..39 use the third scale column.
    q = np.arange(40, dtype=np.uint8)[None, :] % 16
    scales = np.array([[1.0, 2.0, 4.0]], dtype=np.float16).view(np.uint16)
    zp = R.pack_nibbles(np.array([[3, 5, 7, 0]], dtype=np.uint8))
    got = R.dequantize("int4", R.pack_nibbles(q), scales, 40, "f16", block=16, zero_points=zp)
    values = got.view(np.float16).astype(np.float32)[0]
    expected = [(int(q[0, k]) - [3, 5, 7][k // 16]) * [1.0, 2.0, 4.0][k // 16] for k in range(40)]
    assert values.tolist() == expected
    default = R.dequantize("int4", R.pack_nibbles(q), scales, 40, "f16", block=16)
    assert default.view(np.float16)[0, 0] == -8.0


@pytest.mark.parametrize("scheme,zero_points,bound", [
    ("nvfp4", True, 0.11), ("mxfp4", True, 0.13), ("fp8", True, 0.035),
    ("int4", True, 0.09), ("int4", False, 0.11)])
@pytest.mark.parametrize("act", ["f16", "bf16"])
def test_quantize_dequantize_error(scheme, zero_points, bound, act):
    rng = np.random.default_rng(7)
    w = rng.standard_normal((128, 1000)).astype(np.float32)  # partial last block
    q = R.quantize(scheme, w, act=act, zero_points=zero_points)
    d = R.dequantize(scheme, q["weights"], q["scales"], 1000, act,
                     global_scale=q.get("global_scale"), zero_points=q.get("zero_points"))
    values = R.to_float32(d, act).astype(np.float64)
    err = np.linalg.norm(values - w) / np.linalg.norm(w)
    assert err < bound, err
    assert not np.isnan(values).any()


def test_bad_arguments_raise_clearly():
    w = np.zeros((4, 16), dtype=np.uint8)
    with pytest.raises(ValueError, match="activation type must be 'f16' or 'bf16', got 'f32'"):
        R.dequantize("mxfp4", w, np.zeros((4, 1), np.uint8), 32, "f32")
    with pytest.raises(ValueError, match=r"scales must have shape \[N, ceil\(K/bs\)\] = \[4, 2\]"):
        R.dequantize("nvfp4", w, np.zeros((4, 3), np.uint8), 32, "bf16", global_scale=1.0)
    with pytest.raises(ValueError, match="nvfp4 requires a global scale"):
        R.dequantize("nvfp4", w, np.zeros((4, 2), np.uint8), 32, "bf16")
    with pytest.raises(ValueError, match="a global scale is only allowed for nvfp4, not mxfp4"):
        R.dequantize("mxfp4", w, np.zeros((4, 1), np.uint8), 32, "bf16", global_scale=1.0)
    with pytest.raises(ValueError, match="zero points are only allowed for int4, not fp8"):
        R.dequantize("fp8", w, np.zeros((4, 1), np.float32), 16, "bf16", zero_points=w)
    with pytest.raises(ValueError, match="unknown scheme 'nvfp8'"):
        R.quantize("nvfp8", np.zeros((2, 32)))
    with pytest.raises(ValueError, match="need an even K"):
        R.pack_nibbles(np.zeros((2, 3), np.uint8))
    with pytest.raises(ValueError, match=r"weights must be a matrix \[N, K\]"):
        R.quantize("fp8", np.zeros(32))
