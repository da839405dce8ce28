"""A bundle's compiled launcher, loaded with ctypes, and the operand checks
that every binding (qmat.torch today) runs before calling it.

Nothing here needs torch, and only Library.checkpoint_weights numpy:
operands are described by a `describe` callback (shape, dtype name, device,
contiguous), so the same checks and messages serve torch tensors, numpy
arrays in tests, or anything else.
"""
import ctypes
import dataclasses
import logging
import os

from .bundle import Bundle, LayerInfo
from .errors import ArgumentError, DTypeError, LauncherError, QMatError
from .tools import log

# The launcher ABI (include/qmat/AOT/LauncherABI.h, the start of every
# bundle's header) as ctypes sees it; tests/test_abi.py checks it there.
# The qmat_status enumerators:
STATUS_NAMES = {
    0: "QMAT_OK",
    1: "QMAT_ERROR_INVALID_ARGUMENT",
    2: "QMAT_ERROR_UNSUPPORTED_DEVICE",
    3: "QMAT_ERROR_WORKSPACE_TOO_SMALL",
    4: "QMAT_ERROR_CUDA",
    5: "QMAT_ERROR_CUBLAS",
    6: "QMAT_ERROR_HIP",
    7: "QMAT_ERROR_HIPBLASLT",
}

# <prefix>_<layer>_run(CUstream stream, int64_t m, const void *a,
#     const void *weights, const void *scales, const float *global_scale,
#     const void *zero_points, const void *bias, void *y, void *workspace,
#     size_t workspace_size) -> qmat_status
RUN_ARGTYPES = (ctypes.c_void_p, ctypes.c_int64) + (ctypes.c_void_p,) * 8 + (ctypes.c_size_t,)
RUN_RESTYPE = ctypes.c_int
# size_t <prefix>_<layer>_workspace_size(int64_t max_m)
WORKSPACE_ARGTYPES = (ctypes.c_int64,)
WORKSPACE_RESTYPE = ctypes.c_size_t
# qmat_status <prefix>_<layer>_prepare_weights(const void *weights,
#     void *prepared)
PREPARE_ARGTYPES = (ctypes.c_void_p, ctypes.c_void_p)
PREPARE_RESTYPE = ctypes.c_int

# The launcher's own alignment requirement on the workspace.
WORKSPACE_ALIGNMENT = 256

# The log levels (QMAT_LOG_OFF, _INFO, _DEBUG) and
# qmat_status <prefix>_set_log_handler(qmat_log_fn handler, int level,
#     void *user), where void qmat_log_fn(int level, const char *line,
#     void *user).
LOG_LEVELS = {"QMAT_LOG_OFF": 0, "QMAT_LOG_INFO": 1, "QMAT_LOG_DEBUG": 2}
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
SET_LOG_HANDLER_ARGTYPES = (LOG_FN, ctypes.c_int, ctypes.c_void_p)
SET_LOG_HANDLER_RESTYPE = ctypes.c_int

# Where the launchers' log lines go in Python: "qmat.launcher", each line
# prefixed with its bundle's prefix, at INFO or DEBUG as the launcher logged
# it.
launcher_log = logging.getLogger("qmat.launcher")
# The bundle prefixes of the loaded launchers, by the `user` value each
# launcher passes back (an index: the callback outlives any Library).
_log_prefixes = []


@LOG_FN
def _forward_log_line(level, line, user):
    prefix = _log_prefixes[user or 0]
    launcher_log.log(logging.DEBUG if level >= LOG_LEVELS["QMAT_LOG_DEBUG"] else logging.INFO,
                     "%s: %s", prefix, line.decode("utf-8", "replace"))


def python_log_level():
    """The launcher log level that launcher_log's effective level asks for."""
    if launcher_log.isEnabledFor(logging.DEBUG):
        return LOG_LEVELS["QMAT_LOG_DEBUG"]
    if launcher_log.isEnabledFor(logging.INFO):
        return LOG_LEVELS["QMAT_LOG_INFO"]
    return LOG_LEVELS["QMAT_LOG_OFF"]


@dataclasses.dataclass
class LayerEntry:
    """A layer's entry points in a loaded launcher."""
    info: LayerInfo
    run: object
    workspace_size: object
    run_symbol: str
    prepare_weights: object = None


class Library:
    """A loaded launcher: per layer its `run` and `workspace_size` functions
    (argtypes declared), plus `last_error()` and `unload()`.

    `cdll` replaces the ctypes.CDLL for tests; anything whose attributes are
    the exported functions will do.
    """

    def __init__(self, path, bundle, cdll=None):
        self.path = None if path is None else os.path.abspath(os.fspath(path))
        self.bundle = bundle
        self.prefix = bundle.prefix
        if cdll is None:
            try:
                cdll = ctypes.CDLL(self.path)
            except OSError as e:
                raise QMatError(
                    f"cannot load the {self.prefix} launcher {self.path}: {e}. The launcher "
                    f"links the NVIDIA driver's libcuda.so.1 and cuBLASLt (libcublasLt.so); "
                    f"load it where the driver is installed") from None
        self._cdll = cdll
        log.info("loaded the %s launcher %s: layers %s", self.prefix, self.path,
                 ", ".join(info.name for info in bundle.layers))
        self._last_error = self._function(f"{self.prefix}_last_error", ctypes.c_char_p, ())
        self._unload = self._function(f"{self.prefix}_unload", ctypes.c_int, ())
        self._set_log_handler = self._optional_function(
            f"{self.prefix}_set_log_handler", SET_LOG_HANDLER_RESTYPE, SET_LOG_HANDLER_ARGTYPES)
        if self.prefix not in _log_prefixes:
            _log_prefixes.append(self.prefix)
        self._log_user = _log_prefixes.index(self.prefix)
        self._log_level = None
        self.sync_logging()
        self.entries = {}
        for info in bundle.layers:
            run_symbol = f"{self.prefix}_{info.symbol or info.name}_run"
            self.entries[info.name] = LayerEntry(
                info=info,
                run=self._function(run_symbol, RUN_RESTYPE, RUN_ARGTYPES),
                workspace_size=self._function(f"{self.prefix}_{info.symbol or info.name}_workspace_size",
                                              WORKSPACE_RESTYPE, WORKSPACE_ARGTYPES),
                run_symbol=run_symbol,
                prepare_weights=self._optional_function(
                    f"{self.prefix}_{info.symbol or info.name}_prepare_weights", PREPARE_RESTYPE,
                    PREPARE_ARGTYPES))

    def _function(self, symbol, restype, argtypes):
        try:
            function = getattr(self._cdll, symbol)
        except AttributeError:
            raise QMatError(f"{self.path} does not export {symbol}: was it built from "
                            f"another bundle than {self.bundle.manifest_path}?") from None
        function.restype = restype
        function.argtypes = list(argtypes)
        return function

    def _optional_function(self, symbol, restype, argtypes):
        """_function, or None where the launcher predates `symbol`."""
        try:
            return self._function(symbol, restype, argtypes)
        except QMatError:
            return None

    def sync_logging(self):
        """Sends the launcher's log to the "qmat.launcher" logger at the level
        that logger is enabled for (INFO: the binary each device loads and
        each layer's first call per path and variant; DEBUG: every call), or,
        where it is enabled for neither, leaves it to QMAT_LOG and stderr.
        Runs when the library is loaded and before each `run`; call it after
        changing the logger's level where calls go through another binding
        (qmat.torch's compiled fast path)."""
        if self._set_log_handler is None:
            return
        level = python_log_level()
        if level == self._log_level:
            return
        if level == LOG_LEVELS["QMAT_LOG_OFF"]:
            status = self._set_log_handler(LOG_FN(), 0, None)
        else:
            status = self._set_log_handler(_forward_log_line, level, self._log_user)
        if status:
            raise LauncherError(f"{self.prefix}_set_log_handler", status,
                                STATUS_NAMES.get(status, "unknown qmat_status"), self.last_error())
        self._log_level = level

    @property
    def layers(self):
        return [entry.info for entry in self.entries.values()]

    def entry(self, layer):
        """The LayerEntry of `layer` (a name or a LayerInfo)."""
        name = layer.name if isinstance(layer, LayerInfo) else layer
        try:
            return self.entries[name]
        except KeyError:
            raise ArgumentError(f"the {self.prefix} launcher has no layer {name!r} "
                                f"(layers: {', '.join(self.entries)})") from None

    def layer(self, layer):
        return self.entry(layer).info

    def workspace_size(self, layer, max_m):
        """Bytes of workspace `layer` needs for any M up to max_m."""
        if isinstance(max_m, bool) or not isinstance(max_m, int) or max_m <= 0:
            raise ArgumentError(f"max_m must be a positive integer, got {max_m!r}")
        return int(self.entry(layer).workspace_size(max_m))

    def prepare_weights(self, layer, weights):
        """`layer`'s codes in the layout its kernels read, computed on the
        host by the launcher's <prefix>_<layer>_prepare_weights: the prepared
        layout where the layer was compiled with it (qmat-aot
        --prepared-weights, LayerInfo.prepared_weights), else a copy.
        `weights`: the checkpoint's [N, K/2] (fp8: [N, K]) row-major codes,
        any C-contiguous bytes-like object (a numpy array, bytes). Returns a
        bytearray of the same size."""
        entry = self.entry(layer)
        info = entry.info
        size = info.weight_shape[0] * info.weight_shape[1]
        try:
            view = memoryview(weights)
        except (TypeError, ValueError, BufferError):
            raise ArgumentError(f"{info.name}: weights must be a bytes-like object (a numpy "
                                f"array, bytes), got {type(weights).__name__}") from None
        if not view.c_contiguous:
            raise ArgumentError(f"{info.name}: weights must be C-contiguous")
        if view.nbytes != size:
            raise ArgumentError(f"{info.name}: weights must hold {size} bytes (the codes "
                                f"{list(info.weight_shape)}), got {view.nbytes}")
        source = view.cast("B") if view.ndim != 1 or view.format != "B" else view
        if entry.prepare_weights is None:
            if info.prepared_weights:
                raise QMatError(f"{self.path} has no {self.prefix}_{info.symbol or info.name}_prepare_weights "
                                f"although its manifest says the layer takes prepared "
                                f"codes: rebuild the library from its bundle")
            return bytearray(source)  # a launcher from before prepared codes: a copy
        if source.readonly:
            source = memoryview(bytearray(source))
        prepared = bytearray(size)
        status = entry.prepare_weights(
            ctypes.addressof(ctypes.c_char.from_buffer(source)),
            ctypes.addressof(ctypes.c_char.from_buffer(prepared)))
        if status:
            raise LauncherError(f"{self.prefix}_{info.symbol or info.name}_prepare_weights", status,
                                STATUS_NAMES.get(status, "unknown qmat_status"),
                                self.last_error())
        return prepared

    def checkpoint_weights(self, layer, prepared):
        """The inverse of prepare_weights: `prepared` (a numpy uint8 array,
        the codes as `layer`'s kernels read them) in the checkpoint's layout,
        same shape. Each 16-byte piece is tagged with its index and sent
        through the launcher's prepare_weights, which says where every piece
        goes, so that the layout has one definition."""
        import numpy as np

        info = self.entry(layer).info
        codes = np.ascontiguousarray(prepared, dtype=np.uint8)
        if not info.prepared_weights:
            return codes.copy()
        if codes.size % 16:
            raise ArgumentError(f"{info.name}: the codes ({codes.size} bytes) are not "
                                f"whole 16-byte pieces")
        pieces = codes.size // 16
        tags = np.zeros((pieces, 2), dtype=np.int64)
        tags[:, 0] = np.arange(pieces)
        moved = np.frombuffer(self.prepare_weights(layer, tags), dtype=np.int64)[0::2]
        if not np.array_equal(np.sort(moved), np.arange(pieces)):
            raise QMatError(f"{info.name}: prepare_weights does not move whole 16-byte "
                            f"pieces; it cannot be inverted here")
        restored = np.empty((pieces, 16), dtype=np.uint8)
        restored[moved] = codes.reshape(pieces, 16)
        return restored.reshape(codes.shape)

    def last_error(self):
        message = self._last_error()
        return message.decode("utf-8", "replace") if message else ""

    def error(self, layer, status):
        """The LauncherError for a non-zero status returned by `layer`."""
        name = STATUS_NAMES.get(status, "unknown qmat_status")
        return LauncherError(self.entry(layer).run_symbol, status, name, self.last_error())

    def run(self, layer, stream, m, a, weights, scales, global_scale, zero_points, bias, y,
            workspace, workspace_size):
        """Calls <prefix>_<layer>_run with raw pointers (ints, None for
        absent operands); raises LauncherError on a non-zero status. No
        checks beyond the launcher's own: bindings check operands first."""
        entry = self.entry(layer)
        self.sync_logging()
        status = entry.run(stream, m, a, weights, scales, global_scale, zero_points, bias, y,
                           workspace, workspace_size)
        if status:
            raise self.error(layer, status)

    def unload(self):
        """Releases the modules and cuBLASLt handles of every CUDA context."""
        status = self._unload()
        if status:
            raise LauncherError(f"{self.prefix}_unload", status,
                                STATUS_NAMES.get(status, "unknown qmat_status"), self.last_error())

    def __repr__(self):
        return f"qmat.Library({self.path!r}, layers={list(self.entries)})"


def load_library(source, prefix=None):
    """Loads a compiled launcher: `source` is a Bundle (built first if it has
    no library yet), a bundle directory, or the path of the .so (whose
    directory holds the bundle's manifest)."""
    if isinstance(source, Library):
        return source
    if isinstance(source, Bundle):
        bundle = source
        if bundle.library_path is None:
            bundle.build_library()
        return Library(bundle.library_path, bundle)
    path = os.fspath(source)
    if os.path.isdir(path):
        bundle = Bundle.open(path, prefix)
        if bundle.library_path is None:
            bundle.build_library()
        return Library(bundle.library_path, bundle)
    if not os.path.isfile(path):
        raise ArgumentError(f"no such launcher library or bundle directory: {path}")
    directory, base = os.path.split(os.path.abspath(path))
    if prefix is None and base.startswith("lib") and base.endswith(".so") and os.path.isfile(
            os.path.join(directory, base[3:-3] + ".manifest.json")):
        prefix = base[3:-3]
    return Library(path, Bundle.open(directory, prefix))


# --- operand checks ---------------------------------------------------------

ACT_DTYPE_NAMES = {"f16": "float16", "bf16": "bfloat16"}


@dataclasses.dataclass(frozen=True)
class OperandSpec:
    """What one launcher argument must be for one layer. `shape` holds ints
    and "M" for the run-time rows; `dtypes` the accepted element types
    (canonical names: float16, bfloat16, float32, uint8, int8, float8_e4m3fn,
    float8_e8m0fnu); `taken` whether this layer has the operand at all."""
    name: str
    shape: tuple
    dtypes: tuple
    meaning: str
    taken: bool = True
    why: str = ""


def operand_specs(info):
    """The operands of `info`'s run function, in ABI order."""
    act = ACT_DTYPE_NAMES[info.act]
    n, k = info.n, info.k
    packed = ("uint8", "int8")
    weights = {
        "nvfp4": (packed, "[N, K/2] packed e2m1 codes"),
        "mxfp4": (packed, "[N, K/2] packed e2m1 codes"),
        "fp8": (("float8_e4m3fn", "uint8", "int8"), "[N, K] e4m3 codes"),
        "int4": (packed, "[N, K/2] packed u4 codes"),
    }[info.scheme]
    scales = {
        "nvfp4": (("float8_e4m3fn", "uint8"), "[N, ceil(K/bs)] e4m3 block scales"),
        "mxfp4": (("float8_e8m0fnu", "uint8"), "[N, ceil(K/bs)] e8m0 block scales"),
        "fp8": (("float32",), "[N, ceil(K/bs)] fp32 block scales"),
        "int4": ((act,), "[N, ceil(K/bs)] block scales in the activation type"),
    }[info.scheme]
    return [
        OperandSpec("a", ("M", k), (act,), "the activations [M, K]"),
        OperandSpec("weights", info.weight_shape, *weights),
        OperandSpec("scales", info.scale_shape, *scales),
        OperandSpec("global_scale", (1,), ("float32",), "one fp32 value (weight_scale_2)",
                    taken=info.needs_global_scale,
                    why="nvfp4 layers take the fp32 tensor scale (weight_scale_2)"
                    if info.needs_global_scale else
                    f"only nvfp4 layers have a global scale, this one is {info.scheme}"),
        OperandSpec("zero_points", info.zero_point_shape, packed,
                    "[N, ceil(ceil(K/bs)/2)] packed u4 zero points", taken=info.zero_points,
                    why="the layer was compiled with zero points" if info.zero_points else
                    ("this int4 layer was compiled without zero points (8 is implied)"
                     if info.scheme == "int4" else
                     f"only int4 layers have zero points, this one is {info.scheme}")),
        OperandSpec("bias", (n,), (act,), "the bias [N]", taken=info.bias,
                    why="the layer was compiled with a bias" if info.bias else
                    "the layer was compiled without a bias"),
        OperandSpec("y", ("M", n), (act,), "the output [M, N]"),
    ]


def _shape_text(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def check_operands(info, operands, describe, device=None, dtype_prefix=""):
    """Checks `operands` (name -> object or None, names as operand_specs)
    against layer `info`; returns M. `describe(obj)` gives (shape tuple,
    dtype name, device, contiguous) or raises DTypeError for a foreign
    object. Every operand must be on `device` (default: a's device).
    Raises ArgumentError / DTypeError whose message names the layer, the
    operand, what it must be and what it is."""
    where = f"{info.name}: "
    m = None
    for spec in operand_specs(info):
        value = operands.get(spec.name)
        if value is None:
            if spec.taken:
                raise ArgumentError(where + f"{spec.name} is required"
                                    + (f": {spec.why}" if spec.why else f" ({spec.meaning})"))
            continue
        if not spec.taken:
            raise ArgumentError(where + f"{spec.name} must be None: {spec.why}")
        try:
            shape, dtype, value_device, contiguous = describe(value)
        except DTypeError as e:
            raise DTypeError(where + f"{spec.name}: {e}") from None
        shape = tuple(shape)
        if dtype not in spec.dtypes:
            accepted = " or ".join(dtype_prefix + d for d in spec.dtypes)
            raise DTypeError(where + f"{spec.name} must have dtype {accepted} "
                             f"({spec.meaning}), got {dtype_prefix}{dtype}")
        if spec.name == "global_scale":
            if shape not in ((), (1,)):
                raise ArgumentError(where + f"global_scale must hold one value (shape [] or "
                                    f"[1]), got shape {_shape_text(shape)}")
        else:
            if spec.name == "a" and len(shape) == 2:
                m = shape[0]
            expected = tuple((m if m is not None else "M") if d == "M" else d
                             for d in spec.shape)
            if shape != expected:
                raise ArgumentError(where + f"{spec.name} must have shape "
                                    f"{_shape_text(expected)} ({spec.meaning}), got "
                                    f"{_shape_text(shape)}")
        if device is None:
            device = value_device
        if value_device != device:
            raise ArgumentError(where + f"{spec.name} is on {value_device}, the other operands "
                                f"on {device}: all must be on one device")
        if not contiguous:
            raise ArgumentError(where + f"{spec.name} must be contiguous (dense row-major)")
    return m


def check_workspace(info, nbytes, needed, device, workspace_device, contiguous, pointer):
    """The workspace a caller passes: enough bytes, on the device, dense,
    256-byte aligned (the launcher re-checks the last two itself)."""
    where = f"{info.name}: "
    if workspace_device != device:
        raise ArgumentError(where + f"workspace is on {workspace_device}, the operands on {device}")
    if not contiguous:
        raise ArgumentError(where + "workspace must be contiguous")
    if nbytes < needed:
        raise ArgumentError(where + f"workspace has {nbytes} bytes, the layer needs {needed} "
                            f"(workspace_size)")
    if pointer % WORKSPACE_ALIGNMENT:
        raise ArgumentError(where + f"workspace must be {WORKSPACE_ALIGNMENT}-byte aligned")
