"""qmat on torch CUDA tensors: run a compiled layer on the current stream,
and QuantLinear, a drop-in for an inference-only torch.nn.Linear whose
weights are block-quantized.

Importing this module imports torch; `import qmat` does not.

    bundle = qmat.compile([qmat.Layer("proj", "nvfp4", 4096, 4096)], out_dir="out")
    lib = qmat.torch.load_library(bundle)          # builds lib<prefix>.so if needed
    layer = qmat.torch.QuantLinear.from_float(linear, lib, "proj").cuda()
    y = layer(x)                                   # x: [..., 4096] bf16 on CUDA

The launcher is called through ctypes with the tensors' device pointers and
the handle of torch's current stream; it returns a status that becomes a
qmat.LauncherError carrying <prefix>_last_error().
"""
import contextlib
import ctypes
import functools
import itertools
import os
import weakref

import numpy as np
import torch

from . import reference
from .errors import ArgumentError, DTypeError, QMatError
from .launcher import WORKSPACE_ALIGNMENT, check_operands, check_workspace, load_library

__all__ = ["load_library", "run_layer", "QuantLinear", "release_workspaces",
           "current_stream_handle", "fastpath_status", "load_model", "replace_linear",
           "QuantGptOssExperts", "QuantSwiGluExperts"]

_ACT_TORCH = {"f16": torch.float16, "bf16": torch.bfloat16}

# torch's own fast accessors (what torch.compile's generated code calls);
# the public equivalents cost a Python Stream object per call.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_get_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
# True while torch.compile traces (dynamo constant-folds this call).
_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) \
    or torch._dynamo.is_compiling


def current_stream_handle(device_index):
    """The CUstream of torch's current stream on `device_index` (an int; 0
    is the legacy default stream), i.e. torch.cuda.current_stream(device).cuda_stream."""
    if _raw_stream is not None:
        return _raw_stream(device_index)
    return torch.cuda.current_stream(device_index).cuda_stream


def _device_guard(index):
    """Makes `index` the current device while the launcher runs: on the
    default stream (handle 0) it takes the current CUDA context."""
    if index == _get_device():
        return contextlib.nullcontext()
    return torch.cuda.device(index)


# --- the optional C++ fast path ---------------------------------------------
#
# _torch_fastpath.cpp, compiled once per machine with torch.utils.cpp_extension
# (a C++ compiler and ninja; torch's CPU headers suffice) and cached by torch
# in $TORCH_EXTENSIONS_DIR (default ~/.cache/torch_extensions). It does
# QuantLinear.forward's common case without the Python-level checks, the
# Python torch.empty and the ctypes call; everything else takes the Python
# path. QMAT_TORCH_FASTPATH=0 turns it off, =1 makes a failed build an error.

_FASTPATH_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "_torch_fastpath.cpp")
_fastpath_state = None  # (module or None, reason) once decided


def _fastpath():
    """The compiled fast-path module, or None (the reason is in
    fastpath_status()). Builds it on the first call in a process."""
    global _fastpath_state
    if _fastpath_state is None:
        _fastpath_state = _load_fastpath()
    return _fastpath_state[0]


def _load_fastpath():
    setting = os.environ.get("QMAT_TORCH_FASTPATH", "").strip().lower()
    if setting in ("0", "off", "false", "no"):
        return None, f"turned off (QMAT_TORCH_FASTPATH={setting})"
    try:
        from torch.utils import cpp_extension
        module = cpp_extension.load(name="qmat_torch_fastpath", sources=[_FASTPATH_SOURCE],
                                    extra_cflags=["-O2"], verbose=False)
    except Exception as e:  # no compiler, no ninja, headers: the ctypes path runs
        lines = str(e).strip().splitlines()
        reason = f"not built: {type(e).__name__}: {lines[-1] if lines else ''}"
        if setting in ("1", "on", "true", "yes"):
            raise QMatError(f"qmat.torch fast path (QMAT_TORCH_FASTPATH={setting}): "
                            f"{reason}") from e
        return None, reason
    return module, f"built ({getattr(module, '__file__', module.__name__)})"


def fastpath_status():
    """(available, reason): whether QuantLinear calls run through the C++
    fast path, building it if it has not been tried in this process."""
    module = _fastpath()
    return module is not None, _fastpath_state[1]


def _invalidate_fastpath_workspaces():
    if _fastpath_state is not None and _fastpath_state[0] is not None:
        _fastpath_state[0].invalidate()


def _raise_status(library, info, status):
    raise library.error(info, status)


def _function_address(function):
    """The C address of a ctypes function, or None for anything else (the
    tests' fake libraries)."""
    try:
        return ctypes.cast(function, ctypes.c_void_p).value
    except (TypeError, ctypes.ArgumentError):
        return None


def _describe(value):
    if not isinstance(value, torch.Tensor):
        raise DTypeError(f"expected a torch.Tensor, got {type(value).__name__}")
    return tuple(value.shape), str(value.dtype).replace("torch.", ""), value.device, \
        value.is_contiguous()


def _pointer(value):
    return None if value is None else value.data_ptr()


def run_layer(lib, layer, a, weights, scales, global_scale=None, zero_points=None, bias=None,
              out=None, workspace=None):
    """Y = A · Wᵀ (+ bias) for one compiled layer, on torch's current stream.

    `lib`: a Library (or a Bundle / path, loaded). `a` [M, K] and `out`
    [M, N] in the layer's activation dtype; `weights`, `scales`,
    `global_scale` (nvfp4: a float32 tensor of one element, on the GPU),
    `zero_points` (int4 with zero points) and `bias` as the launcher takes
    them (qmat.launcher.operand_specs lists dtypes and shapes). Every tensor
    must be a dense CUDA tensor on a's device. `out` and `workspace` are
    allocated when None (the workspace then costs an allocation per call:
    pass one of lib.workspace_size(layer, M) bytes to avoid it).
    Returns `out`. Bad arguments raise ArgumentError / DTypeError before
    the launcher runs; a launcher failure raises LauncherError.
    """
    lib = load_library(lib)
    info = lib.layer(layer)
    if not isinstance(a, torch.Tensor):
        raise DTypeError(f"{info.name}: a must be a torch.Tensor, got {type(a).__name__}")
    _require_cuda(info, a.device, "a must be a CUDA tensor, got one on")
    if out is None and a.dim() == 2 and a.dtype == _ACT_TORCH[info.act]:
        out = torch.empty((a.shape[0], info.n), dtype=a.dtype, device=a.device)
    operands = {"a": a, "weights": weights, "scales": scales, "global_scale": global_scale,
                "zero_points": zero_points, "bias": bias, "y": out}
    m = check_operands(info, operands, _describe, device=a.device, dtype_prefix="torch.")
    if m == 0:
        return out
    needed = lib.workspace_size(info, m)
    if workspace is None:
        workspace, workspace_pointer, nbytes = _allocate_workspace(needed, a.device)
    elif not isinstance(workspace, torch.Tensor):
        raise DTypeError(f"{info.name}: workspace must be a torch.Tensor, "
                         f"got {type(workspace).__name__}")
    else:
        workspace_pointer = workspace.data_ptr()
        nbytes = workspace.numel() * workspace.element_size()
        check_workspace(info, nbytes, needed, a.device, workspace.device,
                        workspace.is_contiguous(), workspace_pointer)
    index = a.device.index
    with _device_guard(index):
        lib.run(info, current_stream_handle(index), m, a.data_ptr(), weights.data_ptr(),
                scales.data_ptr(), _pointer(global_scale), _pointer(zero_points), _pointer(bias),
                out.data_ptr(), workspace_pointer, nbytes)
    return out


# One workspace per (device, stream), shared by every QuantLinear: work on
# one stream runs in issue order, so layers never overlap in it, and a model
# of many layers holds one scratch instead of one per layer.
_WORKSPACES = {}


def release_workspaces():
    """Frees the workspaces QuantLinear modules share (they are reallocated
    on the next call)."""
    _invalidate_fastpath_workspaces()
    _WORKSPACES.clear()


def _allocate_workspace(needed, device):
    """(tensor, pointer, bytes): `needed` bytes at a 256-byte aligned
    pointer, whatever the allocator's own alignment."""
    tensor = torch.empty(needed + WORKSPACE_ALIGNMENT, dtype=torch.uint8, device=device)
    pointer = -(-tensor.data_ptr() // WORKSPACE_ALIGNMENT) * WORKSPACE_ALIGNMENT
    return tensor, pointer, needed


def _workspace(device, stream, needed):
    key = (device.index, stream)
    held = _WORKSPACES.get(key)
    if held is None or held[2] < needed:
        _invalidate_fastpath_workspaces()  # the fast path must not use the old one
        held = _allocate_workspace(needed, device)
        _WORKSPACES[key] = held
    return held


def _as_tensor(value, dtype):
    """numpy arrays (uint16/int16 bits for f16/bf16 data, float for fp32,
    uint8 bytes), Python floats, or tensors -> a tensor; byte-sized and
    16-bit data are reinterpreted, never converted, so codes keep their bits."""
    if value is None or isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (float, int, np.floating)):
        return torch.tensor([float(value)], dtype=torch.float32)
    array = np.ascontiguousarray(value)
    if dtype in (torch.float16, torch.bfloat16) and array.dtype in (np.uint16, np.int16):
        return torch.from_numpy(array.view(np.int16)).view(dtype)
    if array.dtype.name == "bfloat16":  # ml_dtypes
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def move_buffers_keeping_dtypes(module, fn):
    """Applies `fn` (what Module._apply gets: .to(), .cuda(), .half() ...) to
    `module`'s own buffers, keeping each buffer's dtype: the kernels are
    compiled for one activation type, and packed codes or fp32 scales
    converted to it would be corrupt."""
    for name, value in module._buffers.items():
        if value is None:
            continue
        moved = fn(value)
        if moved.dtype != value.dtype:
            moved = value.to(device=moved.device)
        module._buffers[name] = moved


class QuantLinear(torch.nn.Module):
    """An inference-only torch.nn.Linear whose weight is block-quantized and
    whose matmul is a qmat bundle's layer.

    Buffers: `weight` (packed codes, uint8), `scales`, and where the layer
    has them `global_scale` (float32 [1]), `zero_points` (uint8) and `bias`.
    forward() takes [..., K] in the layer's activation dtype on the buffers'
    device and returns [..., N]; it runs on torch's current stream, with a
    workspace shared by all QuantLinear modules on that device and stream,
    sized by the launcher's workspace_size query for the largest M seen.

    A layer compiled with prepared weights (qmat-aot --prepared-weights,
    `layer_info.prepared_weights`) reads its codes in the prepared layout:
    the constructor and from_float take the checkpoint's layout and convert
    it once, on the host, with the launcher's prepare_weights, so `weight`
    and the state dict hold the prepared layout (load a checkpoint's codes
    through the constructor, or convert them with
    `library.prepare_weights`); dequantized_weight() reads either. Codes
    already in the prepared layout (`qmat import --prepared-weights`) are
    passed with prepared=True and kept as they are; a layer that reads the
    checkpoint layout refuses them.

    The kernels are compiled for one activation dtype, so `.to(dtype)`,
    `.half()` and the like move the buffers between devices but never
    change their dtypes (that would corrupt fp32 or packed scales).
    """

    _BUFFERS = ("weight", "scales", "global_scale", "zero_points", "bias")

    def __init__(self, library, layer=None, weights=None, scales=None, global_scale=None,
                 zero_points=None, bias=None, device=None, *, prepared=False):
        super().__init__()
        self._library = load_library(library)
        info = _pick_layer(self._library, layer)
        self._info = info
        self.in_features, self.out_features = info.k, info.n
        self._act_dtype = _ACT_TORCH[info.act]
        entry = self._library.entry(info)
        self._run = entry.run
        self._max_m = 0
        self._needed = 0
        self._free_m = _workspace_free_rows(self._library, info)
        self._handle = next(_OP_HANDLES)  # qmat::linear's `layer` argument
        _OP_MODULES[self._handle] = self
        if weights is None or scales is None:
            raise ArgumentError(f"{info.name}: weights and scales are required "
                                f"(QuantLinear.from_float quantizes a float weight)")
        values = {"weight": _as_tensor(weights, torch.uint8),
                  "scales": _as_tensor(scales, self._act_dtype),
                  "global_scale": _as_tensor(global_scale, torch.float32),
                  "zero_points": _as_tensor(zero_points, torch.uint8),
                  "bias": _as_tensor(bias, self._act_dtype)}
        if prepared and not info.prepared_weights:
            raise ArgumentError(f"{info.name}: the weights are in the prepared layout "
                                f"(prepared=True), but the layer reads the checkpoint layout "
                                f"(compiled without --prepared-weights)")
        if info.prepared_weights and not prepared:
            values["weight"] = _prepared(self._library, info, values["weight"])
        if device is None:
            first = values["weight"]
            device = first.device if first.is_cuda else torch.device(
                "cuda", torch.cuda.current_device())
        device = torch.device(device)
        _require_cuda(info, device, "QuantLinear runs on CUDA devices, got")
        if device.type == "cuda" and device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        for name in self._BUFFERS:
            value = values[name]
            if value is not None:
                value = value.to(device).contiguous()
                if name == "global_scale":
                    value = value.reshape(1)
                elif value.dtype in (torch.float8_e4m3fn, getattr(torch, "float8_e8m0fnu", None)):
                    value = value.view(torch.uint8)  # bytes are stored as bytes
            self.register_buffer(name, value)
        self._ready = True
        self._refresh()

    # --- keeping the cached pointers right -------------------------------

    def _refresh(self):
        """Checks the buffers against the layer and caches their pointers,
        which forward() passes without touching the tensors again."""
        info = self._info
        self._pointers = None  # until the new buffers pass the checks
        self._fast = self._op_fast = None
        weight = self._buffers["weight"]
        self._device = weight.device
        self._device_index = weight.device.index
        probe = torch.empty((0, info.k), dtype=self._act_dtype, device=self._device)
        operands = {"a": probe, "y": torch.empty((0, info.n), dtype=self._act_dtype,
                                                 device=self._device),
                    "weights": weight, "scales": self._buffers["scales"],
                    "global_scale": self._buffers["global_scale"],
                    "zero_points": self._buffers["zero_points"], "bias": self._buffers["bias"]}
        check_operands(info, operands, _describe, device=self._device, dtype_prefix="torch.")
        self._pointers = tuple(_pointer(self._buffers[name]) for name in self._BUFFERS)
        self._max_m = 0  # the workspace is looked up again for the new buffers
        self._fast, self._op_fast = self._make_runners(probe)

    def _make_runners(self, probe):
        """The fast path's Runners for the current buffers, or (None, None):
        forward()'s, which the Python path hands the shared workspaces, and
        the custom op's, which takes only the rows that need no workspace
        (so that nothing shared is baked into a captured CUDA graph)."""
        address = _function_address(self._run)
        if address is None:
            return None, None
        module = _fastpath()
        if module is None:
            return None, None

        def runner():
            return module.Runner(probe, address, *(p or 0 for p in self._pointers),
                                 self.out_features, self.in_features,
                                 functools.partial(_raise_status, self._library, self._info))

        op = None
        if self._free_m:
            op = runner()
            op.set_workspace(self._free_m, 0, 0, 0)
        return runner(), op

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in self._BUFFERS and self.__dict__.get("_ready"):
            self._refresh()

    def _apply(self, fn, recurse=True):
        move_buffers_keeping_dtypes(self, fn)
        self._refresh()
        return self

    def _load_from_state_dict(self, *args, **kwargs):
        super()._load_from_state_dict(*args, **kwargs)
        self._refresh()

    # --- running -----------------------------------------------------------

    def forward(self, x, out=None):
        """y = x · Wᵀ (+ bias) for x [..., K]; returns [..., N]. `out`, if
        given, receives the result (a dense [..., N] tensor like x's).
        Under torch.compile this is the custom op qmat::linear."""
        if _is_compiling():
            return self._traced_forward(x, out)
        fast = self._fast
        if fast is not None:
            y = fast.forward(x, out)
            if y is not None:
                return y
        return self._forward(x, out)

    def _check_input(self, x):
        """The input checks of forward() and of qmat::linear's fake."""
        info = self._info
        if not isinstance(x, torch.Tensor):
            raise DTypeError(f"{info.name}: input must be a torch.Tensor, got {type(x).__name__}")
        if x.dtype != self._act_dtype:
            raise DTypeError(f"{info.name}: input must have dtype {self._act_dtype} (the layer "
                             f"is compiled for {info.act}), got {x.dtype}")
        if x.device != self._device:
            raise ArgumentError(f"{info.name}: input is on {x.device}, the layer on {self._device}")
        if x.dim() < 1 or x.shape[-1] != self.in_features:
            raise ArgumentError(f"{info.name}: input must have shape [..., {self.in_features}], "
                                f"got {list(x.shape)}")
        if x.requires_grad and torch.is_grad_enabled():
            raise ArgumentError(f"{info.name}: QuantLinear is inference-only (no backward); "
                                f"call it under torch.no_grad() or torch.inference_mode()")

    def _forward(self, x, out, local=False):
        """forward() in Python: every check with its message, the device
        guard, the workspace; it also sets the fast path up for the next
        calls (the M and stream it may take, the workspace). `local` (and
        any call while the stream is capturing a CUDA graph) takes a
        workspace of its own from torch's allocator instead of the shared
        one, which a captured graph would otherwise keep the address of."""
        info = self._info
        self._check_input(x)
        k = self.in_features
        dims = x.dim()
        a = x if dims == 2 else x.reshape(-1, k)
        if not a.is_contiguous():
            a = a.contiguous()
        m = a.shape[0]
        if out is None:
            # The varargs form of torch.empty is the cheapest spelling.
            y = torch.empty(m, self.out_features, dtype=self._act_dtype, device=self._device)
        else:
            y = self._check_out(x, dims, out)
        if m:
            if self._pointers is None:
                raise ArgumentError(f"{info.name}: a buffer was replaced by one that does not "
                                    f"fit the layer; assign valid buffers first")
            index = self._device_index
            # Inline rather than _device_guard(): a context manager per call
            # is measurable against a launch that costs a few microseconds.
            guard = None if index == _get_device() else torch.cuda.device(index)
            if guard is not None:
                guard.__enter__()
            try:
                stream = current_stream_handle(index)
                local = local or (self._device.type == "cuda"
                                  and torch.cuda.is_current_stream_capturing())
                if local:
                    needed = 0 if m <= self._free_m else self._library.workspace_size(info, m)
                    held, workspace, nbytes = _allocate_workspace(needed, self._device) \
                        if needed else (None, None, 0)
                else:
                    if m > self._max_m:
                        self._needed = self._library.workspace_size(info, m)
                        self._max_m = m
                    if self._needed:
                        _, workspace, nbytes = _workspace(self._device, stream, self._needed)
                    else:  # the GEMV (m <= gemv-max-m) takes no workspace
                        workspace, nbytes = None, 0
                status = self._run(stream, m, a.data_ptr(), *self._pointers, y.data_ptr(),
                                   workspace, nbytes)
                if self._fast is not None and not local:
                    self._fast.set_workspace(self._max_m, stream, workspace or 0, nbytes)
            finally:
                if guard is not None:
                    guard.__exit__(None, None, None)
            if status:
                raise self._library.error(info, status)
        if out is not None:
            return out
        return y if dims == 2 else y.view(*x.shape[:-1], self.out_features)

    def _traced_forward(self, x, out):
        """forward() as torch.compile records it: the op qmat::linear on the
        module's buffers, and a copy into `out` when one is given."""
        self._check_input(x)
        y = torch.ops.qmat.linear(x, self._handle, self.weight, self.scales, self.global_scale,
                                  self.zero_points, self.bias)
        if out is None:
            return y
        self._check_out(x, x.dim(), out)
        return out.copy_(y)

    def _op_forward(self, x, operands):
        """qmat::linear's kernel: the op's fast-path Runner for the rows that
        need no workspace, else the Python path with a workspace of its own
        (a graph captured through the op never holds a shared one). Buffers
        other than the module's (an op call recorded before they were
        replaced) run through run_layer with their own checks."""
        if tuple(_pointer(t) for t in operands) != self._pointers:
            self._check_input(x)
            a = x.reshape(-1, self.in_features)
            y = run_layer(self._library, self._info, a if a.is_contiguous() else a.contiguous(),
                          *operands)
            return y.view(*x.shape[:-1], self.out_features)
        runner = self._op_fast
        if runner is not None:
            y = runner.forward(x, None)
            if y is not None:
                return y
        return self._forward(x, None, local=True)

    def _check_out(self, x, dims, out):
        """`out` as the [M, N] matrix the launcher writes (a 2-D out is used
        as it is: a view costs about a microsecond)."""
        name, n = self._info.name, self.out_features
        if not isinstance(out, torch.Tensor):
            raise DTypeError(f"{name}: out must be a torch.Tensor, got {type(out).__name__}")
        if out.dtype != self._act_dtype:
            raise DTypeError(f"{name}: out must have dtype {self._act_dtype}, got {out.dtype}")
        if out.device != self._device:
            raise ArgumentError(f"{name}: out is on {out.device}, the layer on {self._device}")
        if not out.is_contiguous():
            raise ArgumentError(f"{name}: out must be contiguous")
        shape = out.shape
        if dims == 2 and len(shape) == 2 and shape[0] == x.shape[0] and shape[1] == n:
            return out
        expected = (*x.shape[:-1], n)
        if tuple(shape) != expected:
            raise ArgumentError(f"{name}: out must have shape {list(expected)}, "
                                f"got {list(shape)}")
        return out.view(-1, n)

    # --- construction from float weights, and the reference ----------------

    @classmethod
    def from_float(cls, source, library, layer=None, *, scheme=None, bias=None, device=None):
        """Quantizes `source` (a torch.nn.Linear, or a float weight [N, K] as
        a tensor or numpy array) with qmat.reference.quantize for the
        layer's scheme, block size and dtype, and returns the QuantLinear.

        The bias comes from the Linear unless `bias` is given; it must be
        present exactly when the layer was compiled with one. `scheme`, if
        given, must match the compiled layer. `device`: default the
        source's CUDA device, else the current one."""
        lib = load_library(library)
        info = _pick_layer(lib, layer)
        if scheme is not None and scheme != info.scheme:
            raise ArgumentError(f"{info.name} is compiled for {info.scheme}, not {scheme}")
        if isinstance(source, torch.nn.Linear):
            weight, linear_bias = source.weight, source.bias
        else:
            weight, linear_bias = source, None
        if isinstance(weight, torch.Tensor):
            if device is None and weight.is_cuda:
                device = weight.device
            weight = weight.detach().to(device="cpu", dtype=torch.float32).numpy()
        weight = np.asarray(weight, dtype=np.float32)
        if weight.shape != (info.n, info.k):
            raise ArgumentError(f"{info.name}: the weight must have shape [N, K] = "
                                f"[{info.n}, {info.k}] (out_features, in_features), "
                                f"got {list(weight.shape)}")
        bias = linear_bias if bias is None else bias
        if info.bias and bias is None:
            raise ArgumentError(f"{info.name} was compiled with a bias, and none was given")
        if not info.bias and bias is not None:
            raise ArgumentError(f"{info.name} was compiled without a bias, but the source "
                                f"has one: compile the layer with bias=True")
        if bias is not None:
            bias = torch.as_tensor(bias).detach().reshape(-1).to(_ACT_TORCH[info.act])
        q = reference.quantize(info.scheme, weight, act=info.act, block=info.block,
                               zero_points=info.zero_points)
        return cls(lib, info.name, q["weights"], q["scales"], q.get("global_scale"),
                   q.get("zero_points"), bias, device=device)

    def dequantized_weight(self):
        """The reference-dequantized W [N, K] (docs/numerics.md, bit for bit what
        the kernels compute), as a CPU tensor of the activation dtype."""
        info = self._info

        def numpy_of(name, bits=False):
            value = self._buffers[name]
            if value is None:
                return None
            value = value.detach().cpu()
            return value.view(torch.int16).numpy().view(np.uint16) if bits else value.numpy()

        codes = numpy_of("weight")
        if info.prepared_weights:
            codes = self._library.checkpoint_weights(info, codes)
        global_scale = self._buffers["global_scale"]
        bits = reference.dequantize(
            info.scheme, codes, numpy_of("scales", bits=info.scheme == "int4"),
            info.k, info.act, block=info.block,
            global_scale=None if global_scale is None else float(global_scale.item()),
            zero_points=numpy_of("zero_points"))
        return torch.from_numpy(bits.view(np.int16)).view(self._act_dtype)

    @property
    def layer_info(self):
        return self._info

    @property
    def library(self):
        return self._library

    def extra_repr(self):
        info = self._info
        return (f"in_features={info.k}, out_features={info.n}, scheme={info.scheme}, "
                f"block={info.block}, dtype={info.act}, bias={info.bias}, layer={info.name!r}")


# --- qmat::linear: QuantLinear.forward as a torch custom op -------------------
#
# torch.compile traces QuantLinear into this one op, whose fake gives the
# output's shape and dtype, instead of into ctypes and the fast path, which
# it cannot trace. `layer` is the module's handle: the kernel finds the
# module (its library, layer, cached pointers and Runners) through it.

_OP_MODULES = weakref.WeakValueDictionary()
_OP_HANDLES = itertools.count(1)

torch.library.define(
    "qmat::linear",
    "(Tensor x, int layer, Tensor weight, Tensor scales, Tensor? global_scale, "
    "Tensor? zero_points, Tensor? bias) -> Tensor")


def _op_module(handle):
    module = _OP_MODULES.get(handle)
    if module is None:
        raise ArgumentError(f"qmat::linear: no QuantLinear has handle {handle} (the module "
                            f"it was traced from no longer exists)")
    return module


# CPU only for the tests' stand-in launchers: QuantLinear refuses CPU devices.
@torch.library.impl("qmat::linear", ("cuda", "cpu"))
def _linear_kernel(x, layer, weight, scales, global_scale, zero_points, bias):
    return _op_module(layer)._op_forward(x, (weight, scales, global_scale, zero_points, bias))


@torch.library.register_fake("qmat::linear")
def _linear_fake(x, layer, weight, scales, global_scale, zero_points, bias):
    module = _op_module(layer)
    module._check_input(x)
    return x.new_empty((*x.shape[:-1], module.out_features))


def _workspace_free_rows(library, info, limit=1 << 16):
    """The largest M (up to `limit`) whose call needs no workspace: the
    launcher's workspace_size is that of the largest M, so it grows with M."""
    if library.workspace_size(info, 1):
        return 0
    low, high = 1, 2
    while high <= limit and not library.workspace_size(info, high):
        low, high = high, high * 2
    high = min(high, limit + 1)
    while high - low > 1:
        middle = (low + high) // 2
        if library.workspace_size(info, middle):
            high = middle
        else:
            low = middle
    return low


def _prepared(library, info, weight):
    """`weight` (the checkpoint's codes) in the prepared layout, on its
    device, with its dtype; a weight of another shape or dtype is left
    as it is for the operand checks to name."""
    rows, cols = info.weight_shape
    if (weight is None or tuple(weight.shape) != (rows, cols)
            or weight.dtype not in (torch.uint8, torch.int8)):
        return weight
    host = weight.detach().to("cpu").contiguous().view(torch.uint8).numpy()
    prepared = np.frombuffer(library.prepare_weights(info, host), dtype=np.uint8)
    return torch.from_numpy(prepared.reshape(rows, cols).copy()).view(weight.dtype).to(
        weight.device)


def _require_cuda(info, device, message):
    if device.type != "cuda":
        raise ArgumentError(f"{info.name}: {message} {device}")


def _pick_layer(lib, layer):
    if layer is None:
        if len(lib.entries) != 1:
            raise ArgumentError(f"the {lib.prefix} launcher has {len(lib.entries)} layers "
                                f"({', '.join(lib.entries)}): name one")
        return next(iter(lib.entries.values())).info
    return lib.layer(layer)


def __getattr__(name):
    # qmat.torch_model builds on QuantLinear, so it is loaded on first use
    # rather than imported here (no import circle).
    if name in ("load_model", "replace_linear"):
        from . import torch_model
        return getattr(torch_model, name)
    if name in ("QuantGptOssExperts", "QuantSwiGluExperts"):
        from . import torch_experts
        return getattr(torch_experts, name)
    raise AttributeError(f"module 'qmat.torch' has no attribute {name!r}")
