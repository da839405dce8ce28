"""`qmat import` / `python -m qmat import`, sharded outputs, and a real
bundle built by qmat-aot from an imported checkpoint."""
import json
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import qmat
from qmat import checkpoint as ck, cli
from qmat.launcher import check_operands
from conftest import PYTHON_DIR
from checkpoint_util import CONFIG, LINEARS, write_checkpoint
from test_checkpoint_int4 import pack_words
from test_checkpoint_nvfp4 import HF_QUANT, check_modelopt, modelopt_tensors


@pytest.fixture
def modelopt_ckpt(tmp_path):
    tensors = modelopt_tensors(np.random.default_rng(7),
                               bias_module="model.layers.0.self_attn.q_proj")
    tensors["model.layers.0.self_attn.q_proj.bias"] = ("BF16", np.full(256, 0x3F80, np.uint16))
    write_checkpoint(tmp_path / "ckpt", tensors, CONFIG, extra={"hf_quant_config.json": HF_QUANT})
    return tmp_path / "ckpt", tensors


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    return subprocess.run([sys.executable, "-m", "qmat", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300)


def test_python_m_qmat_import(modelopt_ckpt, tmp_path):
    ckpt, tensors = modelopt_ckpt
    out = tmp_path / "out"
    result = run_cli("import", ckpt, "-o", out, "--no-bundle")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{out / 'model.checkpoint.json'}\n"
    lines = result.stderr.splitlines()
    assert lines[0] == f"qmat import: {ckpt} (modelopt, 7 quantized linears, act bf16)"
    assert lines[1:9] == [
        "[ 1/12] model.layers.0.mlp.down_proj: nvfp4 256x512 -> nvfp4_256x512",
        "[ 2/12] model.layers.0.mlp.gate_proj: nvfp4 512x256 -> nvfp4_512x256",
        "[ 3/12] model.layers.0.mlp.up_proj: nvfp4 512x256 -> nvfp4_512x256",
        "[ 4/12] model.layers.0.self_attn.k_proj: nvfp4 128x256 -> nvfp4_128x256",
        "[ 5/12] model.layers.0.self_attn.o_proj: nvfp4 256x256 -> nvfp4_256x256",
        "[ 6/12] model.layers.0.self_attn.q_proj: nvfp4 256x256 -> nvfp4_256x256_bias",
        "[ 7/12] model.layers.0.self_attn.v_proj: nvfp4 128x256 -> nvfp4_128x256",
        "[ 8/12] lm_head.weight: copied (BF16 [320, 256])"]
    assert lines[-1].startswith("qmat import: 7 linears in 5 layers, 5 tensors copied, ")
    check_modelopt(tensors, ck.open_imported(out), "bf16")
    assert sorted(os.listdir(out)) == ["model.checkpoint.json", "model.mlir",
                                       "model.safetensors"]
    quiet = run_cli("import", ckpt, "-o", tmp_path / "quiet", "--no-bundle", "-q",
                    "--prefix", "m2", "--act", "f16", "--no-unquantized")
    assert quiet.returncode == 0 and quiet.stderr == ""
    manifest = json.load(open(tmp_path / "quiet" / "m2.checkpoint.json"))
    assert manifest["act"] == "f16" and manifest["unquantized"] == []
    assert manifest["module"] == "m2.mlir" and manifest["weights"] == ["m2.safetensors"]


def test_cli_errors(tmp_path, modelopt_ckpt):
    ckpt, _ = modelopt_ckpt
    bad = run_cli("import", ckpt, "-o", tmp_path / "o", "--no-bundle", "--format", "gptq")
    assert bad.returncode == 1
    assert bad.stderr == (f"qmat import: error: {ckpt}: no GPTQ quantization config (config.json "
                          f"quantization_config with quant_method gptq, or quantize_config.json)\n")
    assert not os.path.exists(tmp_path / "o")
    nothing = run_cli()
    assert nothing.returncode == 2 and "import" in nothing.stderr
    assert cli.main(["import", str(tmp_path / "nope"), "-o", str(tmp_path / "o"),
                          "--no-bundle"]) == 1


def test_shards_and_index(modelopt_ckpt, tmp_path, capsys):
    ckpt, tensors = modelopt_ckpt
    out = tmp_path / "out"
    assert cli.main(["import", str(ckpt), "-o", str(out), "--no-bundle", "-q",
                          "--max-shard-size", "100KiB"]) == 0
    manifest = json.load(open(out / "model.checkpoint.json"))
    files = manifest["weights"]
    assert len(files) > 2 and files[0] == f"model-00001-of-{len(files):05d}.safetensors"
    index = json.load(open(out / "model.safetensors.index.json"))
    for module, entry in manifest["linears"].items():
        for name in entry["tensors"].values():
            assert index["weight_map"][name] == entry["file"]
    for name in manifest["unquantized"]:
        assert name in index["weight_map"]
    sizes = [os.path.getsize(out / f) for f in files]
    assert index["metadata"]["total_size"] == sum(sizes) - sum(
        8 + int.from_bytes(open(out / f, "rb").read(8), "little") for f in files)
    check_modelopt(tensors, ck.open_imported(out), "bf16")


def typed(array, dtype):
    """An imported array with the dtype the launcher's operand check names."""
    return {"BF16": lambda a: a.view(ml_dtypes.bfloat16),
            "F8_E4M3": lambda a: a.view(ml_dtypes.float8_e4m3fn)}.get(dtype, lambda a: a)(array)


def test_real_bundle_for_sm_90(qmat_aot, tmp_path):
    """A mixed compressed-tensors checkpoint (int4 with zero points for the
    MLP, nvfp4 with a bias elsewhere) imported with the bundle step: the
    bundle's layers are the import's, every imported tensor passes the
    launcher's operand checks for its layer, and the weights are exact."""
    rng = np.random.default_rng(8)
    down, q_proj = "model.layers.0.mlp.down_proj", "model.layers.0.self_attn.q_proj"
    n, k = LINEARS[down]
    q, zp = rng.integers(-8, 8, (n, k)), rng.integers(-8, 8, (n, k // 128))
    tensors = {f"{down}.weight_packed": pack_words(q + 8, axis=1),
               f"{down}.weight_shape": np.array([n, k], np.int32),
               f"{down}.weight_scale": ("BF16", np.full((n, k // 128), 0x3F80, np.uint16)),
               f"{down}.weight_zero_point": pack_words(zp + 8, axis=0),
               f"{q_proj}.weight_packed": rng.integers(0, 256, (256, 128), dtype=np.uint8),
               f"{q_proj}.weight_scale": ("F8_E4M3", rng.integers(0, 0x7F, (256, 16), np.uint8)),
               f"{q_proj}.weight_global_scale": np.array([1000.0], np.float32),
               f"{q_proj}.bias": ("BF16", np.full(256, 0x3F80, np.uint16))}
    int4 = {"num_bits": 4, "type": "int", "symmetric": False, "strategy": "group",
            "group_size": 128}
    fp4 = {"num_bits": 4, "type": "float", "symmetric": True, "strategy": "tensor_group",
           "group_size": 16}
    config = dict(CONFIG, quantization_config={
        "quant_method": "compressed-tensors", "format": "mixed-precision",
        "config_groups": {"group_0": {"targets": ["re:.*mlp.*"], "weights": int4,
                                      "format": "pack-quantized"},
                          "group_1": {"targets": ["Linear"], "weights": fp4,
                                      "format": "nvfp4-pack-quantized"}}})
    write_checkpoint(tmp_path / "ckpt", tensors, config)
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", quiet=True,
                                  targets=("sm_90",), qmat_aot=qmat_aot, prefix="mixed")
    bundle = result.bundle
    assert bundle.targets == ["sm_90"]
    assert os.path.isfile(tmp_path / "out" / "bundle" / "mixed.sm_90.cubin")
    assert [info.layer() for info in bundle.layers] == result.layers
    assert [l.name for l in result.layers] == ["int4_256x512_b128_zp", "nvfp4_256x256_bias"]
    assert result.manifest["bundle"] == {"directory": "bundle", "targets": ["sm_90"],
                                         "manifest": "bundle/mixed.manifest.json",
                                         "prepared_weights": False}
    header = open(bundle.header).read()
    imported = ck.open_imported(tmp_path / "out")
    for module, entry in result.manifest["linears"].items():
        info = bundle.layer(entry["layer"])
        assert f"mixed_{info.symbol}_run(" in header
        f = imported.files[entry["file"]]
        ops = {op: typed(f.get(t), f.tensors[t].dtype) for op, t in entry["tensors"].items()}
        ops["a"] = np.zeros((3, info.k), ml_dtypes.bfloat16)
        ops["y"] = np.zeros((3, info.n), ml_dtypes.bfloat16)
        assert check_operands(info, ops, lambda a: (a.shape, a.dtype.name, "cuda:0",
                                                    a.flags["C_CONTIGUOUS"])) == 3
    from checkpoint_util import assert_same_bits, qmat_bits
    assert_same_bits(qmat_bits(imported, down),
                     ((q - np.repeat(zp, 128, axis=1)) * np.float32(1.0)).astype(np.float32),
                     "bf16")
    assert result.manifest["linears"][down]["format"] == "compressed-tensors-int4"
    assert result.manifest["linears"][q_proj]["format"] == "compressed-tensors-nvfp4"


def test_reimport_replaces_earlier_weight_files(modelopt_ckpt, tmp_path):
    ckpt, tensors = modelopt_ckpt
    out = tmp_path / "out"
    assert cli.main(["import", str(ckpt), "-o", str(out), "--no-bundle", "-q",
                     "--max-shard-size", "100KiB"]) == 0
    assert len([f for f in os.listdir(out) if f.endswith(".safetensors")]) > 2
    assert cli.main(["import", str(ckpt), "-o", str(out), "--no-bundle", "-q"]) == 0
    assert sorted(os.listdir(out)) == ["model.checkpoint.json", "model.mlir",
                                       "model.safetensors"]
    check_modelopt(tensors, ck.open_imported(out), "bf16")


def test_bad_target_refused_before_import(modelopt_ckpt, tmp_path):
    ckpt, _ = modelopt_ckpt
    with pytest.raises(qmat.ArgumentError) as caught:
        ck.import_checkpoint(ckpt, tmp_path / "out", targets=("sm_75",), quiet=True)
    assert str(caught.value) == (
        "unknown target 'sm_75' (expected one of sm_80, sm_86, sm_87, sm_88, sm_89, sm_90, "
        "sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_110, sm_110a, sm_120, sm_120a, sm_121, "
        "sm_121a, gfx942, gfx950)")
    assert not os.path.exists(tmp_path / "out")


# --- `qmat import --tp` of fused gate_up_proj and qkv_proj -------------------------

from qmat import reference as qref  # noqa: E402
from test_shard import FUSED_LINEARS, GATE_UP_PROJ, QKV_PROJ, fused_checkpoint  # noqa: E402


def fused_rows(module, tp, rank):
    """{part: whole-layer rows} that `rank` holds, written out for CONFIG
    (4 q heads and 2 kv heads of 64 rows, intermediate size 512): a
    rank's share of each part; at tp 4 each kv head on two ranks."""
    if module == GATE_UP_PROJ:
        w = 512 // tp
        return {"gate": np.arange(rank * w, (rank + 1) * w),
                "up": 512 + np.arange(rank * w, (rank + 1) * w)}
    q = 256 // tp
    kv_head = rank * 2 // tp if tp > 2 else None
    kv = np.arange(rank * 128 // tp, (rank + 1) * 128 // tp) if kv_head is None else \
        np.arange(kv_head * 64, kv_head * 64 + 64)
    return {"q": np.arange(rank * q, (rank + 1) * q), "k": 256 + kv, "v": 384 + kv}


def dequant_bits(layer, t):
    scales = t["scales"].view(np.uint16) if layer.scheme == "int4" else t["scales"]
    gs = t.get("global_scale")
    return qref.dequantize(layer.scheme, t["weights"], scales, layer.k, layer.act,
                           block=layer.block, global_scale=None if gs is None else float(gs[0]),
                           zero_points=t.get("zero_points"))


def check_fused_ranks(one, two, tp):
    """Every rank's tensors of the fused linears are the tp 1 import's rows
    of each part, and their dequantization, re-assembled per part, is the
    whole layer's bit for bit."""
    for module in (QKV_PROJ, GATE_UP_PROJ):
        full_layer, full = one.linear(module)
        whole = dequant_bits(full_layer, full)
        pieces = {}
        for rank in range(tp):
            rows = fused_rows(module, tp, rank)
            order = np.concatenate(list(rows.values()))
            layer, t = two.linear(module, rank)
            assert (layer.n, layer.k) == (len(order), full_layer.k)
            assert t.keys() == full.keys()
            for role, value in t.items():
                want = full[role] if role == "global_scale" else full[role][order]
                assert np.array_equal(value, want), (module, rank, role)
            mine, local = dequant_bits(layer, t), 0
            for name, part_rows in rows.items():
                pieces.setdefault(name, {})[tuple(part_rows)] = mine[local:local + len(part_rows)]
                local += len(part_rows)
        for name, by_rows in pieces.items():   # replicated heads: one piece each
            got = np.concatenate([by_rows[r] for r in sorted(by_rows)], axis=0)
            start = min(min(r) for r in by_rows)
            assert np.array_equal(got, whole[start:start + len(got)]), (module, name)
        assert sum(len(r) for p in pieces.values() for r in p) == full_layer.n


QKV_PARTS_TP2 = [{"name": "q", "size": 256, "rank_size": 128, "heads": 4, "rank_heads": 2},
                 {"name": "k", "size": 128, "rank_size": 64, "heads": 2, "rank_heads": 1},
                 {"name": "v", "size": 128, "rank_size": 64, "heads": 2, "rank_heads": 1}]
GATE_UP_PARTS_TP2 = [{"name": "gate", "size": 512, "rank_size": 256},
                     {"name": "up", "size": 512, "rank_size": 256}]


def test_cli_import_tp2_splits_fused_layers_per_part(tmp_path):
    source = tmp_path / "ckpt"
    fused_checkpoint(source)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    assert cli.main(["import", str(source), "-o", str(tmp_path / "two"), "--tp", "2",
                     "--no-bundle", "-q"]) == 0
    one, two = ck.open_imported(tmp_path / "one"), ck.open_imported(tmp_path / "two")
    m = two.manifest
    assert m["linears"][QKV_PROJ]["parts"] == QKV_PARTS_TP2
    assert m["linears"][GATE_UP_PROJ]["parts"] == GATE_UP_PARTS_TP2
    for module in FUSED_LINEARS:
        if module not in (QKV_PROJ, GATE_UP_PROJ):
            assert "parts" not in m["linears"][module]
    assert "parts" not in json.dumps(one.manifest["linears"])
    assert {(l["name"], l["n"], l["k"]) for l in m["layers"]} == {
        ("nvfp4_256x256", 256, 256), ("nvfp4_512x256", 512, 256),
        ("nvfp4_256x256_bias", 256, 256), ("nvfp4_256x128", 256, 128)}
    assert m["linears"][QKV_PROJ]["layer"] == "nvfp4_256x256_bias"
    assert m["linears"][GATE_UP_PROJ]["layer"] == "nvfp4_512x256"
    check_fused_ranks(one, two, 2)
    # the rank's gate rows then its up rows, not rows 0..512 (all of gate)
    _, rank0 = two.linear(GATE_UP_PROJ, 0)
    _, full = one.linear(GATE_UP_PROJ)
    assert not np.array_equal(rank0["weights"], full["weights"][:512])


@pytest.mark.filterwarnings("ignore::qmat.shard.ShardWarning")   # o_proj's shard K of 64
def test_cli_import_tp4_replicates_kv_heads(tmp_path, capsys):
    source = tmp_path / "ckpt"
    fused_checkpoint(source)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    assert cli.main(["import", str(source), "-o", str(tmp_path / "four"), "--tp", "4",
                     "--no-bundle"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "heads" in line] == [
        f"qmat import: {QKV_PROJ}: k has 2 heads, fewer than tp = 4: each is held by 2 ranks",
        f"qmat import: {QKV_PROJ}: v has 2 heads, fewer than tp = 4: each is held by 2 ranks"]
    one, four = ck.open_imported(tmp_path / "one"), ck.open_imported(tmp_path / "four")
    assert four.manifest["linears"][QKV_PROJ]["parts"] == [
        {"name": "q", "size": 256, "rank_size": 64, "heads": 4, "rank_heads": 1},
        {"name": "k", "size": 128, "rank_size": 64, "heads": 2, "rank_heads": 1, "replicas": 2},
        {"name": "v", "size": 128, "rank_size": 64, "heads": 2, "rank_heads": 1, "replicas": 2}]
    assert four.manifest["linears"][QKV_PROJ]["layer"] == "nvfp4_192x256_bias"
    check_fused_ranks(one, four, 4)


@pytest.mark.parametrize("tp", [2, 4])
def test_fp8_block_fused_split_cuts_through_scale_tiles(tmp_path, tp):
    """Block-scaled FP8: a 128 x 128 tile's scale is repeated on its rows at
    import, so a rank's 64 rows of k (half a tile) carry their scale rows."""
    source = tmp_path / "ckpt"
    tensors = fused_checkpoint(source, scheme="fp8")
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    # fp8's K blocks of 128 split o_proj and down_proj 2 ways at most: replicate them
    ck.import_checkpoint(source, tmp_path / "tp", bundle=False, quiet=True, tp=tp,
                         parallel=lambda m: "column" if m.endswith(("qkv_proj", "gate_up_proj"))
                         else "replicate")
    one, split = ck.open_imported(tmp_path / "one"), ck.open_imported(tmp_path / "tp")
    check_fused_ranks(one, split, tp)
    tiles = tensors[f"{QKV_PROJ}.weight_scale_inv"]
    for rank in range(tp):
        rows = np.concatenate(list(fused_rows(QKV_PROJ, tp, rank).values()))
        assert np.array_equal(split.linear(QKV_PROJ, rank)[1]["scales"], tiles[rows // 128])


def test_fused_parts_given_in_python(tmp_path):
    source = tmp_path / "ckpt"
    config = {k: v for k, v in CONFIG.items() if k != "intermediate_size"}
    fused_checkpoint(source, config=config)
    with pytest.raises(qmat.ShardError) as e:
        ck.import_checkpoint(source, tmp_path / "two", bundle=False, quiet=True, tp=2)
    assert str(e.value) == (
        f"layer {GATE_UP_PROJ}: a fused gate_up_proj is split part by part, but config.json "
        f"gives no intermediate_size (pass import_checkpoint's parts=, or qmat.shard's parts=)")
    assert not os.path.exists(tmp_path / "two")
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    given = {GATE_UP_PROJ: [("gate", 512), ("up", 512)]}
    for parts in (given, given.get):
        ck.import_checkpoint(source, tmp_path / "two", bundle=False, quiet=True, tp=2,
                             parts=parts)
        two = ck.open_imported(tmp_path / "two")
        assert two.manifest["linears"][GATE_UP_PROJ]["parts"] == GATE_UP_PARTS_TP2
        assert two.manifest["linears"][QKV_PROJ]["parts"] == QKV_PARTS_TP2   # from config.json
        check_fused_ranks(ck.open_imported(tmp_path / "one"), two, 2)
    with pytest.raises(qmat.ArgumentError) as e:
        ck.import_checkpoint(source, tmp_path / "x", bundle=False, quiet=True, tp=2,
                             parts={"model.layers.0.mlp.down_proj": (128, 128)})
    assert str(e.value) == ("layer model.layers.0.mlp.down_proj: parts (stacked outputs) are "
                            "for column-parallel layers, this one is row-parallel")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.import_checkpoint(source, tmp_path / "x", bundle=False, quiet=True, tp=2,
                             parts=[(512, 512)])
    assert str(e.value) == "parts must be a dict {module: parts} or a function of the module, got list"
    assert not os.path.exists(tmp_path / "x")


@pytest.mark.filterwarnings("ignore::qmat.shard.ShardWarning")
def test_cli_parts(tmp_path, capsys):
    """--parts gives a fused layer's parts where config.json does not, by
    module name or by last name; a spec naming no quantized linear and a
    malformed spec are refused before any output."""
    source = tmp_path / "ckpt"
    config = {k: v for k, v in CONFIG.items() if k != "intermediate_size"}
    fused_checkpoint(source, config=config)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    for spec in (f"{GATE_UP_PROJ}=gate:512,up:512", "gate_up_proj=gate:512,up:512"):
        assert cli.main(["import", str(source), "-o", str(tmp_path / "two"), "--tp", "2",
                         "--no-bundle", "-q", "--parts", spec]) == 0
        two = ck.open_imported(tmp_path / "two")
        assert two.manifest["linears"][GATE_UP_PROJ]["parts"] == GATE_UP_PARTS_TP2
        check_fused_ranks(ck.open_imported(tmp_path / "one"), two, 2)
    # heads and replicated kv heads from the command line, over config.json's
    assert cli.main(["import", str(source), "-o", str(tmp_path / "four"), "--tp", "4",
                     "--no-bundle", "-q", "--parts", "gate_up_proj=gate:512,up:512",
                     "--parts", "qkv_proj=q:256:4,k:128:2:replicate,v:128:2:replicate"]) == 0
    parts = ck.open_imported(tmp_path / "four").manifest["linears"][QKV_PROJ]["parts"]
    assert [(p["name"], p["rank_size"], p.get("replicas")) for p in parts] == [
        ("q", 64, None), ("k", 64, 2), ("v", 64, 2)]
    capsys.readouterr()
    assert cli.main(["import", str(source), "-o", str(tmp_path / "x"), "--tp", "2",
                     "--no-bundle", "-q", "--parts", "gate_proj=gate:512,up:512"]) == 1
    assert capsys.readouterr().err == (
        "qmat import: error: parts names gate_proj: not a quantized linear of the checkpoint "
        "(a module's name, or the last name of some, such as qkv_proj)\n")
    assert not os.path.exists(tmp_path / "x")
    for bad in ("gate_up_proj", "gate_up_proj=gate:0,up:512", "qkv_proj=q:256:4:copy"):
        with pytest.raises(SystemExit):
            cli.main(["import", str(source), "-o", str(tmp_path / "x"), "--tp", "2",
                      "--no-bundle", "-q", "--parts", bad])
        assert f"not a parts spec: {bad!r}" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "x")


def test_cli_fused_refusals(tmp_path, capsys):
    source = tmp_path / "ckpt"
    fused_checkpoint(source)
    assert cli.main(["import", str(source), "-o", str(tmp_path / "eight"), "--tp", "8",
                     "--no-bundle", "-q"]) == 1
    assert capsys.readouterr().err == (
        f"qmat import: error: layer {QKV_PROJ}: part q (rows 0..256 of N = 512) has 4 heads of "
        f"64 rows, which cannot be split 8 ways (0.5 heads per rank; a rank holds whole heads); "
        f"legal TP degrees: 1, 2, 4\n")
    assert not os.path.exists(tmp_path / "eight")
    # kv heads that neither split nor replicate evenly: 3 of them at tp 2
    odd = tmp_path / "odd"
    fused_checkpoint(odd, config=dict(CONFIG, num_attention_heads=2, num_key_value_heads=3,
                                      head_dim=64))
    assert cli.main(["import", str(odd), "-o", str(tmp_path / "o"), "--tp", "2",
                     "--no-bundle", "-q", "--no-config-check"]) == 1
    assert capsys.readouterr().err == (
        f"qmat import: error: layer {QKV_PROJ}: part k (rows 128..320 of N = 512) has 3 heads "
        f"of 64 rows, which cannot be split 2 ways (1.5 heads per rank; a rank holds whole "
        f"heads); legal TP degrees: 1\n")
    wrong = tmp_path / "wrong"
    fused_checkpoint(wrong, config=dict(CONFIG, intermediate_size=500))
    with pytest.raises(qmat.ShardError) as e:
        ck.import_checkpoint(wrong, tmp_path / "w", bundle=False, quiet=True, tp=2,
                             check_config=False)
    assert str(e.value) == (
        f"layer {GATE_UP_PROJ}: config.json gives parts gate 500 + up 500 = 1000 rows, but the "
        f"layer has N = 1024 (pass import_checkpoint's parts=)")
