"""qmat.checkpoint.replace: which model modules an import replaces, on which
bundle layer, and where every other parameter is read from (the planning
behind qmat.torch.replace_linear / load_model), without torch: the mapping
for a small imported ModelOpt NVFP4 model and every refusal's message."""
import json
import os

import numpy as np
import pytest

import qmat
from qmat import checkpoint as ck
from qmat.bundle import LayerInfo
from checkpoint_util import CONFIG, LINEARS, write_checkpoint
from test_checkpoint_nvfp4 import HF_QUANT, modelopt_tensors

Q = "model.layers.0.self_attn.q_proj"
DOWN = "model.layers.0.mlp.down_proj"


@pytest.fixture
def imported(tmp_path):
    """A ModelOpt NVFP4 import of checkpoint_util's model (lm_head kept bf16)."""
    tensors = modelopt_tensors(np.random.default_rng(3))
    write_checkpoint(tmp_path / "ckpt", tensors, CONFIG, extra={"hf_quant_config.json": HF_QUANT})
    ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True)
    return ck.open_imported(tmp_path / "out")


def model_modules(**changed):
    """checkpoint_util's model as a transformers Llama describes it."""
    modules = {"model": ck.ModuleSpec("LlamaModel"),
               "model.embed_tokens": ck.ModuleSpec("Embedding"),
               "model.layers": ck.ModuleSpec("ModuleList"),
               "model.layers.0": ck.ModuleSpec("LlamaDecoderLayer"),
               "model.norm": ck.ModuleSpec("LlamaRMSNorm"),
               "lm_head": ck.ModuleSpec("Linear", 256, 320)}
    for name, (n, k) in LINEARS.items():
        modules[name] = ck.ModuleSpec("Linear", k, n)
    modules.update(changed)
    return modules


def info(name, scheme="nvfp4", n=256, k=256, block=16, act="bf16", bias=False,
         zero_points=False):
    return LayerInfo(name=name, scheme=scheme, n=n, k=k, block=block, act=act, bias=bias,
                     zero_points=zero_points, workspace_bytes=0, strategy={}, kernels={})


BUNDLE = [info("nvfp4_256x512", n=256, k=512), info("nvfp4_512x256", n=512, k=256),
          info("nvfp4_128x256", n=128, k=256), info("nvfp4_256x256")]


def test_every_quantized_linear_is_placed(imported):
    placements = ck.plan_linears(imported, model_modules(), BUNDLE)
    expected_layer = {(256, 256): "nvfp4_256x256", (128, 256): "nvfp4_128x256",
                      (512, 256): "nvfp4_512x256", (256, 512): "nvfp4_256x512"}
    assert [p.module for p in placements] == [
        "model.layers.0.mlp.down_proj", "model.layers.0.mlp.gate_proj",
        "model.layers.0.mlp.up_proj", "model.layers.0.self_attn.k_proj",
        "model.layers.0.self_attn.o_proj", "model.layers.0.self_attn.q_proj",
        "model.layers.0.self_attn.v_proj"]
    for p in placements:
        assert p == ck.LinearPlacement(
            p.module, expected_layer[LINEARS[p.module]], expected_layer[LINEARS[p.module]],
            "model.safetensors",
            {"weights": f"{p.module}.codes", "scales": f"{p.module}.scales",
             "global_scale": f"{p.module}.global_scale"})


def test_without_a_bundle_the_import_layers_are_used(imported):
    placements = ck.plan_linears(imported, model_modules())
    assert {p.module: p.layer for p in placements}[DOWN] == "nvfp4_256x512"


def test_a_bundle_layer_of_another_name_and_the_same_description_runs_it(imported):
    bundle = [info("proj_a", n=256, k=512), info("big", n=512, k=256),
              info("kv", n=128, k=256), info("square"), info("square_again")]
    placements = {p.module: p for p in ck.plan_linears(imported, model_modules(), bundle)}
    assert (placements[DOWN].layer, placements[DOWN].import_layer) == ("proj_a", "nvfp4_256x512")
    assert placements[Q].layer == "square"  # the first of two equal descriptions
    assert placements["model.layers.0.self_attn.k_proj"].layer == "kv"


@pytest.mark.parametrize("case,message", [
    ("absent", f"{Q}: the import maps it to layer nvfp4_256x256, but the model has no module "
               f"of that name"),
    ("embedding", f"{Q}: the import maps it to layer nvfp4_256x256, but the model's module is "
                  f"a Embedding, not a torch.nn.Linear"),
    ("features", f"{Q}: the model's Linear has in_features 256, out_features 512; its layer "
                 f"nvfp4_256x256 has K = 256, N = 256"),
    ("bias", f"{Q}: the model's Linear has a bias, its layer nvfp4_256x256 has none"),
])
def test_model_modules_that_do_not_fit_are_named(imported, case, message):
    changed = {"features": ck.ModuleSpec("Linear", 256, 512),
               "bias": ck.ModuleSpec("Linear", 256, 256, bias=True),
               "embedding": ck.ModuleSpec("Embedding")}
    modules = model_modules()
    if case == "absent":
        del modules[Q]
    else:
        modules[Q] = changed[case]
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(imported, modules, BUNDLE)
    assert str(e.value) == message


def test_a_layer_bias_the_model_lacks_is_named(imported):
    manifest = imported.manifest
    next(l for l in manifest["layers"] if l["name"] == "nvfp4_256x512")["bias"] = True
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(imported, model_modules())
    assert str(e.value) == (f"{DOWN}: its layer nvfp4_256x512 has a bias, the model's Linear "
                            f"has none")


def test_bundle_layers_that_do_not_run_a_layer_are_named(imported):
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(imported, model_modules(), BUNDLE[1:])
    assert str(e.value) == (
        f"{DOWN}: no layer of the bundle runs its layer nvfp4_256x512 (nvfp4 N = 256, K = 512, "
        f"block 16, bf16); the bundle's layers: nvfp4_512x256 (nvfp4 N = 512, K = 256, "
        f"block 16, bf16); nvfp4_128x256 (nvfp4 N = 128, K = 256, block 16, bf16); "
        f"nvfp4_256x256 (nvfp4 N = 256, K = 256, block 16, bf16)")
    wrong = [info("nvfp4_256x512", n=256, k=512, act="f16")] + BUNDLE[1:]
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(imported, model_modules(), wrong)
    assert str(e.value) == (f"{DOWN}: the bundle's layer nvfp4_256x512 is nvfp4 N = 256, "
                            f"K = 512, block 16, f16, the import's nvfp4 N = 256, K = 512, "
                            f"block 16, bf16")


def test_missing_and_misfit_tensors_are_named(imported):
    tensors = imported.manifest["linears"][Q]["tensors"]
    tensors["scales"] = "model.layers.0.self_attn.q_proj.absent"
    with pytest.raises(ck.MissingTensorError) as e:
        ck.plan_linears(imported, model_modules(), BUNDLE)
    assert str(e.value) == (f"{Q}: model.layers.0.self_attn.q_proj.absent (scales) is missing "
                            f"from model.safetensors")
    tensors["scales"] = f"{Q}.codes"   # uint8 [256, 128]: the dtype passes, the shape does not
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(imported, model_modules(), BUNDLE)
    assert str(e.value) == (f"{Q}: nvfp4_256x256: scales must have shape [256, 16] ([N, "
                            f"ceil(K/bs)] e4m3 block scales), got [256, 128]")
    tensors["scales"], tensors["global_scale"] = f"{Q}.scales", "model.norm.weight"
    with pytest.raises(qmat.DTypeError) as e:
        ck.plan_linears(imported, model_modules(), BUNDLE)
    assert str(e.value) == (f"{Q}: nvfp4_256x256: global_scale must have dtype float32 (one "
                            f"fp32 value (weight_scale_2)), got bfloat16")


def test_a_tensor_parallel_import_is_refused(tmp_path):
    tensors = modelopt_tensors(np.random.default_rng(4))
    write_checkpoint(tmp_path / "ckpt", tensors, CONFIG, extra={"hf_quant_config.json": HF_QUANT})
    ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "tp2", bundle=False, quiet=True, tp=2)
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(tmp_path / "tp2", model_modules(), BUNDLE)
    assert str(e.value) == (f"{tmp_path / 'tp2'}: a tensor-parallel import (tp = 2); "
                            f"replace_linear and load_model take tp 1 imports")


# --- parameters that stay in the model --------------------------------------

def model_parameters(tied=False):
    """(names, shape, floating) as qmat.torch gives them for the model."""
    params = [(("model.embed_tokens.weight",) + (("lm_head.weight",) if tied else ()),
               (320, 256), True),
              (("model.layers.0.input_layernorm.weight",), (256,), True),
              (("model.layers.0.post_attention_layernorm.weight",), (256,), True),
              (("model.norm.weight",), (256,), True)]
    if not tied:
        params.append((("lm_head.weight",), (320, 256), True))
    params += [((f"{m}.weight",), shape, True) for m, shape in LINEARS.items()]
    return params


def test_parameters_come_from_the_import_copy(imported):
    sources = ck.tensor_sources(imported)
    assert [label for label, _ in sources] == [
        f"the import {imported.directory} (model.safetensors)",
        f"the checkpoint {imported.manifest['source']['directory']}"]
    plan = ck.plan_parameters(model_parameters(), sources, replaced=list(LINEARS))
    path = os.path.join(imported.directory, "model.safetensors")
    assert plan == [
        ck.ParameterSource(("model.embed_tokens.weight",), "model.embed_tokens.weight", path,
                           "BF16", (320, 256)),
        ck.ParameterSource(("model.layers.0.input_layernorm.weight",),
                           "model.layers.0.input_layernorm.weight", path, "BF16", (256,)),
        ck.ParameterSource(("model.layers.0.post_attention_layernorm.weight",),
                           "model.layers.0.post_attention_layernorm.weight", path, "BF16",
                           (256,)),
        ck.ParameterSource(("model.norm.weight",), "model.norm.weight", path, "BF16", (256,)),
        ck.ParameterSource(("lm_head.weight",), "lm_head.weight", path, "BF16", (320, 256))]


def test_tied_names_read_whichever_the_checkpoint_has(imported):
    sources = ck.tensor_sources(imported)
    params = [(("lm_head.weight", "model.embed_tokens.weight"), (320, 256), True)]
    plan = ck.plan_parameters(params, sources)
    assert [(p.names, p.tensor) for p in plan] == [
        (("lm_head.weight", "model.embed_tokens.weight"), "lm_head.weight")]
    # A quantized lm_head tied to the embeddings leaves the embeddings' name.
    plan = ck.plan_parameters(params, sources, replaced=["lm_head"])
    assert [(p.names, p.tensor) for p in plan] == [
        (("model.embed_tokens.weight",), "model.embed_tokens.weight")]


def test_without_copies_parameters_come_from_the_checkpoint(tmp_path):
    tensors = modelopt_tensors(np.random.default_rng(5))
    write_checkpoint(tmp_path / "ckpt", tensors, CONFIG, files=2,
                     extra={"hf_quant_config.json": HF_QUANT})
    ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True,
                         include_unquantized=False)
    sources = ck.tensor_sources(tmp_path / "out")
    plan = {p.names[0]: p for p in ck.plan_parameters(model_parameters(), sources,
                                                      replaced=list(LINEARS))}
    norm = plan["model.norm.weight"]
    index = json.load(open(tmp_path / "ckpt" / "model.safetensors.index.json"))
    assert norm.path == str(tmp_path / "ckpt" / index["weight_map"]["model.norm.weight"])
    # A checkpoint given explicitly is searched instead of the recorded one.
    os.rename(tmp_path / "ckpt", tmp_path / "moved")
    sources = ck.tensor_sources(tmp_path / "out")
    assert len(sources) == 1
    with pytest.raises(ck.MissingTensorError) as e:
        ck.plan_parameters(model_parameters(), sources, replaced=list(LINEARS))
    assert str(e.value) == (f"model.embed_tokens.weight (of model.embed_tokens): no such tensor "
                            f"in the import {tmp_path / 'out'} (model.safetensors)")
    sources = ck.tensor_sources(tmp_path / "out", checkpoint=str(tmp_path / "moved"))
    plan = ck.plan_parameters(model_parameters(), sources, replaced=list(LINEARS))
    assert {p.path.startswith(str(tmp_path / "moved")) for p in plan} == {True}


def test_parameter_refusals_name_the_parameter(imported):
    sources = ck.tensor_sources(imported)
    path = os.path.join(imported.directory, "model.safetensors")
    q_norm = (("model.layers.0.self_attn.q_norm.weight",), (64,), True)   # a Qwen3-like model
    with pytest.raises(ck.MissingTensorError) as e:
        ck.plan_parameters(model_parameters() + [q_norm], sources, replaced=list(LINEARS))
    assert str(e.value) == (
        f"model.layers.0.self_attn.q_norm.weight (of model.layers.0.self_attn.q_norm): no such "
        f"tensor in the import {imported.directory} (model.safetensors) or the checkpoint "
        f"{imported.manifest['source']['directory']}")
    # Not skipping the replaced linears would read ModelOpt's packed codes as their weights.
    checkpoint_file = os.path.join(imported.manifest["source"]["directory"], "model.safetensors")
    with pytest.raises(ck.ShapeError) as e:
        ck.plan_parameters(model_parameters(), sources)
    assert str(e.value) == (f"{Q}.weight: {Q}.weight in {checkpoint_file} is U8 [256, 128], the "
                            f"model's parameter has shape [256, 256]")
    with pytest.raises(ck.ShapeError) as e:
        ck.plan_parameters([(("model.norm.weight",), (255,), True)], sources)
    assert str(e.value) == (f"model.norm.weight: model.norm.weight in {path} is BF16 [256], the "
                            f"model's parameter has shape [255]")
    with pytest.raises(qmat.DTypeError) as e:
        ck.plan_parameters([((f"{Q}.codes",), (256, 128), True)], sources)
    assert str(e.value) == (f"{Q}.codes: {Q}.codes in {path} is U8, not a floating-point type "
                            f"like the model's parameter")
    assert ck.plan_parameters([((f"{Q}.codes",), (256, 128), False)], sources)[0].dtype == "U8"
