"""The operand checks every binding runs before the launcher
(qmat.launcher.check_operands), driven here with numpy arrays: the same
messages qmat.torch raises for tensors, with 'torch.' before dtype names."""
import ml_dtypes
import numpy as np
import pytest

import qmat
from qmat.bundle import LayerInfo
from qmat.launcher import check_operands, check_workspace, operand_specs


def info(scheme, n=64, k=256, act="bf16", bias=False, zero_points=False, block=None):
    layer = qmat.Layer("lay", scheme, n, k, block=block, act=act, bias=bias,
                       zero_points=zero_points)
    return LayerInfo(layer.name, layer.scheme, layer.n, layer.k, layer.block, layer.act,
                     layer.bias, layer.zero_points, 1 << 25, {}, {})


def describe(array, device="cuda:0"):
    if not isinstance(array, np.ndarray):
        raise qmat.DTypeError(f"expected an array, got {type(array).__name__}")
    return array.shape, array.dtype.name, device, array.flags["C_CONTIGUOUS"]


ACT = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}


def good_operands(i, m=5):
    """Operands of the right dtypes and shapes for layer info `i`."""
    act = ACT[i.act]
    scales = {"nvfp4": np.uint8, "mxfp4": ml_dtypes.float8_e8m0fnu, "fp8": np.float32,
              "int4": act}[i.scheme]
    ops = {"a": np.zeros((m, i.k), act), "y": np.zeros((m, i.n), act),
           "weights": np.zeros(i.weight_shape, ml_dtypes.float8_e4m3fn
                               if i.scheme == "fp8" else np.uint8),
           "scales": np.zeros(i.scale_shape, scales)}
    if i.needs_global_scale:
        ops["global_scale"] = np.ones((1,), np.float32)
    if i.zero_points:
        ops["zero_points"] = np.zeros(i.zero_point_shape, np.uint8)
    if i.bias:
        ops["bias"] = np.zeros((i.n,), act)
    return ops


@pytest.mark.parametrize("layer", [info("nvfp4", bias=True), info("mxfp4", act="f16"),
                                   info("fp8", k=200), info("int4", zero_points=True, k=736),
                                   info("int4", act="f16")])
def test_good_operands_pass_and_give_m(layer):
    assert check_operands(layer, good_operands(layer, m=7), describe) == 7
    assert check_operands(layer, good_operands(layer, m=0), describe) == 0


def test_specs_follow_the_abi_order():
    assert [s.name for s in operand_specs(info("fp8"))] == [
        "a", "weights", "scales", "global_scale", "zero_points", "bias", "y"]


@pytest.mark.parametrize("layer,change,error,message", [
    (info("nvfp4"), {"a": np.zeros((5, 256), np.float16)}, qmat.DTypeError,
     "lay: a must have dtype torch.bfloat16 (the activations [M, K]), got torch.float16"),
    (info("nvfp4"), {"a": np.zeros((5, 255), ml_dtypes.bfloat16)}, qmat.ArgumentError,
     "lay: a must have shape [5, 256] (the activations [M, K]), got [5, 255]"),
    (info("nvfp4"), {"a": np.zeros((256,), ml_dtypes.bfloat16)}, qmat.ArgumentError,
     "lay: a must have shape [M, 256] (the activations [M, K]), got [256]"),
    (info("nvfp4"), {"weights": np.zeros((64, 256), np.uint8)}, qmat.ArgumentError,
     "lay: weights must have shape [64, 128] ([N, K/2] packed e2m1 codes), got [64, 256]"),
    (info("nvfp4"), {"scales": np.zeros((64, 16), np.float32)}, qmat.DTypeError,
     "lay: scales must have dtype torch.float8_e4m3fn or torch.uint8 ([N, ceil(K/bs)] e4m3 "
     "block scales), got torch.float32"),
    (info("nvfp4"), {"global_scale": None}, qmat.ArgumentError,
     "lay: global_scale is required: nvfp4 layers take the fp32 tensor scale (weight_scale_2)"),
    (info("nvfp4"), {"global_scale": np.ones((2,), np.float32)}, qmat.ArgumentError,
     "lay: global_scale must hold one value (shape [] or [1]), got shape [2]"),
    (info("mxfp4"), {"global_scale": np.ones((1,), np.float32)}, qmat.ArgumentError,
     "lay: global_scale must be None: only nvfp4 layers have a global scale, this one is mxfp4"),
    (info("fp8"), {"zero_points": np.zeros((64, 1), np.uint8)}, qmat.ArgumentError,
     "lay: zero_points must be None: only int4 layers have zero points, this one is fp8"),
    (info("int4"), {"zero_points": np.zeros((64, 4), np.uint8)}, qmat.ArgumentError,
     "lay: zero_points must be None: this int4 layer was compiled without zero points"),
    (info("int4", zero_points=True), {"zero_points": None}, qmat.ArgumentError,
     "lay: zero_points is required: the layer was compiled with zero points"),
    (info("int4", zero_points=True), {"zero_points": np.zeros((64, 8), np.uint8)},
     qmat.ArgumentError, "lay: zero_points must have shape [64, 4]"),
    (info("int4", act="f16"), {"scales": np.zeros((64, 8), ml_dtypes.bfloat16)},
     qmat.DTypeError, "lay: scales must have dtype torch.float16"),
    (info("fp8", bias=True), {"bias": None}, qmat.ArgumentError,
     "lay: bias is required: the layer was compiled with a bias"),
    (info("fp8"), {"bias": np.zeros((64,), ml_dtypes.bfloat16)}, qmat.ArgumentError,
     "lay: bias must be None: the layer was compiled without a bias"),
    (info("fp8"), {"y": np.zeros((5, 63), ml_dtypes.bfloat16)}, qmat.ArgumentError,
     "lay: y must have shape [5, 64] (the output [M, N]), got [5, 63]"),
    (info("fp8"), {"y": np.zeros((64, 5), ml_dtypes.bfloat16).T}, qmat.ArgumentError,
     "lay: y must be contiguous (dense row-major)"),
    (info("mxfp4"), {"weights": [[0]]}, qmat.DTypeError,
     "lay: weights: expected an array, got list"),
])
def test_bad_operands_raise_clearly(layer, change, error, message):
    ops = good_operands(layer)
    ops.update(change)
    with pytest.raises(error) as e:
        check_operands(layer, ops, describe, dtype_prefix="torch.")
    assert message in str(e.value)


def test_operands_must_share_a_device():
    layer = info("fp8")
    ops = good_operands(layer)
    ops["scales"] = ("scales", ops["scales"])

    def two_devices(value):
        if isinstance(value, tuple):
            return describe(value[1], device="cuda:1")
        return describe(value)

    with pytest.raises(qmat.ArgumentError,
                       match="lay: scales is on cuda:1, the other operands on cuda:0"):
        check_operands(layer, ops, two_devices)


def test_workspace_checks():
    layer = info("fp8")
    check_workspace(layer, 1 << 20, 1 << 20, "cuda:0", "cuda:0", True, 4096)
    with pytest.raises(qmat.ArgumentError, match="workspace has 100 bytes, the layer needs 200"):
        check_workspace(layer, 100, 200, "cuda:0", "cuda:0", True, 4096)
    with pytest.raises(qmat.ArgumentError, match="workspace must be 256-byte aligned"):
        check_workspace(layer, 300, 200, "cuda:0", "cuda:0", True, 4096 + 16)
    with pytest.raises(qmat.ArgumentError, match="workspace is on cuda:1"):
        check_workspace(layer, 300, 200, "cuda:0", "cuda:1", True, 4096)
