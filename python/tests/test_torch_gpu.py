"""qmat.torch on a GPU: QuantLinear and run_layer against the reference, for
every scheme and both activation types. Skipped unless torch with CUDA is
importable.

The bundle comes from $QMAT_TEST_BUNDLE (a directory qmat-aot wrote, e.g.
bench/python/make_bundle.py's, for machines without MLIR such as the H200)
or is compiled here from SMALL_LAYERS with qmat-aot.
"""
import os

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
    # 16 rows take the prefill path, which needs its workspace; 4 rows take
    # the decode GEMV, which needs none.
    prefill_x = torch.randn(16, nv.k, device="cuda").to(ACT[nv.act])
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
    assert "a and weights must be 16-byte aligned for the tensor-core GEMV" in str(info.value)


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
