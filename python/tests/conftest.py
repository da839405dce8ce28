"""Shared set-up: the in-tree package first on sys.path (tests run against
python/qmat, not an installed copy), and the build's tools.

`make check` sets QMAT_BUILD_DIR; there a missing tool is a failure. Without
it (e.g. the GPU machine, which has no MLIR) tests that need a tool skip.
"""
import importlib.util
import os
import sys

import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, PYTHON_DIR)

import qmat  # noqa: E402

EXAMPLE = os.path.join(REPO_DIR, "examples", "qwen-like-27b-nvfp4.mlir")


def load_repo_script(path, name):
    """A script of the repository that is not a package module (bench/,
    utils/), loaded as module `name`."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO_DIR, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
CUDA_ROOT = "/usr/local/cuda"


def tool_or_skip(name):
    try:
        return qmat.find_tool(name)
    except qmat.ToolNotFoundError as e:
        if os.environ.get("QMAT_BUILD_DIR"):
            raise
        pytest.skip(str(e))


# Tools and bundles are built once for every test of this directory.
@pytest.fixture(scope="package")
def qmat_opt():
    return tool_or_skip("qmat-opt")


@pytest.fixture(scope="package")
def qmat_aot():
    return tool_or_skip("qmat-aot")


# One layer per scheme with every optional operand somewhere, both dtypes,
# a partial trailing block (fp8 K = 200, int4 K = 736 with an odd block count).
SMALL_LAYERS = [
    qmat.Layer("nv_bias", "nvfp4", 384, 1024, act="bf16", bias=True),
    qmat.Layer("mx", "mxfp4", 256, 512, act="f16"),
    qmat.Layer("f8", "fp8", 16, 200, act="bf16"),
    qmat.Layer("i4_zp", "int4", 256, 736, act="f16", bias=True, zero_points=True),
    qmat.Layer("i4", "int4", 128, 256, act="bf16", block=128),
]


@pytest.fixture(scope="package")
def small_bundle(qmat_aot, tmp_path_factory):
    return qmat.compile(SMALL_LAYERS, targets=("sm_90",), out_dir=tmp_path_factory.mktemp("b"),
                        prefix="small", qmat_aot=qmat_aot)


@pytest.fixture(scope="package")
def small_library_path(small_bundle):
    """The launcher compiled into a shared library with g++ against CUDA."""
    if not os.path.isdir(CUDA_ROOT):
        pytest.skip(f"no CUDA toolkit at {CUDA_ROOT}")
    return small_bundle.build_library(cuda_path=CUDA_ROOT)


# Prepared codes (qmat-aot --prepared-weights): a layer the layout applies to
# (N a multiple of 16, K of 128) and two it does not (24 rows; fp8).
PREPARED_LAYERS = [
    qmat.Layer("nv", "nvfp4", 32, 256, act="bf16"),
    qmat.Layer("nv24", "nvfp4", 24, 256, act="f16"),
    qmat.Layer("f8", "fp8", 16, 256, act="bf16"),
]


@pytest.fixture(scope="package")
def prepared_bundle(qmat_aot, tmp_path_factory):
    return qmat.compile(PREPARED_LAYERS, targets=("sm_90",), out_dir=tmp_path_factory.mktemp("p"),
                        prefix="prep", prepared_weights=True, qmat_aot=qmat_aot)


@pytest.fixture(scope="package")
def prepared_library_path(prepared_bundle):
    if not os.path.isdir(CUDA_ROOT):
        pytest.skip(f"no CUDA toolkit at {CUDA_ROOT}")
    return prepared_bundle.build_library(cuda_path=CUDA_ROOT)
