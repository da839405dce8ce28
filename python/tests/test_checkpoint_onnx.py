"""ONNX models with com.microsoft MatMulNBits nodes, written here by a
small protobuf encoder (raw, int32_data and external-data initializers),
imported and compared bit for bit with the op's dequantization."""
import os
import struct

import numpy as np
import pytest

from qmat import checkpoint as ck
from checkpoint_util import assert_same_bits, qmat_bits

ONNX_TYPE = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int32): 6,
             np.dtype(np.int64): 7, np.dtype(np.float16): 10}


def varint(v):
    v &= (1 << 64) - 1
    out = b""
    while True:
        byte, v = v & 0x7F, v >> 7
        out += bytes([byte | (0x80 if v else 0)])
        if not v:
            return out


def field(number, payload=None, value=None):
    """A length-delimited field (payload bytes / str) or a varint one (value)."""
    if value is not None:
        return varint(number << 3) + varint(value)
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def tensor(name, array, store="raw", external=None):
    array = np.asarray(array)
    out = b"".join(field(1, value=d) for d in array.shape)
    out += field(2, value=ONNX_TYPE[array.dtype]) + field(8, name)
    if store == "raw":
        out += field(9, array.tobytes())
    elif store == "int32":   # one value's bits per int32 (packed)
        bits = array.view(np.uint16) if array.dtype == np.float16 else array
        out += field(5, b"".join(varint(int(v)) for v in bits.reshape(-1)))
    else:                    # external: location, offset, length in a data file
        path, offset = external
        with open(path, "r+b" if os.path.exists(path) else "wb") as f:
            f.seek(offset)
            f.write(array.tobytes())
        for key, val in (("location", os.path.basename(path)), ("offset", str(offset)),
                         ("length", str(array.nbytes))):
            out += field(13, field(1, key) + field(2, val))
        out += field(14, value=1)
    return out


def node(name, inputs, attrs):
    out = b"".join(field(1, i) for i in inputs) + field(2, name + "_Y") + field(3, name)
    out += field(4, "MatMulNBits") + field(7, "com.microsoft")
    for key, value in attrs.items():
        out += field(5, field(1, key) + field(3, value=value) + field(20, value=2))
    return out


def model(nodes, initializers):
    graph = b"".join(field(1, n) for n in nodes) + field(2, "g")
    graph += b"".join(field(5, t) for t in initializers)
    opsets = field(8, field(1, "") + field(2, value=17)) + field(
        8, field(1, "com.microsoft") + field(2, value=1))
    return field(1, value=8) + opsets + field(7, graph)


def nbits_layer(rng, n, k, bs, zero="packed"):
    nb = -(-k // bs)
    q = rng.integers(0, 16, (n, nb * bs))
    b = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8).reshape(n, nb, bs // 2)
    s = rng.uniform(1e-3, 3e-2, (n, nb)).astype(np.float16)
    zp = rng.integers(0, 16, (n, nb)) if zero else np.full((n, nb), 8)
    packed = None
    if zero == "packed":
        padded = np.pad(zp, ((0, 0), (0, nb % 2)))
        packed = (padded[:, 0::2] | (padded[:, 1::2] << 4)).astype(np.uint8).reshape(-1)
    # w[n, k] = (q - zero_point[n, k / bs]) * scale[n, k / bs]
    w = (q - np.repeat(zp, bs, axis=1)) * np.repeat(s.astype(np.float32), bs, axis=1)
    return b, s, zp, packed, w[:, :k].astype(np.float32)


def test_onnx_matmulnbits_bit_exact(tmp_path):
    rng = np.random.default_rng(50)
    data = str(tmp_path / "model.onnx.data")
    b1, s1, _, z1, w1 = nbits_layer(rng, 64, 384, 128)            # 3 blocks: a padded zp nibble
    b2, s2, _, _, w2 = nbits_layer(rng, 128, 256, 32, zero=None)    # default zero point 8
    b3, s3, zp3, _, w3 = nbits_layer(rng, 96, 200, 64, zero="f16")  # partial last block
    bias = rng.standard_normal(64).astype(np.float16)
    embed = rng.standard_normal((10, 4)).astype(np.float16)
    inits = [tensor("q.B", b1), tensor("q.S", s1.reshape(-1)), tensor("q.Z", z1),
             tensor("q.bias", bias, store="int32"),
             tensor("o.B", b2, store="external", external=(data, 0)),
             tensor("o.S", s2.reshape(-1), store="external", external=(data, b2.nbytes)),
             tensor("d.B", b3), tensor("d.S", s3), tensor("d.Z", zp3.astype(np.float16),
                                                           store="int32"),
             tensor("d.g_idx", (np.arange(200) // 64).astype(np.int32)),
             tensor("embed", embed)]
    nodes = [node("/layers.0/q_proj/MatMulNBits", ["x", "q.B", "q.S", "q.Z", "", "q.bias"],
                  {"K": 384, "N": 64, "bits": 4, "block_size": 128}),
             node("/layers.0/o_proj/MatMulNBits", ["x", "o.B", "o.S"],
                  {"K": 256, "N": 128, "block_size": 32}),
             node("/layers.0/down/MatMulNBits", ["x", "d.B", "d.S", "d.Z", "d.g_idx"],
                  {"K": 200, "N": 96, "bits": 4, "block_size": 64})]
    (tmp_path / "model.onnx").write_bytes(model(nodes, inits))
    result = ck.import_checkpoint(tmp_path / "model.onnx", tmp_path / "out", bundle=False,
                                  quiet=True)
    assert result.manifest["source"]["format"] == "onnx" and result.manifest["act"] == "f16"
    imported = ck.open_imported(tmp_path / "out")
    want = {"/layers.0/q_proj/MatMulNBits": w1, "/layers.0/o_proj/MatMulNBits": w2,
            "/layers.0/down/MatMulNBits": w3}
    for module, w in want.items():
        assert_same_bits(qmat_bits(imported, module), w, "f16")
    layer, t = imported.linear("/layers.0/q_proj/MatMulNBits")
    assert (layer.name, layer.bias, layer.zero_points) == ("int4_64x384_b128_zp_bias", True, True)
    assert np.array_equal(t["bias"], bias)
    assert imported.linear("/layers.0/o_proj/MatMulNBits")[0].name == "int4_128x256"
    assert imported.linear("/layers.0/down/MatMulNBits")[0].name == "int4_96x200_b64_zp"
    assert result.manifest["unquantized"] == ["embed"]
    assert np.array_equal(imported.tensor("embed"), embed)


def test_onnx_refusals(tmp_path):
    rng = np.random.default_rng(51)
    b, s, zp, packed, _ = nbits_layer(rng, 64, 256, 128)

    def refused(inits, attrs, inputs, message, error):
        path = tmp_path / f"m{len(os.listdir(tmp_path))}.onnx"
        path.write_bytes(model([node("mm", inputs, attrs)], inits))
        with pytest.raises(error) as caught:
            ck.import_checkpoint(path, tmp_path / "out", bundle=False, quiet=True)
        assert str(caught.value) == message
        assert not os.path.exists(tmp_path / "out")

    base = [tensor("B", b), tensor("S", s.reshape(-1))]
    attrs = {"K": 256, "N": 64, "block_size": 128}
    refused(base, dict(attrs, bits=8), ["x", "B", "S"],
            "MatMulNBits node mm: bits 8; qmat reads 4-bit MatMulNBits only",
            ck.UnsupportedFormatError)
    refused(base + [tensor("g", (np.arange(256) % 2).astype(np.int32))], attrs,
            ["x", "B", "S", "", "g"],
            "g: act-order (g_idx) puts k = 1 in group 1, not 1 // 128 = 0; qmat's blocks are "
            "runs of 128 consecutive k (quantize without act-order, or with static groups)",
            ck.UnsupportedFormatError)
    refused(base + [tensor("Z", np.full((64, 2), 7.5, np.float16))], attrs,
            ["x", "B", "S", "Z"],
            "Z: zero point 7.5 at [0, 0] is not an integer in 0..15 (qmat's u4 zero points)",
            ck.InexactError)
    refused(base, dict(attrs, K=512), ["x", "B", "S"],
            "B: U8 [64, 2, 64], expected U8 [64, 4, 64] (N, ceil(K/block_size), block_size/2) "
            "for MatMulNBits node mm", ck.ShapeError)
    refused([tensor("B", b), tensor("S", s.reshape(-1).astype(np.float32) * np.float32(1.001))],
            attrs, ["x", "B", "S"],
            f"S: F32 value {float(np.float32(s.reshape(-1)[0]) * np.float32(1.001))!r} at "
            f"[0, 0] is not exactly a bf16 value (qmat's int4 scales are bf16, the activation "
            f"type; import with act matching the scales' dtype)", ck.InexactError)


def test_onnx_missing_external_data(tmp_path):
    rng = np.random.default_rng(52)
    b, s, _, _, _ = nbits_layer(rng, 64, 256, 128, zero=None)
    data = str(tmp_path / "weights.data")
    inits = [tensor("B", b, store="external", external=(data, 0)), tensor("S", s.reshape(-1))]
    (tmp_path / "model.onnx").write_bytes(
        model([node("mm", ["x", "B", "S"], {"K": 256, "N": 64, "block_size": 128})], inits))
    os.unlink(data)
    with pytest.raises(ck.MissingTensorError) as caught:
        ck.import_checkpoint(tmp_path, tmp_path / "out", bundle=False, quiet=True)  # the directory
    assert str(caught.value) == f"B: its external data ({data}, bytes 0..{b.nbytes}) is missing"
    assert not os.path.exists(tmp_path / "out")
