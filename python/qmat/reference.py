"""Reference numerics in numpy (brief section 2) and the quantizers that make
checkpoint-like weights for each scheme.

Dequantization is computed in float32, left to right, and rounded once to
float16 / bfloat16 with round-to-nearest-even; every NaN becomes the canonical
0x7FFF pattern. The results are bit-identical to lib/Reference (C++), which
tests/test_reference.py checks over every byte value.
"""
import ml_dtypes
import numpy as np

SCHEMES = ("nvfp4", "mxfp4", "fp8", "int4")
DEFAULT_BLOCK = {"nvfp4": 16, "mxfp4": 32, "fp8": 128, "int4": 32}
CANONICAL_NAN = 0x7FFF
E2M1_MAX = 6.0
E4M3_MAX = 448.0


def _act_dtype(act):
    if act == "f16":
        return np.float16
    if act == "bf16":
        return ml_dtypes.bfloat16
    raise ValueError(f"activation type must be 'f16' or 'bf16', got {act!r}")


def decode_e2m1(codes):
    """float32 values of e2m1 codes (low 4 bits of each uint8)."""
    codes = np.asarray(codes, dtype=np.uint8) & 0xF
    return codes.view(ml_dtypes.float4_e2m1fn).astype(np.float32)


def decode_e4m3(bytes_):
    return np.asarray(bytes_, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)


def decode_e8m0(bytes_):
    return np.asarray(bytes_, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float32)


def round_to_act(values, act):
    """RNE from float32 to f16/bf16 bits (uint16), NaN -> 0x7FFF."""
    values = np.asarray(values, dtype=np.float32)
    with np.errstate(over="ignore"):  # overflow to inf is the semantics
        bits = values.astype(_act_dtype(act)).view(np.uint16).copy()
    bits[np.isnan(values)] = CANONICAL_NAN
    return bits


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
    """Dequantized W [N, K] as f16/bf16 bits (uint16), exactly as brief §2."""
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
    """brief §2 in float32, before the one rounding."""
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
        s = np.asarray(scales, dtype=np.uint16).view(_act_dtype(act)).astype(np.float32)
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


def _to_e2m1_codes(x):
    """Round float32 to the nearest e2m1 code (ties to even, saturating)."""
    clipped = np.clip(x, -E2M1_MAX, E2M1_MAX).astype(np.float32)
    return clipped.astype(ml_dtypes.float4_e2m1fn).view(np.uint8) & 0xF


def quantize(scheme, w, act="bf16", block=None, zero_points=True):
    """Quantize a float weight matrix [N, K] the way each format's producers
    do. Returns a dict with `weights`, `scales` and, where the scheme has
    them, `global_scale` / `zero_points`, ready for dequantize()."""
    block = block or DEFAULT_BLOCK.get(scheme, 0)
    w = np.asarray(w, dtype=np.float32)
    if w.ndim != 2:
        raise ValueError(f"weights must be a matrix [N, K], got shape {w.shape}")
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r} (expected one of {SCHEMES})")
    n, k = w.shape
    b = _blocks(w, block)
    amax = np.abs(b).max(axis=2)
    if scheme == "nvfp4":
        # NVIDIA's recipe: a tensor-wide fp32 scale maps the largest block
        # scale onto e4m3's range, block scales are amax / 6 in e4m3.
        global_scale = np.float32(max(amax.max(), 1e-30) / (E2M1_MAX * E4M3_MAX))
        scale_f = (amax / E2M1_MAX / global_scale).astype(np.float32)
        scale_bytes = np.clip(scale_f, 0, E4M3_MAX).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        effective = decode_e4m3(scale_bytes) * global_scale
        safe = np.where(effective > 0, effective, 1.0)[:, :, None]
        codes = _to_e2m1_codes(b / safe).reshape(n, -1)[:, :k]
        return {"weights": pack_nibbles(codes), "scales": scale_bytes,
                "global_scale": float(global_scale)}
    if scheme == "mxfp4":
        # OCP MX: shared exponent floor(log2(amax)) - emax(e2m1) = ... - 2.
        with np.errstate(divide="ignore"):
            exp = np.floor(np.log2(np.where(amax > 0, amax, 1.0))) - 2
        exp = np.clip(exp, -127, 127)
        scale_bytes = (exp + 127).astype(np.uint8)
        codes = _to_e2m1_codes(b / np.exp2(exp)[:, :, None]).reshape(n, -1)[:, :k]
        return {"weights": pack_nibbles(codes), "scales": scale_bytes}
    if scheme == "fp8":
        scale = np.where(amax > 0, amax / E4M3_MAX, 1.0).astype(np.float32)
        q = np.clip(b / scale[:, :, None], -E4M3_MAX, E4M3_MAX).astype(ml_dtypes.float8_e4m3fn)
        return {"weights": q.view(np.uint8).reshape(n, -1)[:, :k], "scales": scale}
    # int4: asymmetric with zero points (min/max), or symmetric around 8.
    act_dtype = _act_dtype(act)
    if zero_points:
        lo, hi = b.min(axis=2), b.max(axis=2)
        scale = np.where(hi > lo, (hi - lo) / 15.0, 1.0).astype(np.float32)
        scale = scale.astype(act_dtype).astype(np.float32)
        zp = np.clip(np.round(-lo / scale), 0, 15).astype(np.uint8)
    else:
        scale = np.where(amax > 0, amax / 7.0, 1.0).astype(np.float32)
        scale = scale.astype(act_dtype).astype(np.float32)
        zp = np.full(scale.shape, 8, dtype=np.uint8)
    q = np.clip(np.round(b / scale[:, :, None]) + zp[:, :, None], 0, 15).astype(np.uint8)
    out = {"weights": pack_nibbles(q.reshape(n, -1)[:, :k]),
           "scales": scale.astype(act_dtype).view(np.uint16)}
    if zero_points:
        zp_padded = zp if zp.shape[1] % 2 == 0 else np.pad(zp, ((0, 0), (0, 1)))
        out["zero_points"] = pack_nibbles(zp_padded)
    return out
