"""SwiGLU experts (Qwen3-MoE, Mixtral, DeepSeek, ...) in a transformers 5
model, whose experts module holds all experts of a layer in 3-D parameters:
the plan places each imported expert linear (one per expert and
projection in the checkpoint) in that module, with Mixtral's names, and
refuses every mismatch by name (qmat.checkpoint.replace, without torch)."""
import ml_dtypes
import numpy as np
import pytest

import qmat
from qmat import checkpoint as ck
from checkpoint_util import unquantized, write_checkpoint
from test_checkpoint_nvfp4 import HF_QUANT

H, I, E = 256, 128, 3
COMMON = {"hidden_size": H, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
          "vocab_size": 320, "num_hidden_layers": 1, "num_experts_per_tok": 2,
          "rms_norm_eps": 1e-5, "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
QWEN = dict(COMMON, architectures=["Qwen3MoeForCausalLM"], model_type="qwen3_moe",
            moe_intermediate_size=I, intermediate_size=512, num_experts=E, norm_topk_prob=True)
MIXTRAL = dict(COMMON, architectures=["MixtralForCausalLM"], model_type="mixtral",
               intermediate_size=I, num_local_experts=E)
P = "model.layers.0.mlp.experts"
MIXTRAL_P = "model.layers.0.block_sparse_moe.experts"
QWEN_NAMES = {"gate_proj": "gate_proj", "up_proj": "up_proj", "down_proj": "down_proj"}
MIXTRAL_NAMES = {"gate_proj": "w1", "up_proj": "w3", "down_proj": "w2"}
SHAPES = {"gate_proj": (I, H), "up_proj": (I, H), "down_proj": (H, I)}


def nvfp4(rng, n, k):
    return {"weight": rng.integers(0, 256, (n, k // 2), dtype=np.uint8),
            "weight_scale": ("F8_E4M3", rng.integers(0, 0x7F, (n, k // 16), dtype=np.uint8)),
            "weight_scale_2": np.array(rng.uniform(2e-5, 4e-4), dtype=np.float32)}


def write_moe(directory, config, prefix, names, router):
    """A ModelOpt NVFP4 checkpoint of one MoE layer: q/k/v/o and every
    expert's projections (named prefix.<e>.<names[projection]>) quantized,
    the router `router` [E, H] and the rest bf16 (Qwen3-MoE's q_norm and
    k_norm too); returns the tensors."""
    rng = np.random.default_rng(5)
    tensors = unquantized(rng)

    def bf16(*shape, scale=1.0):
        return ("BF16", (rng.standard_normal(shape) * scale).astype(np.float32)
                .astype(ml_dtypes.bfloat16).view(np.uint16))

    tensors[router] = bf16(E, H, scale=0.1)
    if config["model_type"] == "qwen3_moe":
        for norm in ("q_norm", "k_norm"):
            tensors[f"model.layers.0.self_attn.{norm}.weight"] = bf16(64)
    linears = {"model.layers.0.self_attn.q_proj": (256, H),
               "model.layers.0.self_attn.k_proj": (128, H),
               "model.layers.0.self_attn.v_proj": (128, H),
               "model.layers.0.self_attn.o_proj": (H, 256)}
    for e in range(E):
        for projection, shape in SHAPES.items():
            linears[f"{prefix}.{e}.{names[projection]}"] = shape
    for module, (n, k) in linears.items():
        for suffix, value in nvfp4(rng, n, k).items():
            tensors[f"{module}.{suffix}"] = value
    write_checkpoint(directory, tensors, config, extra={"hf_quant_config.json": HF_QUANT})
    return tensors


def model_specs(experts=(E, H, I), form="swiglu", kind="Qwen3MoeExperts"):
    """The model as transformers 5 describes it: the experts one module."""
    specs = {"model": ck.ModuleSpec("Model"), "model.embed_tokens": ck.ModuleSpec("Embedding"),
             "model.layers": ck.ModuleSpec("ModuleList"),
             "model.layers.0": ck.ModuleSpec("DecoderLayer"),
             "model.layers.0.mlp": ck.ModuleSpec("SparseMoeBlock"),
             "model.layers.0.mlp.gate": ck.ModuleSpec("TopKRouter"),
             P: ck.ModuleSpec(kind, experts=experts, experts_form=form),
             f"{P}.act_fn": ck.ModuleSpec("SiLUActivation"),
             "model.norm": ck.ModuleSpec("RMSNorm"), "lm_head": ck.ModuleSpec("Linear", H, 320)}
    for name, (n, k) in (("q_proj", (256, H)), ("k_proj", (128, H)), ("v_proj", (128, H)),
                         ("o_proj", (H, 256))):
        specs[f"model.layers.0.self_attn.{name}"] = ck.ModuleSpec("Linear", k, n)
    return specs


# style -> (config, the checkpoint's experts prefix, projection names, router)
STYLES = {"qwen": (QWEN, P, QWEN_NAMES, "model.layers.0.mlp.gate.weight"),
          "mixtral": (MIXTRAL, MIXTRAL_P, MIXTRAL_NAMES,
                      "model.layers.0.block_sparse_moe.gate.weight")}


def imported_moe(directory, style):
    """(tensors, import result) of STYLES[style] written and imported."""
    tensors = write_moe(directory / "ckpt", *STYLES[style])
    result = ck.import_checkpoint(directory / "ckpt", directory / "out", bundle=False, quiet=True)
    return tensors, result


@pytest.fixture
def qwen(tmp_path):
    return imported_moe(tmp_path, "qwen")[1].directory


@pytest.fixture
def mixtral(tmp_path):
    return imported_moe(tmp_path, "mixtral")[1].directory


def model_parameters():
    return [((f"{P}.gate_up_proj",), (E, 2 * I, H), True),
            ((f"{P}.down_proj",), (E, H, I), True),
            (("model.layers.0.mlp.gate.weight",), (E, H), True),
            (("model.embed_tokens.weight",), (320, H), True)]


@pytest.mark.parametrize("style", ["qwen", "mixtral"])
def test_experts_are_placed_in_the_experts_module(style, request):
    """Each expert's three linears go to the model's experts module as one
    replacement, under the form's projection names and in expert order;
    Mixtral's block_sparse_moe.experts.<e>.w1 / w3 / w2 find transformers'
    mlp.experts gate / up / down, and its router is read from its
    checkpoint name. The module's 3-D parameters are not read."""
    out = request.getfixturevalue(style)
    stored_prefix, names = (P, QWEN_NAMES) if style == "qwen" else (MIXTRAL_P, MIXTRAL_NAMES)
    placements = ck.plan_linears(out, model_specs())
    experts = [p for p in placements if p.expert]
    assert len(experts) == 3 * E and len(placements) == 3 * E + 4
    first = next(p for p in experts if p.expert == (P, 0, "gate_proj"))
    assert first.module == f"{stored_prefix}.0.{names['gate_proj']}"
    assert first.tensors == {"weights": f"{first.module}.codes",
                             "scales": f"{first.module}.scales",
                             "global_scale": f"{first.module}.global_scale"}
    assert ck.replaced_modules(placements) == {P} | {
        f"model.layers.0.self_attn.{n}" for n in ("q_proj", "k_proj", "v_proj", "o_proj")}
    grouped = ck.experts_placements(placements)
    assert list(grouped) == [P]
    assert sorted(grouped[P]) == ["down_proj", "gate_proj", "up_proj"]
    for projection, part in grouped[P].items():
        assert [p.module for p in part] == [f"{stored_prefix}.{e}.{names[projection]}"
                                            for e in range(E)]
        assert [p.expert for p in part] == [(P, e, projection) for e in range(E)]
        assert len({p.layer for p in part}) == 1
    sources = ck.tensor_sources(out)
    planned = ck.plan_parameters(model_parameters(), sources, ck.replaced_modules(placements))
    assert [(p.names, p.tensor) for p in planned] == [
        (("model.layers.0.mlp.gate.weight",),
         "model.layers.0.mlp.gate.weight" if style == "qwen"
         else "model.layers.0.block_sparse_moe.gate.weight"),
        (("model.embed_tokens.weight",), "model.embed_tokens.weight")]


def test_experts_refused_where_the_model_differs(mixtral):
    """Each mismatch is refused by name before anything is replaced."""
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(mixtral, model_specs(experts=(E, H, 2 * I)))
    assert str(e.value) == (
        f"{MIXTRAL_P}.0.w1: the model's {P} (Qwen3MoeExperts, hidden size {H}, intermediate "
        f"size {2 * I}) multiplies w1 (gate_proj) as N = {2 * I}, K = {H} without a bias; its "
        f"layer nvfp4_{I}x{H} is nvfp4 N = {I}, K = {H}, block 16, bf16")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(mixtral, model_specs(experts=(E - 1, H, I)))
    assert str(e.value) == (f"{MIXTRAL_P}.{E - 1}.w1: the model's {P} (Qwen3MoeExperts) has "
                            f"{E - 1} experts, not an expert {E - 1}")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(mixtral, model_specs(experts=(E + 1, H, I)))
    assert str(e.value) == (
        f"{P}: the import holds {3 * E} of the {3 * E + 3} expert projections of this "
        f"Qwen3MoeExperts; it replaces the module as a whole, and these are missing: "
        f"{P}.{E}.gate_proj, {P}.{E}.up_proj, {P}.{E}.down_proj")
    # Not an experts module of this form: the linears are looked for as such.
    for form, kind in (("gpt-oss", "GptOssExperts"), (None, "Sequential")):
        specs = model_specs(form=form, kind=kind,
                            experts=None if form is None else (E, H, I))
        with pytest.raises(qmat.ArgumentError) as e:
            ck.plan_linears(mixtral, specs)
        assert str(e.value) == (f"{MIXTRAL_P}.0.w1: the import maps it to layer nvfp4_{I}x{H}, "
                                f"but the model has no module of that name")


def test_a_model_with_a_linear_per_expert_takes_them_as_linears(qwen):
    """Where the model has a Linear per expert (transformers 4), nothing is
    grouped."""
    specs = model_specs()
    del specs[P]
    for e in range(E):
        for projection, (n, k) in SHAPES.items():
            specs[f"{P}.{e}.{projection}"] = ck.ModuleSpec("Linear", k, n)
    placements = ck.plan_linears(qwen, specs)
    assert len(placements) == 3 * E + 4
    assert all(p.expert is None for p in placements)
    assert ck.experts_placements(placements) == {}
