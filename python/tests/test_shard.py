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
from checkpoint_util import CONFIG, LINEARS, qmat_bits, unquantized, write_checkpoint
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


# A model whose attention and MLP projections are fused (Phi-3 style), for CONFIG.
QKV_PROJ, GATE_UP_PROJ = "model.layers.0.self_attn.qkv_proj", "model.layers.0.mlp.gate_up_proj"
FUSED_LINEARS = {
    QKV_PROJ: (512, 256),                         # q 4 x 64, k 2 x 64, v 2 x 64
    "model.layers.0.self_attn.o_proj": (256, 256),
    GATE_UP_PROJ: (1024, 256),                    # gate 512, up 512
    "model.layers.0.mlp.down_proj": (256, 512),
}


def fused_checkpoint(directory, scheme="nvfp4", config=None, seed=12):
    """A checkpoint of FUSED_LINEARS (ModelOpt NVFP4, or block-scaled FP8
    with 128 x 128 tiles) with a bias on qkv_proj; returns its tensors."""
    rng = np.random.default_rng(seed)
    tensors = {name: value for name, value in unquantized(rng).items()
               if name != "lm_head.weight"}
    for module, (n, k) in FUSED_LINEARS.items():
        if scheme == "nvfp4":
            tensors[f"{module}.weight"] = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)
            tensors[f"{module}.weight_scale"] = ("F8_E4M3", rng.integers(0, 0x7F, (n, k // 16),
                                                                         dtype=np.uint8))
            tensors[f"{module}.weight_scale_2"] = np.array(rng.uniform(2e-5, 4e-4), np.float32)
        else:
            tensors[f"{module}.weight"] = ("F8_E4M3", rng.integers(0, 256, (n, k),
                                                                   dtype=np.uint8))
            tensors[f"{module}.weight_scale_inv"] = rng.uniform(
                1e-4, 1e-2, (-(-n // 128), -(-k // 128))).astype(np.float32)
    bits = rng.standard_normal(512).astype(np.float32).view(np.uint32)
    tensors[f"{QKV_PROJ}.bias"] = ("BF16", (bits >> 16).astype(np.uint16))
    config = dict(CONFIG if config is None else config)
    extra = None
    if scheme == "nvfp4":
        extra = {"hf_quant_config.json": HF_QUANT}
    else:
        config["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3",
                                         "activation_scheme": "dynamic",
                                         "weight_block_size": [128, 128]}
    write_checkpoint(directory, tensors, config, extra=extra)
    return tensors


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
    # k_proj's 2 kv heads come first: a rank holds whole heads
    assert str(e.value) == (
        "layer model.layers.0.self_attn.k_proj: part k (rows 0..128 of N = 128) has 2 heads "
        "of 64 rows, fewer than tp = 3, which is not a multiple of 2, so they can be neither "
        "split nor replicated evenly (1.5 ranks per head); legal TP degrees: 1, 2, 4, 6, 8, "
        "10, 12, 14, 16")
    assert not os.path.exists(tmp_path / "three")
    assert cli_main(["import", str(source), "-o", str(tmp_path / "three"), "--tp", "3",
                     "--no-bundle", "-q"]) == 1
    assert "neither split nor replicated evenly" in capsys.readouterr().err
    with pytest.raises(qmat.ArgumentError):
        ck.import_checkpoint(source, tmp_path / "zero", bundle=False, quiet=True, tp=0)


@pytest.mark.filterwarnings("ignore::qmat.shard.ShardWarning")
def test_import_tp4_keeps_separate_projections_in_whole_heads(tmp_path):
    """Separate q_proj / k_proj / v_proj: whole heads per rank; the 2 kv heads
    at tp 4 are each held by 2 ranks, not cut in halves."""
    source = tp_checkpoint(tmp_path)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    ck.import_checkpoint(source, tmp_path / "four", bundle=False, quiet=True, tp=4)
    one, four = ck.open_imported(tmp_path / "one"), ck.open_imported(tmp_path / "four")
    q, k = "model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj"
    assert four.manifest["linears"][q]["parts"] == [
        {"name": "q", "size": 256, "rank_size": 64, "heads": 4, "rank_heads": 1}]
    assert four.manifest["linears"][k]["parts"] == [
        {"name": "k", "size": 128, "rank_size": 64, "heads": 2, "rank_heads": 1, "replicas": 2}]
    _, full_q = one.linear(q)
    _, full_k = one.linear(k)
    for rank in range(4):
        _, rank_q = four.linear(q, rank)
        _, rank_k = four.linear(k, rank)
        rows = slice(64 * rank, 64 * (rank + 1))
        head = slice(64 * (rank // 2), 64 * (rank // 2 + 1))
        for role in ("weights", "scales"):
            assert np.array_equal(rank_q[role], full_q[role][rows])
            assert np.array_equal(rank_k[role], full_k[role][head])


# --- fused layers: gate_up_proj and qkv_proj, split part by part ----------------

I_SIZE = 48                       # gate and up rows each
HQ, HKV, HD = 4, 2, 16            # q heads, kv heads, head rows
GATE_UP = (sh.Part("gate", I_SIZE), sh.Part("up", I_SIZE))
QKV = (sh.Part("q", HQ * HD, heads=HQ), sh.Part("k", HKV * HD, heads=HKV, replicate=True),
       sh.Part("v", HKV * HD, heads=HKV, replicate=True))
FUSED_SCHEMES = [("nvfp4", 16, False, 192), ("int4", 32, True, 192), ("fp8", 128, False, 256)]


def expected_rows(which, tp, rank):
    """The whole layer's rows that `rank` holds, part by part, written out
    from the rules (not from qmat.shard): a rank's share of each part, a kv
    head fewer than tp on tp / HKV consecutive ranks."""
    if which == "gate_up":
        w = I_SIZE // tp
        return {"gate": np.arange(rank * w, (rank + 1) * w),
                "up": I_SIZE + np.arange(rank * w, (rank + 1) * w)}
    q = (HQ // tp) * HD
    rows = {"q": np.arange(rank * q, (rank + 1) * q)}
    if HKV >= tp:
        kv = (HKV // tp) * HD
        first = rank * kv
    else:
        kv = HD
        first = (rank // (tp // HKV)) * HD
    rows["k"] = HQ * HD + np.arange(first, first + kv)
    rows["v"] = (HQ + HKV) * HD + np.arange(first, first + kv)
    return rows


@pytest.mark.parametrize("scheme, block, zp, k", FUSED_SCHEMES,
                         ids=[f"{s[0]}{'_zp' if s[2] else ''}" for s in FUSED_SCHEMES])
@pytest.mark.parametrize("which, tps", [("gate_up", (1, 2, 3, 4, 6)), ("qkv", (1, 2, 4))])
@pytest.mark.parametrize("bias", [False, True])
def test_fused_shards_reassemble_per_part_bit_exact(scheme, block, zp, k, which, tps, bias):
    parts = GATE_UP if which == "gate_up" else QKV
    n = sum(p.size for p in parts)
    layer = qmat.Layer(which, scheme, n, k, block=block, act="bf16", bias=bias, zero_points=zp)
    rng = np.random.default_rng(zlib.crc32(f"{scheme}{which}{bias}".encode()))
    t = random_tensors(rng, layer)
    full = dequant(layer, t)
    offsets = np.cumsum([0] + [p.size for p in parts])
    whole = {p.name: full[offsets[i]:offsets[i + 1]] for i, p in enumerate(parts)}
    assert sum(v.size for v in whole.values()) == full.size
    for tp in tps:
        shards = sh.shard_column(layer, t, tp, parts=parts)
        assert len(shards) == tp and all(s.layer == shards[0].layer for s in shards)
        sizes = [len(expected_rows(which, tp, 0)[p.name]) for p in parts]
        assert shards[0].layer.n == sum(sizes) and shards[0].layer.k == k
        assert shards[0].layer == sh.shard_layer(layer, "column", tp, parts=parts)
        assert [s.rank_size for s in shards[0].parts] == sizes
        pieces = {p.name: [] for p in parts}
        for s in shards:
            rows = expected_rows(which, tp, s.rank)
            order = np.concatenate([rows[p.name] for p in parts])
            # every operand is the whole layer's rows, in part order
            for role in ("weights", "scales", "zero_points", "bias"):
                if role in t:
                    assert np.array_equal(s.tensors[role], t[role][order]), role
            if scheme == "nvfp4":
                assert np.array_equal(s.tensors["global_scale"], t["global_scale"])
            mine = dequant(s.layer, s.tensors)
            local = 0
            for p, size in zip(parts, sizes):
                pieces[p.name].append(mine[local:local + size])
                local += size
        for p in parts:
            replicas = tp // HKV if (p.replicate and HKV < tp) else 1
            got = pieces[p.name]
            for r in range(tp):   # a replicated head is the same on each of its ranks
                assert np.array_equal(got[r], got[r - r % replicas])
            assert np.array_equal(np.concatenate(got[::replicas], axis=0), whole[p.name]), p.name


def test_fused_split_is_not_the_block_split():
    """Without parts, rank 0 of a tp 2 split of [gate; up] holds all of gate
    and none of up; with them, half of each."""
    layer = qmat.Layer("gate_up", "nvfp4", 2 * I_SIZE, 64)
    t = random_tensors(np.random.default_rng(3), layer)
    block = sh.shard_column(layer, t, 2)[0]
    fused = sh.shard_column(layer, t, 2, parts=GATE_UP)[0]
    assert np.array_equal(block.tensors["weights"], t["weights"][:I_SIZE])
    assert np.array_equal(fused.tensors["weights"],
                          np.concatenate([t["weights"][:I_SIZE // 2],
                                          t["weights"][I_SIZE:I_SIZE + I_SIZE // 2]]))
    assert block.parts is None
    assert [s.describe() for s in fused.parts] == [
        {"name": "gate", "size": 48, "rank_size": 24}, {"name": "up", "size": 48, "rank_size": 24}]
    # sizes and (name, size) pairs are parts too
    same = sh.shard_column(layer, t, 2, parts=[("gate", 48), ("up", 48)])[1]
    assert np.array_equal(same.tensors["scales"],
                          sh.shard_column(layer, t, 2, parts=(48, 48))[1].tensors["scales"])
    assert [s.part.name for s in same.parts] == ["gate", "up"]


def test_replicated_kv_heads_are_described():
    splits = sh.check_parts("qkv", QKV, 128, 4)
    assert [s.describe() for s in splits] == [
        {"name": "q", "size": 64, "rank_size": 16, "heads": 4, "rank_heads": 1},
        {"name": "k", "size": 32, "rank_size": 16, "heads": 2, "rank_heads": 1, "replicas": 2},
        {"name": "v", "size": 32, "rank_size": 16, "heads": 2, "rank_heads": 1, "replicas": 2}]
    assert [splits[1].rows(r) for r in range(4)] == [(64, 80), (64, 80), (80, 96), (80, 96)]
    assert sh.legal_part_degrees(QKV) == [1, 2, 4]
    assert sh.legal_part_degrees(GATE_UP) == [1, 2, 3, 4, 6, 8, 12, 16]


def test_fused_parts_from_config():
    cfg = dict(CONFIG)
    assert sh.fused_parts("model.layers.0.mlp.gate_up_proj", cfg, 1024) == (
        sh.Part("gate", 512), sh.Part("up", 512))
    assert sh.fused_parts("model.layers.0.self_attn.qkv_proj", cfg, 512) == (
        sh.Part("q", 256, heads=4), sh.Part("k", 128, heads=2, replicate=True),
        sh.Part("v", 128, heads=2, replicate=True))
    # separate projections: one part of whole heads (k and v replicable)
    assert sh.fused_parts("model.layers.0.self_attn.q_proj", cfg) == (sh.Part("q", 256, heads=4),)
    assert sh.fused_parts("model.layers.0.self_attn.v_proj", cfg, 128) == (
        sh.Part("v", 128, heads=2, replicate=True),)
    assert sh.fused_parts("model.layers.0.self_attn.k_proj", {}) is None   # no heads: rows
    # head_dim from hidden_size / num_attention_heads; kv heads default to the q heads
    no_dim = {k: v for k, v in cfg.items() if k not in ("head_dim", "num_key_value_heads")}
    assert sh.fused_parts("m.qkv_proj", no_dim) == (
        sh.Part("q", 256, heads=4), sh.Part("k", 256, heads=4, replicate=True),
        sh.Part("v", 256, heads=4, replicate=True))
    moe = dict(cfg, moe_intermediate_size=96, n_shared_experts=2,
               shared_expert_intermediate_size=64)
    assert sh.fused_parts("model.layers.0.mlp.experts.3.gate_up_proj", moe)[0].size == 96
    assert sh.fused_parts("model.layers.0.mlp.shared_expert.gate_up_proj", moe)[0].size == 64
    assert sh.fused_parts("model.layers.0.mlp.shared_experts.gate_up_proj", moe)[0].size == 192


@pytest.mark.parametrize("module, config, n, message", [
    ("model.layers.0.mlp.gate_up_proj", {"hidden_size": 256}, None,
     "layer model.layers.0.mlp.gate_up_proj: a fused gate_up_proj is split part by part, but "
     "config.json gives no intermediate_size (pass import_checkpoint's parts=, or qmat.shard's "
     "parts=)"),
    ("model.layers.0.mlp.experts.0.gate_up_proj", CONFIG, None,
     "layer model.layers.0.mlp.experts.0.gate_up_proj: a fused gate_up_proj is split part by "
     "part, but config.json gives no moe_intermediate_size (pass import_checkpoint's parts=, or "
     "qmat.shard's parts=)"),
    ("model.layers.0.self_attn.qkv_proj", {"num_attention_heads": 4}, None,
     "layer model.layers.0.self_attn.qkv_proj: a fused qkv_proj is split part by part, but "
     "config.json gives no num_attention_heads, num_key_value_heads and head_dim (or "
     "hidden_size) (pass import_checkpoint's parts=, or qmat.shard's parts=)"),
    ("model.layers.0.self_attn.qkv_proj", dict(CONFIG, kv_lora_rank=512), None,
     "layer model.layers.0.self_attn.qkv_proj: config.json describes latent attention "
     "(kv_lora_rank / qk_nope_head_dim), not [q; k; v] heads (pass import_checkpoint's "
     "parts=)"),
    ("model.layers.0.mlp.gate_up_proj", CONFIG, 1000,
     "layer model.layers.0.mlp.gate_up_proj: config.json gives parts gate 512 + up 512 = 1024 "
     "rows, but the layer has N = 1000 (pass import_checkpoint's parts=)"),
    ("model.layers.0.self_attn.qkv_proj", CONFIG, 384,
     "layer model.layers.0.self_attn.qkv_proj: config.json gives parts q 256 + k 128 + v 128 = "
     "512 rows, but the layer has N = 384 (pass import_checkpoint's parts=)"),
])
def test_fused_parts_refusals(module, config, n, message):
    with pytest.raises(qmat.ShardError) as e:
        sh.fused_parts(module, config, n)
    assert str(e.value) == message


def heads(name, count, dim, replicate=False):
    return sh.Part(name, count * dim, heads=count, replicate=replicate)


@pytest.mark.parametrize("parts, tp, message", [
    # rows: every part splits on its own; the legal degrees are the layer's
    ((sh.Part("gate", 18), sh.Part("up", 18)), 4,
     "layer fused: part gate (rows 0..18 of N = 36) has 18 rows, which cannot be split 4 ways "
     "(4.5 rows per rank); legal TP degrees: 1, 2, 3, 6, 9"),
    ((sh.Part("gate", 24), sh.Part("up", 18)), 4,
     "layer fused: part up (rows 24..42 of N = 42) has 18 rows, which cannot be split 4 ways "
     "(4.5 rows per rank); legal TP degrees: 1, 2, 3, 6"),
    # whole heads: 64 q rows split 8 ways is 8 rows, half a head
    ((heads("q", 4, 16), heads("k", 2, 16, True), heads("v", 2, 16, True)), 8,
     "layer fused: part q (rows 0..64 of N = 128) has 4 heads of 16 rows, which cannot be split "
     "8 ways (0.5 heads per rank; a rank holds whole heads); legal TP degrees: 1, 2, 4"),
    ((heads("q", 12, 16), heads("k", 6, 16, True), heads("v", 6, 16, True)), 4,
     "layer fused: part k (rows 192..288 of N = 384) has 6 heads of 16 rows, which cannot be "
     "split 4 ways (1.5 heads per rank; a rank holds whole heads); legal TP degrees: 1, 2, 3, "
     "6, 12"),
    # kv heads fewer than tp: replicated only when tp is a multiple of them
    ((heads("q", 12, 16), heads("k", 3, 16, True), heads("v", 3, 16, True)), 4,
     "layer fused: part k (rows 192..240 of N = 288) has 3 heads of 16 rows, fewer than tp = 4, "
     "which is not a multiple of 3, so they can be neither split nor replicated evenly (1.33333 "
     "ranks per head); legal TP degrees: 1, 3, 6, 12"),
    # heads without replicate=True are never replicated
    ((heads("q", 4, 16), heads("k", 2, 16), heads("v", 2, 16)), 4,
     "layer fused: part k (rows 64..96 of N = 128) has 2 heads of 16 rows, which cannot be "
     "split 4 ways (0.5 heads per rank; a rank holds whole heads); legal TP degrees: 1, 2"),
])
def test_fused_split_refusals(parts, tp, message):
    n = sum(p.size for p in parts)
    layer = qmat.Layer("fused", "nvfp4", n, 64)
    t = random_tensors(np.random.default_rng(0), layer)
    for call in (lambda: sh.shard_column(layer, t, tp, parts=parts),
                 lambda: sh.shard(layer, t, "column", tp, rank=0, parts=parts),
                 lambda: sh.shard_layer(layer, "column", tp, parts=parts)):
        with pytest.raises(qmat.ShardError) as e:
            call()
        assert str(e.value) == message


@pytest.mark.parametrize("kind, parts, message", [
    ("row", GATE_UP,
     "layer gu: parts (stacked outputs) are for column-parallel layers, this one is "
     "row-parallel"),
    ("column", (sh.Part("gate", 48), sh.Part("gate", 48)),
     "layer gu: two parts have the same name (gate, gate)"),
    ("column", (sh.Part("gate", 48), sh.Part("up", 40)),
     "layer gu: parts [48, 40] add up to 88, not N = 96"),
    ("column", (sh.Part("q", 48, heads=5), sh.Part("up", 48)),
     "layer gu: part q: 48 rows are not 5 heads of equal size"),
    ("column", (sh.Part("", 48), sh.Part("up", 48)),
     "layer gu: a part's name must be a non-empty string, got ''"),
    ("column", (48, 0, 48), "layer gu: parts must be positive integers, got [48, 0, 48]"),
    ("column", 96, "layer gu: parts must be a sequence of sizes along N, got 96"),
])
def test_fused_part_argument_refusals(kind, parts, message):
    layer = qmat.Layer("gu", "nvfp4", 96, 64)
    t = random_tensors(np.random.default_rng(0), layer)
    with pytest.raises(qmat.ArgumentError) as e:
        sh.shard(layer, t, kind, 2, parts=parts)
    assert str(e.value) == message


def test_import_tp_keeps_o_proj_in_whole_heads(tmp_path):
    """An o_proj whose q_proj is not quantized (so no q-heads check runs):
    its K is still split in whole heads, or refused."""
    rng = np.random.default_rng(21)
    tensors = modelopt_tensors(rng)
    q = "model.layers.0.self_attn.q_proj"
    for suffix in ("weight", "weight_scale", "weight_scale_2"):
        del tensors[f"{q}.{suffix}"]
    bits = rng.standard_normal((256, 256)).astype(np.float32).view(np.uint32)
    tensors[f"{q}.weight"] = ("BF16", (bits >> 16).astype(np.uint16))
    source = tmp_path / "ckpt"
    write_checkpoint(source, tensors, dict(CONFIG, num_attention_heads=2, num_key_value_heads=1,
                                                     head_dim=128),
                     extra={"hf_quant_config.json": HF_QUANT})
    o = "model.layers.0.self_attn.o_proj"
    with pytest.raises(qmat.ShardError) as e:
        ck.import_checkpoint(source, tmp_path / "four", bundle=False, quiet=True, tp=4,
                             check_config=False)
    assert str(e.value) == (
        f"layer {o}: K = 256 is 2 heads of 128 columns, which cannot be split 4 ways "
        f"(0.5 heads per rank; a rank holds whole heads); legal TP degrees: 1, 2")
    assert not os.path.exists(tmp_path / "four")
    ck.import_checkpoint(source, tmp_path / "two", bundle=False, quiet=True, tp=2,
                         check_config=False)
    # a config whose heads do not make up K is refused, not trusted
    write_checkpoint(tmp_path / "bad", tensors, dict(CONFIG, num_attention_heads=3, head_dim=64),
                     extra={"hf_quant_config.json": HF_QUANT})
    with pytest.raises(qmat.ShardError) as e:
        ck.import_checkpoint(tmp_path / "bad", tmp_path / "b", bundle=False, quiet=True, tp=2,
                             check_config=False)
    assert str(e.value) == (
        f"layer {o}: config.json gives 3 heads of 64 columns = 192, but the layer has K = 256 "
        f"(pass import_checkpoint's parallel= to split it otherwise)")
    # replicated instead of split: nothing to check
    ck.import_checkpoint(source, tmp_path / "rep", bundle=False, quiet=True, tp=4,
                         check_config=False,
                         parallel=lambda m: "replicate" if m == o else sh.parallel_kind(m))
