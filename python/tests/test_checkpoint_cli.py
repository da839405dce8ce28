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
