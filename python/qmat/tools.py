"""Finding and running qmat's command-line tools (qmat-aot, qmat-opt)."""
import os
import shutil
import subprocess

from .errors import ToolError, ToolNotFoundError

# Environment variable naming each tool's executable directly.
_TOOL_ENV = {"qmat-aot": "QMAT_AOT", "qmat-opt": "QMAT_OPT"}


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_tool(name, path=None):
    """The path of `name` (qmat-aot or qmat-opt), looked for in order: the
    explicit `path`, $QMAT_BUILD_DIR/bin, $QMAT_AOT / $QMAT_OPT, then PATH.
    Raises ToolNotFoundError listing every place searched. An explicit path
    that is wrong is an error by itself: falling back to another build
    would hide the mistake."""
    searched = []
    if path is not None:
        path = os.fspath(path)
        if _executable(path):
            return os.path.abspath(path)
        raise ToolNotFoundError(name, [f"explicit path {path!r} (not an executable file)"])
    build_dir = os.environ.get("QMAT_BUILD_DIR")
    if build_dir:
        candidate = os.path.join(build_dir, "bin", name)
        if _executable(candidate):
            return os.path.abspath(candidate)
        searched.append(f"$QMAT_BUILD_DIR/bin: {candidate} (missing)")
    else:
        searched.append("$QMAT_BUILD_DIR/bin ($QMAT_BUILD_DIR is not set)")
    env = _TOOL_ENV.get(name)
    if env:
        candidate = os.environ.get(env)
        if candidate and _executable(candidate):
            return os.path.abspath(candidate)
        searched.append(f"${env}: " + (f"{candidate!r} (not an executable file)"
                                      if candidate else "not set"))
    found = shutil.which(name)
    if found:
        return found
    searched.append(f"PATH: no {name} in {os.environ.get('PATH', '')!r}")
    raise ToolNotFoundError(name, searched)


def first_error_lines(stderr, limit=8):
    """The `error:` lines of an MLIR diagnostic dump: qmat-aot follows some
    errors with the whole module, which would bury the reason."""
    errors = [line for line in stderr.splitlines() if "error" in line.lower()]
    lines = errors or stderr.strip().splitlines()
    text = "\n".join(lines[:limit])
    if len(lines) > limit:
        text += f"\n... ({len(lines) - limit} more lines in .stderr)"
    return text


def run_tool(command, what, timeout=None, input_text=None):
    """Runs `command`; returns its stdout or raises ToolError with stderr."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                input=input_text)
    except subprocess.TimeoutExpired as e:
        raise ToolError(f"{what} did not finish within {timeout} s: {' '.join(command)}",
                        command, None, e.stderr or "") from None
    except OSError as e:
        raise ToolError(f"cannot run {command[0]}: {e}", command, None, str(e)) from None
    if result.returncode != 0:
        raise ToolError(f"{what} failed (exit {result.returncode}):\n"
                        f"{first_error_lines(result.stderr)}",
                        command, result.returncode, result.stderr, result.stdout)
    return result.stdout
