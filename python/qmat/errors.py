"""qmat's exceptions. Every error qmat raises on purpose derives from QMatError;
argument errors also derive from ValueError / TypeError so that generic
handlers keep working."""


class QMatError(Exception):
    """Base class of every qmat error."""


class ToolNotFoundError(QMatError, FileNotFoundError):
    """qmat-aot / qmat-opt (or a compiler) could not be found. `searched`
    lists each place looked at and why it did not qualify; `hint`, when
    given, says how to get the tool and closes the message."""

    def __init__(self, tool, searched, hint=None):
        self.tool = tool
        self.searched = list(searched)
        self.hint = hint
        lines = "\n".join(f"  - {place}" for place in self.searched)
        message = f"cannot find {tool}; searched:\n{lines}"
        if hint:
            message += "\n" + hint
        super().__init__(message)


class ToolError(QMatError):
    """An external tool (qmat-aot, qmat-opt, the C++ compiler) failed.
    `stderr` holds its complete error output, `command` the command line."""

    def __init__(self, message, command, returncode, stderr, stdout=""):
        self.command = list(command)
        self.returncode = returncode
        self.stderr = stderr
        self.stdout = stdout
        super().__init__(message)


class ArgumentError(QMatError, ValueError):
    """An argument has the wrong value or shape."""


class DTypeError(ArgumentError, TypeError):
    """An argument has the wrong element type."""


class LauncherError(QMatError):
    """A generated launcher returned a non-zero qmat_status. `status` is the
    number, `status_name` its enumerator, `detail` the launcher's
    <prefix>_last_error() text."""

    def __init__(self, function, status, status_name, detail):
        self.function = function
        self.status = status
        self.status_name = status_name
        self.detail = detail
        super().__init__(f"{function} returned {status_name} ({status}): {detail}")


class ShardError(QMatError, ValueError):
    """A layer cannot be split exactly into `tp` equal tensor-parallel
    shards (qmat.shard)."""
