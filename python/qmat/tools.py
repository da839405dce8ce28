"""Finding and running qmat's command-line tools (qmat-aot, qmat-opt)."""
import logging
import os
import shlex
import shutil
import subprocess
import sys
import time

from .errors import ToolError, ToolNotFoundError

# The package's logger: the commands it runs at DEBUG, what they built and
# how long it took at INFO (logging.basicConfig(level=logging.INFO) shows it).
log = logging.getLogger("qmat")

# Environment variable naming each tool's executable directly.
_TOOL_ENV = {"qmat-aot": "QMAT_AOT", "qmat-opt": "QMAT_OPT"}


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def tool_hint(name):
    """How to get qmat's tool `name`: the lines ToolNotFoundError ends with.
    The tools are not part of the Python package (`pip install ./python`
    installs Python files only): they come from qmat's C++ build."""
    env = _TOOL_ENV[name]
    return (f"{name} is built from qmat's source tree; there, either\n"
            f"  make build                            "
            f"(then set QMAT_BUILD_DIR=<source tree>/build)\n"
            f"  cmake --install build --prefix <dir>  "
            f"(then put <dir>/bin on PATH, unless <dir> is this Python's prefix, "
            f"{sys.prefix})\n"
            f"or set {env} to the path of a {name} executable.")


def find_tool(name, path=None):
    """The path of `name` (qmat-aot or qmat-opt), looked for in this order:

    1. the explicit `path` argument (`compile(..., qmat_aot=...)`);
    2. $QMAT_AOT / $QMAT_OPT, the executable itself;
    3. $QMAT_BUILD_DIR/bin, a build tree (`make build` makes build/bin);
    4. <sys.prefix>/bin, the bin of the Python environment the package runs
       in, where `cmake --install build --prefix <venv>` puts the tools;
    5. PATH.

    The first step that has an executable wins. A `path` or $QMAT_AOT /
    $QMAT_OPT that names no executable file is an error by itself: falling
    back to another build would hide the mistake; a $QMAT_BUILD_DIR without
    the tool is passed over. Otherwise ToolNotFoundError lists every place
    searched and ends with how to get the tool (tool_hint)."""
    env = _TOOL_ENV.get(name)
    hint = tool_hint(name) if env else None
    if path is not None:
        path = os.fspath(path)
        if _executable(path):
            return os.path.abspath(path)
        raise ToolNotFoundError(name, [f"explicit path {path!r} (not an executable file)"],
                                hint)
    searched = []
    if env:
        candidate = os.environ.get(env)
        if candidate:
            if _executable(candidate):
                return os.path.abspath(candidate)
            raise ToolNotFoundError(name, [f"${env}: {candidate!r} (not an executable file)"],
                                    hint)
        searched.append(f"${env}: not set")
    build_dir = os.environ.get("QMAT_BUILD_DIR")
    if build_dir:
        candidate = os.path.join(build_dir, "bin", name)
        if _executable(candidate):
            return os.path.abspath(candidate)
        searched.append(f"$QMAT_BUILD_DIR/bin: {candidate} (missing)")
    else:
        searched.append("$QMAT_BUILD_DIR/bin ($QMAT_BUILD_DIR is not set)")
    candidate = os.path.join(sys.prefix, "bin", name)
    if _executable(candidate):
        return candidate
    searched.append(f"the Python prefix's bin: {candidate} (missing)")
    found = shutil.which(name)
    if found:
        return found
    searched.append(f"PATH: no {name} in {os.environ.get('PATH', '')!r}")
    raise ToolNotFoundError(name, searched, hint)


def first_error_lines(stderr, limit=8):
    """The `error:` lines of a tool's stderr, at most `limit` of them: the
    reason first, without the notes and IR a diagnostic may carry."""
    errors = [line for line in stderr.splitlines() if "error" in line.lower()]
    lines = errors or stderr.strip().splitlines()
    text = "\n".join(lines[:limit])
    if len(lines) > limit:
        text += f"\n... ({len(lines) - limit} more lines in .stderr)"
    return text


def run_tool(command, what, timeout=None, input_text=None):
    """Runs `command`; returns its stdout or raises ToolError with stderr.
    Logs the command (DEBUG) and its time (INFO, DEBUG-level detail on a
    failure goes with the exception)."""
    log.debug("running %s: %s", what, shlex.join(str(c) for c in command))
    start = time.monotonic()
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                input=input_text)
    except subprocess.TimeoutExpired as e:
        raise ToolError(f"{what} did not finish within {timeout} s: {' '.join(command)}",
                        command, None, e.stderr or "") from None
    except OSError as e:
        raise ToolError(f"cannot run {command[0]}: {e}", command, None, str(e)) from None
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        log.debug("%s failed (exit %d) after %.1f s", what, result.returncode, elapsed)
        raise ToolError(f"{what} failed (exit {result.returncode}):\n"
                        f"{first_error_lines(result.stderr)}",
                        command, result.returncode, result.stderr, result.stdout)
    log.info("%s: %.1f s", what, elapsed)
    return result.stdout
