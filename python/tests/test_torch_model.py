"""qmat.torch on the CPU, skipped without torch: the custom op qmat::linear
(its fake, torch.compile(fullgraph=True) against eager, the handle of a freed
module, buffers other than the module's) and, where transformers is
installed, load_model / replace_linear on a small Llama. The launcher is
torch_cpu_util's stand-in, which computes the product with qmat.reference,
so outputs are compared, not only calls. QuantLinear's CUDA-only check, the
stream and device queries are patched out as in test_torch_fastpath.py."""
import gc
import json
import os
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import qmat  # noqa: E402
import qmat.torch as qt  # noqa: E402
from qmat import checkpoint as ck  # noqa: E402
from checkpoint_util import CONFIG, LINEARS, write_checkpoint  # noqa: E402
from torch_cpu_util import as_prepared, cpu_library  # noqa: E402

K, N = 256, 96
LAYERS = [qmat.Layer("nv", "nvfp4", N, K, act="bf16", bias=True),
          qmat.Layer("i4", "int4", N, K, act="bf16", block=128)]


@pytest.fixture
def on_cpu(monkeypatch):
    monkeypatch.setattr(qt, "_require_cuda", lambda *args: None)
    monkeypatch.setattr(qt, "current_stream_handle", lambda index: 0)
    monkeypatch.setattr(qt, "_get_device", lambda: None)
    qt.release_workspaces()
    yield
    qt.release_workspaces()


@pytest.fixture
def library(on_cpu, tmp_path):
    return cpu_library(tmp_path / "bundle", "cpu", LAYERS)


def make_layer(lib, name, seed):
    gen = torch.Generator().manual_seed(seed)
    weight = torch.randn(N, K, generator=gen) * 0.05
    bias = torch.randn(N, generator=gen) if lib.layer(name).bias else None
    return qt.QuantLinear.from_float(weight, lib, name, bias=bias, device="cpu")


def act(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(torch.bfloat16)


def relative_error(y, layer, x):
    """||y - ref||_F / ||ref||_F, ref the fp64 product with the reference weight."""
    ref = x.double().reshape(-1, K) @ layer.dequantized_weight().double().T
    if layer.bias is not None:
        ref += layer.bias.double()
    return float(torch.linalg.norm(y.double().reshape(ref.shape) - ref) / torch.linalg.norm(ref))


class Block(torch.nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.proj = layer

    def forward(self, x):
        return torch.relu(self.proj(x))


@pytest.mark.parametrize("name", ["nv", "i4"])
def test_compiled_module_gives_the_eager_bits(library, name):
    lib, cdll = library
    layer = make_layer(lib, name, seed=1)
    block = Block(layer)
    compiled = torch.compile(block, fullgraph=True)
    with torch.inference_mode():
        for lead in [(1,), (2, 5), (7,), (3, 1)]:  # m = 10 takes a workspace
            x = act(*lead, K, seed=sum(lead))
            eager = block(x)
            calls = len(cdll.calls)
            hits = layer._op_fast.hits if layer._op_fast is not None else None
            y = compiled(x)
            m = int(np.prod(lead))
            # One launch, with a workspace of its own exactly where the M needs one.
            assert cdll.calls[calls:] == [(name, m, 0 if m <= 8 else 4096)]
            assert y.shape == (*lead, N) and y.dtype == torch.bfloat16
            assert torch.equal(y, eager), f"{name} {lead}"
            assert relative_error(layer(x), layer, x) <= 1e-2
            if hits is not None and m <= 8:  # the op's own Runner, not forward()'s
                assert layer._op_fast.hits == hits + 1


def test_compiled_out_argument(library):
    lib, _ = library
    layer = make_layer(lib, "nv", seed=2)
    compiled = torch.compile(lambda x, out: layer(x, out=out), fullgraph=True)
    x = act(4, K, seed=3)
    with torch.inference_mode():
        out = torch.full((4, N), float("nan"), dtype=torch.bfloat16)
        assert compiled(x, out) is out
        assert torch.equal(out, layer(x))


def test_the_op_checks_and_shapes_like_forward(library):
    from torch._subclasses.fake_tensor import FakeTensorMode
    lib, _ = library
    layer = make_layer(lib, "nv", seed=4)
    buffers = (layer.weight, layer.scales, layer.global_scale, None, layer.bias)
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        x = mode.from_tensor(act(2, 5, K))
        y = torch.ops.qmat.linear(x, layer._handle, *buffers)
        assert y.shape == (2, 5, N) and y.dtype == torch.bfloat16
        with pytest.raises(qmat.DTypeError) as e:
            torch.ops.qmat.linear(x.half(), layer._handle, *buffers)
        assert str(e.value) == ("nv: input must have dtype torch.bfloat16 (the layer is compiled "
                                "for bf16), got torch.float16")
        with pytest.raises(qmat.ArgumentError) as e:
            torch.ops.qmat.linear(x[..., :-2], layer._handle, *buffers)
        assert str(e.value) == "nv: input must have shape [..., 256], got [2, 5, 254]"


def test_a_freed_module_handle_is_named(library):
    lib, _ = library
    layer = make_layer(lib, "i4", seed=5)
    handle, buffers = layer._handle, (layer.weight, layer.scales, None, None, None)
    del layer
    gc.collect()
    with pytest.raises(qmat.ArgumentError) as e:
        torch.ops.qmat.linear(act(1, K), handle, *buffers)
    assert str(e.value) == (f"qmat::linear: no QuantLinear has handle {handle} (the module it "
                            f"was traced from no longer exists)")


def test_the_op_runs_the_buffers_it_is_given(library):
    lib, cdll = library
    first, second = make_layer(lib, "nv", seed=6), make_layer(lib, "nv", seed=7)
    x = act(3, K, seed=8)
    with torch.inference_mode():
        y = torch.ops.qmat.linear(x, first._handle, second.weight, second.scales,
                                  second.global_scale, None, second.bias)
        assert torch.equal(y, second(x)) and not torch.equal(y, first(x))
        with pytest.raises(qmat.ArgumentError) as e:
            torch.ops.qmat.linear(x, first._handle, second.weight, second.scales, None, None,
                                  second.bias)
    assert str(e.value) == ("nv: global_scale is required: nvfp4 layers take the fp32 tensor "
                            "scale (weight_scale_2)")


def test_eager_calls_do_not_dispatch_through_the_op(library, monkeypatch):
    lib, _ = library
    layer = make_layer(lib, "nv", seed=9)
    monkeypatch.setattr(qt.QuantLinear, "_op_forward", None)   # would fail if called
    x = act(2, K)
    with torch.inference_mode():
        assert relative_error(layer(x), layer, x) <= 1e-2


# --- transformers ------------------------------------------------------------

def llama_checkpoint(tmp_path):
    """checkpoint_util's model as a ModelOpt NVFP4 checkpoint, imported."""
    from test_checkpoint_nvfp4 import HF_QUANT, modelopt_tensors
    tensors = modelopt_tensors(np.random.default_rng(11))
    config = dict(CONFIG, rms_norm_eps=1e-5, tie_word_embeddings=False)
    write_checkpoint(tmp_path / "ckpt", tensors, config, extra={"hf_quant_config.json": HF_QUANT})
    result = ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True)
    return tensors, result


@pytest.fixture
def llama(on_cpu, tmp_path):
    pytest.importorskip("transformers")
    tensors, result = llama_checkpoint(tmp_path)
    lib, cdll = cpu_library(tmp_path / "bundle", "llama", result.layers)
    return tensors, result, lib, cdll


def bf16_of(bits):
    return torch.from_numpy(np.asarray(bits).view(np.int16)).view(torch.bfloat16)


def test_load_model_puts_quant_linear_in_place(llama):
    tensors, result, lib, cdll = llama
    model = qt.load_model(result.directory, library=lib, device="cpu")
    for module, (n, k) in LINEARS.items():
        q = model.get_submodule(module)
        assert isinstance(q, qt.QuantLinear)
        assert q.layer_info.name == result.manifest["linears"][module]["layer"]
        assert (q.in_features, q.out_features) == (k, n)
    assert type(model.lm_head) is torch.nn.Linear
    for name in ("lm_head.weight", "model.embed_tokens.weight", "model.norm.weight",
                 "model.layers.0.input_layernorm.weight"):
        value = model.get_parameter(name)
        assert value.dtype == torch.bfloat16 and not value.requires_grad
        assert torch.equal(value, bf16_of(tensors[name][1])), name
    assert not any(p.is_meta for p in model.parameters())
    assert model.model.rotary_emb.inv_freq.dtype == torch.float32
    reference = qt.load_model(result.directory, device="cpu", dequantize=True)
    assert type(reference.model.layers[0].mlp.down_proj) is torch.nn.Linear
    for module in LINEARS:
        q = model.get_submodule(module)
        assert torch.equal(reference.get_submodule(module).weight, q.dequantized_weight())
    ids = torch.randint(0, CONFIG["vocab_size"], (2, 9), generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        logits, want = model(ids).logits.float(), reference(ids).logits.float()
    assert {call[1] for call in cdll.calls} == {18}   # 2 x 9 rows through the stand-in
    error = float(torch.linalg.norm(logits - want) / torch.linalg.norm(want))
    assert error <= 1e-2, error


def test_load_model_imports_a_checkpoint_first(llama, tmp_path):
    _, result, lib, _ = llama
    model = qt.load_model(tmp_path / "ckpt", imported=tmp_path / "again", library=lib,
                          device="cpu")
    assert isinstance(model.model.layers[0].self_attn.q_proj, qt.QuantLinear)
    assert ck.open_imported(tmp_path / "again").manifest["bundle"] is None
    with pytest.raises(qmat.ArgumentError) as e:
        qt.load_model(tmp_path / "ckpt", library=lib, device="cpu")
    assert str(e.value) == (f"{tmp_path / 'ckpt'}: not an import (no *.checkpoint.json); pass "
                            f"imported=DIR to load a checkpoint through its import in DIR")
    with pytest.raises(qmat.ArgumentError) as e:
        qt.load_model(result.directory, device="cpu")
    assert str(e.value) == (f"{result.directory}: the import has no bundle (imported with "
                            f"bundle=False / --no-bundle): pass library= (a bundle directory, "
                            f"qmat.Bundle or loaded library)")
    with pytest.raises(qmat.ArgumentError) as e:
        qt.load_model(result.directory, library=lib, device="cpu", dtype=torch.float16)
    assert str(e.value) == (f"{result.directory}: the import's activation type is bf16, the "
                            f"model's dtype torch.float16: the QuantLinear layers take "
                            f"torch.bfloat16")


def test_replace_linear_checks_every_module_first(llama):
    import transformers
    _, result, lib, _ = llama
    config = transformers.LlamaConfig(**dict(CONFIG, intermediate_size=384))
    model = transformers.LlamaForCausalLM(config)
    with pytest.raises(qmat.ArgumentError) as e:
        qt.replace_linear(model, result, library=lib, device="cpu")
    assert str(e.value) == ("model.layers.0.mlp.down_proj: the model's Linear has in_features "
                            "384, out_features 256; its layer nvfp4_256x512 has K = 512, N = 256")
    assert not any(isinstance(m, qt.QuantLinear) for m in model.modules())
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**CONFIG))
    assert qt.replace_linear(model, result.directory, library=lib, device="cpu") is model
    assert sum(isinstance(m, qt.QuantLinear) for m in model.modules()) == len(LINEARS)


# --- codes imported in the prepared layout -----------------------------------

def test_quant_linear_takes_prepared_codes_as_they_are(on_cpu, tmp_path):
    """prepared=True keeps codes already in the prepared layout (not
    prepared a second time); a layer that reads the checkpoint layout
    refuses them. The stand-in launcher reads the layout of
    PreparedWeights.h, so codes prepared twice would give other outputs."""
    layers = [qmat.Layer("nv", "nvfp4", N, K, act="bf16", bias=True)]
    lib, _ = cpu_library(tmp_path / "prepared", "prep", layers, prepared=("nv",))
    plain_lib, _ = cpu_library(tmp_path / "plain", "plain", layers)
    gen = torch.Generator().manual_seed(5)
    q = qmat.reference.quantize("nvfp4", (torch.randn(N, K, generator=gen) * 0.05).numpy(),
                                act="bf16")
    bias = torch.randn(N, generator=gen).to(torch.bfloat16)
    rest = (q["scales"], q["global_scale"], None, bias)
    at_load = qt.QuantLinear(lib, "nv", q["weights"], *rest, device="cpu")
    given = qt.QuantLinear(lib, "nv", as_prepared(q["weights"]), *rest, device="cpu",
                           prepared=True)
    assert np.array_equal(at_load.weight.numpy(), as_prepared(q["weights"]))
    assert torch.equal(given.weight, at_load.weight)
    assert torch.equal(given.dequantized_weight(), at_load.dequantized_weight())
    x = act(3, K)
    with torch.inference_mode():
        y = given(x)
        assert torch.equal(y, at_load(x))
    assert relative_error(y, given, x) <= 1e-2
    with pytest.raises(qmat.ArgumentError) as e:
        qt.QuantLinear(plain_lib, "nv", as_prepared(q["weights"]), *rest, device="cpu",
                       prepared=True)
    assert str(e.value) == ("nv: the weights are in the prepared layout (prepared=True), but "
                            "the layer reads the checkpoint layout (compiled without "
                            "--prepared-weights)")


def prepared_copy(result, directory):
    """What `qmat import --prepared-weights` writes for the plain import
    `result`: its files with every linear's codes in the prepared layout
    (as_prepared; test_checkpoint_prepared.py checks the importer's against
    the real launcher) and the manifest saying so."""
    shutil.copytree(result.directory, directory)
    path = os.path.join(directory, os.path.basename(result.manifest_path))
    with open(path) as f:
        manifest = json.load(f)
    codes = {entry["tensors"]["weights"] for entry in manifest["linears"].values()}
    for file in manifest["weights"]:
        tensors = ck.read_file(os.path.join(directory, file))
        for name in codes & tensors.keys():
            tensors[name] = (tensors[name][0], as_prepared(tensors[name][1]))
        ck.write_file(os.path.join(directory, file), tensors)
    for entry in manifest["linears"].values():
        entry["prepared_weights"] = True
    with open(path, "w") as f:
        json.dump(manifest, f)
    return directory


def test_load_model_takes_prepared_imports_as_they_are(llama, tmp_path):
    import transformers
    from qmat import torch_parallel as tpl
    _, result, plain_lib, _ = llama
    lib, _ = cpu_library(tmp_path / "prepared_bundle", "llamap", result.layers,
                         prepared={layer.name for layer in result.layers})
    prepared = prepared_copy(result, tmp_path / "prepared")
    at_load = qt.load_model(result.directory, library=lib, device="cpu")
    as_written = qt.load_model(prepared, library=lib, device="cpu")
    imported = ck.open_imported(result.directory)
    for module in LINEARS:
        codes = imported.linear(module)[1]["weights"]
        assert np.array_equal(as_written.get_submodule(module).weight.numpy(),
                              as_prepared(codes)), module
        assert torch.equal(at_load.get_submodule(module).weight,
                           as_written.get_submodule(module).weight), module
    ids = torch.randint(0, CONFIG["vocab_size"], (2, 5), generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        assert torch.equal(as_written(ids).logits, at_load(ids).logits)
    # The dense reference restores the checkpoint layout through the launcher.
    dense = qt.load_model(prepared, library=lib, device="cpu", dequantize=True)
    reference = qt.load_model(result.directory, device="cpu", dequantize=True)
    for module in LINEARS:
        assert torch.equal(dense.get_submodule(module).weight,
                           reference.get_submodule(module).weight), module
    refusal = ("model.layers.0.mlp.down_proj: the import holds its codes in the prepared layout "
               "(imported with --prepared-weights), but the bundle's layer nvfp4_256x512 reads "
               "the checkpoint layout (compiled without --prepared-weights): run it on a bundle "
               "compiled with --prepared-weights, such as the import's own, or import without "
               "--prepared-weights")
    for load in (lambda: qt.load_model(prepared, library=plain_lib, device="cpu"),
                 lambda: qt.load_model(prepared, library=plain_lib, device="cpu",
                                       dequantize=True)):
        with pytest.raises(qmat.ArgumentError) as e:
            load()
        assert str(e.value) == refusal
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**CONFIG))
    with pytest.raises(qmat.ArgumentError) as e:
        qt.replace_linear(model, prepared, library=plain_lib, device="cpu")
    assert str(e.value) == refusal
    assert not any(isinstance(m, qt.QuantLinear) for m in model.modules())
    # torch_parallel's layers of one rank read the same flag.
    q_proj = "model.layers.0.self_attn.q_proj"
    column = tpl.ColumnParallelQuantLinear.from_imported(prepared, q_proj, lib, device="cpu")
    assert np.array_equal(column.local.weight.numpy(),
                          as_prepared(imported.linear(q_proj)[1]["weights"]))
    with pytest.raises(qmat.ArgumentError) as e:
        tpl.RowParallelQuantLinear.from_imported(prepared, "model.layers.0.self_attn.o_proj",
                                                 plain_lib, device="cpu")
    assert str(e.value) == (
        "model.layers.0.self_attn.o_proj: the import holds its codes in the prepared layout "
        "(imported with --prepared-weights), but the bundle's layer nvfp4_256x256 reads the "
        "checkpoint layout (compiled without --prepared-weights): run it on a bundle compiled "
        "with --prepared-weights, such as the import's own, or import without "
        "--prepared-weights")


@pytest.mark.parametrize("style", ["qwen", "mixtral"])
def test_load_model_puts_quant_experts_in_place(on_cpu, tmp_path, style):
    """A Qwen3-MoE and a Mixtral ModelOpt NVFP4 checkpoint (one linear per
    expert and projection; Mixtral's w1 / w3 / w2 under block_sparse_moe):
    load_model replaces transformers' experts module by a
    QuantSwiGluExperts whose weights are the format's own dequantization;
    the dequantized model keeps transformers' module with gate over up in
    gate_up_proj; the router comes from its checkpoint name; the logits
    and the experts alone agree within the bf16 bound."""
    pytest.importorskip("transformers")
    from test_checkpoint_moe import E, P, STYLES, imported_moe
    from test_checkpoint_nvfp4 import modelopt_dequant
    tensors, result = imported_moe(tmp_path, style)
    _, prefix, names, router = STYLES[style]
    lib, cdll = cpu_library(tmp_path / "bundle", "moe", result.layers)
    model = qt.load_model(result.directory, library=lib, device="cpu")
    reference = qt.load_model(result.directory, device="cpu", dequantize=True)
    experts, dense = model.get_submodule(P), reference.get_submodule(P)
    assert isinstance(experts, qt.QuantSwiGluExperts) and experts.num_experts == E
    assert type(dense).__name__ == {"qwen": "Qwen3MoeExperts", "mixtral": "MixtralExperts"}[style]
    assert type(experts.act_fn) is type(dense.act_fn)
    for e in range(E):
        weights = []
        for projection in ("gate_proj", "up_proj", "down_proj"):
            name = f"{prefix}.{e}.{names[projection]}"
            want = modelopt_dequant(tensors[f"{name}.weight"], tensors[f"{name}.weight_scale"][1],
                                    tensors[f"{name}.weight_scale_2"],
                                    tensors[f"{name}.weight"].shape[1] * 2)
            weights.append(torch.from_numpy(want).to(torch.bfloat16))
        for part, want in zip((experts.gate, experts.up, experts.down), weights):
            assert torch.equal(part[e].dequantized_weight(), want)
        assert torch.equal(dense.gate_up_proj[e], torch.cat(weights[:2]))
        assert torch.equal(dense.down_proj[e], weights[2])
    for m in (model, reference):
        assert torch.equal(m.get_parameter("model.layers.0.mlp.gate.weight"),
                           bf16_of(tensors[router][1]))
    ids = torch.randint(0, 320, (2, 9), generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        logits, want = model(ids).logits.float(), reference(ids).logits.float()
        gen = torch.Generator().manual_seed(2)
        x = torch.randn(16, 256, generator=gen).to(torch.bfloat16)
        indices = torch.randint(0, E - 1, (16, 2), generator=gen)   # the last expert never
        weights = torch.softmax(torch.randn(16, 2, generator=gen), 1).to(torch.bfloat16)
        alone, alone_want = experts(x, indices, weights).float(), dense(x, indices, weights).float()
    assert {call[1] for call in cdll.calls} <= set(range(1, 19))
    for got, expected in ((logits, want), (alone, alone_want)):
        error = float(torch.linalg.norm(got - expected) / torch.linalg.norm(expected))
        assert error <= 1e-2, error
