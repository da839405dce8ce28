"""qmat.Layer, emit_module and load_mlir: the IR they write parses in
qmat-opt, matches the hand-written example, and bad layers are refused with
messages that say what is wrong."""
import subprocess
import sys

import pytest

import qmat
from conftest import EXAMPLE, PYTHON_DIR

SCALE_TYPES = {"nvfp4": "f8E4M3FN", "mxfp4": "f8E8M0FNU", "fp8": "f32"}


def qmat_opt_print(tool, text):
    result = subprocess.run([tool, "-"], input=text, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_emitted_example_layers_print_like_the_handwritten_example(qmat_opt):
    """The five layers of examples/qwen-like-27b-nvfp4.mlir, described in
    Python, print exactly as the file does once qmat-opt has parsed both."""
    layers = [qmat.Layer("qkv_proj", "nvfp4", 6144, 5120),
              qmat.Layer("o_proj", "nvfp4", 5120, 6144),
              qmat.Layer("gate_up_proj", "nvfp4", 17408, 5120),
              qmat.Layer("down_proj", "nvfp4", 5120, 17408),
              qmat.Layer("lm_head", "nvfp4", 248320, 5120)]
    with open(EXAMPLE) as f:
        expected = qmat_opt_print(qmat_opt, f.read())
    assert qmat_opt_print(qmat_opt, qmat.emit_module(layers)) == expected


@pytest.mark.parametrize("scheme", qmat.SCHEMES)
@pytest.mark.parametrize("act", ["f16", "bf16"])
@pytest.mark.parametrize("bias", [False, True])
def test_every_scheme_and_dtype_round_trips_through_qmat_opt(qmat_opt, scheme, act, bias):
    zero_points = scheme == "int4" and bias  # both int4 forms across the matrix
    layer = qmat.Layer(f"{scheme}_{act}", scheme, n=96, k=200, act=act, bias=bias,
                       zero_points=zero_points)
    printed = qmat_opt_print(qmat_opt, qmat.emit_module(layer))
    block = qmat.DEFAULT_BLOCK[scheme]
    weights = "96x200xf8E4M3FN" if scheme == "fp8" else "96x100xi8"
    scales = f"96x{-(-200 // block)}x{SCALE_TYPES.get(scheme, act)}"
    op = next(line.strip() for line in printed.splitlines() if "qmat.matmul" in line)
    assert op.startswith(f"qmat.matmul <{scheme}, block = {block}> ins(")
    assert f"memref<?x200x{act}>, memref<{weights}>, memref<{scales}>)" in op
    assert ("global_scale(%arg3 : memref<f32>)" in op) == (scheme == "nvfp4")
    assert ("zero_points(%arg3 : memref<96x4xi8>)" in op) == zero_points
    last = 3 + (scheme == "nvfp4") + zero_points + bias
    assert (f"bias(%arg{last - 1} : memref<96x{act}>)" in op) == bias
    assert op.endswith(f"outs(%arg{last} : memref<?x96x{act}>)")
    # The printed form is a fixed point: it parses back to itself.
    assert qmat_opt_print(qmat_opt, printed) == printed


def test_layer_defaults_and_spellings():
    assert [qmat.Layer("l", s, 8, 64).block for s in qmat.SCHEMES] == [16, 32, 128, 32]
    assert qmat.Layer("l", "fp8", 8, 64, act="float16").act == "f16"
    assert qmat.Layer("l", "fp8", 8, 64, act="torch.bfloat16").act == "bf16"
    assert qmat.Layer("l", "fp8", 8, 77).k == 77  # fp8 codes are whole bytes


@pytest.mark.parametrize("kwargs,message", [
    (dict(name="9lives"), "layer name must be a C identifier"),
    (dict(name="a-b"), "layer name must be a C identifier"),
    (dict(scheme="nvfp8"), "unknown scheme 'nvfp8' (expected one of nvfp4, mxfp4, fp8, int4)"),
    (dict(n=0), "l: N must be a positive integer, got 0"),
    (dict(k=-64), "l: K must be a positive integer, got -64"),
    (dict(n=8.0), "l: N must be a positive integer, got 8.0"),
    (dict(block=0), "l: block size must be a positive integer, got 0"),
    (dict(scheme="mxfp4", block=16), "l: mxfp4 blocks are 32 elements (OCP MX), got 16"),
    (dict(k=63), "l: nvfp4 packs two 4-bit codes per byte, so K must be even, got 63"),
    (dict(act="f32"), "activation type must be 'f16' or 'bf16', got 'f32'"),
    (dict(zero_points=True), "l: zero points exist only for int4, not nvfp4"),
    (dict(bias="yes"), "l: bias must be True or False, got 'yes'"),
])
def test_bad_layers_raise_clearly(kwargs, message):
    args = dict(name="l", scheme="nvfp4", n=8, k=64)
    args.update(kwargs)
    with pytest.raises(qmat.ArgumentError) as info:
        qmat.Layer(**args)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_emit_module_refuses_duplicates_and_non_layers():
    with pytest.raises(qmat.ArgumentError, match="two layers are named 'x'"):
        qmat.emit_module([qmat.Layer("x", "fp8", 8, 64), qmat.Layer("x", "mxfp4", 8, 64)])
    with pytest.raises(qmat.ArgumentError, match="expected qmat.Layer objects, got dict"):
        qmat.emit_module([{"name": "x"}])
    with pytest.raises(qmat.ArgumentError, match="no layers given"):
        qmat.emit_module([])


def test_load_mlir(qmat_opt, tmp_path):
    module = qmat.load_mlir(EXAMPLE, verify=True, qmat_opt=qmat_opt)
    assert module.function_names() == ["qkv_proj", "o_proj", "gate_up_proj", "down_proj",
                                       "lm_head"]
    broken = tmp_path / "broken.mlir"
    broken.write_text(qmat.emit_module(qmat.Layer("x", "nvfp4", 8, 64)).replace(
        "memref<8x4xf8E4M3FN>", "memref<8x5xf8E4M3FN>"))
    with pytest.raises(qmat.ToolError) as info:
        qmat.load_mlir(broken, verify=True, qmat_opt=qmat_opt)
    assert "error" in str(info.value) and info.value.returncode != 0
    assert "scales" in info.value.stderr
    with pytest.raises(qmat.ArgumentError, match="no such .mlir file"):
        qmat.load_mlir(tmp_path / "missing.mlir")


def test_import_needs_neither_numpy_nor_torch():
    """The build imports qmat.ir with a bare python3 (no numpy)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import qmat, qmat.ir; "
            "print(sorted(m for m in ('numpy', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, PYTHON_DIR], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]"
