"""gpt-oss MXFP4 checkpoints (config.json quantization_config quant_method
mxfp4): the experts' 4-D `_blocks` / `_scales` tensors imported one linear
per expert and compared bit for bit with a dequantization written here from
the format's definition (not qmat.reference), the biases, the manifest, the
tensor-parallel split of the interleaved gate_up rows, the torch loaders'
refusal, and every refusal's message."""
import io
import os

import ml_dtypes
import numpy as np
import pytest

import qmat
from qmat import checkpoint as ck
from qmat import cli
from qmat import parallel as par
from qmat import shard as sh
from qmat.checkpoint import gpt_oss
from checkpoint_util import E2M1, assert_same_bits, qmat_bits, write_checkpoint

H, I, E, LAYERS = 64, 128, 3, 2
QC = {"quant_method": "mxfp4",
      "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                 "model.embed_tokens", "lm_head"]}
CONFIG = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": H,
          "intermediate_size": I, "num_local_experts": E, "experts_per_token": 2,
          "num_hidden_layers": LAYERS, "num_attention_heads": 2, "num_key_value_heads": 1,
          "head_dim": 32, "vocab_size": 100, "torch_dtype": "bfloat16",
          "quantization_config": QC}
# projection -> (rows N, K)
SHAPES = {"gate_up_proj": (2 * I, H), "down_proj": (H, I)}
LAYER_OF = {"gate_up_proj": "mxfp4_256x64_bias", "down_proj": "mxfp4_64x128_bias"}
P0 = "model.layers.0.mlp.experts"
ROWS = "gate and up interleaved: row 2i is gate unit i, row 2i + 1 up unit i"
CONFIG_RULE = "(pass check_config=False / --no-config-check for an architecture whose {} differs)"


def bf16_bits(values):
    return np.asarray(values, np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)


def experts_of(prefix, projection):
    return [f"{prefix}.{e}.{projection}" for e in range(E)]


def gptoss_tensors(rng, scale_dtype="U8"):
    """A tiny gpt-oss checkpoint: per layer the experts' blocks, scales and
    biases, and the unquantized attention, router, norms and embeddings."""
    tensors = {"model.embed_tokens.weight": ("BF16", bf16_bits(rng.standard_normal((100, H)))),
               "lm_head.weight": ("BF16", bf16_bits(rng.standard_normal((100, H)))),
               "model.norm.weight": ("BF16", bf16_bits(np.ones(H)))}
    for layer in range(LAYERS):
        lp = f"model.layers.{layer}"
        for name, shape in (("input_layernorm.weight", (H,)),
                            ("post_attention_layernorm.weight", (H,)),
                            ("self_attn.q_proj.weight", (64, H)), ("self_attn.q_proj.bias", (64,)),
                            ("self_attn.k_proj.weight", (32, H)),
                            ("self_attn.v_proj.weight", (32, H)),
                            ("self_attn.o_proj.weight", (H, 64)), ("self_attn.sinks", (2,)),
                            ("mlp.router.weight", (E, H)), ("mlp.router.bias", (E,))):
            tensors[f"{lp}.{name}"] = ("BF16", bf16_bits(rng.standard_normal(shape)))
        prefix = f"{lp}.mlp.experts"
        for projection, (n, k) in SHAPES.items():
            tensors[f"{prefix}.{projection}_blocks"] = rng.integers(
                0, 256, (E, n, k // 32, 16), dtype=np.uint8)
            scales = rng.integers(112, 140, (E, n, k // 32), dtype=np.uint8)
            scales[1, 0, :2] = (0, 255)   # 2^-127 (an fp32 subnormal) and NaN
            scales[2, 3, 0] = 254         # 2^127: 6 * 2^127 overflows to inf
            tensors[f"{prefix}.{projection}_scales"] = (scale_dtype, scales)
            # exact in bf16 and f16: multiples of 2^-6 below 2, one -0
            bias = rng.integers(-127, 128, (E, n)).astype(np.float32) / 64
            bits = bf16_bits(bias)
            bits[0, 1] = 0x8000
            tensors[f"{prefix}.{projection}_bias"] = ("BF16", bits)
    return tensors


def gptoss_dequant(blocks, scales):
    """The format's definition: block byte j holds the e2m1 codes of
    k = 2j (low nibble) and 2j + 1 (high nibble) of its 32 k; the e8m0
    scale s is 2^(s - 127), s = 255 NaN. [E, rows, K/32, 16] bytes and
    [E, rows, K/32] scales -> [E, rows, K] fp32."""
    blocks = np.asarray(blocks, np.uint8)
    codes = np.empty(blocks.shape[:-1] + (32,), dtype=np.uint8)
    codes[..., 0::2] = blocks & 0x0F
    codes[..., 1::2] = blocks >> 4
    s = np.asarray(scales).astype(np.int64)
    scale = np.array([np.nan if v == 255 else 2.0 ** (v - 127) for v in s.reshape(-1)],
                     dtype=np.float64).reshape(s.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        values = E2M1[codes].astype(np.float64) * scale[..., None]
        return values.astype(np.float32).reshape(blocks.shape[0], blocks.shape[1], -1)


def make(tmp_path, tensors=None, config=None, files=1, seed=5):
    tensors = gptoss_tensors(np.random.default_rng(seed)) if tensors is None else tensors
    write_checkpoint(tmp_path / "ckpt", tensors, CONFIG if config is None else config,
                     files=files)
    return tmp_path / "ckpt", tensors


def value(tensors, name):
    v = tensors[name]
    return v[1] if isinstance(v, tuple) else v


def test_reference_of_the_test_decodes_the_format():
    """The test's own dequantization against hand-worked values."""
    blocks = np.zeros((1, 1, 1, 16), np.uint8)
    blocks[0, 0, 0, :3] = (0x71, 0x9F, 0x08)     # k0 = 0.5, k1 = 6, k2 = -6, k3 = -0.5, k4 = -0
    scales = np.array([[[128]]], np.uint8)        # 2^1
    got = gptoss_dequant(blocks, scales)[0, 0]
    assert list(got[:6]) == [1.0, 12.0, -12.0, -1.0, 0.0, 0.0]
    assert np.signbit(got[4]) and not np.signbit(got[5])
    assert np.isnan(gptoss_dequant(blocks, np.array([[[255]]], np.uint8))).all()
    assert gptoss_dequant(blocks, np.array([[[0]]], np.uint8))[0, 0, 0] == np.float32(2.0 ** -128)


@pytest.mark.parametrize("act,files,scale_dtype", [("bf16", 1, "U8"), ("f16", 1, "U8"),
                                                   ("bf16", 2, "U8"), ("bf16", 1, "F8_E8M0")])
def test_gptoss_experts_bit_exact(tmp_path, act, files, scale_dtype):
    ckpt, tensors = make(tmp_path, tensors=gptoss_tensors(np.random.default_rng(5), scale_dtype),
                         files=files)
    result = ck.import_checkpoint(ckpt, tmp_path / "out", act=act, bundle=False, quiet=True)
    manifest = result.manifest
    imported = ck.open_imported(tmp_path / "out")
    expected = sorted((m for layer in range(LAYERS) for p in SHAPES
                       for m in experts_of(f"model.layers.{layer}.mlp.experts", p)),
                      key=ck.importer.natural_key)
    assert list(manifest["linears"]) == expected
    assert manifest["source"]["format"] == "mxfp4"
    assert manifest["source"]["quantization"] == QC
    assert manifest["layers"] == [
        {"name": "mxfp4_64x128_bias", "scheme": "mxfp4", "n": H, "k": I, "block": 32, "act": act,
         "bias": True, "zero_points": False, "symbol": "mxfp4_64x128_bias"},
        {"name": "mxfp4_256x64_bias", "scheme": "mxfp4", "n": 2 * I, "k": H, "block": 32,
         "act": act, "bias": True, "zero_points": False, "symbol": "mxfp4_256x64_bias"}]
    quantized = {f"model.layers.{layer}.mlp.experts.{p}_{s}" for layer in range(LAYERS)
                 for p in SHAPES for s in ("blocks", "scales", "bias")}
    assert manifest["unquantized"] == sorted(set(tensors) - quantized, key=ck.importer.natural_key)
    for layer in range(LAYERS):
        prefix = f"model.layers.{layer}.mlp.experts"
        for projection, (n, k) in SHAPES.items():
            blocks = value(tensors, f"{prefix}.{projection}_blocks")
            scales = value(tensors, f"{prefix}.{projection}_scales")
            bias = value(tensors, f"{prefix}.{projection}_bias")
            want = gptoss_dequant(blocks, scales)
            for e, module in enumerate(experts_of(prefix, projection)):
                entry = manifest["linears"][module]
                notes = {"expert": e, **({"rows": ROWS} if projection == "gate_up_proj" else {})}
                assert entry == {
                    "layer": LAYER_OF[projection], "format": "gpt-oss-mxfp4",
                    "file": entry["file"],
                    "tensors": {"weights": f"{module}.codes", "scales": f"{module}.scales",
                                "bias": f"{module}.bias"},
                    "source_tensors": [f"{prefix}.{projection}_{s}"
                                       for s in ("blocks", "scales", "bias")],
                    "ignored_tensors": [], "notes": notes}
                lay, t = imported.linear(module)
                assert (lay.scheme, lay.n, lay.k, lay.block, lay.bias) == ("mxfp4", n, k, 32, True)
                # the codes and scales of expert e as they are in the checkpoint
                assert np.array_equal(t["weights"], blocks[e].reshape(n, k // 2))
                assert np.array_equal(t["scales"], scales[e])
                assert imported.files[entry["file"]].tensors[f"{module}.scales"].dtype == "F8_E8M0"
                assert_same_bits(qmat_bits(imported, module), want[e], act)
                bias_values = bias[e].view(ml_dtypes.bfloat16).astype(np.float32)
                want_bias = bias[e] if act == "bf16" else \
                    bias_values.astype(np.float16).view(np.uint16)
                assert np.array_equal(t["bias"].view(np.uint16), want_bias)
    # the special scales are in the data: 0 (2^-127), 254 and 255 (NaN)
    special = value(tensors, f"{P0}.down_proj_scales")
    assert {0, 254, 255} <= set(np.unique(special).tolist())
    bits = qmat_bits(imported, f"{P0}.1.down_proj")
    assert (bits[0, 32:64] == 0x7FFF).all()   # the NaN scale's block


def test_gptoss_streams_expert_by_expert(tmp_path):
    """Each expert's codes are row views of the memory-mapped 4-D tensor
    (no copy of the [E, ...] tensor), and an import in tiny row chunks writes
    the same bytes."""
    ckpt_dir, tensors = make(tmp_path)
    ckpt = ck.Checkpoint(ckpt_dir)
    qc = gpt_oss.parse_config(ckpt)
    plan = gpt_oss.plan(ckpt, f"{P0}.2.gate_up_proj", qc, {"act": "bf16", "check_config": True})
    rows = plan.outputs["codes"].chunk(5, 9)
    assert rows.shape == (4, H // 2)
    assert not rows.flags.owndata
    assert np.shares_memory(rows, ckpt.get(f"{P0}.gate_up_proj_blocks"))
    assert np.array_equal(rows, value(tensors, f"{P0}.gate_up_proj_blocks")[2, 5:9].reshape(4, -1))
    assert plan.parts == (sh.Part("gate_up", 2 * I, heads=I),)
    ck.import_checkpoint(ckpt_dir, tmp_path / "big", bundle=False, quiet=True)
    ck.import_checkpoint(ckpt_dir, tmp_path / "small", bundle=False, quiet=True, chunk_bytes=48)
    assert (open(tmp_path / "big" / "model.safetensors", "rb").read()
            == open(tmp_path / "small" / "model.safetensors", "rb").read())


def test_gptoss_cli_progress(tmp_path, capsys):
    ckpt, tensors = make(tmp_path)
    assert cli.main(["import", str(ckpt), "-o", str(tmp_path / "out"), "--no-bundle",
                     "--format", "mxfp4"]) == 0
    err = capsys.readouterr().err.splitlines()
    linears = 2 * LAYERS * E
    assert err[0] == f"qmat import: {ckpt} (mxfp4, {linears} quantized linears, act bf16)"
    lines = [line.split("] ", 1)[1] for line in err if line.startswith("[")]
    assert len(lines) == linears + len(tensors) - 6 * LAYERS
    assert lines[0] == f"{P0}.0.down_proj: mxfp4 64x128 -> mxfp4_64x128_bias"
    assert lines[1] == f"{P0}.0.gate_up_proj: mxfp4 256x64 -> mxfp4_256x64_bias"


def test_gptoss_no_config_check(tmp_path):
    ckpt, _ = make(tmp_path, config=dict(CONFIG, num_local_experts=8, intermediate_size=100))
    result = ck.import_checkpoint(ckpt, tmp_path / "out", bundle=False, quiet=True,
                                  check_config=False)
    assert len(result.manifest["linears"]) == 2 * LAYERS * E


def test_gptoss_tp2_keeps_gate_up_pairs(tmp_path):
    """Column-parallel gate_up_proj: rank r holds rows r*N/2.., whole
    (gate, up) pairs; down_proj row-parallel, its bias once with rank 0."""
    ckpt, tensors = make(tmp_path)
    with pytest.warns(sh.ShardWarning):   # down_proj's shard K = 64 leaves the 128-wide steps
        result = ck.import_checkpoint(ckpt, tmp_path / "out", bundle=False, quiet=True, tp=2)
    imported = ck.open_imported(tmp_path / "out")
    gate_up, down = f"{P0}.1.gate_up_proj", f"{P0}.1.down_proj"
    entry = result.manifest["linears"][gate_up]
    assert entry["parallel"] == "column"
    assert entry["parts"] == [{"name": "gate_up", "size": 2 * I, "rank_size": I, "heads": I,
                               "rank_heads": I // 2}]
    blocks = value(tensors, f"{P0}.gate_up_proj_blocks")[1].reshape(2 * I, H // 2)
    bias = value(tensors, f"{P0}.gate_up_proj_bias")[1]
    for rank in range(2):
        layer, t = imported.linear(gate_up, rank)
        assert (layer.n, layer.k) == (I, H)
        assert np.array_equal(t["weights"], blocks[rank * I:(rank + 1) * I])
        assert np.array_equal(t["bias"], bias[rank * I:(rank + 1) * I])
        layer, t = imported.linear(down, rank)
        assert (layer.n, layer.k, layer.bias) == (H, I // 2, False)
        codes = value(tensors, f"{P0}.down_proj_blocks")[1].reshape(H, I // 2)
        assert np.array_equal(t["weights"], codes[:, rank * I // 4:(rank + 1) * I // 4])
    assert np.array_equal(imported.reduce_bias(down), value(tensors, f"{P0}.down_proj_bias")[1])
    # the tensor-parallel MLP block stacks gate and up: it refuses the pairs
    with pytest.warns(sh.ShardWarning):
        down_plan = par.imported_shard(imported, down, "row", 2, 0).plan
    with pytest.raises(qmat.ArgumentError) as e:
        par.check_mlp(down_plan, gate_up=par.imported_shard(imported, gate_up, "column", 2, 0).plan)
    assert str(e.value) == (
        f"MLP with down {down}: the merged {gate_up} must stack gate and up as parts (128, 128), "
        f"each split on its own so that every rank holds its gate and up rows; its parts are "
        f"[256] (one part of 128 groups of 2 rows, such as gpt-oss' interleaved (gate, up) "
        f"pairs: not the stacked gate and up this block computes)")


def test_gptoss_tp_refusals(tmp_path):
    ckpt, _ = make(tmp_path)
    with pytest.raises(qmat.ShardError) as e:
        ck.import_checkpoint(ckpt, tmp_path / "out", bundle=False, quiet=True, tp=3)
    assert str(e.value) == (
        f"layer {P0}.0.gate_up_proj: part gate_up (rows 0..256 of N = 256) has 128 heads of 2 "
        f"rows, which cannot be split 3 ways (42.6667 heads per rank; a rank holds whole "
        f"heads); legal TP degrees: 1, 2, 4, 8, 16")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.import_checkpoint(ckpt, tmp_path / "out", bundle=False, quiet=True, tp=2,
                             parts={"gate_up_proj": (I, I)})
    assert str(e.value) == (
        f"layer {P0}.0.gate_up_proj: parts= does not apply: its parts are fixed by the "
        f"checkpoint's row order ({ROWS})")
    assert not os.path.exists(tmp_path / "out")


def gptoss_model_specs(experts=(E, H, I)):
    """What qmat.torch's module_specs gives for transformers' GptOssForCausalLM."""
    specs = {"model": ck.ModuleSpec("GptOssModel"),
             "model.embed_tokens": ck.ModuleSpec("Embedding"),
             "model.layers": ck.ModuleSpec("ModuleList"),
             "model.norm": ck.ModuleSpec("GptOssRMSNorm"),
             "lm_head": ck.ModuleSpec("Linear", H, 100, False)}
    for layer in range(LAYERS):
        lp = f"model.layers.{layer}"
        specs.update({lp: ck.ModuleSpec("GptOssDecoderLayer"),
                      f"{lp}.self_attn": ck.ModuleSpec("GptOssAttention"),
                      f"{lp}.mlp": ck.ModuleSpec("GptOssMLP"),
                      f"{lp}.mlp.router": ck.ModuleSpec("GptOssTopKRouter"),
                      f"{lp}.mlp.experts": ck.ModuleSpec("GptOssExperts", experts=experts)})
    return specs


def test_gptoss_experts_placed_in_their_module(tmp_path):
    """replace_linear and load_model (through plan_linears) place every
    imported expert in the model's GptOssExperts, which they replace as a
    whole: each placement names its module, expert and projection, grouped
    per module in expert order; the module's 3-D parameters are not read."""
    ckpt, _ = make(tmp_path)
    ck.import_checkpoint(ckpt, tmp_path / "out", bundle=False, quiet=True)
    placements = ck.plan_linears(tmp_path / "out", gptoss_model_specs())
    assert len(placements) == 2 * LAYERS * E
    assert placements[0].module == f"{P0}.0.down_proj"
    assert placements[0].expert == (P0, 0, "down_proj")
    assert placements[1].expert == (P0, 0, "gate_up_proj")
    assert placements[1].tensors == {"weights": f"{P0}.0.gate_up_proj.codes",
                                     "scales": f"{P0}.0.gate_up_proj.scales",
                                     "bias": f"{P0}.0.gate_up_proj.bias"}
    assert ck.replaced_modules(placements) == {f"model.layers.{l}.mlp.experts"
                                               for l in range(LAYERS)}
    grouped = ck.experts_placements(placements)
    assert sorted(grouped) == [f"model.layers.{l}.mlp.experts" for l in range(LAYERS)]
    assert list(grouped[P0]) == ["down_proj", "gate_up_proj"]
    gate_up, down = grouped[P0]["gate_up_proj"], grouped[P0]["down_proj"]
    assert [p.module for p in gate_up] == experts_of(P0, "gate_up_proj")
    assert [p.module for p in down] == experts_of(P0, "down_proj")
    assert {p.layer for p in gate_up} == {LAYER_OF["gate_up_proj"]}
    assert {p.layer for p in down} == {LAYER_OF["down_proj"]}
    # The module's parameters stay out of the plan of parameters read.
    sources = ck.tensor_sources(tmp_path / "out")
    params = [((f"{P0}.gate_up_proj",), (E, H, 2 * I), True),
              (("model.embed_tokens.weight",), (100, H), True)]
    planned = ck.plan_parameters(params, sources, ck.replaced_modules(placements))
    assert [p.names for p in planned] == [("model.embed_tokens.weight",)]


def test_gptoss_experts_refused_where_the_model_differs(tmp_path):
    """Each mismatch between the import's experts and the model's module is
    refused by name, before any module is replaced; a model with a Linear
    per expert takes them as linears."""
    ckpt, _ = make(tmp_path)
    ck.import_checkpoint(ckpt, tmp_path / "out", bundle=False, quiet=True)
    out = tmp_path / "out"
    specs = gptoss_model_specs()
    specs[P0] = ck.ModuleSpec("Sequential")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(out, specs)
    assert str(e.value) == (
        f"{P0}.0.down_proj: the import holds it as gpt-oss MXFP4 expert 0 of {P0}, but the model "
        f"has neither a torch.nn.Linear of that name nor a gpt-oss experts module at {P0} (the "
        f"model's {P0} is a Sequential)")
    specs[P0] = ck.ModuleSpec("Qwen3MoeExperts", experts=(E, H, I), experts_form="swiglu")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(out, specs)
    assert str(e.value) == (
        f"{P0}.0.down_proj: the import holds it as gpt-oss MXFP4 expert 0 of {P0}, but the model "
        f"has neither a torch.nn.Linear of that name nor a gpt-oss experts module at {P0} (the "
        f"model's {P0} is a Qwen3MoeExperts)")
    del specs[P0]
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(out, specs)
    assert str(e.value) == (
        f"{P0}.0.down_proj: the import holds it as gpt-oss MXFP4 expert 0 of {P0}, but the model "
        f"has neither a torch.nn.Linear of that name nor a gpt-oss experts module at {P0}")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(out, gptoss_model_specs(experts=(E, H, 2 * I)))
    assert str(e.value) == (
        f"{P0}.0.down_proj: the model's {P0} (GptOssExperts, hidden size {H}, intermediate size "
        f"{2 * I}) multiplies down_proj as N = {H}, K = {2 * I} with a bias; its layer "
        f"{LAYER_OF['down_proj']} is mxfp4 N = {H}, K = {I}, block 32, bf16, bias")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(out, gptoss_model_specs(experts=(E - 1, H, I)))
    assert str(e.value) == (f"{P0}.{E - 1}.down_proj: the model's {P0} (GptOssExperts) has "
                            f"{E - 1} experts, not an expert {E - 1}")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(out, gptoss_model_specs(experts=(E + 1, H, I)))
    assert str(e.value) == (
        f"{P0}: the import holds {2 * E} of the {2 * E + 2} expert projections of this "
        f"GptOssExperts; it replaces the module as a whole, and these are missing: "
        f"{P0}.{E}.gate_up_proj, {P0}.{E}.down_proj")
    per_expert = gptoss_model_specs()
    for layer in range(LAYERS):
        for projection, (n, k) in SHAPES.items():
            for module in experts_of(f"model.layers.{layer}.mlp.experts", projection):
                per_expert[module] = ck.ModuleSpec("Linear", k, n, True)
    placements = ck.plan_linears(out, per_expert)
    assert len(placements) == 2 * LAYERS * E
    assert all(p.expert is None for p in placements)
    assert ck.experts_placements(placements) == {}


def test_gptoss_real_bundle(qmat_aot, tmp_path):
    """The import's two layers compile, and every expert's tensors pass the
    launcher's operand checks for its bundle layer."""
    from qmat.launcher import check_operands
    tensors = gptoss_tensors(np.random.default_rng(9))
    for name in list(tensors):
        if ".layers.1." in name:
            del tensors[name]
    ckpt, _ = make(tmp_path, tensors=tensors, config=dict(CONFIG, num_hidden_layers=1))
    result = ck.import_checkpoint(ckpt, tmp_path / "out", quiet=True, targets=("sm_90",),
                                  qmat_aot=qmat_aot)
    assert [info.layer() for info in result.bundle.layers] == result.layers
    imported = ck.open_imported(tmp_path / "out")
    for module, entry in result.manifest["linears"].items():
        info = result.bundle.layer(entry["layer"])
        f = imported.files[entry["file"]]
        ops = {op: f.get(t) for op, t in entry["tensors"].items()}
        ops["scales"] = ops["scales"].view(ml_dtypes.float8_e8m0fnu)
        ops["bias"] = ops["bias"].view(ml_dtypes.bfloat16)
        ops["a"] = np.zeros((2, info.k), ml_dtypes.bfloat16)
        ops["y"] = np.zeros((2, info.n), ml_dtypes.bfloat16)
        assert check_operands(info, ops, lambda a: (a.shape, a.dtype.name, "cuda:0",
                                                    a.flags["C_CONTIGUOUS"])) == 2


# --- refusals: exact messages, nothing written -------------------------------------------

def refused(tmp_path, error, message, tensors=None, config=None, **options):
    ckpt, _ = make(tmp_path, tensors=tensors, config=config)
    with pytest.raises(error) as caught:
        ck.import_checkpoint(ckpt, tmp_path / "out", bundle=False, quiet=True, **options)
    assert str(caught.value) == message
    assert isinstance(caught.value, ck.CheckpointError)
    assert not os.path.exists(tmp_path / "out")


def edited(edit):
    tensors = gptoss_tensors(np.random.default_rng(5))
    edit(tensors)
    return tensors


DOWN_BLOCKS = f"{P0}.down_proj_blocks"


@pytest.mark.parametrize("config,message", [
    (dict(CONFIG, num_local_experts=4),
     f"{DOWN_BLOCKS}: holds 3 experts, but config.json gives num_local_experts = 4 "
     + CONFIG_RULE.format("down_proj")),
    (dict(CONFIG, hidden_size=96),
     f"{DOWN_BLOCKS}: down_proj has N = 64, but config.json gives hidden_size = 96 "
     + CONFIG_RULE.format("down_proj")),
    (dict(CONFIG, intermediate_size=160),
     f"{DOWN_BLOCKS}: down_proj has K = 128 (4 blocks of 32), but config.json gives "
     f"intermediate_size = 160 " + CONFIG_RULE.format("down_proj")),
    (dict(CONFIG, intermediate_size=120),
     f"{DOWN_BLOCKS}: config.json gives K = intermediate_size = 120, not a multiple of 32: "
     f"MXFP4 blocks hold 32 values of K each, so K must be a multiple of 32"),
])
def test_gptoss_config_shape_refusals(tmp_path, config, message):
    refused(tmp_path, ck.ShapeError, message, config=config)


def test_gptoss_gate_up_rows_refused_against_config(tmp_path):
    def edit(t):
        rng = np.random.default_rng(1)
        t[f"{P0}.gate_up_proj_blocks"] = rng.integers(0, 256, (E, 2 * I + 2, 2, 16), np.uint8)
        t[f"{P0}.gate_up_proj_scales"] = ("U8", np.full((E, 2 * I + 2, 2), 127, np.uint8))
        t[f"{P0}.gate_up_proj_bias"] = ("BF16", np.zeros((E, 2 * I + 2), np.uint16))
    refused(tmp_path, ck.ShapeError,
            f"{P0}.gate_up_proj_blocks: gate_up_proj has N = 258, but config.json gives "
            f"2 * intermediate_size = 256 " + CONFIG_RULE.format("gate_up_proj"),
            tensors=edited(edit))


def test_gptoss_hidden_size_not_a_multiple_of_32(tmp_path):
    def edit(t):   # no down_proj: gate_up_proj's K is checked first
        for name in [n for n in t if "down_proj" in n]:
            del t[name]
    refused(tmp_path, ck.ShapeError,
            f"{P0}.gate_up_proj_blocks: config.json gives K = hidden_size = 72, not a multiple "
            f"of 32: MXFP4 blocks hold 32 values of K each, so K must be a multiple of 32",
            tensors=edited(edit), config=dict(CONFIG, hidden_size=72))


L1_GATE_UP = "model.layers.1.mlp.experts.gate_up_proj"


def _delete(name):
    return lambda t: t.pop(name)


def _set(name, array):
    def edit(t):
        t[name] = array
    return edit


@pytest.mark.parametrize("edit,error,message", [
    (_delete(f"{L1_GATE_UP}_scales"), ck.MissingTensorError,
     f"{L1_GATE_UP}_scales: missing (the e8m0 block scales of {L1_GATE_UP}_blocks)"),
    (_delete(DOWN_BLOCKS), ck.MissingTensorError,
     f"{DOWN_BLOCKS}: missing (the e2m1 codes that {P0}.down_proj_scales scales)"),
    (_set(DOWN_BLOCKS, np.zeros((E, H, 8, 8), np.uint8)), ck.ShapeError,
     f"{DOWN_BLOCKS}: shape [3, 64, 8, 8], expected 16 bytes in the last dimension (a block of "
     f"32 e2m1 codes, two per byte)"),
    (_set(DOWN_BLOCKS, np.zeros((E, H, 64), np.uint8)), ck.ShapeError,
     f"{DOWN_BLOCKS}: shape [3, 64, 64], expected 4 dimensions (two e2m1 codes per byte, "
     f"[experts, rows, K/32, 16])"),
    (_set(DOWN_BLOCKS, np.zeros((E, H, 4, 16), np.int8)), ck.UnsupportedFormatError,
     f"{DOWN_BLOCKS}: dtype I8, expected U8 (two e2m1 codes per byte, "
     f"[experts, rows, K/32, 16])"),
    (_set(f"{P0}.down_proj_scales", np.zeros((E, H, 3), np.uint8)), ck.ShapeError,
     f"{P0}.down_proj_scales: shape [3, 64, 3], expected [3, 64, 4] ([experts, rows, K/32] "
     f"for {DOWN_BLOCKS} [3, 64, 4, 16])"),
    (_set(f"{P0}.down_proj_scales", ("F8_E4M3", np.zeros((E, H, 4), np.uint8))),
     ck.UnsupportedFormatError,
     f"{P0}.down_proj_scales: dtype F8_E4M3, expected U8 or F8_E8M0 (the e8m0 block scales of "
     f"{DOWN_BLOCKS})"),
    (_set(f"{P0}.down_proj_bias", ("BF16", np.zeros((E, H - 1), np.uint16))), ck.ShapeError,
     f"{P0}.down_proj_bias: shape [3, 63], expected [3, 64] ([experts, rows] for {DOWN_BLOCKS} "
     f"[3, 64, 4, 16])"),
    (_set("model.layers.0.self_attn.q_proj_blocks", np.zeros((64, 2, 16), np.uint8)),
     ck.UnsupportedFormatError,
     "model.layers.0.self_attn.q_proj_blocks: not a gpt-oss expert projection; qmat reads the "
     "MXFP4 tensors <...>.experts.gate_up_proj_blocks and <...>.experts.down_proj_blocks (with "
     "their _scales), [experts, rows, K/32, 16]"),
])
def test_gptoss_tensor_refusals(tmp_path, edit, error, message):
    refused(tmp_path, error, message, tensors=edited(edit))


def test_gptoss_odd_gate_up_rows(tmp_path):
    def edit(t):
        t[f"{P0}.gate_up_proj_blocks"] = np.zeros((E, 2 * I + 1, 2, 16), np.uint8)
    refused(tmp_path, ck.ShapeError,
            f"{P0}.gate_up_proj_blocks: gate_up_proj has N = 257 rows, an odd number; its rows "
            f"are (gate, up) pairs", tensors=edited(edit), check_config=False)


def test_gptoss_bias_not_exact_in_f16(tmp_path):
    tiny = np.uint16(0x0D00)   # a bf16 value far below f16's smallest subnormal
    v = float(np.array([tiny]).view(ml_dtypes.bfloat16).astype(np.float32)[0])

    def edit(t):
        bias = np.array(t[f"{P0}.down_proj_bias"][1])
        bias[2, 5] = tiny
        t[f"{P0}.down_proj_bias"] = ("BF16", bias)
    refused(tmp_path, ck.InexactError,
            f"{P0}.down_proj_bias: BF16 value {v!r} at [2, 5] is not exactly a f16 value (the "
            f"bias is added in the activation type)", tensors=edited(edit), act="f16")


def test_gptoss_unknown_quant_method(tmp_path):
    refused(tmp_path, ck.UnsupportedFormatError,
            "config.json quantization_config: quant_method 'mxfp6'; qmat imports awq, "
            "compressed-tensors, fp8, gptq, modelopt, mxfp4",
            config=dict(CONFIG, quantization_config=dict(QC, quant_method="mxfp6")))


def test_gptoss_format_forced_on_another_config(tmp_path):
    config = dict(CONFIG, quantization_config={"quant_method": "fp8", "fmt": "e4m3",
                                               "weight_block_size": [128, 128]})
    refused(tmp_path, ck.UnsupportedFormatError,
            f"{tmp_path / 'ckpt'}: config.json has no quantization_config with quant_method "
            f"mxfp4", config=config, format="mxfp4")
