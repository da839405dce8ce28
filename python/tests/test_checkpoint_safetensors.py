"""qmat's safetensors reader and writer against the format's layout, built
byte by byte here: 8-byte little-endian header length, JSON header, data."""
import json
import os
import struct

import ml_dtypes
import numpy as np
import pytest

from qmat.checkpoint import (SafetensorsError, SafetensorsFile, SafetensorsWriter, read_file,
                             write_file)


def raw_file(path, header, data):
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def test_reads_a_hand_built_file(tmp_path):
    """Unaligned data (a 7-byte-odd header), every dtype family, fp8 and bf16 as bits."""
    f32 = np.array([[1.5, -2.0], [0.25, 3.0]], dtype="<f4")
    bf16 = np.array([1.0, -0.5, 3.0], dtype=ml_dtypes.bfloat16)
    e4m3 = np.array([0.5, -448.0, 1.0], dtype=ml_dtypes.float8_e4m3fn)
    i32 = np.array([-1, 2 ** 31 - 1], dtype="<i4")
    parts = [f32.tobytes(), bf16.tobytes(), e4m3.tobytes(), i32.tobytes(), b""]
    offsets, at = [], 0
    for p in parts:
        offsets.append([at, at + len(p)])
        at += len(p)
    header = {"__metadata__": {"format": "pt"},
              "w": {"dtype": "F32", "shape": [2, 2], "data_offsets": offsets[0]},
              "b": {"dtype": "BF16", "shape": [3], "data_offsets": offsets[1]},
              "s": {"dtype": "F8_E4M3", "shape": [3], "data_offsets": offsets[2]},
              "i": {"dtype": "I32", "shape": [2], "data_offsets": offsets[3]},
              "e": {"dtype": "F16", "shape": [0, 4], "data_offsets": offsets[4]}}
    raw_file(tmp_path / "a.safetensors", header, b"".join(parts))
    f = SafetensorsFile(tmp_path / "a.safetensors")
    assert f.metadata == {"format": "pt"}
    assert np.array_equal(f.get("w"), f32)
    assert f.get("b").dtype == np.uint16 and np.array_equal(f.get("b"), bf16.view(np.uint16))
    assert f.get("s").dtype == np.uint8 and np.array_equal(f.get("s"), e4m3.view(np.uint8))
    assert np.array_equal(f.get("i"), i32)
    assert f.get("e").shape == (0, 4)
    assert not f.get("w").flags.writeable
    assert {n: (i.dtype, i.shape) for n, i in f.tensors.items()} == {
        "w": ("F32", (2, 2)), "b": ("BF16", (3,)), "s": ("F8_E4M3", (3,)), "i": ("I32", (2,)),
        "e": ("F16", (0, 4))}


def test_writer_layout_bytes(tmp_path):
    path = tmp_path / "w.safetensors"
    write_file(path, {"a": np.arange(3, dtype=np.int64), "b": ("BF16", np.array([0x3F80],
                                                                              np.uint16))},
               metadata={"k": "v"})
    data = open(path, "rb").read()
    (length,) = struct.unpack("<Q", data[:8])
    assert length % 8 == 0
    header = json.loads(data[8:8 + length])
    assert header == {"__metadata__": {"k": "v"},
                      "a": {"dtype": "I64", "shape": [3], "data_offsets": [0, 24]},
                      "b": {"dtype": "BF16", "shape": [1], "data_offsets": [24, 26]}}
    assert data[8 + length:] == np.arange(3, dtype="<i8").tobytes() + b"\x80\x3f"
    assert not os.path.exists(str(path) + ".partial")


def test_round_trip_with_ml_dtypes_and_chunks(tmp_path):
    rng = np.random.default_rng(0)
    tensors = {"f8": rng.standard_normal((5, 7)).astype(ml_dtypes.float8_e4m3fn),
               "bf": rng.standard_normal((4,)).astype(ml_dtypes.bfloat16),
               "u8": rng.integers(0, 256, (3, 3), dtype=np.uint8),
               "f16": rng.standard_normal((2, 2)).astype(np.float16),
               "scalar": np.array(2.5, dtype=np.float32)}
    write_file(tmp_path / "r.safetensors", tensors)
    back = read_file(tmp_path / "r.safetensors")
    assert back["f8"][0] == "F8_E4M3" and np.array_equal(back["f8"][1],
                                                          tensors["f8"].view(np.uint8))
    assert back["bf"][0] == "BF16" and np.array_equal(back["bf"][1],
                                                       tensors["bf"].view(np.uint16))
    assert back["scalar"][1].shape == () and back["scalar"][1] == 2.5
    # Written in row chunks, in declaration order.
    big = np.arange(100 * 6, dtype=np.float32).reshape(100, 6)
    with SafetensorsWriter(tmp_path / "c.safetensors", [("x", "F32", (100, 6)),
                                                        ("y", "U8", (2,))]) as w:
        for r in range(0, 100, 30):
            w.write("x", big[r:r + 30])
        w.write("y", np.array([1, 2], np.uint8))
    assert np.array_equal(SafetensorsFile(tmp_path / "c.safetensors").get("x"), big)


def test_writer_refusals_leave_no_file(tmp_path):
    path = tmp_path / "bad.safetensors"
    with pytest.raises(SafetensorsError, match="wrote y, expected x next"):
        with SafetensorsWriter(path, [("x", "F32", (2,)), ("y", "F32", (2,))]) as w:
            w.write("y", np.zeros(2, np.float32))
    assert os.listdir(tmp_path) == []
    with pytest.raises(SafetensorsError) as caught:
        with SafetensorsWriter(path, [("x", "F32", (2,))]) as w:
            w.write("x", np.zeros(1, np.float32))
    assert str(caught.value) == f"{path}: not written: x"
    assert os.listdir(tmp_path) == []
    with pytest.raises(SafetensorsError, match="x: more data than its declared 8 bytes"):
        with SafetensorsWriter(path, [("x", "F32", (2,))]) as w:
            w.write("x", np.zeros(3, np.float32))
    with pytest.raises(SafetensorsError, match="x: float64 data for a F32 tensor"):
        with SafetensorsWriter(path, [("x", "F32", (2,))]) as w:
            w.write("x", np.zeros(2, np.float64))
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("header,data,message", [
    ({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 8,
     "x (F32 [2]) has data_offsets [0, 4], which do not hold 2 elements within the 8 data bytes"),
    ({"x": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 8,
     "x (F32 [2]) has data_offsets [4, 12], which do not hold 2 elements within the 8 data bytes"),
    ({"x": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8,
     "x has dtype C64, which this reader does not know"),
    ({"x": {"dtype": "F32", "shape": [1]}}, b"\0" * 4,
     "malformed header entry for 'x': {'dtype': 'F32', 'shape': [1]}"),
])
def test_reader_refusals(tmp_path, header, data, message):
    path = tmp_path / "m.safetensors"
    raw_file(path, header, data)
    with pytest.raises(SafetensorsError) as caught:
        SafetensorsFile(path)
    assert str(caught.value) == f"{path}: {message}"


def test_reader_refuses_truncated_and_non_json(tmp_path):
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", 1000) + b"{}")
    with pytest.raises(SafetensorsError) as caught:
        SafetensorsFile(path)
    assert str(caught.value) == f"{path}: header length 1000 does not fit the file (10 bytes)"
    path.write_bytes(struct.pack("<Q", 2) + b"{x")
    with pytest.raises(SafetensorsError, match="the header is not JSON"):
        SafetensorsFile(path)
    path.write_bytes(b"abc")
    with pytest.raises(SafetensorsError) as caught:
        SafetensorsFile(path)
    assert str(caught.value) == f"{path}: too short for a safetensors file (3 bytes)"
