"""qmat.find_tool: the search order for qmat-aot / qmat-opt and the message
that says how to get them. Stand-in executables (shell scripts) play the
tools, so that no build is needed and each place can be told apart."""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import qmat
from conftest import PYTHON_DIR


def make_tool(directory, name="qmat-aot"):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(path, 0o755)
    return str(path)


@pytest.fixture
def places(tmp_path, monkeypatch):
    """One qmat-aot in each place find_tool looks, and an environment that
    points at all of them; each test takes them away one by one."""
    tools = {
        "explicit": make_tool(tmp_path / "explicit"),
        "env": make_tool(tmp_path / "env"),
        "build": make_tool(tmp_path / "build" / "bin"),
        "prefix": make_tool(tmp_path / "prefix" / "bin"),
        "path": make_tool(tmp_path / "path"),
    }
    monkeypatch.setenv("QMAT_AOT", tools["env"])
    monkeypatch.setenv("QMAT_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix"))
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    return tools


def hint(tool, env, prefix):
    return (f"{tool} is built from qmat's source tree; there, either\n"
            f"  make build                            "
            f"(then set QMAT_BUILD_DIR=<source tree>/build)\n"
            f"  cmake --install build --prefix <dir>  "
            f"(then put <dir>/bin on PATH, unless <dir> is this Python's prefix, {prefix})\n"
            f"or set {env} to the path of a {tool} executable.")


def test_search_order(places, tmp_path, monkeypatch):
    assert qmat.find_tool("qmat-aot", path=places["explicit"]) == places["explicit"]
    assert qmat.find_tool("qmat-aot") == places["env"]
    monkeypatch.delenv("QMAT_AOT")
    assert qmat.find_tool("qmat-aot") == places["build"]
    os.remove(places["build"])  # a build tree without the tool is passed over
    assert qmat.find_tool("qmat-aot") == places["prefix"]
    monkeypatch.delenv("QMAT_BUILD_DIR")
    assert qmat.find_tool("qmat-aot") == places["prefix"]
    os.remove(places["prefix"])
    assert qmat.find_tool("qmat-aot") == places["path"]


def test_qmat_opt_has_its_own_variable(places, tmp_path, monkeypatch):
    opt = make_tool(tmp_path / "opt", "qmat-opt")
    monkeypatch.setenv("QMAT_OPT", opt)
    assert qmat.find_tool("qmat-opt") == opt
    monkeypatch.delenv("QMAT_OPT")
    make_tool(tmp_path / "build" / "bin", "qmat-opt")
    assert qmat.find_tool("qmat-opt") == str(tmp_path / "build" / "bin" / "qmat-opt")


def test_not_found_says_where_it_looked_and_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.delenv("QMAT_AOT", raising=False)
    monkeypatch.delenv("QMAT_BUILD_DIR", raising=False)
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(qmat.ToolNotFoundError) as info:
        qmat.find_tool("qmat-aot")
    assert str(info.value) == (
        "cannot find qmat-aot; searched:\n"
        "  - $QMAT_AOT: not set\n"
        "  - $QMAT_BUILD_DIR/bin ($QMAT_BUILD_DIR is not set)\n"
        f"  - the Python prefix's bin: {tmp_path}/prefix/bin/qmat-aot (missing)\n"
        f"  - PATH: no qmat-aot in '{tmp_path}/empty'\n"
        + hint("qmat-aot", "QMAT_AOT", tmp_path / "prefix"))
    assert isinstance(info.value, qmat.QMatError)
    assert isinstance(info.value, FileNotFoundError)
    assert info.value.hint == hint("qmat-aot", "QMAT_AOT", tmp_path / "prefix")

    monkeypatch.setenv("QMAT_BUILD_DIR", str(tmp_path / "build"))
    with pytest.raises(qmat.ToolNotFoundError) as info:
        qmat.find_tool("qmat-opt")
    assert info.value.searched == [
        "$QMAT_OPT: not set",
        f"$QMAT_BUILD_DIR/bin: {tmp_path}/build/bin/qmat-opt (missing)",
        f"the Python prefix's bin: {tmp_path}/prefix/bin/qmat-opt (missing)",
        f"PATH: no qmat-opt in '{tmp_path}/empty'",
    ]
    assert str(info.value).endswith("\n" + hint("qmat-opt", "QMAT_OPT", tmp_path / "prefix"))


def test_a_wrong_explicit_path_or_variable_is_not_papered_over(places, tmp_path, monkeypatch):
    """Every later place has a qmat-aot: falling back to one would hide the
    mistake."""
    with pytest.raises(qmat.ToolNotFoundError) as info:
        qmat.find_tool("qmat-aot", path="/nope/qmat-aot")
    assert str(info.value) == (
        "cannot find qmat-aot; searched:\n"
        "  - explicit path '/nope/qmat-aot' (not an executable file)\n"
        + hint("qmat-aot", "QMAT_AOT", tmp_path / "prefix"))
    with pytest.raises(qmat.ToolNotFoundError, match="explicit path '/nope/qmat-aot'"):
        qmat.compile(qmat.Layer("x", "fp8", 8, 64), out_dir=tmp_path / "out",
                     qmat_aot="/nope/qmat-aot")
    not_executable = tmp_path / "qmat-aot.txt"
    not_executable.write_text("")
    monkeypatch.setenv("QMAT_AOT", str(not_executable))
    with pytest.raises(qmat.ToolNotFoundError) as info:
        qmat.find_tool("qmat-aot")
    assert info.value.searched == [f"$QMAT_AOT: '{not_executable}' (not an executable file)"]


# Runs in the environment's own interpreter, isolated (-I: no PYTHONPATH, no
# user site), so that `qmat` is the copy installed there.
INSTALLED_SCRIPT = textwrap.dedent("""
    import qmat
    print(qmat.__file__)
    try:
        print(qmat.find_tool("qmat-aot"))
    except qmat.ToolNotFoundError as e:
        print(e.searched[2])
""")


def test_an_installed_package_finds_the_tools_of_its_prefix(tmp_path):
    """The package as `pip install ./python` lays it out in a virtual
    environment (its packages under site-packages, nothing of the source
    tree), not activated: qmat-aot installed into the environment's prefix
    (`cmake --install build --prefix <venv>`) is found with no variable
    set and no PATH entry."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    shutil.copytree(os.path.join(PYTHON_DIR, "qmat"), os.path.join(site, "qmat"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.makedirs(tmp_path / "empty")
    env = {"PATH": str(tmp_path / "empty"), "HOME": str(tmp_path)}

    def run():
        return subprocess.run([python, "-I", "-c", INSTALLED_SCRIPT], env=env, cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout.splitlines()

    assert run() == [os.path.join(site, "qmat", "__init__.py"),
                     f"the Python prefix's bin: {venv}/bin/qmat-aot (missing)"]
    tool = make_tool(venv / "bin")
    assert run() == [os.path.join(site, "qmat", "__init__.py"), tool]


def test_run_tool_logs_the_command_and_its_time(caplog):
    """The "qmat" logger: the command at DEBUG, its time at INFO; a failing
    one at DEBUG only, its stderr in the ToolError."""
    import logging
    from qmat.tools import run_tool
    caplog.set_level(logging.DEBUG, logger="qmat")
    out = run_tool([sys.executable, "-c", "print('made it')"], "the probe")
    assert out == "made it\n"
    records = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "qmat"]
    assert records[0][0] == "DEBUG"
    assert records[0][1].startswith("running the probe: ") and "print(" in records[0][1]
    assert records[1][0] == "INFO" and re.fullmatch(r"the probe: \d+\.\d s", records[1][1])
    caplog.clear()
    with pytest.raises(qmat.ToolError, match="the failing probe failed \\(exit 3\\)"):
        run_tool([sys.executable, "-c", "import sys; sys.exit(3)"], "the failing probe")
    levels = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "qmat"]
    assert [l for l, _ in levels] == ["DEBUG", "DEBUG"]
    assert re.fullmatch(r"the failing probe failed \(exit 3\) after \d+\.\d s", levels[1][1])
