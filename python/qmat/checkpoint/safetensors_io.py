"""A small safetensors reader and writer on numpy and mmap.

The format: an 8-byte little-endian header length H, H bytes of JSON
({name: {"dtype", "shape", "data_offsets": [begin, end]}, optional
"__metadata__": {str: str}}), then the tensors' raw little-endian bytes,
offsets counted from the end of the header.

Tensors are read as numpy views of a read-only memory map, so a tensor costs
no memory until its pages are touched, and written one after another (or in
row chunks) behind a header computed up front, so neither side ever holds a
whole checkpoint. Dtypes numpy lacks come back as their bit patterns:
BF16 as uint16, the 8-bit floats (F8_E4M3, F8_E5M2, F8_E8M0) as uint8.
"""
import json
import mmap
import os
import struct

import numpy as np

from ..errors import QMatError


class SafetensorsError(QMatError):
    """A safetensors file is malformed, or a tensor is used against its header."""


# safetensors dtype -> numpy storage dtype (bit patterns for bf16 and fp8).
STORAGE = {
    "BOOL": np.dtype("?"), "U8": np.dtype("u1"), "I8": np.dtype("i1"),
    "U16": np.dtype("<u2"), "I16": np.dtype("<i2"), "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"), "U32": np.dtype("<u4"), "I32": np.dtype("<i4"),
    "F32": np.dtype("<f4"), "U64": np.dtype("<u8"), "I64": np.dtype("<i8"),
    "F64": np.dtype("<f8"), "F8_E4M3": np.dtype("u1"), "F8_E5M2": np.dtype("u1"),
    "F8_E8M0": np.dtype("u1"),
}
# numpy (and ml_dtypes) dtype names -> safetensors dtype, for the writer.
_FROM_NUMPY = {
    "bool": "BOOL", "uint8": "U8", "int8": "I8", "uint16": "U16", "int16": "I16",
    "float16": "F16", "bfloat16": "BF16", "uint32": "U32", "int32": "I32", "float32": "F32",
    "uint64": "U64", "int64": "I64", "float64": "F64", "float8_e4m3fn": "F8_E4M3",
    "float8_e5m2": "F8_E5M2", "float8_e8m0fnu": "F8_E8M0",
}
_MAX_HEADER = 100 << 20


def dtype_of(array):
    """The safetensors dtype of a numpy (or ml_dtypes) array."""
    name = np.asarray(array).dtype.name
    if name not in _FROM_NUMPY:
        raise SafetensorsError(f"no safetensors dtype for numpy dtype {name}")
    return _FROM_NUMPY[name]


class TensorInfo:
    __slots__ = ("name", "dtype", "shape", "begin", "end", "path")

    def __init__(self, name, dtype, shape, begin, end, path):
        self.name, self.dtype, self.shape = name, dtype, tuple(shape)
        self.begin, self.end, self.path = begin, end, path

    @property
    def nbytes(self):
        return self.end - self.begin

    def __repr__(self):
        return f"{self.name}: {self.dtype} {list(self.shape)}"


class SafetensorsFile:
    """One .safetensors file opened for reading: `tensors` (name -> TensorInfo),
    `metadata`, and get(name) as a read-only numpy view of the memory map."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._map = None
        size = os.path.getsize(self.path)
        with open(self.path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise SafetensorsError(f"{self.path}: too short for a safetensors file "
                                       f"({size} bytes)")
            (length,) = struct.unpack("<Q", head)
            if length > min(_MAX_HEADER, size - 8):
                raise SafetensorsError(f"{self.path}: header length {length} does not fit the "
                                       f"file ({size} bytes)")
            raw = f.read(length)
        try:
            header = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise SafetensorsError(f"{self.path}: the header is not JSON ({e})") from None
        if not isinstance(header, dict):
            raise SafetensorsError(f"{self.path}: the header is not a JSON object")
        self.data_start = 8 + length
        data_size = size - self.data_start
        self.metadata = header.pop("__metadata__", None) or {}
        self.tensors = {}
        for name, entry in header.items():
            try:
                dtype, shape = entry["dtype"], [int(d) for d in entry["shape"]]
                begin, end = (int(x) for x in entry["data_offsets"])
            except (KeyError, TypeError, ValueError):
                raise SafetensorsError(f"{self.path}: malformed header entry for {name!r}: "
                                       f"{entry!r}") from None
            if dtype not in STORAGE:
                raise SafetensorsError(f"{self.path}: {name} has dtype {dtype}, which this "
                                       f"reader does not know")
            count = 1
            for d in shape:
                if d < 0:
                    raise SafetensorsError(f"{self.path}: {name} has a negative extent {shape}")
                count *= d
            if not 0 <= begin <= end <= data_size or end - begin != count * STORAGE[dtype].itemsize:
                raise SafetensorsError(
                    f"{self.path}: {name} ({dtype} {shape}) has data_offsets [{begin}, {end}], "
                    f"which do not hold {count} elements within the {data_size} data bytes")
            self.tensors[name] = TensorInfo(name, dtype, shape, begin, end, self.path)

    def _mapped(self):
        if self._map is None:
            with open(self.path, "rb") as f:
                if os.fstat(f.fileno()).st_size == 0:
                    raise SafetensorsError(f"{self.path}: empty file")
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return self._map

    def get(self, name):
        """The tensor as a read-only numpy array (a view of the map)."""
        info = self.tensors[name]
        storage = STORAGE[info.dtype]
        if info.nbytes == 0:
            return np.zeros(info.shape, dtype=storage)
        array = np.frombuffer(self._mapped(), dtype=storage, count=info.nbytes // storage.itemsize,
                              offset=self.data_start + info.begin)
        return array.reshape(info.shape)


def read_file(path):
    """Every tensor of a file as {name: (dtype, numpy copy)} (for small files)."""
    f = SafetensorsFile(path)
    return {name: (info.dtype, np.array(f.get(name))) for name, info in f.tensors.items()}


class SafetensorsWriter:
    """Writes one file whose tensors are declared up front:

        with SafetensorsWriter(path, [(name, dtype, shape), ...]) as w:
            w.write(name, rows)      # whole tensors or leading-dimension chunks, in order

    The header is written first (padded with spaces to 8 bytes, as the
    reference implementation does), then the data in declaration order; the
    file is written under a temporary name and renamed when every byte of
    every tensor has arrived, so a failed write leaves no partial file."""

    def __init__(self, path, entries, metadata=None):
        self.path = os.fspath(path)
        self._order, self._sizes = [], {}
        header, offset = {}, 0
        if metadata:
            header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
        for name, dtype, shape in entries:
            if dtype not in STORAGE:
                raise SafetensorsError(f"{name}: unknown safetensors dtype {dtype!r}")
            if name in self._sizes:
                raise SafetensorsError(f"{name}: declared twice")
            count = 1
            for d in shape:
                count *= int(d)
            nbytes = count * STORAGE[dtype].itemsize
            header[name] = {"dtype": dtype, "shape": [int(d) for d in shape],
                            "data_offsets": [offset, offset + nbytes]}
            self._order.append((name, dtype))
            self._sizes[name] = nbytes
            offset += nbytes
        raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
        raw += b" " * (-len(raw) % 8)
        self._tmp = self.path + ".partial"
        self._file = open(self._tmp, "wb")
        self._file.write(struct.pack("<Q", len(raw)) + raw)
        self._index, self._written = 0, 0

    def write(self, name, array):
        """Appends `array` (all of tensor `name`, or its next rows)."""
        while self._index < len(self._order) and self._sizes[self._order[self._index][0]] == 0:
            self._index += 1  # empty tensors take no bytes
        if self._index >= len(self._order) or self._order[self._index][0] != name:
            expected = self._order[self._index][0] if self._index < len(self._order) else "nothing"
            raise SafetensorsError(f"{self.path}: wrote {name}, expected {expected} next")
        dtype = self._order[self._index][1]
        data = np.ascontiguousarray(array)
        if data.dtype.itemsize != STORAGE[dtype].itemsize:
            raise SafetensorsError(f"{name}: {data.dtype} data for a {dtype} tensor")
        data = data.view(np.uint8).reshape(-1)
        if self._written + data.size > self._sizes[name]:
            raise SafetensorsError(f"{name}: more data than its declared {self._sizes[name]} "
                                   f"bytes")
        self._file.write(memoryview(data))
        self._written += data.size
        if self._written == self._sizes[name]:
            self._index, self._written = self._index + 1, 0

    def close(self):
        if self._file is None:
            return
        missing = [n for n, _ in self._order[self._index:] if self._sizes[n]]
        self._file.close()
        self._file = None
        if missing:
            os.unlink(self._tmp)
            raise SafetensorsError(f"{self.path}: not written: {', '.join(missing[:5])}"
                                   + (" ..." if len(missing) > 5 else ""))
        os.replace(self._tmp, self.path)

    def abort(self):
        if self._file is not None:
            self._file.close()
            self._file = None
            os.unlink(self._tmp)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()
        else:
            self.abort()


def write_file(path, tensors, metadata=None):
    """Writes {name: array or (dtype, array)} in one go; numpy's (and
    ml_dtypes') dtypes map to safetensors' (an explicit dtype is needed for
    bit-pattern arrays, e.g. ("BF16", uint16 array))."""
    entries, arrays = [], []
    for name, value in tensors.items():
        dtype, array = value if isinstance(value, tuple) else (dtype_of(value), value)
        array = np.asarray(array)
        entries.append((name, dtype, array.shape))
        arrays.append((name, array))
    with SafetensorsWriter(path, entries, metadata) as w:
        for name, array in arrays:
            if array.size:
                w.write(name, array)
