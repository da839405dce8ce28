"""The launcher ABI is declared once, in include/qmat/AOT/LauncherABI.h (every
bundle's header starts with its text, and every launcher static_asserts its
entry points against it). The bindings that call launchers by symbol spell it
again in their own language: these tests fail when one of them drifts."""
import ctypes
import pathlib
import re

from qmat import launcher

ROOT = pathlib.Path(__file__).resolve().parents[2]
ABI = (ROOT / "include" / "qmat" / "AOT" / "LauncherABI.h").read_text()
FASTPATH = (ROOT / "python" / "qmat" / "_torch_fastpath.cpp").read_text()

C_TO_CTYPES = {"int64_t": ctypes.c_int64, "size_t": ctypes.c_size_t, "qmat_status": ctypes.c_int}


def abi_function(name):
    """(return type, [(parameter type, name)]) of the ABI's typedef `name`."""
    match = re.search(r"typedef (\w+) \(\*" + name + r"\)\(([^)]*)\);", ABI)
    assert match, f"{name} is not in LauncherABI.h"
    return match.group(1), [split_parameter(p) for p in match.group(2).split(",")]


def split_parameter(text):
    text = " ".join(text.split())
    match = re.fullmatch(r"(.*?[\s*])(\w+)", text)
    return " ".join(match.group(1).replace("*", " *").split()), match.group(2)


def as_ctype(c_type):
    return ctypes.c_void_p if c_type.endswith("*") else C_TO_CTYPES[c_type]


def test_status_names_are_the_abis():
    enum = re.search(r"typedef enum qmat_status \{(.*?)\} qmat_status;", ABI, re.S).group(1)
    declared = {int(value): name for name, value in re.findall(r"(QMAT_\w+) = (\d+)", enum)}
    assert len(declared) == 8
    assert launcher.STATUS_NAMES == declared


def test_ctypes_signatures_are_the_abis():
    for typedef, restype, argtypes in [
        ("qmat_run_fn", launcher.RUN_RESTYPE, launcher.RUN_ARGTYPES),
        ("qmat_workspace_size_fn", launcher.WORKSPACE_RESTYPE, launcher.WORKSPACE_ARGTYPES),
        ("qmat_prepare_weights_fn", launcher.PREPARE_RESTYPE, launcher.PREPARE_ARGTYPES),
    ]:
        result, parameters = abi_function(typedef)
        assert as_ctype(result) is restype, typedef
        assert tuple(as_ctype(t) for t, _ in parameters) == argtypes, typedef


def test_log_levels_are_the_abis():
    declared = dict((name, int(value))
                    for name, value in re.findall(r"#define (QMAT_LOG_\w+) (\d+)", ABI))
    assert declared == launcher.LOG_LEVELS


def test_log_handler_types_are_the_abis():
    # void (*qmat_log_fn)(int level, const char *line, void *user)
    match = re.search(r"typedef void \(\*qmat_log_fn\)\(([^)]*)\);", ABI)
    assert match, "qmat_log_fn is not in LauncherABI.h"
    parameters = [split_parameter(p) for p in match.group(1).split(",")]
    assert parameters == [("int", "level"), ("const char *", "line"), ("void *", "user")]
    assert launcher.LOG_FN._restype_ is None
    assert launcher.LOG_FN._argtypes_ == (ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
    result, parameters = abi_function("qmat_set_log_handler_fn")
    assert as_ctype(result) is launcher.SET_LOG_HANDLER_RESTYPE
    assert [t for t, _ in parameters] == ["qmat_log_fn", "int", "void *"]
    assert launcher.SET_LOG_HANDLER_ARGTYPES == (launcher.LOG_FN, ctypes.c_int, ctypes.c_void_p)


def test_workspace_alignment_is_the_abis():
    declared = int(re.search(r"#define QMAT_WORKSPACE_ALIGNMENT (\d+)", ABI).group(1))
    assert launcher.WORKSPACE_ALIGNMENT == declared


def test_torch_fast_path_run_type_is_the_abis():
    match = re.search(r"using RunFn = (\w+) \(\*\)\(([^)]*)\);", FASTPATH)
    assert match, "_torch_fastpath.cpp declares no RunFn"
    # qmat_status is a C enum: an int at the call.
    assert match.group(1) == "int"
    _, parameters = abi_function("qmat_run_fn")
    assert [split_parameter(p) for p in match.group(2).split(",")] == parameters


def test_the_parser_sees_a_drift():
    _, parameters = abi_function("qmat_run_fn")
    assert parameters[0] == ("void *", "stream")
    assert parameters[-1] == ("size_t", "workspace_size")
    assert as_ctype("const float *") is ctypes.c_void_p
    assert split_parameter("const void *zero_points") == ("const void *", "zero_points")
