"""NVFP4 checkpoints: ModelOpt and compressed-tensors nvfp4-pack-quantized,
imported and compared bit for bit with each format's own dequantization."""

import numpy as np
import pytest

import qmat
from qmat import checkpoint as ck
from checkpoint_util import (CONFIG, E2M1, LINEARS, assert_same_bits, e4m3, qmat_bits,
                             unquantized, write_checkpoint)

HF_QUANT = {"producer": {"name": "modelopt"},
            "quantization": {"quant_algo": "NVFP4", "group_size": 16,
                             "exclude_modules": ["lm_head"]}}


def e2m1_values(packed, k):
    """[N, K/2] bytes -> [N, K] e2m1 values, the low nibble the even k."""
    packed = np.asarray(packed)
    values = np.empty((packed.shape[0], k), np.float32)
    values[:, 0::2] = E2M1[packed & 0xF]
    values[:, 1::2] = E2M1[packed >> 4]
    return values


def modelopt_dequant(packed, scale_bytes, scale_2, k):
    """ModelOpt: e2m1 * (float(weight_scale) * weight_scale_2), in fp32."""
    n = packed.shape[0]
    per_block = (e4m3(scale_bytes) * np.float32(scale_2)).astype(np.float32)
    return (e2m1_values(packed, k).reshape(n, -1, 16) * per_block[:, :, None]).reshape(n, k)


def ct_dequant(packed, scale_bytes, global_scale, k):
    """compressed-tensors: e2m1 * (float(weight_scale) / weight_global_scale)."""
    n = packed.shape[0]
    per_block = (e4m3(scale_bytes) / np.float32(global_scale)).astype(np.float32)
    return (e2m1_values(packed, k).reshape(n, -1, 16) * per_block[:, :, None]).reshape(n, k)


def modelopt_tensors(rng, scale_2=None, every_byte=False, bias_module=None):
    tensors = unquantized(rng)
    for module, (n, k) in LINEARS.items():
        tensors[f"{module}.weight"] = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)
        scales = rng.integers(0, 0x7F, (n, k // 16), dtype=np.uint8)
        if every_byte:
            scales.reshape(-1)[:256] = np.arange(256)  # NaN bytes 0x7f / 0xff too
        tensors[f"{module}.weight_scale"] = ("F8_E4M3", scales)
        g = rng.uniform(2e-5, 4e-4) if scale_2 is None else scale_2
        tensors[f"{module}.weight_scale_2"] = np.array(g, dtype=np.float32)
        tensors[f"{module}.input_scale"] = np.array(0.02, dtype=np.float32)
    if bias_module:
        n = LINEARS[bias_module][0]
        tensors[f"{bias_module}.bias"] = rng.standard_normal(n).astype(np.float32)
    return tensors


def check_modelopt(tensors, imported, act):
    for module, (n, k) in LINEARS.items():
        want = modelopt_dequant(tensors[f"{module}.weight"], tensors[f"{module}.weight_scale"][1],
                                tensors[f"{module}.weight_scale_2"], k)
        assert_same_bits(qmat_bits(imported, module), want, act)


@pytest.mark.parametrize("act", ["bf16", "f16"])
def test_modelopt_nvfp4_bit_exact(tmp_path, act):
    rng = np.random.default_rng(1)
    tensors = modelopt_tensors(rng, every_byte=True)
    write_checkpoint(tmp_path / "ckpt", tensors, CONFIG, files=3,
                     extra={"hf_quant_config.json": HF_QUANT})
    result = qmat.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", act=act, bundle=False,
                                    quiet=True)
    imported = ck.open_imported(tmp_path / "out")
    check_modelopt(tensors, imported, act)
    m = result.manifest
    assert m["source"]["format"] == "modelopt" and m["act"] == act and m["bundle"] is None
    q = m["linears"]["model.layers.0.self_attn.q_proj"]
    assert q == {
        "layer": "nvfp4_256x256", "format": "modelopt-nvfp4", "file": "model.safetensors",
        "tensors": {"weights": "model.layers.0.self_attn.q_proj.codes",
                    "scales": "model.layers.0.self_attn.q_proj.scales",
                    "global_scale": "model.layers.0.self_attn.q_proj.global_scale"},
        "source_tensors": ["model.layers.0.self_attn.q_proj.weight",
                           "model.layers.0.self_attn.q_proj.weight_scale",
                           "model.layers.0.self_attn.q_proj.weight_scale_2"],
        "ignored_tensors": ["model.layers.0.self_attn.q_proj.input_scale"],
        "notes": {"global_scale": q["notes"]["global_scale"]}}
    # Codes and scale bytes are the checkpoint's own; the global scale too here.
    layer, t = imported.linear("model.layers.0.self_attn.q_proj")
    assert np.array_equal(t["weights"], tensors["model.layers.0.self_attn.q_proj.weight"])
    assert np.array_equal(t["scales"], tensors["model.layers.0.self_attn.q_proj.weight_scale"][1])
    assert q["notes"]["global_scale"]["fp32_steps"] == 0
    assert t["global_scale"].dtype == np.float32 and t["global_scale"].shape == (1,)
    # In order of first use, the modules in natural order (mlp before self_attn).
    assert [l["name"] for l in m["layers"]] == ["nvfp4_256x512", "nvfp4_512x256",
                                                "nvfp4_128x256", "nvfp4_256x256"]
    assert sorted(m["linears"]) == sorted(LINEARS)
    assert m["unquantized"] == ["lm_head.weight", "model.embed_tokens.weight",
                                "model.layers.0.input_layernorm.weight",
                                "model.layers.0.post_attention_layernorm.weight",
                                "model.norm.weight"]
    # Unquantized tensors are copied unchanged.
    for name in m["unquantized"]:
        assert np.array_equal(imported.tensor(name), tensors[name][1])
    text = open(result.module_path).read()
    assert text == qmat.emit_module(result.layers)
    assert "func.func @nvfp4_256x512(" in text


def test_modelopt_global_scale_moved_to_stay_exact(tmp_path):
    """With f16 and every scale byte present, weight_scale_2 = 0.008628563... makes
    qmat's rne(e2m1 * s * g) differ from ModelOpt's e2m1 * (s * g) for some
    code; the fp32 neighbour below it reproduces every value."""
    g = np.uint32(1007509201).view(np.float32)
    rng = np.random.default_rng(2)
    tensors = modelopt_tensors(rng, scale_2=g, every_byte=True)
    write_checkpoint(tmp_path / "ckpt", tensors, CONFIG, extra={"hf_quant_config.json": HF_QUANT})
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", act="f16", bundle=False,
                                  quiet=True)
    imported = ck.open_imported(tmp_path / "out")
    check_modelopt(tensors, imported, "f16")
    notes = result.manifest["linears"]["model.layers.0.mlp.up_proj"]["notes"]["global_scale"]
    assert notes == {"source": float(g), "used": float(np.nextafter(g, np.float32(0))),
                     "fp32_steps": -1}
    # Without the move one value would differ: the rule the importer checks.
    _, t = imported.linear("model.layers.0.mlp.up_proj")
    plain = qmat.reference.dequantize("nvfp4", t["weights"], t["scales"], 256, "f16",
                                      global_scale=float(g))
    want = modelopt_dequant(tensors["model.layers.0.mlp.up_proj.weight"],
                            tensors["model.layers.0.mlp.up_proj.weight_scale"][1], g, 256)
    from checkpoint_util import round_bits
    assert (plain != round_bits(want, "f16")).any()


def test_modelopt_from_config_json_with_bf16_scale_2_and_bias(tmp_path):
    rng = np.random.default_rng(3)
    tensors = modelopt_tensors(rng, bias_module="model.layers.0.self_attn.k_proj")
    module = "model.layers.0.self_attn.v_proj"
    bf16_value = np.float32(3.0517578125e-05).view(np.uint32) >> 16
    tensors[f"{module}.weight_scale_2"] = ("BF16", np.array(bf16_value, dtype=np.uint16))
    bias = tensors["model.layers.0.self_attn.k_proj.bias"]
    tensors["model.layers.0.self_attn.k_proj.bias"] = (
        "BF16", (bias.view(np.uint32) >> 16).astype(np.uint16))  # truncated: exact in bf16
    config = dict(CONFIG, quantization_config={"quant_method": "modelopt", "quant_algo": "NVFP4",
                                               "group_size": 16})
    write_checkpoint(tmp_path / "ckpt", {k: v for k, v in tensors.items()}, config)
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True)
    imported = ck.open_imported(tmp_path / "out")
    tensors[f"{module}.weight_scale_2"] = np.float32(3.0517578125e-05)
    check_modelopt(tensors, imported, "bf16")
    layer, t = imported.linear("model.layers.0.self_attn.k_proj")
    assert layer.bias and layer.name == "nvfp4_128x256_bias"
    assert np.array_equal(t["bias"], tensors["model.layers.0.self_attn.k_proj.bias"][1])
    assert result.manifest["linears"][module]["layer"] == "nvfp4_128x256"


def ct_config(fmt="nvfp4-pack-quantized", weights=None, **extra):
    w = {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16,
         "symmetric": True, "dynamic": False}
    w.update(weights or {})
    qc = {"quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
          "config_groups": {"group_0": {"targets": ["Linear"], "weights": w,
                                        "input_activations": None, "format": fmt}},
          "ignore": ["lm_head"]}
    qc.update(extra)
    return dict(CONFIG, quantization_config=qc)


def ct_nvfp4_tensors(rng):
    tensors = unquantized(rng)
    for module, (n, k) in LINEARS.items():
        tensors[f"{module}.weight_packed"] = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)
        tensors[f"{module}.weight_scale"] = ("F8_E4M3", rng.integers(0, 0x7F, (n, k // 16),
                                                                      dtype=np.uint8))
        # 6 * 448 / amax, as compressed-tensors computes it: rarely a power of two.
        amax = np.float32(rng.uniform(0.05, 2.0))
        tensors[f"{module}.weight_global_scale"] = np.array([np.float32(2688.0) / amax],
                                                            dtype=np.float32)
        tensors[f"{module}.input_global_scale"] = np.array([100.0], dtype=np.float32)
    return tensors


@pytest.mark.parametrize("act", ["bf16", "f16"])
def test_compressed_tensors_nvfp4_bit_exact(tmp_path, act):
    rng = np.random.default_rng(4)
    tensors = ct_nvfp4_tensors(rng)
    write_checkpoint(tmp_path / "ckpt", tensors, ct_config())
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", act=act, bundle=False,
                                  quiet=True)
    imported = ck.open_imported(tmp_path / "out")
    inexact_inverse = 0
    for module, (n, k) in LINEARS.items():
        gs = tensors[f"{module}.weight_global_scale"][0]
        want = ct_dequant(tensors[f"{module}.weight_packed"],
                          tensors[f"{module}.weight_scale"][1], gs, k)
        assert_same_bits(qmat_bits(imported, module), want, act)
        notes = result.manifest["linears"][module]["notes"]["global_scale"]
        assert notes["inverted"] == float(np.float32(1) / gs)
        assert notes["exact_inverse"] == (np.float64(np.float32(1) / gs) * np.float64(gs) == 1.0)
        inexact_inverse += not notes["exact_inverse"]
        assert result.manifest["linears"][module]["ignored_tensors"] == [
            f"{module}.input_global_scale"]
        assert result.manifest["linears"][module]["format"] == "compressed-tensors-nvfp4"
    assert inexact_inverse > 0  # the case that needs the check: 1/gs rounded in fp32


def test_compressed_tensors_nvfp4_power_of_two_global(tmp_path):
    rng = np.random.default_rng(5)
    tensors = ct_nvfp4_tensors(rng)
    for module in LINEARS:
        tensors[f"{module}.weight_global_scale"] = np.array([4096.0], dtype=np.float32)
    write_checkpoint(tmp_path / "ckpt", tensors, ct_config())
    ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True)
    imported = ck.open_imported(tmp_path / "out")
    for module, (n, k) in LINEARS.items():
        _, t = imported.linear(module)
        assert t["global_scale"][0] == np.float32(2.0 ** -12)
        want = ct_dequant(tensors[f"{module}.weight_packed"],
                          tensors[f"{module}.weight_scale"][1], 4096.0, k)
        assert_same_bits(qmat_bits(imported, module), want, "bf16")
