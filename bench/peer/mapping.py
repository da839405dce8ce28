"""qmat's int4 / mxfp4 operands in gemlite's representation, and gemlite's
dequantization emulated in numpy (no torch, no GPU), so that the mapping
can be checked bit for bit against qmat.reference on any machine.

int4 (block 128, u4 zero points). qmat: codes [N, K/2] (low nibble = even
k), scales [N, K/128] in the activation type, zero points [N, K/256] two
u4 per byte; W = rne((q - zp) * scale). gemlite (GemLiteLinearTriton.pack
with fma_mode=False, its W_group_mode 3): W_q the unpacked codes [N, K]
(uint8 0..15), scales [N, K/128] and zeros [N, K/128] both in the
activation type (zeros = float(zp)); pack() stores W_q as int32 words of
eight codes along K ([K/8, N], code k at bits 4 * (k % 8)), scales and
zeros transposed to [K/128, N], and the kernels compute
(bf16(q) - zeros) * scales in bf16: q - zp is exact, so the one rounding
is that of the product, as in qmat. (pack()'s default fma_mode=True
stores zeros = bf16(-zp * scale) and computes fma(q, scale, zeros): that
rounds -zp * scale first and is not qmat's formula.)

mxfp4 (block 32, e8m0 scales). qmat: codes [N, K/2] e2m1, scales
[N, K/32] e8m0. gemlite (helper A16W4_MXFP().from_packed_weights): the
same packed bytes, seen as [K/2, N] (a transposed view: the memory is
qmat's), and the e8m0 scales (as torch.float8_e8m0fnu) transposed to
[K/32, N]; the kernel's tl.dot_scaled decodes e2m1 * 2^(e - 127).
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from qmat import reference as R  # noqa: E402

INT4_BLOCK = 128
MXFP4_BLOCK = 32
GEMLITE_PACKING_BITS = 32  # GemLiteLinearTriton.PACKING_BITWIDTH's default


# --- int4 --------------------------------------------------------------------

def int4_operands(codes, scales_bits, zero_points, k, block=INT4_BLOCK):
    """What GemLiteLinearTriton.pack() is given for a qmat int4 layer:
    (W_q [N, K] uint8 codes, scales [N, K/bs] bf16 bits, zeros [N, K/bs]
    bf16 bits of float(zp))."""
    groups = scales_bits.shape[1]
    w_q = R.unpack_nibbles(codes, k)
    zp = R.unpack_nibbles(zero_points, groups).astype(np.float32)
    return w_q, np.asarray(scales_bits, dtype=np.uint16), R.round_to_act(zp, "bf16")


def int4_fma_zeros(scales_bits, zeros_bits):
    """pack(fma_mode=True)'s zeros: (-zeros.float() * scales.float()).to(bf16)."""
    z = R.to_float32(zeros_bits, "bf16")
    s = R.to_float32(scales_bits, "bf16")
    with np.errstate(invalid="ignore", over="ignore"):
        return R.round_to_act(-z * s, "bf16")


def int4_pack(w_q, bits=GEMLITE_PACKING_BITS):
    """pack_weights_over_cols(W_q, W_nbits=4, packing_bitwidth, transpose=True)
    followed by .contiguous(): [K / (bits/4), N] words, code k of a word at
    bits 4 * (k % per_word)."""
    per_word = bits // 4
    n, k = w_q.shape
    words = np.zeros((n, k // per_word), dtype=np.uint64)
    for j in range(per_word):
        words |= w_q[:, j::per_word].astype(np.uint64) << np.uint64(4 * j)
    dtype = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return np.ascontiguousarray(words.astype(dtype).T)


def int4_meta(per_group):
    """pack(): scales.view(N, -1).t().contiguous() (zeros likewise)."""
    return np.ascontiguousarray(np.asarray(per_group).T)


def _bf16_op(values):
    return R.round_to_act(values.astype(np.float32), "bf16")


def int4_dequant(w_packed, scales_t, zeros_t, k, block=INT4_BLOCK, mode=3,
                 bits=GEMLITE_PACKING_BITS):
    """gemlite's dequantize() as its INT kernels index the packed operands:
    b = (W_q[k // per_word, n] >> 4 * (k % per_word)) & 15, the group's scale
    and zero at [k // block, n]; mode 3: (bf16(b) - zero) * scale, each
    operation rounded to bf16; mode 4: fma(bf16(b), scale, zero), one
    rounding. Returns W [N, K] as bf16 bits."""
    per_word = bits // 4
    kk = np.arange(k)
    b = (w_packed[kk // per_word, :].astype(np.uint64)
         >> (np.uint64(4) * (kk % per_word).astype(np.uint64))[:, None]) & np.uint64(15)
    b = b.astype(np.float32)                                   # [K, N]
    s = R.to_float32(scales_t, "bf16")[kk // block, :]
    z = R.to_float32(zeros_t, "bf16")[kk // block, :]
    with np.errstate(invalid="ignore", over="ignore"):
        if mode == 3:
            out = _bf16_op(R.to_float32(_bf16_op(b - z), "bf16") * s)
        elif mode == 4:
            out = round_f64_to_bf16(b.astype(np.float64) * s + z)
        else:
            raise ValueError(f"unknown W_group_mode {mode}")
    return np.ascontiguousarray(out.T)


def round_f64_to_bf16(x):
    """float64 -> bf16 bits with one round-to-nearest-even (normal range)."""
    x = np.asarray(x, dtype=np.float64)
    mant, exp = np.frexp(x)
    rounded = np.ldexp(np.rint(mant * 256.0), exp - 8)  # 8 significant bits
    return R.round_to_act(rounded.astype(np.float32), "bf16")


# --- mxfp4 -------------------------------------------------------------------

def mxfp4_layout(codes, scales):
    """(W_q memory, scales memory) after A16W4_MXFP().from_packed_weights:
    W_q is a [K/2, N] view of qmat's [N, K/2] bytes (strides (1, K/2)),
    scales [K/32, N] contiguous, read through a [N, K/32] view."""
    return np.ascontiguousarray(codes).reshape(-1), np.ascontiguousarray(np.asarray(scales).T)


def mxfp4_dequant(w_mem, scales_t, n, k, block=MXFP4_BLOCK):
    """gemm_MX_kernel's indexing: byte (kb, n) at kb * stride_bk + n * stride_bn
    with (stride_bk, stride_bn) = (1, K/2), e2m1 code k in the low nibble for
    even k; scale (n, g) at n * 1 + g * N in the [K/32, N] memory; value
    e2m1 * 2^(e - 127), rounded to bf16. Returns W [N, K] as bf16 bits."""
    nn = np.arange(n)[:, None]
    kk = np.arange(k)[None, :]
    byte = w_mem[(kk // 2) * 1 + nn * (k // 2)]
    code = (byte >> (4 * (kk % 2)).astype(np.uint8)) & 0xF
    e = scales_t.reshape(-1)[nn * 1 + (kk // block) * n]
    return R.round_to_act(R.decode_e2m1(code) * R.decode_e8m0(e), "bf16")


# --- the checks --------------------------------------------------------------

def _same_bits(a, b):
    """Bitwise equality of bf16 patterns, every NaN equal to every NaN."""
    a, b = np.asarray(a, np.uint16), np.asarray(b, np.uint16)
    nan_a = (a & 0x7FFF) > 0x7F80
    nan_b = (b & 0x7FFF) > 0x7F80
    return int(np.count_nonzero((a != b) & ~(nan_a & nan_b)))


def check_int4_arithmetic():
    """Every (q, zp, bf16 scale): gemlite's mode-3 arithmetic against
    qmat.reference.dequantize; and how often mode 4 (fma_mode=True) differs."""
    scales = np.arange(65536, dtype=np.uint32).astype(np.uint16).reshape(-1, 1)
    block, k = 16, 256  # 16 blocks: zero point j in block j; q = k % 16
    s = np.repeat(scales, k // block, axis=1)                       # [65536, 16]
    zp = np.tile(np.arange(16, dtype=np.uint8), (65536, 1))
    q = np.tile((np.arange(k) % 16).astype(np.uint8), (65536, 1))
    ref = R.dequantize("int4", R.pack_nibbles(q), s, k, "bf16", block=block,
                       zero_points=R.pack_nibbles(zp))
    w_q, s_bits, z_bits = int4_operands(R.pack_nibbles(q), s, R.pack_nibbles(zp), k, block)
    packed = int4_pack(w_q)
    mode3 = int4_dequant(packed, int4_meta(s_bits), int4_meta(z_bits), k, block, mode=3)
    finite = np.isfinite(R.to_float32(s, "bf16"))
    normal_fma = finite & (np.abs(R.to_float32(s, "bf16")) > 2.0 ** -110) \
        & (np.abs(R.to_float32(s, "bf16")) < 2.0 ** 120)
    mode4 = int4_dequant(packed, int4_meta(s_bits), int4_meta(int4_fma_zeros(s_bits, z_bits)),
                         k, block, mode=4)
    rows = normal_fma[:, 0]
    return {"cases": int(ref.size), "mode3_differing": _same_bits(mode3, ref),
            "mode4_cases": int(ref[rows].size),
            "mode4_differing": _same_bits(mode4[rows], ref[rows])}


def check_layouts(n=256, k=5120, seed=7):
    """Random weights quantized by qmat.reference: the emulated gemlite
    dequantization of the mapped operands against qmat.reference.dequantize."""
    rng = np.random.default_rng(seed)
    w = R.to_float32(R.round_to_act(rng.standard_normal((n, k)).astype(np.float32) * 0.05,
                                    "bf16"), "bf16")
    out = {}
    q = R.quantize("int4", w, "bf16", block=INT4_BLOCK, zero_points=True)
    ref = R.dequantize("int4", q["weights"], q["scales"], k, "bf16", block=INT4_BLOCK,
                       zero_points=q["zero_points"])
    w_q, s_bits, z_bits = int4_operands(q["weights"], q["scales"], q["zero_points"], k)
    got = int4_dequant(int4_pack(w_q), int4_meta(s_bits), int4_meta(z_bits), k)
    got4 = int4_dequant(int4_pack(w_q), int4_meta(s_bits),
                        int4_meta(int4_fma_zeros(s_bits, z_bits)), k, mode=4)
    out["int4"] = {"n": n, "k": k, "elements": int(ref.size),
                   "differing": _same_bits(got, ref),
                   "fma_mode_differing": _same_bits(got4, ref)}
    q = R.quantize("mxfp4", w, "bf16", block=MXFP4_BLOCK)
    ref = R.dequantize("mxfp4", q["weights"], q["scales"], k, "bf16", block=MXFP4_BLOCK)
    w_mem, s_t = mxfp4_layout(q["weights"], q["scales"])
    got = mxfp4_dequant(w_mem, s_t, n, k)
    out["mxfp4"] = {"n": n, "k": k, "elements": int(ref.size),
                    "differing": _same_bits(got, ref)}
    return out


def run_checks():
    report = {"int4_arithmetic": check_int4_arithmetic(), "layouts": check_layouts()}
    report["pass"] = (report["int4_arithmetic"]["mode3_differing"] == 0
                      and all(v["differing"] == 0 for v in report["layouts"].values()))
    return report


if __name__ == "__main__":
    import json
    result = run_checks()
    print(json.dumps(result, indent=2))
    sys.exit(0 if result["pass"] else 1)
