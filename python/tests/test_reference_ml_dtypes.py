"""qmat.reference (pure numpy bit fields and integer rounding) against
ml_dtypes, an independent implementation of the same formats, over every
byte value, and its quantizers' error bounds."""
import ml_dtypes
import numpy as np
import pytest

from qmat import reference as R

ACT = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}


def same_bits_or_both_nan(got, want):
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    return np.array_equal(got.view(np.uint32), want.view(np.uint32)) or (
        np.array_equal(np.isnan(got), np.isnan(want))
        and np.array_equal(got[~np.isnan(got)].view(np.uint32),
                           want[~np.isnan(want)].view(np.uint32)))


def test_decoders_match_ml_dtypes_for_every_byte():
    codes = np.arange(256, dtype=np.uint8)
    e2m1 = (codes & 0xF).view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    assert same_bits_or_both_nan(R.decode_e2m1(codes), e2m1)  # -0.0 included
    assert same_bits_or_both_nan(R.decode_e4m3(codes),
                                 codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32))
    assert same_bits_or_both_nan(R.decode_e8m0(codes),
                                 codes.view(ml_dtypes.float8_e8m0fnu).astype(np.float32))


def interesting_floats():
    """Random float32 bit patterns plus every f16/bf16 rounding boundary
    region: values at, just below and just above the halfway points."""
    rng = np.random.default_rng(3)
    random_bits = rng.integers(0, 2 ** 32, size=200_000, dtype=np.uint64).astype(np.uint32)
    halves = np.arange(0, 2 ** 16, dtype=np.uint32) << 16 | 0x8000  # bf16 ties
    near = np.concatenate([halves - 1, halves, halves + 1])
    f16 = np.arange(2 ** 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    with np.errstate(invalid="ignore"):  # the pairs around inf and NaN
        f16_mid = (f16[:-1].astype(np.float64) + f16[1:]) / 2  # f16 ties, exact in f32
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65520, 65519.996,
                         3.3895314e38, 3.4028235e38, 1e-45, -1e-45, 5.96e-8, 2.98e-8],
                        dtype=np.float32)
    return np.concatenate([random_bits.view(np.float32), near.view(np.float32), f16,
                           f16_mid.astype(np.float32), specials])


@pytest.mark.parametrize("act", ["f16", "bf16"])
def test_round_to_act_matches_ml_dtypes(act):
    x = interesting_floats()
    with np.errstate(over="ignore", invalid="ignore"):
        want = x.astype(ACT[act]).view(np.uint16).copy()
    want[np.isnan(x)] = R.CANONICAL_NAN
    got = R.round_to_act(x, act)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{x[bad[:5]]!r}: got {got[bad[:5]]}, want {want[bad[:5]]}"
    finite = ~np.isnan(x)
    back = R.to_float32(got[finite], act)
    with np.errstate(over="ignore"):
        assert np.array_equal(back, x[finite].astype(ACT[act]).astype(np.float32))


@pytest.mark.parametrize("fmt", ["e2m1", "e4m3"])
def test_element_rounding_matches_ml_dtypes(fmt):
    """Round to nearest even and saturate, as ml_dtypes casts do after a
    clip to the largest finite value."""
    table = R.E2M1_VALUES[:8] if fmt == "e2m1" else R.E4M3_VALUES[:0x7F]
    limit = float(table[-1])
    mids = (table[:-1].astype(np.float64) + table[1:]) / 2
    rng = np.random.default_rng(5)
    x = np.concatenate([mids, np.nextafter(mids, 0), np.nextafter(mids, 1e9), table,
                        rng.standard_normal(100_000) * limit / 3,
                        rng.standard_normal(10_000) * limit * 3]).astype(np.float32)
    x = np.concatenate([x, -x])
    if fmt == "e2m1":
        got = R.round_to_e2m1(x)
        want = np.clip(x, -limit, limit).astype(ml_dtypes.float4_e2m1fn).view(np.uint8) & 0xF
    else:
        got = R.round_to_e4m3(x)
        want = np.clip(x, -limit, limit).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{x[bad[:5]]!r}: got {got[bad[:5]]}, want {want[bad[:5]]}"


@pytest.mark.parametrize("scheme,block", [("nvfp4", 16), ("mxfp4", 32)])
@pytest.mark.parametrize("act", ["f16", "bf16"])
def test_fp4_dequantization_matches_ml_dtypes(scheme, block, act):
    """Every packed byte x every scale byte, the product computed with
    ml_dtypes' decoders and cast."""
    packed = np.tile(np.arange(256, dtype=np.uint8), (256, 1))
    scales = np.repeat(np.arange(256, dtype=np.uint8)[:, None], 512 // block, axis=1)
    g = np.float32(0.37) if scheme == "nvfp4" else None
    got = R.dequantize(scheme, packed, scales, 512, act, block=block, global_scale=g)
    codes = np.empty((256, 512), np.uint8)
    codes[:, 0::2], codes[:, 1::2] = packed & 0xF, packed >> 4
    values = codes.view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    scale_type = ml_dtypes.float8_e4m3fn if scheme == "nvfp4" else ml_dtypes.float8_e8m0fnu
    s = np.repeat(scales.view(scale_type).astype(np.float32), block, axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        product = values * s * g if g is not None else values * s
        want = product.astype(np.float32).astype(ACT[act]).view(np.uint16).copy()
    want[np.isnan(product)] = R.CANONICAL_NAN
    assert np.array_equal(got, want)


@pytest.mark.parametrize("act", ["f16", "bf16"])
def test_int4_dequantization_matches_ml_dtypes(act):
    """Every code x every zero point, over scales including a subnormal,
    infinity and NaN of the activation type."""
    q = np.tile(np.arange(16, dtype=np.uint8), 16)[None, :].repeat(6, axis=0)  # K = 256
    zp_codes = np.tile(np.arange(16, dtype=np.uint8), (6, 1))  # one per 16-wide block
    scale_values = np.array([1.0, -0.3, 6e-8, np.inf, np.nan, 1000.0], np.float32)
    scales = np.repeat(scale_values[:, None], 16, axis=1).astype(ACT[act])
    got = R.dequantize("int4", R.pack_nibbles(q), scales.view(np.uint16), 256, act, block=16,
                       zero_points=R.pack_nibbles(zp_codes))
    zp = np.repeat(zp_codes.astype(np.float32), 16, axis=1)
    s = np.repeat(scales.astype(np.float32), 16, axis=1)
    with np.errstate(invalid="ignore", over="ignore"):
        product = (q.astype(np.float32) - zp) * s
        want = product.astype(ACT[act]).view(np.uint16).copy()
    want[np.isnan(product)] = R.CANONICAL_NAN
    assert np.array_equal(got, want)


def test_quantizers_pick_the_producers_scales():
    """The scale each format's producers use, on a block with a known amax."""
    w = np.zeros((1, 64), np.float32)
    w[0, 3] = -12.0  # amax 12
    nv = R.quantize("nvfp4", w)
    assert nv["global_scale"] == pytest.approx(12.0 / (6 * 448))
    assert R.decode_e4m3(nv["scales"])[0, 0] == 448  # amax / 6 / global
    assert R.decode_e2m1(R.unpack_nibbles(nv["weights"], 64))[0, 3] == -6.0
    mx = R.quantize("mxfp4", w)
    assert R.decode_e8m0(mx["scales"])[0, 0] == 2.0  # 2^(floor(log2 12) - 2)
    f8 = R.quantize("fp8", w)
    assert f8["scales"][0, 0] == np.float32(12.0 / 448)
    i4 = R.quantize("int4", w, act="f16", zero_points=False)
    assert R.to_float32(i4["scales"], "f16")[0, 0] == np.float16(12.0 / 7)
    with pytest.raises(ValueError, match="weights must be finite"):
        R.quantize("fp8", np.full((2, 8), np.nan))
