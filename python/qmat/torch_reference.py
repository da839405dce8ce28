"""qmat.reference.dequantize in torch, on any device.

The same formulas as the numpy reference (docs/numerics.md): each element's
value from the format's table, the same float32 products in the same order,
then the one rounding to the activation type with NaN as 0x7FFF. Float32
multiplication is correctly rounded on every device torch runs on, so the
result is the reference's, bit for bit (tests/test_torch_reference.py
checks it over every code and scale byte); on a GPU it takes a fraction of
a second where the numpy one takes seconds per large linear.
"""
import numpy as np
import torch

from . import reference

# Elements per slice of rows: bounds the int64 code indices and float32
# temporaries to about 200 MB whatever the matrix.
_SLICE_ELEMENTS = 1 << 24
_ACT = {"bf16": torch.bfloat16, "f16": torch.float16}


def dequantize(scheme, weights, scales, k, act, block=None, global_scale=None,
               zero_points=None, device="cpu"):
    """reference.dequantize's W [N, K] as a tensor of the activation dtype on
    `device`. The arguments are reference.dequantize's (numpy arrays or CPU
    tensors of the same element types)."""
    block = block or reference.DEFAULT_BLOCK.get(scheme, 0)
    weights, scales = np.asarray(weights), np.asarray(scales)
    reference._check_act(act)
    reference._check_shapes(scheme, weights, scales, k, block)
    if (scheme == "nvfp4") != (global_scale is not None):
        raise ValueError("a global scale is required for nvfp4 and allowed for nothing else")
    if scheme != "int4" and zero_points is not None:
        raise ValueError(f"zero points are only allowed for int4, not {scheme}")
    n = weights.shape[0]
    out = torch.empty((n, k), dtype=_ACT[act], device=device)
    step = max(1, _SLICE_ELEMENTS // max(k, 1))
    tables = _Tables(device)
    for r0 in range(0, n, step):
        r1 = min(n, r0 + step)
        values = _values_f32(tables, scheme, weights[r0:r1], scales[r0:r1], k, act, block,
                             global_scale,
                             None if zero_points is None else zero_points[r0:r1], device)
        out[r0:r1] = _round_to_act(values, act)
    return out


class _Tables:
    """The formats' value tables (the numpy reference's) on the device."""

    def __init__(self, device):
        self.e2m1 = torch.from_numpy(reference.E2M1_VALUES).to(device)
        self.e4m3 = torch.from_numpy(reference.E4M3_VALUES).to(device)
        self.e8m0 = torch.from_numpy(reference.E8M0_VALUES).to(device)


def _bytes(array, device):
    """uint8 numpy data as int64 indices on the device."""
    return torch.from_numpy(np.ascontiguousarray(array, dtype=np.uint8)).to(device).long()


def _nibbles(packed, k, device):
    """[N, K/2] bytes -> [N, K] codes, the low nibble the even k."""
    p = _bytes(packed, device)
    return torch.stack((p & 0xF, p >> 4), dim=-1).reshape(p.shape[0], -1)[:, :k]


def _expand(per_block, k, block):
    """[N, ceil(K/bs)] -> [N, K]: a partial trailing block uses the last column."""
    return per_block.repeat_interleave(block, dim=1)[:, :k]


def _to_float32(bits, act, device):
    """f16 / bf16 bit patterns (uint16) as their float32 values, exactly."""
    t = torch.from_numpy(np.ascontiguousarray(bits, dtype=np.uint16).view(np.int16)).to(device)
    return t.view(_ACT[act]).float()


def _values_f32(tables, scheme, weights, scales, k, act, block, global_scale, zero_points,
                device):
    """reference._dequantize_f32 on the device."""
    if scheme == "nvfp4":
        values = tables.e2m1[_nibbles(weights, k, device)]
        s = _expand(tables.e4m3[_bytes(scales, device)], k, block)
        return values * s * torch.tensor(np.float32(global_scale), device=device)
    if scheme == "mxfp4":
        values = tables.e2m1[_nibbles(weights, k, device)]
        return values * _expand(tables.e8m0[_bytes(scales, device)], k, block)
    if scheme == "fp8":
        values = tables.e4m3[_bytes(weights, device)]
        s = torch.from_numpy(np.ascontiguousarray(scales, dtype=np.float32)).to(device)
        return values * _expand(s, k, block)
    q = _nibbles(weights, k, device).float()
    s = _to_float32(scales, act, device)
    zp = 8.0 if zero_points is None else _expand(
        _nibbles(zero_points, scales.shape[1], device).float(), k, block)
    return (q - zp) * _expand(s, k, block)


def _round_to_act(values, act):
    """Round to nearest even to the activation type, NaN as 0x7FFF (the
    reference's canonical NaN)."""
    rounded = values.to(_ACT[act])
    nan = torch.isnan(values)
    if bool(nan.any()):
        bits = rounded.view(torch.int16)
        bits[nan] = reference.CANONICAL_NAN
    return rounded
