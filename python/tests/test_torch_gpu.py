"""qmat.torch on a GPU: QuantLinear and run_layer against the reference, for
every scheme and both activation types. Skipped unless torch with CUDA is
importable.

The bundle comes from $QMAT_TEST_BUNDLE (a directory qmat-aot wrote, e.g.
bench/python/make_bundle.py's, for machines without MLIR such as the H200)
or is compiled here from SMALL_LAYERS with qmat-aot.
"""
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch has no CUDA device", allow_module_level=True)

import qmat  # noqa: E402
import qmat.torch as qt  # noqa: E402
from conftest import SMALL_LAYERS, tool_or_skip  # noqa: E402

BOUNDS = {"f16": 2e-3, "bf16": 1e-2}  # docs/numerics.md, relative Frobenius error
ACT = {"f16": torch.float16, "bf16": torch.bfloat16}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    directory = os.environ.get("QMAT_TEST_BUNDLE")
    if directory:
        bundle = qmat.Bundle.open(directory)
    else:
        bundle = qmat.compile(SMALL_LAYERS, targets=("sm_90",),
                              out_dir=tmp_path_factory.mktemp("gpu"), prefix="gpu",
                              qmat_aot=tool_or_skip("qmat-aot"))
    output = tmp_path_factory.mktemp("lib") / f"lib{bundle.prefix}.so"
    try:
        bundle.build_library(output=output)
    except qmat.ToolError:  # no usable host g++: nvcc brings its own set-up
        bundle.build_library(output=output, compiler="nvcc")
    return qmat.load_library(bundle)


@pytest.fixture(scope="module")
def prepared_library(tmp_path_factory):
    """The same layers compiled with prepared weights: $QMAT_TEST_BUNDLE's
    prepared/ (make_bundle.py writes it), else compiled here."""
    directory = os.environ.get("QMAT_TEST_BUNDLE")
    if directory:
        if not os.path.isdir(os.path.join(directory, "prepared")):
            pytest.skip(f"{directory} has no prepared/ bundle")
        bundle = qmat.Bundle.open(os.path.join(directory, "prepared"))
    else:
        bundle = qmat.compile(SMALL_LAYERS, targets=("sm_90",),
                              out_dir=tmp_path_factory.mktemp("gpu_prepared"), prefix="gpup",
                              prepared_weights=True, qmat_aot=tool_or_skip("qmat-aot"))
    output = tmp_path_factory.mktemp("libp") / f"lib{bundle.prefix}.so"
    try:
        bundle.build_library(output=output)
    except qmat.ToolError:
        bundle.build_library(output=output, compiler="nvcc")
    return qmat.load_library(bundle)


def relative_error(y, x, weight, bias):
    """||y - ref||_F / ||ref||_F with ref the fp64 product of x and the
    reference-dequantized weight (+ bias)."""
    ref = x.double().reshape(-1, x.shape[-1]) @ weight.double().to(x.device).T
    if bias is not None:
        ref += bias.double()
    y = y.double().reshape(ref.shape)
    return float(torch.linalg.norm(y - ref) / torch.linalg.norm(ref))


def make_layer(library, info, seed):
    gen = torch.Generator().manual_seed(seed)
    linear = torch.nn.Linear(info.k, info.n, bias=info.bias)
    with torch.no_grad():
        linear.weight.copy_(torch.randn(info.n, info.k, generator=gen) * 0.05)
        if info.bias:
            linear.bias.copy_(torch.randn(info.n, generator=gen))
    return qt.QuantLinear.from_float(linear, library, info.name, device="cuda")


def test_bundle_covers_every_scheme_and_dtype(library):
    if os.environ.get("QMAT_TEST_BUNDLE") is None:
        pytest.skip("SMALL_LAYERS covers each scheme once; the bench bundle covers all pairs")
    pairs = {(l.scheme, l.act) for l in library.layers}
    assert pairs == {(s, a) for s in qmat.SCHEMES for a in ("f16", "bf16")}


@torch.inference_mode()
def test_quant_linear_matches_the_reference(library):
    for i, info in enumerate(library.layers):
        layer = make_layer(library, info, seed=i)
        weight = layer.dequantized_weight()
        bias = layer.bias.double() if info.bias else None
        for lead in [(1,), (7,), (3, 11), (300,)]:
            x = torch.randn(*lead, info.k, device="cuda").to(ACT[info.act])
            out = torch.full((*lead, info.n), float("nan"), dtype=ACT[info.act], device="cuda")
            y = layer(x, out=out)
            assert y is out
            fresh = layer(x)
            torch.cuda.synchronize()
            assert fresh.shape == (*lead, info.n) and fresh.dtype == ACT[info.act]
            assert not torch.isnan(y).any(), f"{info.name} {lead}: NaN in the output"
            error = relative_error(y, x, weight, bias)
            assert error <= BOUNDS[info.act], f"{info.name} {lead}: {error}"
            assert relative_error(fresh, x, weight, bias) <= BOUNDS[info.act]


@torch.inference_mode()
def test_run_layer_on_a_side_stream(library):
    info = library.layers[0]
    layer = make_layer(library, info, seed=99)
    x = torch.randn(16, info.k, device="cuda").to(ACT[info.act])
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        assert qt.current_stream_handle(x.device.index) == stream.cuda_stream
        out = torch.full((16, info.n), float("nan"), dtype=x.dtype, device="cuda")
        qt.run_layer(library, info.name, x, layer.weight, layer.scales, layer.global_scale,
                     layer.zero_points, layer.bias, out=out)
    stream.synchronize()
    bias = layer.bias.double() if info.bias else None
    assert relative_error(out, x, layer.dequantized_weight(), bias) <= BOUNDS[info.act]


@torch.inference_mode()
def test_bad_arguments_raise_clearly(library):
    by_scheme = {l.scheme: l for l in library.layers}
    nv = by_scheme["nvfp4"]
    layer = make_layer(library, nv, seed=5)
    x = torch.randn(4, nv.k, device="cuda").to(ACT[nv.act])
    wrong = torch.float16 if nv.act == "bf16" else torch.bfloat16
    with pytest.raises(qmat.DTypeError, match=f"{nv.name}: input must have dtype"):
        layer(x.to(wrong))
    with pytest.raises(qmat.ArgumentError, match=rf"input must have shape \[\.\.\., {nv.k}\]"):
        layer(x[:, :-2])
    with pytest.raises(qmat.ArgumentError, match="input is on cpu"):
        layer(x.cpu())
    with pytest.raises(qmat.ArgumentError, match="global_scale is required: nvfp4 layers"):
        qt.run_layer(library, nv.name, x, layer.weight, layer.scales, None, None, layer.bias)
    with pytest.raises(qmat.ArgumentError, match="zero_points must be None: only int4"):
        qt.run_layer(library, nv.name, x, layer.weight, layer.scales, layer.global_scale,
                     layer.weight, layer.bias)
    with pytest.raises(qmat.ArgumentError, match="a must be a CUDA tensor"):
        qt.run_layer(library, nv.name, x.cpu(), layer.weight, layer.scales, layer.global_scale)
    # 256 rows (above the fused GEMM's 128) take the dequantize + GEMM path,
    # which needs its workspace; 4 rows take the decode GEMV, which needs none.
    prefill_x = torch.randn(256, nv.k, device="cuda").to(ACT[nv.act])
    small = torch.empty(1024, dtype=torch.uint8, device="cuda")
    with pytest.raises(qmat.ArgumentError, match="workspace has 1024 bytes"):
        qt.run_layer(library, nv.name, prefill_x, layer.weight, layer.scales,
                     layer.global_scale, bias=layer.bias, workspace=small)
    assert library.workspace_size(nv, 4) == 0
    # A misaligned weight pointer passes the Python checks; the launcher
    # refuses it and its message comes back through last_error.
    shifted = torch.empty(layer.weight.numel() + 1, dtype=torch.uint8, device="cuda")[1:]
    shifted = shifted.view(layer.weight.shape)
    with pytest.raises(qmat.LauncherError) as info:
        qt.run_layer(library, nv.name, prefill_x, shifted, layer.scales, layer.global_scale,
                     bias=layer.bias)
    assert info.value.status_name == "QMAT_ERROR_INVALID_ARGUMENT"
    assert "weights must be 4-byte aligned" in str(info.value)
    with pytest.raises(qmat.LauncherError) as info:
        qt.run_layer(library, nv.name, x, shifted, layer.scales, layer.global_scale,
                     bias=layer.bias)
    assert "weights must be 16-byte aligned for the tensor-core GEMV" in str(info.value)


def test_module_keeps_its_formats_and_state(library):
    info = next(l for l in library.layers if l.scheme == "fp8")
    layer = make_layer(library, info, seed=7)
    layer.half()  # would corrupt fp32 scales if it converted them
    assert layer.scales.dtype == torch.float32 and layer.weight.dtype == torch.uint8
    clone = make_layer(library, info, seed=8)
    assert not torch.equal(clone.dequantized_weight(), layer.dequantized_weight())
    clone.load_state_dict(layer.state_dict())
    weight = layer.dequantized_weight()
    assert torch.equal(clone.dequantized_weight(), weight)
    x = torch.randn(5, info.k, device="cuda").to(ACT[info.act])
    bias = layer.bias.double() if info.bias else None
    with torch.inference_mode():
        assert relative_error(clone(x), x, weight, bias) <= BOUNDS[info.act]
    with pytest.raises(qmat.ArgumentError, match="inference-only"):
        layer(x.clone().requires_grad_())


def fast_runner(layer):
    available, reason = qt.fastpath_status()
    if not available:
        pytest.skip(f"the C++ fast path is unavailable: {reason}")
    assert layer._fast is not None
    return layer._fast


@torch.inference_mode()
def test_fast_path_agrees_with_the_python_path(library):
    for i, info in enumerate(library.layers):
        layer = make_layer(library, info, seed=20 + i)
        runner = fast_runner(layer)
        weight = layer.dequantized_weight()
        bias = layer.bias.double() if info.bias else None
        for lead in [(1,), (3, 2), (300,)]:
            x = torch.randn(*lead, info.k, device="cuda").to(ACT[info.act])
            layer(x)  # a new largest M: the Python path sets the fast path up
            hits = runner.hits
            out = torch.full((*lead, info.n), float("nan"), dtype=x.dtype, device="cuda")
            fast, fast_out = layer(x), layer(x, out=out)
            assert runner.hits == hits + 2 and fast_out is out
            slow = layer._forward(x, None)
            torch.cuda.synchronize()
            assert fast.shape == slow.shape == (*lead, info.n) and fast.dtype == x.dtype
            assert fast.device == x.device and fast.is_inference() and fast.is_contiguous()
            for y in (fast, out):
                assert not torch.isnan(y).any(), f"{info.name} {lead}: NaN"
                assert relative_error(y, x, weight, bias) <= BOUNDS[info.act]
            assert torch.equal(fast, out)
            if lead == (1,):  # the GEMV is deterministic: the two paths agree bit for bit
                assert torch.equal(fast, slow)


@torch.inference_mode()
def test_fast_path_follows_streams_and_released_workspaces(library):
    info = next(l for l in library.layers if l.scheme == "nvfp4")
    layer = make_layer(library, info, seed=31)
    runner = fast_runner(layer)
    x = torch.randn(300, info.k, device="cuda").to(ACT[info.act])  # needs the workspace
    weight = layer.dequantized_weight()
    bias = layer.bias.double() if info.bias else None
    results = [layer(x), layer(x)]
    assert runner.hits == 1
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # another stream: its own workspace, set up by Python
        results += [layer(x), layer(x)]
    torch.cuda.current_stream().wait_stream(side)
    assert runner.hits == 2
    results.append(layer(x))  # back on the default stream: its workspace is another one
    assert runner.hits == 2
    qt.release_workspaces()  # the fast path must not use a freed workspace
    results += [layer(x), layer(x)]
    assert runner.hits == 3
    torch.cuda.synchronize()
    for y in results:
        assert relative_error(y, x, weight, bias) <= BOUNDS[info.act]


@torch.inference_mode()
def test_fast_path_outputs_come_from_the_caching_allocator(library):
    info = library.layers[0]
    layer = make_layer(library, info, seed=41)
    runner = fast_runner(layer)
    x = torch.randn(4, info.k, device="cuda").to(ACT[info.act])
    layer(x)
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    y = layer(x)
    assert runner.hits == 1
    assert torch.cuda.memory_allocated() - before >= y.numel() * y.element_size()
    del y
    assert torch.cuda.memory_allocated() == before


@torch.inference_mode()
def test_prepared_weights_give_the_same_outputs(library, prepared_library):
    """Every layer of the prepared bundle against the same layer of the
    checkpoint-layout bundle, from the same float weight: the constructor
    prepares the codes, dequantized_weight() reads them back bit for bit,
    and the outputs (GEMV and prefill) are identical."""
    prepared_count = 0
    for i, info in enumerate(prepared_library.layers):
        plain = make_layer(library, library.layer(info.name), seed=40 + i)
        layer = make_layer(prepared_library, info, seed=40 + i)
        prepared_count += info.prepared_weights
        assert torch.equal(layer.dequantized_weight(), plain.dequantized_weight()), info.name
        assert torch.equal(layer.weight.cpu(), plain.weight.cpu()) != info.prepared_weights
        for m in (1, 4, 8, 64):
            x = torch.randn(m, info.k, device="cuda").to(ACT[info.act])
            y, reference_y = layer(x), plain(x)
            torch.cuda.synchronize()
            assert not torch.isnan(y).any(), f"{info.name} m={m}: NaN"
            assert torch.equal(y, reference_y), f"{info.name} m={m}: outputs differ"
    assert prepared_count >= 1


# --- torch.compile, CUDA graphs and transformers ---------------------------

class Layers(torch.nn.Module):
    """Every layer of the library, each on its own input, through an exact
    elementwise op (relu), so that compiled and eager code round alike."""

    def __init__(self, library, seed):
        super().__init__()
        self.layers = torch.nn.ModuleList(make_layer(library, info, seed=seed + i)
                                          for i, info in enumerate(library.layers))

    def forward(self, xs):
        return [torch.relu(layer(x)) for layer, x in zip(self.layers, xs)]

    def inputs(self, m, seed):
        gen = torch.Generator(device="cuda").manual_seed(seed)
        return [torch.randn(m, l.in_features, device="cuda", generator=gen)
                .to(ACT[l.layer_info.act]) for l in self.layers]


ROWS = (1, 16, 300)  # the GEMV, the fused GEMM, the prefill; ascending, so that the
# shared workspace of the eager calls has the size of the graphs' own


@torch.inference_mode()
def test_compile_fullgraph_gives_the_eager_bits(library):
    model = Layers(library, seed=60)
    compiled = torch.compile(model, fullgraph=True, dynamic=False)
    for m in ROWS:
        xs = model.inputs(m, seed=m)
        eager, traced = model(xs), compiled(xs)
        torch.cuda.synchronize()
        for info, y, z in zip(library.layers, eager, traced):
            assert z.shape == y.shape and z.dtype == y.dtype
            assert torch.equal(y, z), f"{info.name} m={m}: compiled and eager differ"


@torch.inference_mode()
def test_cuda_graph_replays_give_the_eager_bits(library):
    model = Layers(library, seed=70)
    for m in ROWS:
        static = model.inputs(m, seed=m)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):   # warm-up: first calls load modules, outside the capture
            model(static)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = model(static)
        for seed in (100 + m, 200 + m):
            fresh = model.inputs(m, seed=seed)
            for s, f in zip(static, fresh):
                s.copy_(f)
            graph.replay()
            eager = model(fresh)
            torch.cuda.synchronize()
            for info, y, z in zip(library.layers, eager, captured):
                assert torch.equal(y, z), f"{info.name} m={m}: replay and eager differ"
        del graph
    qt.release_workspaces()


@torch.inference_mode()
def test_compiled_cuda_graphs_give_the_eager_bits(library):
    model = Layers(library, seed=80)
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True, dynamic=False)
    for m in ROWS[:2]:
        for seed in range(3):   # warm-up, recording, replay
            xs = model.inputs(m, seed=10 * m + seed)
            traced = [y.clone() for y in compiled(xs)]
            eager = model(xs)
            torch.cuda.synchronize()
            for info, y, z in zip(library.layers, eager, traced):
                assert torch.equal(y, z), f"{info.name} m={m} call {seed}: graphs and eager differ"


# A Llama whose linears are all 1024 x 1024 int4 layers of block 128 without
# zero points (GPTQ, symmetric): the bench bundle's int4_bf16 runs them.
LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024,
         "intermediate_size": 1024, "num_attention_heads": 8, "num_key_value_heads": 8,
         "head_dim": 128, "num_hidden_layers": 2, "vocab_size": 512, "rms_norm_eps": 1e-5,
         "max_position_embeddings": 256, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
         "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128,
                                 "sym": True, "desc_act": False}}
PROJECTIONS = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
               "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")


def write_gptq_llama(directory):
    """The checkpoint, and the model's dense weights ({name: bf16 tensor}),
    each linear's W = (q - 8) * scale rounded once to bf16 (GPTQ's
    definition, in torch)."""
    gen = torch.Generator().manual_seed(7)
    dense, stored = {}, {}
    bf16 = bf16_writer(gen, dense, stored)
    bf16("model.embed_tokens.weight", 512, 1024)
    bf16("lm_head.weight", 512, 1024, scale=0.05)
    bf16("model.norm.weight", 1024)
    for layer in range(2):
        for norm in ("input_layernorm", "post_attention_layernorm"):
            bf16(f"model.layers.{layer}.{norm}.weight", 1024)
        for projection in PROJECTIONS:
            gptq_linear(gen, f"model.layers.{layer}.{projection}", dense, stored)
    write_test_checkpoint(directory, LLAMA, stored)
    return dense


def bf16_writer(gen, dense, stored):
    """bf16(name, *shape, scale=1.0): a random bf16 tensor in both dicts."""
    def bf16(name, *shape, scale=1.0):
        value = (torch.randn(*shape, generator=gen) * scale).to(torch.bfloat16)
        dense[name] = value
        stored[name] = ("BF16", value.view(torch.int16).numpy().view(np.uint16))
    return bf16


def gptq_linear(gen, name, dense, stored):
    """A 1024 x 1024 GPTQ int4 linear of group 128, symmetric (zero 8)."""
    q = torch.randint(0, 16, (1024, 1024), generator=gen)          # [K, N]
    scale = (torch.rand(8, 1024, generator=gen) * 3e-3 + 1e-3).to(torch.bfloat16)
    words = torch.zeros(128, 1024, dtype=torch.int64)
    for j in range(8):
        words |= q[j::8] << (4 * j)
    stored[f"{name}.qweight"] = words.numpy().astype(np.uint32).view(np.int32)
    stored[f"{name}.qzeros"] = np.full((8, 128), 0x77777777, dtype=np.uint32).view(np.int32)
    stored[f"{name}.scales"] = scale.to(torch.float16).numpy()   # bf16 values, exactly
    w = (q - 8).float() * scale.float().repeat_interleave(128, dim=0)
    dense[f"{name}.weight"] = w.T.contiguous().to(torch.bfloat16)


def write_test_checkpoint(directory, config, stored):
    import json
    from qmat import checkpoint as ck
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(config, f)
    ck.write_file(os.path.join(directory, "model.safetensors"), stored)


@pytest.fixture(scope="module")
def gptq_llama(library, tmp_path_factory):
    """(checkpoint, import, dense weights, library running the import)."""
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("llama")
    dense = write_gptq_llama(root / "ckpt")
    result, lib = import_for_test(root, library)
    return root / "ckpt", result, dense, lib


def import_for_test(root, library):
    """The import of root/ckpt into root/out and the library that runs it:
    the bench bundle where $QMAT_TEST_BUNDLE names one, else the import's
    own bundle, compiled here."""
    on_its_own = os.environ.get("QMAT_TEST_BUNDLE") is None
    if on_its_own:
        tool_or_skip("qmat-aot")
    result = qmat.import_checkpoint(root / "ckpt", root / "out", act="bf16", bundle=on_its_own,
                                    quiet=True)
    if not on_its_own:
        return result, library
    try:
        result.bundle.build_library()
    except qmat.ToolError:  # no usable host g++: nvcc brings its own set-up
        result.bundle.build_library(compiler="nvcc")
    return result, qmat.load_library(result.bundle)


def relative(a, b):
    return float(torch.linalg.norm(a.double() - b.double()) / torch.linalg.norm(b.double()))


@torch.inference_mode()
def test_transformers_llama_with_quant_linear_matches_the_dequantized_model(gptq_llama):
    import transformers
    checkpoint, result, dense, lib = gptq_llama
    config = transformers.LlamaConfig(**{k: v for k, v in LLAMA.items()
                                         if k not in ("quantization_config", "model_type")})
    reference = dense_llama(config, dense)
    loaded = qt.load_model(result.directory, library=lib, device="cuda")
    replaced = qt.replace_linear(dense_llama(config, dense), result, library=lib)
    for model in (loaded, replaced):
        layers = [m for m in model.modules() if isinstance(m, qt.QuantLinear)]
        assert len(layers) == 2 * len(PROJECTIONS)
        assert type(model.lm_head) is torch.nn.Linear
        for name in PROJECTIONS:
            q = model.get_submodule(f"model.layers.1.{name}")
            assert torch.equal(q.dequantized_weight(), dense[f"model.layers.1.{name}.weight"])
    gen = torch.Generator(device="cuda").manual_seed(3)
    ids = torch.randint(0, 512, (2, 40), device="cuda", generator=gen)
    step = torch.randint(0, 512, (2, 1), device="cuda", generator=gen)
    want = reference(ids, use_cache=True)
    want_step = reference(step, past_key_values=want.past_key_values).logits
    for model in (loaded, replaced):
        got = model(ids, use_cache=True)        # M = 80 rows per linear
        got_step = model(step, past_key_values=got.past_key_values).logits   # M = 2: the GEMV
        assert not torch.isnan(got.logits).any()
        assert relative(got.logits, want.logits) <= BOUNDS["bf16"]
        assert relative(got_step, want_step) <= BOUNDS["bf16"]


def dense_llama(config, dense):
    """transformers' own Llama holding the dense weights (bf16, on the GPU)."""
    import transformers
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)   # bf16 weights; the rotary frequencies stay fp32
    try:
        model = transformers.LlamaForCausalLM(config).to("cuda")
    finally:
        torch.set_default_dtype(default)
    result = model.load_state_dict(dense, strict=False)
    assert result.missing_keys == [] and result.unexpected_keys == []
    return model.eval()


@torch.inference_mode()
def test_transformers_generate_with_a_static_cache(gptq_llama):
    """generate() with a static cache compiles the decode step (CUDA graphs):
    while the greedy tokens agree, each step's logits are within the bound."""
    import transformers
    _, result, _, lib = gptq_llama
    loaded = qt.load_model(result.directory, library=lib, device="cuda")
    reference = qt.load_model(result.directory, device="cuda", dequantize=True)
    ids = torch.randint(0, 512, (1, 24), device="cuda",
                        generator=torch.Generator(device="cuda").manual_seed(4))
    outputs = []
    for model in (reference, loaded):
        config = transformers.GenerationConfig(
            max_new_tokens=8, do_sample=False, cache_implementation="static", pad_token_id=0,
            eos_token_id=None, return_dict_in_generate=True, output_logits=True)
        outputs.append(model.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                                      generation_config=config))
    want, got = outputs
    assert got.sequences.shape == want.sequences.shape == (1, 32)
    for i, (a, b) in enumerate(zip(got.logits, want.logits)):
        assert relative(a, b) <= BOUNDS["bf16"], f"step {i}"
        if not torch.equal(got.sequences[:, 24 + i], want.sequences[:, 24 + i]):
            break


# A gpt-oss model (transformers' GptOssForCausalLM) whose experts are MXFP4:
# hidden size 256, intermediate size 256, 4 experts, 2 per token; the bench
# bundle's gptoss_gate_up (N = 512, K = 256) and gptoss_down (256 x 256) run
# them.
GPTOSS = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 256,
          "intermediate_size": 256, "num_local_experts": 4, "num_experts_per_tok": 2,
          "experts_per_token": 2, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 512,
          "max_position_embeddings": 131072, "sliding_window": 16, "tie_word_embeddings": False,
          "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "mxfp4",
                                  "modules_to_not_convert": ["model.layers.*.self_attn",
                                                             "model.layers.*.mlp.router",
                                                             "model.embed_tokens", "lm_head"]}}


def write_gptoss(directory):
    """A gpt-oss MXFP4 checkpoint: per layer the experts' 16-byte blocks
    (e2m1 pairs, the low nibble the even k), e8m0 scales and bf16 biases, and
    the unquantized attention, router, norms and embeddings."""
    import json
    from qmat import checkpoint as ck
    rng = np.random.default_rng(9)
    h, i, e, vocab = 256, 256, 4, 512
    stored = {}

    def bf16(name, *shape, scale=1.0):
        value = torch.from_numpy(rng.standard_normal(shape).astype(np.float32) * scale)
        stored[name] = ("BF16", value.to(torch.bfloat16).view(torch.int16).numpy()
                        .view(np.uint16))

    bf16("model.embed_tokens.weight", vocab, h)
    bf16("lm_head.weight", vocab, h, scale=0.05)
    bf16("model.norm.weight", h)
    for layer in range(2):
        lp = f"model.layers.{layer}"
        for norm in ("input_layernorm", "post_attention_layernorm"):
            bf16(f"{lp}.{norm}.weight", h)
        for name, rows, cols in (("q_proj", 256, h), ("k_proj", 128, h), ("v_proj", 128, h),
                                 ("o_proj", h, 256)):
            bf16(f"{lp}.self_attn.{name}.weight", rows, cols, scale=0.05)
            bf16(f"{lp}.self_attn.{name}.bias", rows, scale=0.05)
        bf16(f"{lp}.self_attn.sinks", 4)
        bf16(f"{lp}.mlp.router.weight", e, h, scale=0.1)
        bf16(f"{lp}.mlp.router.bias", e, scale=0.1)
        for projection, (n, k) in (("gate_up_proj", (2 * i, h)), ("down_proj", (h, i))):
            prefix = f"{lp}.mlp.experts.{projection}"
            stored[f"{prefix}_blocks"] = rng.integers(0, 256, (e, n, k // 32, 16), dtype=np.uint8)
            stored[f"{prefix}_scales"] = rng.integers(119, 123, (e, n, k // 32), dtype=np.uint8)
            bf16(f"{prefix}_bias", e, n, scale=0.05)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(GPTOSS, f)
    ck.write_file(os.path.join(directory, "model.safetensors"), stored)


@pytest.fixture(scope="module")
def gptoss(library, tmp_path_factory):
    """(import, library running its experts)."""
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("gptoss")
    write_gptoss(root / "ckpt")
    return import_for_test(root, library)


@torch.inference_mode()
def test_transformers_gptoss_with_quant_experts_matches_the_dequantized_model(gptoss):
    """load_model puts a QuantGptOssExperts (a QuantLinear per expert and
    projection) where transformers' GptOssExperts was; the dequantized model
    keeps transformers' own module, its 3-D parameters holding the same
    weights. The logits of a prefill (M = 9 .. 80 rows per expert: the fused
    GEMM) and of a decode step (M <= 2: the GEMV) agree within the bound."""
    result, lib = gptoss
    loaded = qt.load_model(result.directory, library=lib, device="cuda")
    reference = qt.load_model(result.directory, device="cuda", dequantize=True)
    for layer in range(2):
        experts = loaded.get_submodule(f"model.layers.{layer}.mlp.experts")
        dense = reference.get_submodule(f"model.layers.{layer}.mlp.experts")
        assert isinstance(experts, qt.QuantGptOssExperts) and experts.num_experts == 4
        assert type(dense).__name__ == "GptOssExperts"
        assert (experts.alpha, experts.limit) == (dense.alpha, dense.limit)
        for e in range(4):
            assert torch.equal(experts.gate_up[e].dequantized_weight().t(),
                               dense.gate_up_proj[e].cpu())
            assert torch.equal(experts.down[e].dequantized_weight().t(), dense.down_proj[e].cpu())
    check_moe_outputs(loaded, reference, hidden=256)


def check_moe_outputs(loaded, reference, hidden):
    """The logits of an 80-token prefill (M = 9 .. 80 rows per expert: the
    fused GEMM) and of a decode step (M <= 2: the GEMV), and layer 0's
    experts alone on a routing that leaves expert 3 out, within the bf16
    bound of the dequantized model's."""
    gen = torch.Generator(device="cuda").manual_seed(5)
    ids = torch.randint(0, 512, (2, 40), device="cuda", generator=gen)
    step = torch.randint(0, 512, (2, 1), device="cuda", generator=gen)
    want = reference(ids, use_cache=True)
    want_step = reference(step, past_key_values=want.past_key_values).logits
    got = loaded(ids, use_cache=True)
    got_step = loaded(step, past_key_values=got.past_key_values).logits
    assert not torch.isnan(got.logits).any()
    assert relative(got.logits, want.logits) <= BOUNDS["bf16"]
    assert relative(got_step, want_step) <= BOUNDS["bf16"]
    experts = loaded.model.layers[0].mlp.experts
    dense = reference.model.layers[0].mlp.experts
    x = torch.randn(64, hidden, device="cuda", generator=gen).to(torch.bfloat16)
    indices = torch.randint(0, 3, (64, 2), device="cuda", generator=gen)   # expert 3 never
    weights = torch.softmax(torch.randn(64, 2, device="cuda", generator=gen), 1).to(torch.bfloat16)
    assert relative(experts(x, indices, weights), dense(x, indices, weights)) <= BOUNDS["bf16"]


# Qwen3-MoE and Mixtral models (transformers 5 keeps their experts in 3-D
# parameters) as GPTQ checkpoints with a linear per expert and projection,
# every linear int4 1024 x 1024 of block 128 (bench/python's int4_bf16): 4
# experts of intermediate size 1024, 2 per token. Mixtral's checkpoint
# names them block_sparse_moe.experts.<e>.w1 / w3 / w2.
GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False}
MOE = {
    "qwen3_moe": ({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
                   "moe_intermediate_size": 1024, "intermediate_size": 2048, "num_experts": 4,
                   "norm_topk_prob": True},
                  "mlp.experts", ("gate_proj", "up_proj", "down_proj"), "mlp.gate"),
    "mixtral": ({"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
                 "intermediate_size": 1024, "num_local_experts": 4},
                "block_sparse_moe.experts", ("w1", "w3", "w2"), "block_sparse_moe.gate"),
}


def write_moe(directory, kind):
    """The checkpoint of MOE[kind] and its dense weights by name."""
    config, experts, names, router = MOE[kind]
    config = dict(config, hidden_size=1024, num_attention_heads=8, num_key_value_heads=8,
                  head_dim=128, num_hidden_layers=2, num_experts_per_tok=2, vocab_size=512,
                  rms_norm_eps=1e-5, max_position_embeddings=256, tie_word_embeddings=False,
                  torch_dtype="bfloat16", quantization_config=GPTQ)
    gen = torch.Generator().manual_seed(11)
    dense, stored = {}, {}
    bf16 = bf16_writer(gen, dense, stored)
    bf16("model.embed_tokens.weight", 512, 1024)
    bf16("lm_head.weight", 512, 1024, scale=0.05)
    bf16("model.norm.weight", 1024)
    for layer in range(2):
        lp = f"model.layers.{layer}"
        for norm in ("input_layernorm", "post_attention_layernorm"):
            bf16(f"{lp}.{norm}.weight", 1024)
        if kind == "qwen3_moe":
            bf16(f"{lp}.self_attn.q_norm.weight", 128)
            bf16(f"{lp}.self_attn.k_norm.weight", 128)
        for projection in ("q_proj", "k_proj", "v_proj", "o_proj"):
            gptq_linear(gen, f"{lp}.self_attn.{projection}", dense, stored)
        bf16(f"{lp}.{router}.weight", 4, 1024, scale=0.1)
        for e in range(4):
            for name in names:
                gptq_linear(gen, f"{lp}.{experts}.{e}.{name}", dense, stored)
    write_test_checkpoint(directory, config, stored)
    return dense


@pytest.fixture(scope="module", params=sorted(MOE))
def moe(request, library, tmp_path_factory):
    """(kind, import, dense weights, library running it)."""
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp(request.param)
    dense = write_moe(root / "ckpt", request.param)
    result, lib = import_for_test(root, library)
    return request.param, result, dense, lib


@torch.inference_mode()
def test_transformers_moe_with_quant_experts_matches_the_dequantized_model(moe):
    """load_model puts a QuantSwiGluExperts (a QuantLinear per expert and
    projection) where transformers' Qwen3MoeExperts / MixtralExperts was;
    the dequantized model keeps transformers' module, its gate_up_proj
    holding GPTQ's gate over up weights and down_proj the down weights. The
    logits of a prefill (the fused GEMM per expert) and a decode step (the
    GEMV) agree within the bound, and so do the experts alone on a routing
    that leaves one expert out."""
    kind, result, dense_weights, lib = moe
    _, experts_name, names, _ = MOE[kind]
    loaded = qt.load_model(result.directory, library=lib, device="cuda")
    reference = qt.load_model(result.directory, device="cuda", dequantize=True)
    for layer in range(2):
        experts = loaded.get_submodule(f"model.layers.{layer}.mlp.experts")
        dense = reference.get_submodule(f"model.layers.{layer}.mlp.experts")
        assert isinstance(experts, qt.QuantSwiGluExperts) and experts.num_experts == 4
        assert type(dense).__name__ == {"qwen3_moe": "Qwen3MoeExperts",
                                        "mixtral": "MixtralExperts"}[kind]
        assert type(experts.act_fn) is type(dense.act_fn)
        for e in range(4):
            stored = [dense_weights[f"model.layers.{layer}.{experts_name}.{e}.{n}.weight"]
                      for n in names]
            assert torch.equal(dense.gate_up_proj[e].cpu(), torch.cat(stored[:2]))
            assert torch.equal(dense.down_proj[e].cpu(), stored[2])
            for part, want in zip((experts.gate, experts.up, experts.down), stored):
                assert torch.equal(part[e].dequantized_weight(), want)
    check_moe_outputs(loaded, reference, hidden=1024)
