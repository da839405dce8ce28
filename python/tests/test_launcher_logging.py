"""The launcher's log through Python's logging: a launcher built against the
recording stand-in for the CUDA driver (test/AOT/Inputs/mock_cuda.cpp), so
that its calls run here without a GPU, sends its lines to the
"qmat.launcher" logger at the level that logger is enabled for."""
import logging
import os
import subprocess

import pytest

import qmat
from qmat import launcher

from conftest import CUDA_ROOT, REPO_DIR

MOCK = os.path.join(REPO_DIR, "test", "AOT", "Inputs", "mock_cuda.cpp")
# Addresses the stand-in takes for device memory (its base is 0x10000000).
BASE = 0x10000000


@pytest.fixture(scope="module")
def mock_library(qmat_aot, tmp_path_factory):
    if not os.path.isdir(CUDA_ROOT):
        pytest.skip(f"no CUDA toolkit at {CUDA_ROOT}")
    out = tmp_path_factory.mktemp("logbundle")
    bundle = qmat.compile([qmat.Layer("layer", "int4", 256, 256, act="bf16", block=128)],
                          targets=("sm_90",), out_dir=out, prefix="lgpy", qmat_aot=qmat_aot)
    so = os.path.join(out, "liblgpy_mock.so")
    subprocess.run(["g++", "-std=c++17", "-O0", "-shared", "-fPIC", f"-I{out}",
                    f"-I{os.path.dirname(MOCK)}", f"-I{CUDA_ROOT}/include",
                    os.path.join(out, "lgpy.cpp"), MOCK, "-o", so], check=True)
    return launcher.Library(so, bundle)


def run(library, m):
    library.run("layer", BASE + 0x7000000, m, BASE + 0x3000000, BASE, BASE + 0x1000000, None,
                None, None, BASE + 0x2000000, BASE + 0x4000000,
                library.workspace_size("layer", 256))


@pytest.fixture
def launcher_level():
    """Restores the logger's level after the test."""
    before = launcher.launcher_log.level
    yield launcher.launcher_log
    launcher.launcher_log.setLevel(before)


def test_lines_reach_the_logger_at_their_level(mock_library, launcher_level, caplog):
    launcher_level.setLevel(logging.INFO)
    with caplog.at_level(logging.INFO, logger="qmat.launcher"):
        run(mock_library, 1)
        run(mock_library, 1)
        run(mock_library, 16)
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "qmat.launcher"]
    # The device's binary once, then each path's first call only.
    assert [level for level, _ in lines] == [logging.INFO] * len(lines)
    messages = [message for _, message in lines]
    assert messages[0] == ("lgpy: device 0 (compute capability 9.0, 132 multiprocessors) "
                           "loads the sm_90 cubin")
    assert sum("m = 1 takes the tensor-core GEMV" in m for m in messages) == 1
    assert sum("m = 16 takes the fused dequant-GEMM" in m for m in messages) == 1
    assert all(m.startswith("lgpy: ") for m in messages)

    caplog.clear()
    launcher_level.setLevel(logging.DEBUG)
    with caplog.at_level(logging.DEBUG, logger="qmat.launcher"):
        run(mock_library, 1)
        run(mock_library, 1)
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "qmat.launcher"]
    assert len(lines) == 2
    assert all(level == logging.DEBUG and "m = 1 takes the tensor-core GEMV" in message
               for level, message in lines)


def test_a_quiet_logger_leaves_the_log_to_qmat_log(mock_library, launcher_level, caplog,
                                                   capfd):
    launcher_level.setLevel(logging.WARNING)
    with caplog.at_level(logging.WARNING, logger="qmat.launcher"):
        run(mock_library, 1)
    assert not [r for r in caplog.records if r.name == "qmat.launcher"]
    # QMAT_LOG is unset in this process: nothing on stderr either.
    assert "qmat lgpy:" not in capfd.readouterr().err


def test_a_level_outside_the_abi_is_refused(mock_library):
    status = mock_library._set_log_handler(launcher._forward_log_line, 3, None)
    assert launcher.STATUS_NAMES[status] == "QMAT_ERROR_INVALID_ARGUMENT"
    assert mock_library.last_error() == (
        "level must be QMAT_LOG_OFF (0), QMAT_LOG_INFO (1) or QMAT_LOG_DEBUG (2), got 3")
