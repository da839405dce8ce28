"""CPU stand-ins for a bundle and its launcher, for the torch tests that run
without a GPU: a bundle directory with only a manifest, and a launcher whose
<prefix>_<layer>_run is a ctypes callback that computes Y = A · Wᵀ (+ bias)
from the operands' memory with qmat.reference (W dequantized, the product
in fp32, one rounding), and that refuses a too small workspace like the
real one. Layers named in `prepared` take their codes in the prepared
layout as PreparedWeights.h describes it (as_prepared), with a
<prefix>_<layer>_prepare_weights callback that converts to it."""
import ctypes
import json
import os

import numpy as np

import qmat
from qmat import reference
from qmat.launcher import PREPARE_ARGTYPES, PREPARE_RESTYPE, RUN_ARGTYPES, RUN_RESTYPE

RUN_TYPE = ctypes.CFUNCTYPE(RUN_RESTYPE, *RUN_ARGTYPES)
WORKSPACE_TYPE = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int64)
PREPARE_TYPE = ctypes.CFUNCTYPE(PREPARE_RESTYPE, *PREPARE_ARGTYPES)
GEMV_MAX_M = 8
WORKSPACE_BYTES = 4096   # for any M > GEMV_MAX_M


def as_prepared(codes):
    """[N, K/2] codes in the prepared layout of PreparedWeights.h: per
    16-row tile and 128-element K step one kilobyte, row g + 8h's 16-byte
    piece t at 512h + 16 (4g + t)."""
    rows, cols = codes.shape
    return np.ascontiguousarray(codes.reshape(rows // 16, 2, 8, cols // 64, 4, 16).transpose(
        0, 3, 1, 2, 4, 5)).reshape(rows, cols)


def from_prepared(codes):
    """The inverse of as_prepared."""
    rows, cols = codes.shape
    return np.ascontiguousarray(codes.reshape(rows // 16, cols // 64, 2, 8, 4, 16).transpose(
        0, 2, 3, 1, 4, 5)).reshape(rows, cols)


def write_bundle(directory, prefix, layers, prepared=()):
    """A bundle directory qmat.Bundle.open accepts, for qmat.Layer objects
    (those named in `prepared` compiled for the prepared code layout)."""
    os.makedirs(directory, exist_ok=True)
    entries = [{"name": l.name, "scheme": l.scheme, "n": l.n, "k": l.k, "block_size": l.block,
                "dtype": l.act, "bias": l.bias, "zero_points": l.zero_points,
                "workspace": {"bytes": WORKSPACE_BYTES}, "symbol": l.name,
                "prepared_weights": l.name in prepared} for l in layers]
    with open(os.path.join(directory, f"{prefix}.manifest.json"), "w") as f:
        json.dump({"prefix": prefix, "layers": entries, "targets": []}, f)
    for ext in ("h", "cpp"):
        open(os.path.join(directory, f"{prefix}.{ext}"), "w").close()
    return qmat.Bundle.open(directory, prefix)


def _read(address, dtype, shape):
    count = int(np.prod(shape))
    nbytes = count * np.dtype(dtype).itemsize
    raw = (ctypes.c_uint8 * nbytes).from_address(address)
    return np.frombuffer(raw, dtype=dtype, count=count).reshape(shape)


class ComputingCDLL:
    """The exported functions of a launcher for `bundle`'s layers; `calls`
    records (layer, m, workspace_size) per run."""

    def __init__(self, bundle):
        self.calls = []
        self.message = ctypes.create_string_buffer(b"workspace too small")
        self.functions = {
            f"{bundle.prefix}_last_error": ctypes.CFUNCTYPE(ctypes.c_void_p)(
                lambda: ctypes.addressof(self.message)),
            f"{bundle.prefix}_unload": ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 0)}
        self.workspace = WORKSPACE_TYPE(lambda m: 0 if m <= GEMV_MAX_M else WORKSPACE_BYTES)
        for info in bundle.layers:
            self.functions[f"{bundle.prefix}_{info.name}_run"] = RUN_TYPE(self._runner(info))
            self.functions[f"{bundle.prefix}_{info.name}_workspace_size"] = self.workspace
            if info.prepared_weights:
                self.functions[f"{bundle.prefix}_{info.name}_prepare_weights"] = \
                    PREPARE_TYPE(self._preparer(info))

    def __getattr__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise AttributeError(name) from None

    def _runner(self, info):
        act_bits = np.uint16

        def run(stream, m, a, weights, scales, global_scale, zero_points, bias, y, workspace,
                workspace_size):
            self.calls.append((info.name, m, workspace_size))
            if m > GEMV_MAX_M and (workspace_size < WORKSPACE_BYTES or not workspace):
                return 3
            codes = _read(weights, np.uint8, info.weight_shape)
            if info.prepared_weights:
                codes = from_prepared(codes)
            scale_dtype = {"nvfp4": np.uint8, "mxfp4": np.uint8, "fp8": np.float32,
                           "int4": act_bits}[info.scheme]
            w_bits = reference.dequantize(
                info.scheme, codes, _read(scales, scale_dtype, info.scale_shape), info.k,
                info.act, block=info.block,
                global_scale=float(_read(global_scale, np.float32, (1,))[0])
                if global_scale else None,
                zero_points=_read(zero_points, np.uint8, info.zero_point_shape)
                if zero_points else None)
            w = reference.to_float32(w_bits, info.act)
            x = reference.to_float32(_read(a, act_bits, (m, info.k)), info.act)
            out = x @ w.T
            if bias:
                out = out + reference.to_float32(_read(bias, act_bits, (info.n,)), info.act)
            _read(y, act_bits, (m, info.n))[...] = reference.round_to_act(out, info.act)
            return 0

        return run


    def _preparer(self, info):
        def prepare(weights, prepared):
            _read(prepared, np.uint8, info.weight_shape)[...] = as_prepared(
                _read(weights, np.uint8, info.weight_shape))
            return 0

        return prepare


def cpu_library(directory, prefix, layers, prepared=()):
    """A qmat Library over write_bundle's bundle and a ComputingCDLL."""
    bundle = write_bundle(directory, prefix, layers, prepared)
    cdll = ComputingCDLL(bundle)
    return qmat.launcher.Library(None, bundle, cdll=cdll), cdll
