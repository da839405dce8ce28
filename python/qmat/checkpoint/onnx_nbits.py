"""ONNX models with com.microsoft MatMulNBits nodes (4-bit), read without
the onnx package: a small protobuf reader over a memory map of the .onnx
file (and of external-data files), so initializers are never copied whole.

MatMulNBits (ONNX Runtime contrib op), Y = A · dequant(B)ᵀ (+ bias):
attributes K, N, bits (4), block_size; inputs A, B UINT8 [N, ceil(K/bs),
bs/2] (per row, k = 2j in the low nibble of byte j), scales [N * ceil(K/bs)]
(or [N, ceil(K/bs)]) in A's type, zero_points optional (UINT8 [N *
ceil(ceil(K/bs)/2)], per row, the even block in the low nibble; or in A's
type; default 8), g_idx optional, bias optional [N];
w[n, k] = (q[n, k] - zero_point[n, k / bs]) * scale[n, k / bs].
"""
import mmap
import os

import numpy as np

from .common import ACT_DTYPE, LinearPlan, pack_u4, to_act_bits, to_float32
from .errors import (CheckpointError, InexactError, MissingTensorError, ShapeError,
                     UnsupportedFormatError)
from .gptq import check_trivial_g_idx
from .safetensors_io import STORAGE, TensorInfo

NAME = "onnx-matmulnbits"
# ONNX TensorProto.DataType -> safetensors dtype.
_DTYPES = {1: "F32", 2: "U8", 3: "I8", 4: "U16", 5: "I16", 6: "I32", 7: "I64", 9: "BOOL",
           10: "F16", 11: "F64", 12: "U32", 13: "U64", 16: "BF16", 17: "F8_E4M3",
           19: "F8_E5M2"}
_INT32_STORED = {"U8", "I8", "U16", "I16", "I32", "BOOL", "F16", "BF16", "F8_E4M3", "F8_E5M2"}


def _varint(buf, pos):
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise CheckpointError("malformed protobuf varint")


def _fields(buf, start, end):
    """(field, wire type, value) of a message in buf[start:end]: varints as
    ints, the rest as (begin, end) byte ranges."""
    pos = start
    while pos < end:
        key, pos = _varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = (pos, pos + 8), pos + 8
        elif wire == 2:
            length, pos = _varint(buf, pos)
            value, pos = (pos, pos + length), pos + length
        elif wire == 5:
            value, pos = (pos, pos + 4), pos + 4
        else:
            raise CheckpointError(f"unsupported protobuf wire type {wire}")
        if pos > end:
            raise CheckpointError("truncated protobuf message")
        yield field, wire, value


def _text(buf, span):
    return bytes(buf[span[0]:span[1]]).decode("utf-8")


def _ints(buf, wire, value):
    """A repeated integer field's values (packed or one)."""
    if wire == 0:
        return [value]
    out, pos = [], value[0]
    while pos < value[1]:
        v, pos = _varint(buf, pos)
        out.append(v)
    return out


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


class OnnxSource:
    """The initializers and MatMulNBits nodes of an .onnx file, with the
    interface of qmat.checkpoint.Checkpoint (tensors, info, get)."""

    def __init__(self, path):
        self.path = os.path.abspath(os.fspath(path))
        self.directory = os.path.dirname(self.path)
        self.config = {}
        with open(self.path, "rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        buf = self._map
        graph = None
        for field, wire, value in _fields(buf, 0, len(buf)):
            if field == 7 and wire == 2:
                graph = value
        if graph is None:
            raise CheckpointError(f"{self.path}: no graph (not an ONNX model)")
        self.nodes, self.tensors, self._data = [], {}, {}
        for field, wire, value in _fields(buf, *graph):
            if field == 1 and wire == 2:
                self.nodes.append(self._node(value))
            elif field == 5 and wire == 2:
                self._initializer(value)

    def _node(self, span):
        buf = self._map
        node = {"inputs": [], "outputs": [], "name": "", "op_type": "", "domain": "",
                "attributes": {}}
        for field, wire, value in _fields(buf, *span):
            if field == 1:
                node["inputs"].append(_text(buf, value))
            elif field == 2:
                node["outputs"].append(_text(buf, value))
            elif field == 3:
                node["name"] = _text(buf, value)
            elif field == 4:
                node["op_type"] = _text(buf, value)
            elif field == 7:
                node["domain"] = _text(buf, value)
            elif field == 5:
                name, attr = None, None
                for f2, w2, v2 in _fields(buf, *value):
                    if f2 == 1:
                        name = _text(buf, v2)
                    elif f2 == 3:
                        attr = _signed(v2)
                    elif f2 == 2:
                        attr = float(np.frombuffer(buf, "<f4", 1, v2[0])[0])
                    elif f2 == 4:
                        attr = bytes(buf[v2[0]:v2[1]])
                if name is not None:
                    node["attributes"][name] = attr
        return node

    def _initializer(self, span):
        buf = self._map
        dims, dtype_code, name, raw, external, location = [], None, None, None, {}, 0
        typed = {}
        for field, wire, value in _fields(buf, *span):
            if field == 1:
                dims += [_signed(v) for v in _ints(buf, wire, value)]
            elif field == 2:
                dtype_code = value
            elif field == 8:
                name = _text(buf, value)
            elif field == 9:
                raw = value
            elif field in (4, 5, 7) and wire in (0, 2, 5):
                typed.setdefault(field, []).append((wire, value))
            elif field == 13:
                key = val = None
                for f2, _, v2 in _fields(buf, *value):
                    if f2 == 1:
                        key = _text(buf, v2)
                    elif f2 == 2:
                        val = _text(buf, v2)
                external[key] = val
            elif field == 14:
                location = value
        if name is None:
            return
        dtype = _DTYPES.get(dtype_code)
        if dtype is None:
            self.tensors[name] = TensorInfo(name, f"onnx type {dtype_code}", dims, 0, 0, self.path)
            return
        count = int(np.prod(dims, dtype=np.int64)) if dims else 1
        nbytes = count * STORAGE[dtype].itemsize
        self.tensors[name] = TensorInfo(name, dtype, dims, 0, nbytes, self.path)
        if location == 1:
            file = os.path.join(self.directory, external.get("location", ""))
            offset = int(external.get("offset", 0))
            self._data[name] = ("external", file, offset, nbytes)
        elif raw is not None:
            if raw[1] - raw[0] != nbytes:
                raise ShapeError(f"{name}: raw_data holds {raw[1] - raw[0]} bytes, {dtype} "
                                 f"{dims} needs {nbytes}")
            self._data[name] = ("raw", raw[0])
        else:
            self._data[name] = ("typed", typed)

    def __contains__(self, name):
        return name in self.tensors

    def info(self, name):
        if name not in self.tensors:
            raise MissingTensorError(f"{name}: not an initializer of {self.path}")
        return self.tensors[name]

    def get(self, name):
        info = self.info(name)
        if info.dtype not in STORAGE:
            raise UnsupportedFormatError(f"{name}: initializer of {info.dtype}, which qmat does "
                                         f"not read")
        storage = STORAGE[info.dtype]
        count = info.nbytes // storage.itemsize
        kind = self._data[name]
        if kind[0] == "raw":
            array = np.frombuffer(self._map, storage, count, kind[1])
        elif kind[0] == "external":
            _, file, offset, nbytes = kind
            if not os.path.isfile(file) or os.path.getsize(file) < offset + nbytes:
                raise MissingTensorError(f"{name}: its external data ({file}, bytes {offset}.."
                                         f"{offset + nbytes}) is missing")
            array = np.memmap(file, dtype=storage, mode="r", offset=offset, shape=(count,))
        else:
            array = self._typed(name, info, kind[1], storage, count)
        return array.reshape(info.shape)

    def _typed(self, name, info, typed, storage, count):
        buf = self._map
        if info.dtype == "F32" and 4 in typed:
            parts = [np.frombuffer(buf, "<f4", (v[1] - v[0]) // 4, v[0]) for _, v in typed[4]]
            values = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        elif info.dtype in _INT32_STORED and 5 in typed:
            # int32_data holds each value's bits (sign-extended for the signed types).
            values = np.array([x for w, v in typed[5] for x in _ints(buf, w, v)], dtype=np.int64)
            unsigned = np.dtype(f"<u{storage.itemsize}")
            values = (values & ((1 << (8 * storage.itemsize)) - 1)).astype(unsigned).view(storage)
        elif info.dtype == "I64" and 7 in typed:
            values = np.array([_signed(x) for w, v in typed[7] for x in _ints(buf, w, v)],
                              dtype=np.int64)
        elif count == 0:
            values = np.zeros(0, storage)
        else:
            raise UnsupportedFormatError(f"{name}: {info.dtype} initializer stored in a field "
                                         f"qmat does not read")
        if values.size != count:
            raise ShapeError(f"{name}: holds {values.size} values, shape {list(info.shape)} "
                             f"needs {count}")
        return values

    def json(self, name):
        return None

    def text_config(self):
        return {}


def is_onnx(path):
    return os.path.isfile(path) and str(path).endswith(".onnx")


def _matmulnbits(src):
    return [n for n in src.nodes if n["op_type"] == "MatMulNBits"
            and n["domain"] == "com.microsoft"]


def _module(node):
    return node["name"] or node["inputs"][1]


def parse_config(src):
    if not isinstance(src, OnnxSource):
        raise UnsupportedFormatError(f"{src.directory}: not an ONNX model (an .onnx file)")
    nodes = _matmulnbits(src)
    return {"nodes": {_module(n): n for n in nodes}, "source": os.path.basename(src.path)}


def find_linears(src, qc):
    return list(qc["nodes"])


def default_act(src, qc):
    for node in qc["nodes"].values():
        if len(node["inputs"]) > 2 and node["inputs"][2] in src:
            dtype = src.info(node["inputs"][2]).dtype
            if dtype in ("F16", "BF16"):
                return {"F16": "f16", "BF16": "bf16"}[dtype]
    return None


def plan(src, module, qc, ctx):
    act = ctx["act"]
    node = qc["nodes"][module]
    attrs = node["attributes"]
    where = f"MatMulNBits node {module}"
    for key in ("K", "N", "block_size"):
        if not isinstance(attrs.get(key), int) or attrs[key] <= 0:
            raise UnsupportedFormatError(f"{where}: attribute {key} missing or not positive")
    k, n, bs, bits = attrs["K"], attrs["N"], attrs["block_size"], attrs.get("bits", 4)
    if bits != 4:
        raise UnsupportedFormatError(f"{where}: bits {bits}; qmat reads 4-bit MatMulNBits only")
    if k % 2:
        raise UnsupportedFormatError(f"{where}: K = {k} is odd; qmat packs two int4 codes per "
                                     f"byte")
    inputs = node["inputs"] + [""] * (6 - len(node["inputs"]))
    b_name, s_name, zp_name, g_name, bias_name = inputs[1:6]
    cols = -(-k // bs)
    b = src.info(b_name)
    if b.dtype != "U8" or tuple(b.shape) != (n, cols, bs // 2):
        raise ShapeError(f"{b_name}: {b.dtype} {list(b.shape)}, expected U8 [{n}, {cols}, "
                         f"{bs // 2}] (N, ceil(K/block_size), block_size/2) for {where}")
    src.get(b_name)   # a missing external-data file is refused before anything is written
    s = src.info(s_name)
    if s.dtype not in ("F16", "BF16", "F32") or int(np.prod(s.shape)) != n * cols:
        raise ShapeError(f"{s_name}: {s.dtype} {list(s.shape)}, expected N * ceil(K/block_size) "
                         f"= {n * cols} scales for {where}")
    rule = (f"qmat's int4 scales are {act}, the activation type; import with act matching "
            f"the scales' dtype")
    to_act_bits(src.get(s_name).reshape(n, cols), s.dtype, act, s_name, rule)
    if g_name:
        check_trivial_g_idx(src.get(g_name), bs, g_name, "g_idx")
    zero = None
    if zp_name:
        z = src.info(zp_name)
        packed = -(-cols // 2)
        if z.dtype == "U8" and int(np.prod(z.shape)) == n * packed:
            zero = np.asarray(src.get(zp_name)).reshape(n, packed)
        elif z.dtype == s.dtype and int(np.prod(z.shape)) == n * cols:
            values = to_float32(np.asarray(src.get(zp_name)).reshape(n, cols), z.dtype)
            ok = (values == np.round(values)) & (values >= 0) & (values <= 15)
            if not ok.all():
                r, c = (int(i) for i in np.argwhere(~ok)[0])
                raise InexactError(f"{zp_name}: zero point {float(values[r, c])!r} at [{r}, {c}] "
                                   f"is not an integer in 0..15 (qmat's u4 zero points)")
            zero = pack_u4(values.astype(np.uint8))
        else:
            raise ShapeError(f"{zp_name}: {z.dtype} {list(z.shape)}, expected U8 with N * "
                             f"ceil(ceil(K/block_size)/2) = {n * packed} bytes, or {s.dtype} with "
                             f"{n * cols} values, for {where}")
    p = LinearPlan(module, NAME, "int4", n, k, bs, act, zero_points=zero is not None)
    p.sources = [x for x in (b_name, s_name, zp_name, g_name) if x]
    p.add("codes", "U8", (n, k // 2),
          lambda r0, r1: np.asarray(src.get(b_name)[r0:r1]).reshape(r1 - r0, -1)[:, :k // 2],
          row_bytes=cols * (bs // 2))
    p.add("scales", ACT_DTYPE[act], (n, cols),
          lambda r0, r1: to_act_bits(np.asarray(src.get(s_name)).reshape(n, cols)[r0:r1],
                                     s.dtype, act, s_name, rule), row_bytes=cols * 4)
    if zero is not None:
        p.add("zero_points", "U8", tuple(zero.shape), lambda r0, r1: zero[r0:r1], row_bytes=cols)
    if bias_name:
        info = src.info(bias_name)
        if tuple(info.shape) != (n,):
            raise ShapeError(f"{bias_name}: shape {list(info.shape)}, expected [{n}] (the bias)")
        brule = "the bias is added in the activation type"
        to_act_bits(src.get(bias_name), info.dtype, act, bias_name, brule)
        p.bias = True
        p.sources.append(bias_name)
        p.add("bias", ACT_DTYPE[act], (n,),
              lambda r0, r1: to_act_bits(src.get(bias_name)[r0:r1], info.dtype, act, bias_name,
                                         brule), row_bytes=2)
    return p
