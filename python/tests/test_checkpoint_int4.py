"""INT4 checkpoints: compressed-tensors pack-quantized, GPTQ (v1, v2,
symmetric, with zero points, trivial act-order) and AWQ, packed here from
each format's definition and compared bit for bit with qmat's dequantization
of the import."""
import numpy as np
import pytest

from qmat import checkpoint as ck
from checkpoint_util import (CONFIG, LINEARS, act_values, assert_same_bits, qmat_bits,
                             unquantized, write_checkpoint)

AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]  # nibble i of a word holds column 8c + AWQ_ORDER[i]


def pack_words(values, axis, order=range(8)):
    """Eight 4-bit values per int32 along `axis` (padded with zeros): value
    `order[i]` of each run of eight in bits 4i..4i+3."""
    values = np.moveaxis(np.asarray(values, dtype=np.uint32), axis, -1)
    pad = -values.shape[-1] % 8
    values = np.pad(values, [(0, 0)] * (values.ndim - 1) + [(0, pad)])
    runs = values.reshape(values.shape[:-1] + (-1, 8))
    words = np.zeros(runs.shape[:-1], dtype=np.uint32)
    for i, column in enumerate(order):
        words |= (runs[..., column] & 0xF) << np.uint32(4 * i)
    return np.moveaxis(words.view(np.int32), -1, axis)


def scales_of(rng, shape, dtype):
    values = rng.uniform(2e-3, 3e-2, shape).astype(np.float32)
    if dtype == "F16":
        return values.astype(np.float16)
    return ("BF16", (values.view(np.uint32) >> 16).astype(np.uint16))


def expand(per_group, k, group):
    return np.repeat(per_group, group, axis=-1)[..., :k]


# ---- compressed-tensors pack-quantized ------------------------------------------------------

def ct_int4_config(symmetric=True, group_size=128, strategy="group"):
    w = {"num_bits": 4, "type": "int", "symmetric": symmetric, "strategy": strategy,
         "group_size": group_size if strategy == "group" else None, "actorder": None}
    qc = {"quant_method": "compressed-tensors", "format": "pack-quantized",
          "quantization_status": "compressed",
          "config_groups": {"group_0": {"targets": ["Linear"], "weights": w,
                                        "format": "pack-quantized"}}, "ignore": ["lm_head"]}
    return dict(CONFIG, quantization_config=qc)


@pytest.mark.parametrize("symmetric,strategy,dtype", [
    (True, "group", "BF16"), (False, "group", "BF16"), (True, "channel", "F16"),
    (False, "channel", "BF16")])
def test_compressed_tensors_int4_bit_exact(tmp_path, symmetric, strategy, dtype):
    rng = np.random.default_rng(10)
    tensors, want = unquantized(rng), {}
    group = 64
    for module, (n, k) in LINEARS.items():
        g = k if strategy == "channel" else group
        cols = k // g
        q = rng.integers(-8, 8, (n, k))
        tensors[f"{module}.weight_packed"] = pack_words(q + 8, axis=1)
        tensors[f"{module}.weight_shape"] = np.array([n, k], dtype=np.int32)
        scale = scales_of(rng, (n, cols), dtype)
        tensors[f"{module}.weight_scale"] = scale
        s = act_values(scale[1] if dtype == "BF16" else scale, dtype)
        zp = np.zeros((n, cols), dtype=np.int64)
        if not symmetric:
            zp = rng.integers(-8, 8, (n, cols))
            tensors[f"{module}.weight_zero_point"] = pack_words(zp + 8, axis=0)
        want[module] = ((q - expand(zp, k, g)) * expand(s, k, g)).astype(np.float32)
    write_checkpoint(tmp_path / "ckpt", tensors, ct_int4_config(symmetric, group, strategy))
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True)
    act = {"BF16": "bf16", "F16": "f16"}[dtype]
    assert result.manifest["act"] == act   # the scales' dtype
    imported = ck.open_imported(tmp_path / "out")
    for module, (n, k) in LINEARS.items():
        layer, t = imported.linear(module)
        assert (layer.scheme, layer.block, layer.zero_points) == (
            "int4", k if strategy == "channel" else group, not symmetric)
        assert sorted(t) == sorted(["weights", "scales"] + ([] if symmetric else ["zero_points"]))
        assert_same_bits(qmat_bits(imported, module), want[module], act)


def test_compressed_tensors_int4_tensor_scale_and_odd_rows(tmp_path):
    """One scale for the tensor (broadcast to qmat's [N, 1]); N = 100 is not
    a multiple of 8 (the zero-point packing's unit), K = 200 not of 8 (the
    codes' word)."""
    rng = np.random.default_rng(11)
    n, k = 100, 200
    module = "model.layers.0.mlp.extra_proj"
    q = rng.integers(-8, 8, (n, k))
    tensors = {f"{module}.weight_packed": pack_words(q + 8, axis=1),
               f"{module}.weight_shape": np.array([n, k], dtype=np.int64),
               f"{module}.weight_scale": np.array([0.0078125], dtype=np.float32)}
    config = ct_int4_config(strategy="tensor")
    write_checkpoint(tmp_path / "ckpt", tensors, config)
    ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", act="bf16", bundle=False,
                         quiet=True)
    imported = ck.open_imported(tmp_path / "out")
    layer, t = imported.linear(module)
    assert (layer.n, layer.k, layer.block) == (n, k, k) and t["scales"].shape == (n, 1)
    assert_same_bits(qmat_bits(imported, module), (q * 0.0078125).astype(np.float32), "bf16")
    # Asymmetric with N = 100: zero points packed along N over 13 words.
    zp = rng.integers(-8, 8, (n, 4))
    tensors = {f"{module}.weight_packed": pack_words(q + 8, axis=1),
               f"{module}.weight_shape": np.array([n, k], dtype=np.int32),
               f"{module}.weight_scale": np.full((n, 4), 0.25, dtype=np.float16),
               f"{module}.weight_zero_point": pack_words(zp + 8, axis=0)}
    assert tensors[f"{module}.weight_zero_point"].shape == (13, 4)
    write_checkpoint(tmp_path / "ckpt2", tensors, ct_int4_config(False, 50))
    ck.import_checkpoint(tmp_path / "ckpt2", tmp_path / "out2", bundle=False, quiet=True)
    imported = ck.open_imported(tmp_path / "out2")
    assert_same_bits(qmat_bits(imported, module),
                     ((q - expand(zp, k, 50)) * 0.25).astype(np.float32), "f16")


# ---- GPTQ -----------------------------------------------------------------------------------

def gptq_checkpoint(tmp_path, rng, sym, fmt="gptq", group=128, g_idx=True, desc_act=False):
    tensors, want = unquantized(rng), {}
    for module, (n, k) in LINEARS.items():
        g = k if group == -1 else group
        cols = -(-k // g)
        q = rng.integers(0, 16, (k, n))
        zero = np.full((cols, n), 8) if sym else rng.integers(1, 16, (cols, n))
        stored_zero = zero - 1 if fmt == "gptq" else zero
        scale = rng.uniform(2e-3, 3e-2, (cols, n)).astype(np.float16)
        tensors[f"{module}.qweight"] = pack_words(q, axis=0)
        tensors[f"{module}.qzeros"] = pack_words(stored_zero, axis=1)
        tensors[f"{module}.scales"] = scale
        if g_idx:
            tensors[f"{module}.g_idx"] = (np.arange(k) // g).astype(np.int32)
        # GPTQ: W[k, n] = (q[k, n] - zero[g_idx[k], n]) * scale[g_idx[k], n], in fp16.
        groups = np.arange(k) // g
        w = (q - zero[groups]) * scale[groups].astype(np.float32)
        want[module] = np.ascontiguousarray(w.T).astype(np.float32)
    qc = {"quant_method": "gptq", "bits": 4, "group_size": group, "sym": sym,
          "desc_act": desc_act, "checkpoint_format": fmt}
    write_checkpoint(tmp_path / "ckpt", tensors, dict(CONFIG, quantization_config=qc,
                                                      torch_dtype="float16"), files=2)
    return tensors, want


@pytest.mark.parametrize("sym,fmt,group,desc_act", [
    (True, "gptq", 128, False), (False, "gptq", 128, True), (False, "gptq_v2", 64, False),
    (True, "gptq", -1, False)])
def test_gptq_bit_exact(tmp_path, sym, fmt, group, desc_act):
    rng = np.random.default_rng(20)
    tensors, want = gptq_checkpoint(tmp_path, rng, sym, fmt, group, desc_act=desc_act)
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True)
    assert result.manifest["act"] == "f16"
    imported = ck.open_imported(tmp_path / "out")
    for module, (n, k) in LINEARS.items():
        layer, t = imported.linear(module)
        assert (layer.scheme, layer.block, layer.zero_points) == (
            "int4", k if group == -1 else group, not sym)
        assert_same_bits(qmat_bits(imported, module), want[module], "f16")
        entry = result.manifest["linears"][module]
        assert entry["format"] == "gptq" and f"{module}.g_idx" in entry["source_tensors"]
    # int4's default block is 32, so the block is in every name here.
    name = f"int4_512x256_b{256 if group == -1 else group}{'' if sym else '_zp'}"
    assert result.manifest["linears"]["model.layers.0.mlp.up_proj"]["layer"] == name


def test_gptq_bf16_activations_with_bf16_exact_scales(tmp_path):
    """fp16 scales that bf16 holds exactly import for bf16 activations."""
    rng = np.random.default_rng(21)
    tensors, want = gptq_checkpoint(tmp_path, rng, sym=False, g_idx=False)
    for module in LINEARS:
        s = tensors[f"{module}.scales"].astype(np.float32)
        tensors[f"{module}.scales"] = ((s.view(np.uint32) >> 16) << 16).view(np.float32) \
            .astype(np.float16)
    import shutil
    shutil.rmtree(tmp_path / "ckpt")
    write_checkpoint(tmp_path / "ckpt", tensors,
                     dict(CONFIG, quantization_config={"quant_method": "gptq", "bits": 4,
                                                       "group_size": 128, "sym": False}))
    ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", act="bf16", bundle=False,
                         quiet=True)
    imported = ck.open_imported(tmp_path / "out")
    for module, (n, k) in LINEARS.items():
        q = np.stack([(tensors[f"{module}.qweight"].view(np.uint32) >> np.uint32(4 * j)) & 0xF
                      for j in range(8)], axis=1).reshape(k, n).astype(np.int64)
        zero = np.stack([(tensors[f"{module}.qzeros"].view(np.uint32) >> np.uint32(4 * j)) & 0xF
                         for j in range(8)], axis=2).reshape(-1, n).astype(np.int64) + 1
        groups = np.arange(k) // 128
        w = (q - zero[groups]) * tensors[f"{module}.scales"][groups].astype(np.float32)
        assert_same_bits(qmat_bits(imported, module), np.ascontiguousarray(w.T), "bf16")


# ---- AWQ ------------------------------------------------------------------------------------

def test_awq_bit_exact(tmp_path):
    rng = np.random.default_rng(30)
    tensors, want = unquantized(rng), {}
    group = 64
    for module, (n, k) in LINEARS.items():
        cols = k // group
        q = rng.integers(0, 16, (k, n))
        zero = rng.integers(0, 16, (cols, n))
        scale = rng.uniform(2e-3, 3e-2, (cols, n)).astype(np.float16)
        tensors[f"{module}.qweight"] = pack_words(q, axis=1, order=AWQ_ORDER)
        tensors[f"{module}.qzeros"] = pack_words(zero, axis=1, order=AWQ_ORDER)
        tensors[f"{module}.scales"] = scale
        groups = np.arange(k) // group
        w = (q - zero[groups]) * scale[groups].astype(np.float32)
        want[module] = np.ascontiguousarray(w.T)
    qc = {"quant_method": "awq", "bits": 4, "group_size": group, "zero_point": True,
          "version": "gemm"}
    write_checkpoint(tmp_path / "ckpt", tensors, dict(CONFIG, quantization_config=qc))
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True,
                                  chunk_bytes=4096)   # many row chunks per tensor
    assert result.manifest["act"] == "f16"
    imported = ck.open_imported(tmp_path / "out")
    for module, (n, k) in LINEARS.items():
        layer, t = imported.linear(module)
        assert (layer.scheme, layer.block, layer.zero_points) == ("int4", group, True)
        assert_same_bits(qmat_bits(imported, module), want[module], "f16")
    # The interleave matters: reading the words in plain order gives other weights.
    module = "model.layers.0.self_attn.q_proj"
    plain = pack_words(np.asarray(want[module] != 0, dtype=np.uint32), axis=1)
    assert not np.array_equal(plain, tensors[f"{module}.qweight"])
