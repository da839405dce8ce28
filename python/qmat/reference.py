"""Reference numerics in numpy (docs/numerics.md) and the quantizers that make
checkpoint-like weights for each scheme.

Dequantization is computed in float32, left to right, and rounded once to
float16 / bfloat16 with round-to-nearest-even; every NaN becomes the canonical
0x7FFF pattern. The results are bit-identical to lib/Reference (C++), which
tests/test_reference.py checks over every byte value.

Only numpy is used: the element formats are decoded from their bit fields and
rounded by table search or integer arithmetic, so that the tests can compare
this module against ml_dtypes as an independent implementation rather than
against itself.
"""
import numpy as np

SCHEMES = ("nvfp4", "mxfp4", "fp8", "int4")
ACTIVATIONS = ("f16", "bf16")
DEFAULT_BLOCK = {"nvfp4": 16, "mxfp4": 32, "fp8": 128, "int4": 32}
CANONICAL_NAN = 0x7FFF
E2M1_MAX = 6.0
E4M3_MAX = 448.0


def _check_act(act):
    if act not in ACTIVATIONS:
        raise ValueError(f"activation type must be 'f16' or 'bf16', got {act!r}")


def _e2m1_table():
    magnitudes = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], dtype=np.float32)
    return np.concatenate([magnitudes, -magnitudes])  # code 8 is -0.0


def _e4m3_table():
    """float32 value of every e4m3fn byte, from its bit fields."""
    code = np.arange(256)
    sign = np.where(code & 0x80, -1.0, 1.0)
    exponent = (code >> 3) & 0xF
    mantissa = (code & 7).astype(np.float64)
    normal = (1 + mantissa / 8) * np.exp2(exponent - 7.0)
    subnormal = mantissa / 8 * 2.0 ** -6
    values = sign * np.where(exponent == 0, subnormal, normal)
    values[(code & 0x7F) == 0x7F] = np.nan  # S.1111.111; no infinities
    return values.astype(np.float32)


def _e8m0_table():
    values = np.exp2(np.arange(256) - 127.0)  # 2^-127 is a float32 subnormal
    values[255] = np.nan
    return values.astype(np.float32)


E2M1_VALUES = _e2m1_table()
E4M3_VALUES = _e4m3_table()
E8M0_VALUES = _e8m0_table()


def decode_e2m1(codes):
    """float32 values of e2m1 codes (low 4 bits of each uint8)."""
    return E2M1_VALUES[np.asarray(codes, dtype=np.uint8) & 0xF]


def decode_e4m3(bytes_):
    return E4M3_VALUES[np.asarray(bytes_, dtype=np.uint8)]


def decode_e8m0(bytes_):
    return E8M0_VALUES[np.asarray(bytes_, dtype=np.uint8)]


def round_to_act(values, act):
    """RNE from float32 to f16/bf16 bits (uint16), NaN -> 0x7FFF."""
    _check_act(act)
    values = np.asarray(values, dtype=np.float32)
    if act == "f16":
        # numpy's float32 -> float16 cast rounds to nearest even, with
        # subnormals and overflow to infinity.
        with np.errstate(over="ignore", invalid="ignore"):
            bits = values.astype(np.float16).view(np.uint16)
    else:
        # bf16 is the top half of the float32 pattern; adding 0x7FFF plus the
        # kept half's lowest bit rounds to nearest even, and a carry out of
        # the largest finite value lands on infinity, as it should.
        wide = values.view(np.uint32).astype(np.uint64)
        bits = ((wide + 0x7FFF + ((wide >> 16) & 1)) >> 16).astype(np.uint16)
    bits = np.array(bits, dtype=np.uint16)
    bits[np.isnan(values)] = CANONICAL_NAN
    return bits


def to_float32(bits, act):
    """float32 values of f16/bf16 bit patterns (uint16), exactly."""
    _check_act(act)
    bits = np.asarray(bits, dtype=np.uint16)
    if act == "f16":
        return bits.view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def unpack_nibbles(packed, k):
    """[N, K/2] uint8 -> [N, K] codes; the low nibble is the even k."""
    packed = np.asarray(packed, dtype=np.uint8)
    out = np.empty((packed.shape[0], 2 * packed.shape[1]), dtype=np.uint8)
    out[:, 0::2] = packed & 0xF
    out[:, 1::2] = packed >> 4
    return out[:, :k]


def pack_nibbles(codes):
    codes = np.asarray(codes, dtype=np.uint8)
    if codes.shape[1] % 2:
        raise ValueError("packed 4-bit schemes need an even K")
    return (codes[:, 0::2] & 0xF) | ((codes[:, 1::2] & 0xF) << 4)


def _expand_blocks(per_block, k, block):
    """[N, ceil(K/bs)] -> [N, K]: a partial trailing block uses the last column."""
    return np.repeat(per_block, block, axis=1)[:, :k]


def _check_shapes(scheme, weights, scales, k, block):
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r} (expected one of {SCHEMES})")
    if block <= 0:
        raise ValueError(f"block size must be positive, got {block}")
    n = weights.shape[0]
    expected = (n, -(-k // block))
    if tuple(scales.shape) != expected:
        raise ValueError(f"scales must have shape [N, ceil(K/bs)] = {list(expected)}, "
                         f"got {list(scales.shape)}")


def dequantize(scheme, weights, scales, k, act, block=None, global_scale=None,
               zero_points=None):
    """Dequantized W [N, K] as f16/bf16 bits (uint16), exactly as docs/numerics.md defines it.

    Byte formats are passed as uint8 arrays (e2m1 pairs, e4m3, e8m0), fp8
    scales as float32, int4 scales as the activation type's bits (uint16).
    """
    _check_act(act)
    block = block or DEFAULT_BLOCK.get(scheme, 0)
    weights = np.asarray(weights)
    scales = np.asarray(scales)
    _check_shapes(scheme, weights, scales, k, block)
    if scheme == "nvfp4" and global_scale is None:
        raise ValueError("nvfp4 requires a global scale (weight_scale_2)")
    if scheme != "nvfp4" and global_scale is not None:
        raise ValueError(f"a global scale is only allowed for nvfp4, not {scheme}")
    if scheme != "int4" and zero_points is not None:
        raise ValueError(f"zero points are only allowed for int4, not {scheme}")
    with np.errstate(over="ignore", invalid="ignore"):
        out = _dequantize_f32(scheme, weights, scales, k, act, block, global_scale,
                              zero_points)
    return round_to_act(out, act)


def _dequantize_f32(scheme, weights, scales, k, act, block, global_scale, zero_points):
    """docs/numerics.md's formulas in float32, before the one rounding."""
    if scheme == "nvfp4":
        values = decode_e2m1(unpack_nibbles(weights, k))
        s = _expand_blocks(decode_e4m3(scales), k, block)
        out = values * s * np.float32(global_scale)
    elif scheme == "mxfp4":
        values = decode_e2m1(unpack_nibbles(weights, k))
        out = values * _expand_blocks(decode_e8m0(scales), k, block)
    elif scheme == "fp8":
        values = decode_e4m3(weights)
        out = values * _expand_blocks(np.asarray(scales, dtype=np.float32), k, block)
    else:
        q = unpack_nibbles(weights, k).astype(np.float32)
        s = to_float32(scales, act)
        if zero_points is None:
            zp = np.full(scales.shape, 8.0, dtype=np.float32)
        else:
            zp = unpack_nibbles(zero_points, scales.shape[1]).astype(np.float32)
        out = (q - _expand_blocks(zp, k, block)) * _expand_blocks(s, k, block)
    return out.astype(np.float32)


def _blocks(x, block):
    """[N, K] -> [N, ceil(K/bs), bs] zero padded, for per-block statistics."""
    n, k = x.shape
    nb = -(-k // block)
    padded = np.zeros((n, nb * block), dtype=np.float32)
    padded[:, :k] = x
    return padded.reshape(n, nb, block)


def _round_to_codes(x, magnitudes):
    """Nearest entry of an increasing table of non-negative magnitudes, ties
    to the even index (the even mantissa: code parity is mantissa parity in
    e2m1 and e4m3), saturating at the last entry. Returns (index, sign)."""
    x = np.asarray(x, dtype=np.float32)
    mag = np.abs(x).astype(np.float64)
    table = magnitudes.astype(np.float64)
    hi = np.clip(np.searchsorted(table, mag), 0, len(table) - 1)
    lo = np.maximum(hi - 1, 0)
    d_lo, d_hi = mag - table[lo], table[hi] - mag  # exact in float64
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (hi % 2 == 0))
    index = np.where(mag >= table[-1], len(table) - 1, np.where(pick_hi, hi, lo))
    return index.astype(np.uint8), np.signbit(x)


def round_to_e2m1(x):
    """e2m1 codes (uint8, 0..15) of float32 values: RNE, saturating at ±6."""
    index, negative = _round_to_codes(x, E2M1_VALUES[:8])
    return index | (negative.astype(np.uint8) << 3)


def round_to_e4m3(x):
    """e4m3fn bytes of float32 values: RNE, saturating at ±448 (never NaN)."""
    index, negative = _round_to_codes(x, E4M3_VALUES[:0x7F])
    return index | (negative.astype(np.uint8) << 7)


def quantize(scheme, w, act="bf16", block=None, zero_points=True):
    """Quantize a float weight matrix [N, K] the way each format's producers
    do. Returns a dict with `weights`, `scales` and, where the scheme has
    them, `global_scale` / `zero_points`, ready for dequantize().

    Scale choices: nvfp4 e4m3 block scales amax / 6 under an fp32 tensor
    scale amax / (6 * 448) (NVIDIA's recipe); mxfp4 e8m0 exponents
    floor(log2(amax)) - 2 (OCP MX); fp8 fp32 scales amax / 448; int4 min/max
    with zero points, or amax / 7 around 8 without. Elements are rounded to
    nearest even and saturate at the format's largest value.
    """
    block = block or DEFAULT_BLOCK.get(scheme, 0)
    w = np.asarray(w, dtype=np.float32)
    if w.ndim != 2:
        raise ValueError(f"weights must be a matrix [N, K], got shape {w.shape}")
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r} (expected one of {SCHEMES})")
    _check_act(act)
    if block <= 0:
        raise ValueError(f"block size must be positive, got {block}")
    if not np.isfinite(w).all():
        raise ValueError("weights must be finite (found NaN or infinity)")
    n, k = w.shape
    b = _blocks(w, block)
    amax = np.abs(b).max(axis=2)
    if scheme == "nvfp4":
        global_scale = np.float32(max(amax.max(), 1e-30) / (E2M1_MAX * E4M3_MAX))
        scale_f = (amax / E2M1_MAX / global_scale).astype(np.float32)
        scale_bytes = round_to_e4m3(np.clip(scale_f, 0, E4M3_MAX))
        effective = decode_e4m3(scale_bytes) * global_scale
        safe = np.where(effective > 0, effective, 1.0)[:, :, None]
        codes = round_to_e2m1(b / safe).reshape(n, -1)[:, :k]
        return {"weights": pack_nibbles(codes), "scales": scale_bytes,
                "global_scale": float(global_scale)}
    if scheme == "mxfp4":
        with np.errstate(divide="ignore"):
            exp = np.floor(np.log2(np.where(amax > 0, amax, 1.0))) - 2
        exp = np.clip(exp, -127, 127)
        scale_bytes = (exp + 127).astype(np.uint8)
        codes = round_to_e2m1(b / np.exp2(exp)[:, :, None]).reshape(n, -1)[:, :k]
        return {"weights": pack_nibbles(codes), "scales": scale_bytes}
    if scheme == "fp8":
        scale = np.where(amax > 0, amax / E4M3_MAX, 1.0).astype(np.float32)
        q = round_to_e4m3(np.clip(b / scale[:, :, None], -E4M3_MAX, E4M3_MAX))
        return {"weights": q.reshape(n, -1)[:, :k], "scales": scale}
    # int4: asymmetric with zero points (min/max), or symmetric around 8.
    if zero_points:
        lo, hi = b.min(axis=2), b.max(axis=2)
        scale = np.where(hi > lo, (hi - lo) / 15.0, 1.0).astype(np.float32)
        scale = to_float32(round_to_act(scale, act), act)
        zp = np.clip(np.round(-lo / scale), 0, 15).astype(np.uint8)
    else:
        scale = np.where(amax > 0, amax / 7.0, 1.0).astype(np.float32)
        scale = to_float32(round_to_act(scale, act), act)
        zp = np.full(scale.shape, 8, dtype=np.uint8)
    q = np.clip(np.round(b / scale[:, :, None]) + zp[:, :, None], 0, 15).astype(np.uint8)
    out = {"weights": pack_nibbles(q.reshape(n, -1)[:, :k]),
           "scales": round_to_act(scale, act)}
    if zero_points:
        zp_padded = zp if zp.shape[1] % 2 == 0 else np.pad(zp, ((0, 0), (0, 1)))
        out["zero_points"] = pack_nibbles(zp_padded)
    return out
