"""qmat.shard: tensor-parallel shards of one layer's tensors, and
`qmat import --tp`; every shard's dequantization, concatenated along N or
K, is the full layer's bit for bit."""
import json
import os
import warnings
import zlib

import numpy as np
import pytest

import qmat
from qmat import checkpoint as ck
from qmat import reference as ref
from qmat import shard as sh
from qmat.cli import main as cli_main
from checkpoint_util import CONFIG, LINEARS, qmat_bits, write_checkpoint
from test_checkpoint_nvfp4 import HF_QUANT, modelopt_tensors

N = 48


def random_tensors(rng, layer):
    """Random bit patterns of every operand of `layer` (NaN codes included)."""
    n, k, cols = layer.n, layer.k, layer.scale_cols
    t = {}
    if layer.scheme == "fp8":
        t["weights"] = rng.integers(0, 256, (n, k), dtype=np.uint8)
        t["scales"] = rng.uniform(1e-3, 1.0, (n, cols)).astype(np.float32)
    else:
        t["weights"] = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)
    if layer.scheme == "nvfp4":
        t["scales"] = rng.integers(0, 256, (n, cols), dtype=np.uint8)
        t["global_scale"] = np.array([rng.uniform(1e-4, 1e-2)], dtype=np.float32)
    elif layer.scheme == "mxfp4":
        t["scales"] = rng.integers(100, 150, (n, cols), dtype=np.uint8)
    elif layer.scheme == "int4":
        t["scales"] = ref.round_to_act(rng.uniform(1e-3, 1e-1, (n, cols)).astype(np.float32),
                                       layer.act)
        if layer.zero_points:
            t["zero_points"] = rng.integers(0, 256, (n, -(-cols // 2)), dtype=np.uint8)
    if layer.bias:
        t["bias"] = ref.round_to_act(rng.standard_normal(n).astype(np.float32), layer.act)
    return t


def dequant(layer, t):
    gs = t.get("global_scale")
    return ref.dequantize(layer.scheme, t["weights"], t["scales"], layer.k, layer.act,
                          block=layer.block, global_scale=None if gs is None else float(gs[0]),
                          zero_points=t.get("zero_points"))


# (scheme, block, zero points, K, row TP degrees)
CASES = [
    ("nvfp4", 16, False, 192, (2, 3, 4)),
    ("mxfp4", 32, False, 192, (2, 3, 6)),
    ("fp8", 128, False, 384, (3,)),
    ("fp8", 128, False, 256, (2,)),
    ("int4", 32, False, 192, (2, 3)),
    ("int4", 32, True, 192, (2, 3, 6)),      # 3 and 1 blocks per rank: zero points re-packed
    ("int4", 32, True, 224, (7,)),           # 7 blocks, an odd count: the padding nibble
    ("int4", 64, True, 256, (2, 4)),
]


def case_id(case):
    scheme, block, zp, k, _ = case
    return f"{scheme}_b{block}{'_zp' if zp else ''}_k{k}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("act", ["bf16", "f16"])
def test_column_and_row_shards_concatenate_bit_exact(case, bias, act):
    scheme, block, zp, k, row_tps = case
    layer = qmat.Layer("w", scheme, N, k, block=block, act=act, bias=bias, zero_points=zp)
    rng = np.random.default_rng(zlib.crc32(case_id(case).encode()))
    t = random_tensors(rng, layer)
    full = dequant(layer, t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sh.ShardWarning)
        for tp in (1, 2, 3, 4, 6):
            shards = sh.shard_column(layer, t, tp)
            assert len(shards) == tp
            assert all(s.layer == shards[0].layer for s in shards)
            assert shards[0].layer.n == N // tp and shards[0].layer.k == k
            assert shards[0].layer.bias == bias
            got = np.concatenate([dequant(s.layer, s.tensors) for s in shards], axis=0)
            assert np.array_equal(got, full)
            if bias:
                assert np.array_equal(np.concatenate([s.tensors["bias"] for s in shards]),
                                      t["bias"])
            if scheme == "nvfp4":
                assert all(np.array_equal(s.tensors["global_scale"], t["global_scale"])
                           for s in shards)
        for tp in (1,) + row_tps:
            shards = sh.shard_row(layer, t, tp)
            s0 = shards[0].layer
            assert all(s.layer == s0 for s in shards)
            assert s0.n == N and s0.k == k // tp
            assert s0.bias == (bias and tp == 1)
            for s in shards:
                assert s.tensors["scales"].shape == (N, s0.scale_cols)
                assert s.tensors["weights"].shape == ((N, s0.k) if scheme == "fp8"
                                                      else (N, s0.k // 2))
                if zp:
                    assert s.tensors["zero_points"].shape == (N, -(-s0.scale_cols // 2))
            got = np.concatenate([dequant(s.layer, s.tensors) for s in shards], axis=1)
            assert np.array_equal(got, full)
            if bias and tp > 1:
                assert np.array_equal(shards[0].reduce_bias, t["bias"])
                assert all(s.reduce_bias is None and "bias" not in s.tensors
                           for s in shards[1:])
            if scheme == "nvfp4":
                assert all(np.array_equal(s.tensors["global_scale"], t["global_scale"])
                           for s in shards)


def test_replicate_and_one_rank():
    layer = qmat.Layer("w", "nvfp4", N, 64, bias=True)
    t = random_tensors(np.random.default_rng(0), layer)
    shards = sh.shard(layer, t, "replicate", 4)
    assert len(shards) == 4 and all(s.layer == layer for s in shards)
    assert all(np.array_equal(s.tensors[r], t[r]) for s in shards for r in t)
    one = sh.shard(layer, t, "row", 2, rank=1)
    assert one.rank == 1 and one.layer.k == 32 and one.reduce_bias is None


@pytest.mark.parametrize("scheme, n, k, block, kind, tp, message", [
    ("nvfp4", 48, 192, 16, "column", 5,
     "layer w: N = 48 cannot be split 5 ways (9.6 rows per rank; blocks of 16 run along K); "
     "legal TP degrees: 1, 2, 3, 4, 6, 8, 12, 16"),
    ("nvfp4", 48, 192, 16, "row", 5,
     "layer w: K = 192 in blocks of 16 cannot be split 5 ways (2.4 blocks per rank); "
     "legal TP degrees: 1, 2, 3, 4, 6, 12"),
    ("mxfp4", 48, 192, 32, "row", 4,
     "layer w: K = 192 in blocks of 32 cannot be split 4 ways (1.5 blocks per rank); "
     "legal TP degrees: 1, 2, 3, 6"),
    ("fp8", 48, 14784, 128, "row", 8,
     "layer w: K = 14784 in blocks of 128 cannot be split 8 ways (its last block is partial: "
     "115.5 blocks); legal TP degrees: 1"),
    ("fp8", 48, 14848, 128, "row", 8,
     "layer w: K = 14848 in blocks of 128 cannot be split 8 ways (14.5 blocks per rank); "
     "legal TP degrees: 1, 2, 4"),
    ("int4", 48, 66, 33, "row", 2,
     "layer w: K = 66 in blocks of 33 cannot be split 2 ways (shard K = 33 is odd and int4 "
     "packs two codes per byte); legal TP degrees: 1"),
    ("int4", 7, 64, 32, "column", 2,
     "layer w: N = 7 cannot be split 2 ways (3.5 rows per rank; blocks of 32 run along K); "
     "legal TP degrees: 1, 7"),
])
def test_illegal_splits_refused(scheme, n, k, block, kind, tp, message):
    layer = qmat.Layer("w", scheme, n, k, block=block)
    t = random_tensors(np.random.default_rng(0), layer)
    with pytest.raises(qmat.ShardError) as e:
        sh.shard(layer, t, kind, tp)
    assert str(e.value) == message
    assert isinstance(e.value, qmat.QMatError)
    with pytest.raises(qmat.ShardError):
        sh.shard(layer, t, kind, tp, rank=0)


def test_tensor_core_warning():
    layer = qmat.Layer("w", "nvfp4", N, 256)
    t = random_tensors(np.random.default_rng(0), layer)
    with pytest.warns(sh.ShardWarning, match="shard K = 64 is not a multiple of 128"):
        sh.shard_row(layer, t, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sh.shard_row(layer, t, 2)
        sh.shard_column(layer, t, 4)


def test_parallel_kind_rule():
    assert sh.parallel_kind("model.layers.0.self_attn.qkv_proj") == "column"
    assert sh.parallel_kind("model.layers.3.mlp.gate_up_proj") == "column"
    assert sh.parallel_kind("lm_head") == "column"
    assert sh.parallel_kind("model.layers.0.self_attn.o_proj") == "row"
    assert sh.parallel_kind("model.layers.0.mlp.down_proj") == "row"
    assert sh.parallel_kind("model.layers.0.mlp.router") == "replicate"


BIASED = ("model.layers.0.self_attn.k_proj", "model.layers.0.self_attn.o_proj")


def tp_checkpoint(tmp_path):
    rng = np.random.default_rng(11)
    tensors = modelopt_tensors(rng)
    for module in BIASED:
        bits = rng.standard_normal(LINEARS[module][0]).astype(np.float32).view(np.uint32)
        tensors[f"{module}.bias"] = ("BF16", (bits >> 16).astype(np.uint16))
    write_checkpoint(tmp_path / "ckpt", tensors, CONFIG, extra={"hf_quant_config.json": HF_QUANT})
    return tmp_path / "ckpt"


def test_import_tp2_concatenates_to_tp1(tmp_path):
    source = tp_checkpoint(tmp_path)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    assert cli_main(["import", str(source), "-o", str(tmp_path / "two"), "--tp", "2",
                     "--no-bundle", "-q"]) == 0
    one, two = ck.open_imported(tmp_path / "one"), ck.open_imported(tmp_path / "two")
    m = two.manifest
    assert m["tp"] == 2
    assert m["ranks"] == [["rank0/model.safetensors"], ["rank1/model.safetensors"]]
    assert m["weights"] == ["rank0/model.safetensors", "rank1/model.safetensors"]
    assert "tp" not in one.manifest and "files" not in json.dumps(one.manifest["linears"])
    # one module of shard shapes, shared by both ranks
    layers = {(l["name"], l["n"], l["k"], l["bias"]) for l in m["layers"]}
    assert layers == {("nvfp4_128x256", 128, 256, False), ("nvfp4_64x256", 64, 256, False),
                      ("nvfp4_64x256_bias", 64, 256, True), ("nvfp4_256x128", 256, 128, False),
                      ("nvfp4_256x256", 256, 256, False)}
    with open(tmp_path / "two" / "model.mlir") as f:
        assert "nvfp4_64x256_bias" in f.read()
    for module, (n, k) in LINEARS.items():
        entry = m["linears"][module]
        kind = sh.parallel_kind(module)
        assert entry["parallel"] == kind and entry["shape"] == [n, k]
        assert entry["files"] == ["rank0/model.safetensors", "rank1/model.safetensors"]
        full_layer, full_t = one.linear(module)
        full = qmat_bits(one, module)
        parts = []
        for rank in range(2):
            layer, t = two.linear(module, rank)
            assert (layer.n, layer.k) == ((n // 2, k) if kind == "column" else (n, k // 2))
            assert np.array_equal(t["global_scale"], full_t["global_scale"])
            parts.append(dequant(layer, t))
            if kind == "column" and "bias" in full_t:
                assert layer.bias
        got = np.concatenate(parts, axis=0 if kind == "column" else 1)
        assert np.array_equal(got, full)
        if module == "model.layers.0.self_attn.k_proj":
            assert np.array_equal(np.concatenate([two.linear(module, r)[1]["bias"]
                                                  for r in range(2)]), full_t["bias"])
        if module == "model.layers.0.self_attn.o_proj":
            assert entry["reduce_bias"] == f"{module}.bias" and "bias" not in entry["tensors"]
            assert np.array_equal(two.reduce_bias(module), full_t["bias"])
            assert f"{module}.bias" not in two.files["rank1/model.safetensors"].tensors
        else:
            assert two.reduce_bias(module) is None
    # unquantized tensors are copied to every rank
    for rank in range(2):
        f = two.files[f"rank{rank}/model.safetensors"]
        assert np.array_equal(f.get("model.embed_tokens.weight"),
                              one.tensor("model.embed_tokens.weight"))
    assert not os.path.exists(tmp_path / "two" / "model.safetensors")
    # over a tp 1 import: its weight files go
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True, tp=2)
    assert not os.path.exists(tmp_path / "one" / "model.safetensors")
    assert os.path.exists(tmp_path / "one" / "rank1" / "model.safetensors")


def test_import_tp_refused_before_output(tmp_path, capsys):
    source = tp_checkpoint(tmp_path)
    with pytest.raises(qmat.ShardError) as e:
        ck.import_checkpoint(source, tmp_path / "three", bundle=False, quiet=True, tp=3)
    assert str(e.value) == (
        "layer model.layers.0.mlp.down_proj: K = 512 in blocks of 16 cannot be split 3 ways "
        "(10.6667 blocks per rank); legal TP degrees: 1, 2, 4, 8, 16")
    assert not os.path.exists(tmp_path / "three")
    assert cli_main(["import", str(source), "-o", str(tmp_path / "three"), "--tp", "3",
                     "--no-bundle", "-q"]) == 1
    assert "cannot be split 3 ways" in capsys.readouterr().err
    with pytest.raises(qmat.ArgumentError):
        ck.import_checkpoint(source, tmp_path / "zero", bundle=False, quiet=True, tp=0)
