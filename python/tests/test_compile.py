"""qmat.compile (qmat-aot as a subprocess), the Bundle it returns,
build_library, and the ctypes launcher wrapper."""
import ctypes
import json
import os
import subprocess
import sys

import pytest

import qmat
from conftest import CUDA_ROOT, EXAMPLE, PYTHON_DIR, SMALL_LAYERS
from qmat import launcher


def test_compile_writes_launcher_header_and_manifest(small_bundle):
    b = small_bundle
    for path in (b.header, b.source, b.manifest_path, b.binaries["sm_90"],
                 os.path.join(b.directory, "small.mlir")):
        assert os.path.isfile(path), path
    assert b.targets == ["sm_90"]
    header = open(b.header).read()
    assert "const char *small_last_error(void);" in header
    for layer in SMALL_LAYERS:
        assert f"size_t small_{layer.name}_workspace_size(int64_t max_m);" in header
        assert f"qmat_status small_{layer.name}_run(CUstream stream" in header
        assert layer.name in b.summary
    manifest = json.load(open(b.manifest_path))
    assert [e["name"] for e in manifest["layers"]] == [l.name for l in SMALL_LAYERS]
    for layer, entry, info in zip(SMALL_LAYERS, manifest["layers"], b.layers):
        assert (entry["scheme"], entry["n"], entry["k"], entry["block_size"], entry["dtype"],
                entry["bias"], entry["zero_points"]) == (
                    layer.scheme, layer.n, layer.k, layer.block, layer.act, layer.bias,
                    layer.zero_points)
        assert info.layer() == layer
        assert info.workspace_bytes == entry["workspace"]["bytes"] > 32 << 20
    assert b.layer("f8").weight_shape == (16, 200)
    assert b.layer("i4_zp").zero_point_shape == (256, 12)  # 23 blocks -> 12 bytes
    with pytest.raises(qmat.ArgumentError, match="bundle 'small' has no layer 'nope'"):
        b.layer("nope")


def test_compile_a_file_with_knobs(qmat_aot, tmp_path):
    """The example model for two targets with PTX, and a smaller scratch cap
    that tiles more: the knobs reach qmat-aot and show in the manifest."""
    b = qmat.compile(EXAMPLE, targets="sm_90,sm_100", out_dir=tmp_path / "a", prefix="qwen",
                     emit_ptx=True, qmat_aot=qmat_aot)
    assert b.targets == ["sm_90", "sm_100"]
    assert os.path.isfile(os.path.join(b.directory, "qwen.sm_100.ptx"))
    assert b.layer("lm_head").strategy["tile_rows"] == 26112  # the 256 MiB default
    capped = qmat.compile(qmat.load_mlir(EXAMPLE), out_dir=tmp_path / "b",
                          scratch_cap_mib=64, gemv_max_m=4, qmat_aot=qmat_aot)
    lm = capped.layer("lm_head")
    assert lm.strategy["gemv_max_m"] == 4 and lm.strategy["scratch_cap_mib"] == 64
    assert lm.strategy["tile_rows"] * lm.k * 2 <= 64 << 20
    assert lm.strategy["tile_rows"] % 128 == 0 and lm.strategy["tiles"] > 10


def test_compile_takes_fused_tilings(qmat_aot, tmp_path):
    """The fused GEMM's knobs reach qmat-aot: a warp tiling and a warpgroup
    one, whose sm_90a kernel is the wgmma form (its name ends in _wg), with
    the deepest pipeline that fits (4 stages of a 16-row tile)."""
    b = qmat.compile(qmat.Layer("x", "nvfp4", 64, 256), targets="sm_90a", out_dir=tmp_path,
                     fused_max_m=64, fused_variants=[(16, 2, 2, 2, 2)],
                     fused_warpgroup_variants=[(16, 4, 1, 1)], qmat_aot=qmat_aot)
    x = b.layer("x")
    assert x.strategy["fused_max_m"] == 64
    fused = x.strategy["fused_variants"]
    assert [(v["m_tile"], v["warps_n"], v["split_k"], v["col_tiles"], v["stages"],
             v["warpgroup"]) for v in fused] == [(16, 2, 2, 2, 2, False), (16, 4, 1, 1, 4, True)]
    assert fused[1]["kernels"]["sm_90a"]["symbol"].endswith("_mt16_w4_s1_c1_p4_wg")
    assert not fused[0]["kernels"]["sm_90a"]["symbol"].endswith("_wg")


def test_compile_takes_specialized_tilings(qmat_aot, tmp_path):
    """The specialized warpgroup form's pairs reach qmat-aot: its kernel
    (name ending in _wg_ws) launches one multiplying and one decoding
    warpgroup with 4 stages of (32 + 64) rows x 128 bytes and two 8-byte
    barrier objects per stage."""
    b = qmat.compile(qmat.Layer("x", "nvfp4", 64, 256), targets="sm_90a", out_dir=tmp_path,
                     fused_max_m=64, fused_variants=[(16, 2, 2, 2, 2)],
                     fused_specialized_variants=[(32, 1)], qmat_aot=qmat_aot)
    fused = b.layer("x").strategy["fused_variants"]
    assert [(v["m_tile"], v["warps_n"], v["split_k"], v["col_tiles"], v["stages"],
             v["warpgroup"], v["specialized"]) for v in fused] == \
        [(16, 2, 2, 2, 2, False, False), (32, 4, 1, 1, 4, True, True)]
    kernel = fused[1]["kernels"]["sm_90a"]
    assert kernel["symbol"].endswith("_mt32_w4_s1_c1_p4_wg_ws")
    assert kernel["block"][0] == 256 and kernel["dynamic_shared_bytes"] == 49152 + 64


def test_compile_takes_weights_as_b_tilings(qmat_aot, tmp_path):
    """Tilings with the weights as B reach qmat-aot, replacing both default
    specialized lists: 64 x 3 launches one multiplying warpgroup (64 tokens)
    and two decoding ones, blocks of 48 weight rows, 4 stages of (64 + 48)
    rows x 128 bytes and two 8-byte barrier objects per stage."""
    b = qmat.compile(qmat.Layer("x", "nvfp4", 96, 256), targets="sm_90a", out_dir=tmp_path,
                     fused_variants=[(16, 2, 2, 2, 2)],
                     fused_specialized_b_variants=[(64, 3)], qmat_aot=qmat_aot)
    fused = b.layer("x").strategy["fused_variants"]
    assert [(v["m_tile"], v["warps_n"], v["col_tiles"], v["specialized"], v["weights_as_b"])
            for v in fused] == [(16, 2, 2, False, False), (64, 1, 3, True, True)]
    kernel = fused[1]["kernels"]["sm_90a"]
    assert kernel["symbol"].endswith("_mt64_w1_s1_c3_p4_wg_wsb")
    assert kernel["block"][0] == 384 and kernel["rows_per_block"] == 48
    assert kernel["dynamic_shared_bytes"] == 4 * (112 * 128 + 16)


def test_compile_takes_sliced_tilings(qmat_aot, tmp_path):
    """Tilings whose K is split across a cluster's blocks reach qmat-aot
    after the listed warp tilings: the manifest says k_slices (1 for the
    others) and the kernel's name ends in _k2."""
    b = qmat.compile(qmat.Layer("x", "nvfp4", 96, 256), targets="sm_90", out_dir=tmp_path,
                     fused_variants=[(16, 2, 2, 2, 2)],
                     fused_sliced_variants=[(16, 1, 1, 2, 2, 2)], qmat_aot=qmat_aot)
    fused = b.layer("x").strategy["fused_variants"]
    assert [(v["m_tile"], v["warps_n"], v["split_k"], v["k_slices"]) for v in fused] == \
        [(16, 2, 2, 1), (16, 1, 1, 2)]
    assert fused[1]["kernels"]["sm_90"]["symbol"].endswith("_mt16_w1_s1_c2_p2_k2")


def test_compile_takes_multicast_tilings(qmat_aot, tmp_path):
    """Specialized tilings whose clusters share the activations reach
    qmat-aot after the listed ones (weights_as_b given as a bool): the
    manifest says multicast (1 for the others) and the kernels' names end in
    _x2 and _x4."""
    b = qmat.compile(qmat.Layer("x", "nvfp4", 192, 256), targets="sm_90a", out_dir=tmp_path,
                     fused_variants=[(16, 2, 2, 2, 2)], fused_specialized_variants=[(128, 1)],
                     fused_multicast_variants=[(128, 1, False, 2), (128, 9, True, 4)],
                     qmat_aot=qmat_aot)
    fused = b.layer("x").strategy["fused_variants"]
    assert [(v["m_tile"], v["col_tiles"], v["weights_as_b"], v["multicast"])
            for v in fused] == [(16, 2, False, 1), (128, 1, False, 1), (128, 1, False, 2),
                                (128, 9, True, 4)]
    assert fused[2]["kernels"]["sm_90a"]["symbol"].endswith("_mt128_w4_s1_c1_p4_wg_ws_x2")
    assert fused[3]["kernels"]["sm_90a"]["symbol"].endswith("_mt128_w1_s1_c9_p4_wg_wsb_x4")


def test_compile_takes_specialized_sliced_tilings(qmat_aot, tmp_path):
    """Specialized tilings whose K range a cluster's blocks split reach
    qmat-aot after the listed ones: the manifest says k_slices and the
    kernel's name ends in _ws_k2."""
    b = qmat.compile(qmat.Layer("x", "nvfp4", 192, 256), targets="sm_90a", out_dir=tmp_path,
                     fused_variants=[(16, 2, 2, 2, 2)], fused_specialized_variants=[(128, 1)],
                     fused_specialized_sliced_variants=[(128, 1, 2)], qmat_aot=qmat_aot)
    fused = b.layer("x").strategy["fused_variants"]
    assert [(v["m_tile"], v["col_tiles"], v.get("specialized", False), v["k_slices"])
            for v in fused] == [(16, 2, False, 1), (128, 1, True, 1), (128, 1, True, 2)]
    assert fused[2]["kernels"]["sm_90a"]["symbol"].endswith("_mt128_w4_s1_c1_p4_wg_ws_k2")


def test_compile_takes_register_tilings(qmat_aot, tmp_path):
    """Specialized tilings with the decoded weights in registers reach
    qmat-aot after the listed ones: the manifest says weights_in_registers
    and the kernel's name ends in _wsr, with 3 stages for 128 x 1 (two
    blocks per multiprocessor) and 4 for 128 x 2."""
    b = qmat.compile(qmat.Layer("x", "nvfp4", 192, 256), targets="sm_90a", out_dir=tmp_path,
                     fused_variants=[(16, 2, 2, 2, 2)], fused_specialized_variants=[(128, 1)],
                     fused_register_variants=[(128, 1), (128, 2)], qmat_aot=qmat_aot)
    fused = b.layer("x").strategy["fused_variants"]
    assert [(v["m_tile"], v["col_tiles"], v["stages"], v.get("weights_in_registers", False))
            for v in fused] == [(16, 2, 2, False), (128, 1, 4, False), (128, 1, 3, True),
                                (128, 2, 4, True)]
    assert fused[2]["kernels"]["sm_90a"]["symbol"].endswith("_mt128_w4_s1_c1_p3_wg_wsr")


def test_compile_takes_decoder_tilings(qmat_aot, tmp_path):
    """A weights-as-B tiling with three decoding warpgroups reaches qmat-aot
    after the defaults: the manifest says decoders 3 (2 for the default
    64 x 9), 5 stages, and the kernel's name ends in _p5_wg_wsb_d3."""
    b = qmat.compile(qmat.Layer("x", "nvfp4", 192, 256), targets="sm_90a", out_dir=tmp_path,
                     fused_decoder_variants=[(64, 9, True, 3)], qmat_aot=qmat_aot)
    fused = b.layer("x").strategy["fused_variants"]
    wsb = [(v["m_tile"], v["col_tiles"], v["stages"], v["decoders"])
           for v in fused if v.get("weights_as_b", False)]
    assert wsb == [(64, 9, 4, 2), (128, 9, 4, 2), (64, 9, 5, 3)]
    assert fused[-1]["kernels"]["sm_90a"]["symbol"].endswith("_mt64_w1_s1_c9_p5_wg_wsb_d3")


def test_open_finds_the_manifest(small_bundle, tmp_path):
    again = qmat.Bundle.open(small_bundle.directory)
    assert again.prefix == "small" and [l.name for l in again.layers] == \
        [l.name for l in SMALL_LAYERS]
    with pytest.raises(qmat.QMatError, match="expected one \\*.manifest.json, found none"):
        qmat.Bundle.open(tmp_path)


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(targets=("sm_75",)), qmat.ArgumentError,
     "unknown target 'sm_75' (expected one of sm_80, sm_86, sm_87, sm_88, sm_89, sm_90, "
     "sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_110, sm_110a, sm_120, sm_120a, sm_121, "
     "sm_121a, gfx942, gfx950)"),
    (dict(targets=()), qmat.ArgumentError, "at least one target is needed"),
    (dict(prefix="9lives"), qmat.ArgumentError, "prefix must be a C identifier, got '9lives'"),
    (dict(scratch_cap_mib=0), qmat.ArgumentError,
     "scratch_cap_mib must be an integer in [1, 1048576], got 0"),
    (dict(gemv_max_m=65), qmat.ArgumentError, "gemv_max_m must be an integer in [0, 64], got 65"),
    (dict(fused_max_m=-2), qmat.ArgumentError,
     "fused_max_m must be an integer in [-1, 2147483647], got -2"),
    (dict(fused_variants=[(16, 1, 1, 1)]), qmat.ArgumentError,
     "fused_variants takes (m_tile, warps_n, split_k, col_tiles, stages) tuples of positive "
     "integers, got (16, 1, 1, 1)"),
    (dict(fused_warpgroup_variants=[(64, 4, 0, 1)]), qmat.ArgumentError,
     "fused_warpgroup_variants takes (m_tile, warps_n, split_k, col_tiles) tuples of positive "
     "integers, got (64, 4, 0, 1)"),
    (dict(fused_specialized_variants=[(64, 1, 1)]), qmat.ArgumentError,
     "fused_specialized_variants takes (m_tile, col_tiles) tuples of positive integers, "
     "got (64, 1, 1)"),
    (dict(fused_specialized_b_variants=[(64,)]), qmat.ArgumentError,
     "fused_specialized_b_variants takes (m_tile, col_tiles) tuples of positive integers, "
     "got (64,)"),
    (dict(fused_sliced_variants=[(16, 1, 1, 2, 2)]), qmat.ArgumentError,
     "fused_sliced_variants takes (m_tile, warps_n, split_k, col_tiles, stages, k_slices) "
     "tuples of positive integers, got (16, 1, 1, 2, 2)"),
    (dict(fused_multicast_variants=[(128, 1, 2, 2)]), qmat.ArgumentError,
     "fused_multicast_variants takes (m_tile, col_tiles, weights_as_b, multicast) tuples of "
     "positive integers (weights_as_b a bool), got (128, 1, 2, 2)"),
    (dict(fused_specialized_sliced_variants=[(128, 1)]), qmat.ArgumentError,
     "fused_specialized_sliced_variants takes (m_tile, col_tiles, k_slices) tuples of "
     "positive integers, got (128, 1)"),
    (dict(fused_register_variants=[(128,)]), qmat.ArgumentError,
     "fused_register_variants takes (m_tile, col_tiles) tuples of positive integers, got "
     "(128,)"),
    (dict(fused_decoder_variants=[(64, 9, 1)]), qmat.ArgumentError,
     "fused_decoder_variants takes (m_tile, col_tiles, weights_as_b, decoders) tuples of "
     "positive integers (weights_as_b a bool), got (64, 9, 1)"),
    (dict(targets=("gfx942",)), qmat.ArgumentError,
     "target 'gfx942': the Python package drives CUDA bundles only; build AMD bundles with "
     "qmat-aot (docs/amd.md)"),
])
def test_compile_refuses_bad_arguments(qmat_aot, tmp_path, kwargs, error, message):
    with pytest.raises(error) as info:
        qmat.compile(qmat.Layer("x", "mxfp4", 32, 64), out_dir=tmp_path, qmat_aot=qmat_aot,
                     **kwargs)
    assert message in str(info.value)


def test_qmat_aot_failures_carry_its_diagnostics(qmat_aot, tmp_path):
    bad = qmat.Module(qmat.emit_module(qmat.Layer("x", "nvfp4", 8, 64)).replace(
        "global_scale(%g : memref<f32>) ", ""))
    with pytest.raises(qmat.ToolError) as info:
        qmat.compile(bad, out_dir=tmp_path, qmat_aot=qmat_aot)
    assert "qmat-aot on" in str(info.value) and "failed (exit 1)" in str(info.value)
    assert "nvfp4 requires a global_scale operand" in str(info.value)
    assert "nvfp4 requires a global_scale operand" in info.value.stderr
    assert info.value.command[0] == qmat_aot
    with pytest.raises(qmat.ArgumentError, match="no such .mlir file"):
        qmat.compile(tmp_path / "missing.mlir", qmat_aot=qmat_aot)


def test_build_library_links_the_launcher(small_library_path):
    assert os.path.basename(small_library_path) == "libsmall.so"
    dynamic = subprocess.run(["readelf", "-d", "--dyn-syms", small_library_path],
                             capture_output=True, text=True, check=True).stdout
    assert "[libcuda.so.1]" in dynamic and "libcublasLt.so" in dynamic
    assert "stubs" not in dynamic  # the stub libcuda must never be found at run time
    for layer in SMALL_LAYERS:
        assert f"small_{layer.name}_run" in dynamic


def test_build_library_reports_compiler_errors(small_bundle, tmp_path):
    if not os.path.isdir(CUDA_ROOT):
        pytest.skip(f"no CUDA toolkit at {CUDA_ROOT}")
    with pytest.raises(qmat.ToolError) as info:
        small_bundle.build_library(output=tmp_path / "x.so", cuda_path=CUDA_ROOT,
                                   extra_flags=["-DQMAT_STATUS_DEFINED"])
    assert "compiling the small launcher failed" in str(info.value)
    assert "qmat_status" in info.value.stderr
    with pytest.raises(qmat.ToolNotFoundError, match="explicit cuda_path: /nonexistent"):
        small_bundle.build_library(cuda_path="/nonexistent")


# Runs in a child process: it loads the CUDA toolkit's stub libcuda (every
# driver call fails with CUDA_ERROR_STUB_LIBRARY) so that the real launcher
# loads on a machine without the driver; the stub must not leak into pytest.
STUB_SCRIPT = r"""
import ctypes, json, sys
sys.path.insert(0, sys.argv[1])
ctypes.CDLL(sys.argv[3], mode=ctypes.RTLD_GLOBAL)
import qmat
lib = qmat.load_library(sys.argv[2])
out = {"workspace": {l.name: lib.workspace_size(l.name, 4096) for l in lib.layers},
       "argtypes": [len(e.run.argtypes) for e in lib.entries.values()]}
def attempt(**kw):
    args = dict(stream=None, m=4, a=256, weights=256, scales=256, global_scale=256,
                zero_points=None, bias=256, y=256, workspace=256, workspace_size=1 << 30)
    args.update(kw)
    try:
        lib.run("nv_bias", **args)
        return None
    except qmat.LauncherError as e:
        return [e.status, e.status_name, e.function, e.detail]
out["m0"] = attempt(m=0)
out["no_weights"] = attempt(weights=None)
out["stray_zero_points"] = attempt(zero_points=256)
# M above fused_max_m (128) dequantizes into the workspace.
out["small_workspace"] = attempt(m=256, workspace_size=1000)
out["driver"] = attempt(m=64)
# M <= gemv_max_m takes the decode GEMV: no workspace at all.
out["gemv_without_workspace"] = attempt(workspace=None, workspace_size=0)
try:
    lib.workspace_size("nv_bias", 0)
except qmat.ArgumentError as e:
    out["max_m0"] = str(e)
print(json.dumps(out))
"""


def test_launcher_loads_and_reports_through_ctypes(small_bundle, small_library_path):
    """The real launcher through qmat.load_library: the workspace query, and
    statuses turned into LauncherError with <prefix>_last_error()'s text,
    against the CUDA stub library (for a machine without the CUDA driver)."""
    stub = os.path.join(CUDA_ROOT, "lib64", "stubs", "libcuda.so")
    if not os.path.isfile(stub):
        pytest.skip(f"no stub libcuda at {stub}")
    result = subprocess.run([sys.executable, "-c", STUB_SCRIPT, PYTHON_DIR,
                             small_library_path, stub], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["workspace"] == {l.name: l.workspace_bytes for l in small_bundle.layers}
    assert out["argtypes"] == [11] * len(SMALL_LAYERS)
    assert out["m0"] == [1, "QMAT_ERROR_INVALID_ARGUMENT", "small_nv_bias_run",
                         "nv_bias: m must be positive, got 0"]
    assert out["no_weights"][3] == "nv_bias: weights must not be null"
    assert out["stray_zero_points"][3] == \
        "nv_bias: zero_points must be null: this layer has none"
    assert out["small_workspace"][:2] == [3, "QMAT_ERROR_WORKSPACE_TOO_SMALL"]
    # Past the argument checks, the stub driver fails: the GEMV path got there
    # without a workspace.
    assert out["gemv_without_workspace"][:2] == [4, "QMAT_ERROR_CUDA"]
    assert out["small_workspace"][3].startswith("nv_bias: the workspace needs ")
    # Valid arguments get past the checks to the driver, which is the stub.
    assert out["driver"][:2] == [4, "QMAT_ERROR_CUDA"]
    assert "cuCtxGetCurrent failed" in out["driver"][3]
    assert out["max_m0"] == "max_m must be a positive integer, got 0"


PREPARE_SCRIPT = r"""
import ctypes, json, sys
sys.path.insert(0, sys.argv[1])
ctypes.CDLL(sys.argv[3], mode=ctypes.RTLD_GLOBAL)
import numpy as np
import qmat
lib = qmat.load_library(sys.argv[2])
out = {"flags": {l.name: l.prepared_weights for l in lib.layers}}
rng = np.random.default_rng(7)
for name in ("nv", "nv24", "f8"):
    info = lib.layer(name)
    codes = rng.integers(0, 256, size=info.weight_shape, dtype=np.uint8)
    prepared = np.frombuffer(lib.prepare_weights(name, codes), dtype=np.uint8)
    rows, cols = info.weight_shape
    # The layout as PreparedWeights.h describes it: per 16-row tile and
    # 128-element step one kilobyte, row g + 8h's 16-byte piece t at
    # 512h + 16 (4g + t).
    spec = codes.reshape(rows // 16, 2, 8, cols // 64, 4, 16).transpose(0, 3, 1, 2, 4, 5) \
        if info.prepared_weights else codes
    out[name] = {"as_specified": bool(np.array_equal(prepared, spec.reshape(-1))),
                 "restored": bool(np.array_equal(
                     lib.checkpoint_weights(name, prepared.reshape(rows, cols)), codes)),
                 "readonly_input": bool(np.array_equal(
                     np.frombuffer(lib.prepare_weights(name, codes.tobytes()), np.uint8),
                     prepared))}
for label, bad in (("short", np.zeros(100, np.uint8)), ("list", [1, 2, 3]),
                   ("strided", np.zeros((32, 256), np.uint8)[:, ::2])):
    try:
        lib.prepare_weights("nv", bad)
    except qmat.ArgumentError as e:
        out[label] = str(e)
print(json.dumps(out))
"""


def test_prepare_weights_through_ctypes(prepared_bundle, prepared_library_path):
    """The launcher's prepare_weights and its inverse through the Library,
    on the CPU (against the stub libcuda): the prepared layer's pieces go
    where the layout's description puts them, the others are copied, and
    both come back to the checkpoint's codes."""
    stub = os.path.join(CUDA_ROOT, "lib64", "stubs", "libcuda.so")
    if not os.path.isfile(stub):
        pytest.skip(f"no stub libcuda at {stub}")
    assert [l.prepared_weights for l in prepared_bundle.layers] == [True, False, False]
    result = subprocess.run([sys.executable, "-c", PREPARE_SCRIPT, PYTHON_DIR,
                             prepared_library_path, stub], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["flags"] == {"nv": True, "nv24": False, "f8": False}
    for name in ("nv", "nv24", "f8"):
        assert out[name] == {"as_specified": True, "restored": True, "readonly_input": True}
    assert out["short"] == "nv: weights must hold 4096 bytes (the codes [32, 128]), got 100"
    assert out["list"] == "nv: weights must be a bytes-like object (a numpy array, bytes), got list"
    assert out["strided"] == "nv: weights must be C-contiguous"


def test_loading_without_the_driver_says_why(small_library_path):
    """Here libcuda.so.1 is absent, so loading must fail with a clear
    message; where a driver exists this test has nothing to check."""
    try:
        ctypes.CDLL("libcuda.so.1")
        pytest.skip("this machine has the CUDA driver")
    except OSError:
        pass
    with pytest.raises(qmat.QMatError) as info:
        qmat.load_library(small_library_path)
    assert "libcuda.so.1" in str(info.value)
    assert "load it where the driver is installed" in str(info.value)


class FakeFunction:
    """Stands in for a ctypes function: records argtypes and calls."""

    def __init__(self, result):
        self.result, self.calls = result, []

    def __call__(self, *args):
        self.calls.append(args)
        return self.result


class FakeCDLL:
    def __init__(self, prefix, layers, status):
        self.functions = {f"{prefix}_last_error": FakeFunction(b"x: the fake failed"),
                          f"{prefix}_unload": FakeFunction(0)}
        for layer in layers:
            self.functions[f"{prefix}_{layer.name}_run"] = FakeFunction(status)
            self.functions[f"{prefix}_{layer.name}_workspace_size"] = FakeFunction(12345)
            self.functions[f"{prefix}_{layer.name}_prepare_weights"] = FakeFunction(status)

    def __getattr__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise AttributeError(name) from None


def test_library_declares_argtypes_and_maps_statuses(small_bundle):
    fake = FakeCDLL("small", small_bundle.layers, status=5)
    lib = launcher.Library(None, small_bundle, cdll=fake)
    run = fake.functions["small_mx_run"]
    assert run.argtypes == [ctypes.c_void_p, ctypes.c_int64] + [ctypes.c_void_p] * 8 + \
        [ctypes.c_size_t]
    assert run.restype is ctypes.c_int
    assert fake.functions["small_mx_workspace_size"].restype is ctypes.c_size_t
    assert lib.workspace_size("mx", 7) == 12345
    with pytest.raises(qmat.LauncherError) as info:
        lib.run("mx", 0, 3, 1, 2, 3, None, None, None, 4, 5, 6)
    assert str(info.value) == \
        "small_mx_run returned QMAT_ERROR_CUBLAS (5): x: the fake failed"
    assert run.calls == [(0, 3, 1, 2, 3, None, None, None, 4, 5, 6)]
    with pytest.raises(qmat.ArgumentError, match="has no layer 'nope'"):
        lib.workspace_size("nope", 1)
    del fake.functions["small_f8_workspace_size"]
    with pytest.raises(qmat.QMatError, match="does not export small_f8_workspace_size"):
        launcher.Library(None, small_bundle, cdll=fake)


def test_library_without_prepare_weights(small_bundle, prepared_bundle):
    """A launcher from before prepared codes (no _prepare_weights) still
    loads: its layers' codes are copied; a manifest that says a layer takes
    prepared codes, with such a launcher, is an error that says what to do."""
    fake = FakeCDLL("small", small_bundle.layers, status=0)
    for layer in small_bundle.layers:
        del fake.functions[f"small_{layer.name}_prepare_weights"]
    lib = launcher.Library(None, small_bundle, cdll=fake)
    info = lib.layer("f8")
    codes = bytes(i % 256 for i in range(info.weight_shape[0] * info.weight_shape[1]))
    assert lib.prepare_weights("f8", codes) == bytearray(codes)
    fake = FakeCDLL("prep", prepared_bundle.layers, status=0)
    del fake.functions["prep_nv_prepare_weights"]
    lib = launcher.Library(None, prepared_bundle, cdll=fake)
    info = lib.layer("nv")
    with pytest.raises(qmat.QMatError, match="has no prep_nv_prepare_weights although its "
                       "manifest says the layer takes prepared codes: rebuild the library"):
        lib.prepare_weights("nv", bytes(info.weight_shape[0] * info.weight_shape[1]))
