"""qmat.torch's C++ fast path (_torch_fastpath.cpp) on the CPU: a Runner
driven with CPU tensors and a ctypes callback standing in for the launcher's
<prefix>_<layer>_run, so what it passes, what it declines and how it fails
are checked without a GPU. Skipped without torch; the build (a C++ compiler
and ninja, about 20 s once, cached by torch) failing is a skip unless
QMAT_TORCH_FASTPATH=1, where it is an error.
"""
import ctypes
import os

import pytest

torch = pytest.importorskip("torch")

import qmat  # noqa: E402
import qmat.torch as qt  # noqa: E402
from qmat.launcher import RUN_ARGTYPES, RUN_RESTYPE  # noqa: E402

N, K = 48, 64
WEIGHTS, SCALES, GLOBAL, BIAS = 0x10000, 0x20000, 0x30000, 0x40000
RUN_TYPE = ctypes.CFUNCTYPE(RUN_RESTYPE, *RUN_ARGTYPES)


@pytest.fixture(scope="module")
def fastpath():
    module = qt._fastpath()
    if module is None:
        pytest.skip(f"the fast path is unavailable: {qt.fastpath_status()[1]}")
    return module


class FakeLauncher:
    """A C function pointer (the launcher's signature) that records its
    arguments and returns `status`."""

    def __init__(self):
        self.calls = []
        self.status = 0
        self.function = RUN_TYPE(self._run)
        self.address = ctypes.cast(self.function, ctypes.c_void_p).value

    def _run(self, stream, m, a, weights, scales, global_scale, zero_points, bias, y, workspace,
             workspace_size):
        self.calls.append(dict(stream=stream, m=m, a=a, weights=weights, scales=scales,
                               global_scale=global_scale, zero_points=zero_points, bias=bias,
                               y=y, workspace=workspace, workspace_size=workspace_size))
        return self.status


class Raised(Exception):
    pass


def on_error(status):
    raise Raised(status)


def make_runner(fastpath, launcher, dtype=torch.bfloat16, max_m=64):
    probe = torch.empty(0, K, dtype=dtype)
    runner = fastpath.Runner(probe, launcher.address, WEIGHTS, SCALES, GLOBAL, 0, BIAS, N, K,
                             on_error)
    if max_m:
        runner.set_workspace(max_m, 0, 0, 0)
    return runner


def act(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape).to(dtype)


def test_runner_passes_the_launcher_arguments(fastpath):
    launcher = FakeLauncher()
    runner = make_runner(fastpath, launcher)
    x = act(3, K)
    y = runner.forward(x, None)
    assert y.shape == (3, N) and y.dtype == torch.bfloat16 and y.is_contiguous()
    assert launcher.calls == [dict(stream=None, m=3, a=x.data_ptr(), weights=WEIGHTS,
                                   scales=SCALES, global_scale=GLOBAL, zero_points=None,
                                   bias=BIAS, y=y.data_ptr(), workspace=None,
                                   workspace_size=0)]
    assert runner.hits == 1


def test_runner_flattens_leading_dimensions_and_writes_out(fastpath):
    launcher = FakeLauncher()
    runner = make_runner(fastpath, launcher)
    x = act(2, 5, K)
    y = runner.forward(x)
    assert y.shape == (2, 5, N) and launcher.calls[-1]["m"] == 10
    out = torch.empty(2, 5, N, dtype=torch.bfloat16)
    assert runner.forward(x, out) is out
    assert launcher.calls[-1]["y"] == out.data_ptr() and launcher.calls[-1]["m"] == 10
    assert runner.forward(act(7, K), None).shape == (7, N)  # 1-D inputs: m = 1
    assert runner.forward(act(K), None).shape == (N,) and launcher.calls[-1]["m"] == 1


@pytest.mark.parametrize("case", [
    "not a tensor", "dtype", "k", "scalar", "strided", "requires grad", "m beyond max_m",
    "no rows", "meta device", "out dtype", "out shape", "out strided", "out not a tensor",
    "out rank"])
def test_runner_declines_what_the_python_path_must_decide(fastpath, case):
    launcher = FakeLauncher()
    runner = make_runner(fastpath, launcher, max_m=8)
    x, out = act(4, K), None
    if case == "not a tensor":
        x = [[0.0] * K]
    elif case == "dtype":
        x = act(4, K, dtype=torch.float16)
    elif case == "k":
        x = act(4, K + 2)
    elif case == "scalar":
        x = torch.tensor(1.0, dtype=torch.bfloat16)
    elif case == "strided":
        x = act(4, 2 * K)[:, ::2]
    elif case == "requires grad":
        x = act(4, K).requires_grad_()
    elif case == "m beyond max_m":
        x = act(9, K)
    elif case == "no rows":
        x = act(0, K)
    elif case == "meta device":
        x = torch.empty(4, K, dtype=torch.bfloat16, device="meta")
    elif case == "out dtype":
        out = torch.empty(4, N, dtype=torch.float16)
    elif case == "out shape":
        out = torch.empty(4, N + 1, dtype=torch.bfloat16)
    elif case == "out strided":
        out = torch.empty(N, 4, dtype=torch.bfloat16).T
    elif case == "out not a tensor":
        out = "y"
    elif case == "out rank":
        out = torch.empty(1, 4, N, dtype=torch.bfloat16)
    with torch.enable_grad():
        assert runner.forward(x, out) is None
    assert launcher.calls == [] and runner.hits == 0


@pytest.mark.parametrize("mode", ["inference", "no_grad"])
def test_runner_outputs_are_ordinary_tensors(fastpath, mode):
    """Allocated like torch.empty would: the same inference-tensor status,
    no grad, dense, its own storage of the right size, usable."""
    runner = make_runner(fastpath, FakeLauncher())
    context = torch.inference_mode() if mode == "inference" else torch.no_grad()
    with context:
        y = runner.forward(act(3, K), None)
        like = torch.empty(3, N, dtype=torch.bfloat16)
        assert y.is_inference() == like.is_inference() == (mode == "inference")
        assert not y.requires_grad and y.is_contiguous() and y.device.type == "cpu"
        assert y.untyped_storage().nbytes() == 3 * N * 2 and y.storage_offset() == 0
        assert y.fill_(1.5).sum().item() == 1.5 * 3 * N


def test_runner_takes_requires_grad_inputs_without_grad_mode(fastpath):
    launcher = FakeLauncher()
    runner = make_runner(fastpath, launcher)
    x = act(2, K).requires_grad_()
    with torch.no_grad():
        assert runner.forward(x, None).shape == (2, N)
    assert len(launcher.calls) == 1


def test_runner_runs_only_once_set_up(fastpath):
    launcher = FakeLauncher()
    runner = make_runner(fastpath, launcher, max_m=0)
    assert runner.max_m == 0 and runner.forward(act(1, K), None) is None
    runner.set_workspace(1, 0, 0, 0)
    assert runner.max_m == 1 and runner.forward(act(1, K), None) is not None
    assert runner.forward(act(2, K), None) is None


def test_runner_workspace_is_used_until_invalidated(fastpath):
    launcher = FakeLauncher()
    runner = make_runner(fastpath, launcher, max_m=0)
    runner.set_workspace(256, 0, 0x7000, 4096)
    runner.forward(act(200, K), None)
    assert (launcher.calls[-1]["workspace"], launcher.calls[-1]["workspace_size"]) == (0x7000, 4096)
    fastpath.invalidate()  # a shared workspace was freed or replaced
    assert runner.forward(act(200, K), None) is None
    runner.set_workspace(256, 0, 0x9000, 8192)
    runner.forward(act(200, K), None)
    assert (launcher.calls[-1]["workspace"], launcher.calls[-1]["workspace_size"]) == (0x9000, 8192)
    # On CPU the stream is 0: a workspace recorded for another stream is not used.
    runner.set_workspace(256, 0x1234, 0x9000, 8192)
    assert runner.forward(act(200, K), None) is None
    assert len(launcher.calls) == 2


def test_runner_reports_a_launcher_status_through_on_error(fastpath):
    launcher = FakeLauncher()
    launcher.status = 3
    runner = make_runner(fastpath, launcher)
    with pytest.raises(Raised) as raised:
        runner.forward(act(2, K), None)
    assert raised.value.args == (3,)
    with pytest.raises(Raised):
        runner.forward(act(2, K), torch.empty(2, N, dtype=torch.bfloat16))
    quiet = fastpath.Runner(torch.empty(0, K, dtype=torch.bfloat16), launcher.address, 1, 1, 0,
                            0, 0, N, K, lambda status: None)
    quiet.set_workspace(8, 0, 0, 0)
    with pytest.raises(RuntimeError, match="status 3"):
        quiet.forward(act(2, K), None)
    assert runner.hits == 0 and quiet.hits == 0


def test_runner_refuses_bad_construction(fastpath):
    launcher = FakeLauncher()
    probe = torch.empty(0, K, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="probe must be a torch.Tensor"):
        fastpath.Runner(None, launcher.address, 1, 1, 0, 0, 0, N, K, on_error)
    with pytest.raises(ValueError):
        fastpath.Runner(probe, 0, 1, 1, 0, 0, 0, N, K, on_error)
    with pytest.raises(ValueError):
        fastpath.Runner(probe, launcher.address, 1, 1, 0, 0, 0, N, K, "not callable")
    with pytest.raises(TypeError):
        make_runner(fastpath, launcher).forward()


def test_fastpath_can_be_turned_off(monkeypatch):
    monkeypatch.setattr(qt, "_fastpath_state", None)
    monkeypatch.setenv("QMAT_TORCH_FASTPATH", "0")
    assert qt.fastpath_status() == (False, "turned off (QMAT_TORCH_FASTPATH=0)")
    assert qt._fastpath() is None


def test_a_failed_build_falls_back_or_raises(monkeypatch, tmp_path):
    missing = str(tmp_path / "missing.cpp")
    monkeypatch.setattr(qt, "_FASTPATH_SOURCE", missing)
    monkeypatch.setattr(qt, "_fastpath_state", None)
    monkeypatch.delenv("QMAT_TORCH_FASTPATH", raising=False)
    available, reason = qt.fastpath_status()
    assert not available and reason.startswith("not built: ")
    monkeypatch.setattr(qt, "_fastpath_state", None)
    monkeypatch.setenv("QMAT_TORCH_FASTPATH", "1")
    with pytest.raises(qmat.QMatError, match="fast path .*not built"):
        qt._fastpath()


def test_only_ctypes_functions_have_an_address():
    launcher = FakeLauncher()
    assert qt._function_address(launcher.function) == launcher.address
    assert qt._function_address(lambda *args: 0) is None
    assert qt._function_address(None) is None


@pytest.mark.skipif(os.environ.get("QMAT_TORCH_FASTPATH", "") != "1",
                    reason="only where QMAT_TORCH_FASTPATH=1 requires the fast path")
def test_fastpath_is_available_where_required():
    assert qt.fastpath_status()[0]


# --- QuantLinear's two paths on the CPU -------------------------------------
#
# QuantLinear refuses CPU devices; with that check, the stream query and the
# current-device query patched out, it runs on CPU tensors against a fake
# launcher whose entry points are ctypes callbacks, so the module logic
# (which path runs, what each passes, the workspace hand-over) is checked here.

WORKSPACE_BYTES = 4096  # the fake layer's workspace for M > 8 (the GEMV needs none)


class FakeCDLL:
    def __init__(self, prefix, layers):
        self.launcher = FakeLauncher()
        self.message = ctypes.create_string_buffer(b"fake refusal")  # outlives the calls
        self.functions = {
            f"{prefix}_last_error": ctypes.CFUNCTYPE(ctypes.c_void_p)(
                lambda: ctypes.addressof(self.message)),
            f"{prefix}_unload": ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 0)}
        workspace = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int64)(
            lambda max_m: 0 if max_m <= 8 else WORKSPACE_BYTES)
        for layer in layers:
            self.functions[f"{prefix}_{layer.name}_run"] = self.launcher.function
            self.functions[f"{prefix}_{layer.name}_workspace_size"] = workspace

    def __getattr__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise AttributeError(name) from None


@pytest.fixture
def cpu_layer(fastpath, small_bundle, monkeypatch):
    monkeypatch.setattr(qt, "_require_cuda", lambda *args: None)
    monkeypatch.setattr(qt, "current_stream_handle", lambda index: 0)
    monkeypatch.setattr(qt, "_get_device", lambda: None)
    qt.release_workspaces()
    fake = FakeCDLL(small_bundle.prefix, small_bundle.layers)
    lib = qmat.launcher.Library(None, small_bundle, cdll=fake)
    info = lib.layer("nv_bias")
    weight = torch.randn(info.n, info.k, generator=torch.Generator().manual_seed(0)) * 0.05
    layer = qt.QuantLinear.from_float(weight, lib, "nv_bias", bias=torch.randn(info.n),
                                      device="cpu")
    yield layer, fake.launcher
    qt.release_workspaces()


def constant_arguments(call):
    return {k: v for k, v in call.items() if k not in ("a", "y")}


def test_quant_linear_sets_up_and_then_takes_the_fast_path(cpu_layer):
    layer, launcher = cpu_layer
    runner = layer._fast
    assert runner is not None and runner.max_m == 0
    x = act(2, layer.in_features)
    with torch.inference_mode():
        first = layer(x)   # a new largest M: the Python path (ctypes), which sets up
        second = layer(x)  # the fast path
    assert runner.hits == 1 and runner.max_m == 2 and len(launcher.calls) == 2
    python_call, fast_call = launcher.calls
    assert constant_arguments(python_call) == constant_arguments(fast_call)
    assert python_call["workspace"] is None and python_call["workspace_size"] == 0
    assert (python_call["weights"], python_call["bias"]) == (layer.weight.data_ptr(),
                                                             layer.bias.data_ptr())
    assert fast_call["a"] == x.data_ptr() and fast_call["y"] == second.data_ptr()
    assert first.shape == second.shape == (2, layer.out_features)


def test_quant_linear_hands_the_workspace_to_the_fast_path(cpu_layer):
    layer, launcher = cpu_layer
    runner = layer._fast
    x = act(3, 5, layer.in_features)  # m = 15 > 8: the workspace is needed
    with torch.inference_mode():
        layer(x)
        out = torch.empty(3, 5, layer.out_features, dtype=torch.bfloat16)
        assert layer(x, out=out) is out
        assert runner.hits == 1
        python_call, fast_call = launcher.calls
        assert constant_arguments(python_call) == constant_arguments(fast_call)
        assert fast_call["workspace"] % 256 == 0 and fast_call["workspace_size"] == WORKSPACE_BYTES
        qt.release_workspaces()  # freed: the next call must go through Python again
        layer(x)
        assert runner.hits == 1
        layer(x)
        assert runner.hits == 2
        assert launcher.calls[-1]["workspace_size"] == WORKSPACE_BYTES


def test_quant_linear_errors_are_the_python_paths(cpu_layer):
    layer, launcher = cpu_layer
    x = act(2, layer.in_features)
    with torch.inference_mode():
        layer(x)
        with pytest.raises(qmat.DTypeError, match="input must have dtype torch.bfloat16"):
            layer(x.half())
        with pytest.raises(qmat.ArgumentError, match=r"out must have shape \[2, 384\]"):
            layer(x, out=torch.empty(3, layer.out_features, dtype=torch.bfloat16))
        launcher.status = 5
        with pytest.raises(qmat.LauncherError, match="QMAT_ERROR_CUBLAS.*fake refusal"):
            layer(x)  # through the fast path
    assert layer._fast.hits == 0
    with pytest.raises(qmat.ArgumentError, match="inference-only"):
        layer(x.clone().requires_grad_())


def test_quant_linear_new_buffers_make_a_new_runner(cpu_layer):
    layer, launcher = cpu_layer
    old = layer._fast
    layer.bias = torch.zeros(layer.out_features, dtype=torch.bfloat16)
    assert layer._fast is not old and layer._fast is not None
    with torch.inference_mode():
        layer(act(1, layer.in_features))
        layer(act(1, layer.in_features))
    assert launcher.calls[-1]["bias"] == layer.bias.data_ptr() and layer._fast.hits == 1
    with pytest.raises(qmat.ArgumentError):
        layer.bias = torch.zeros(layer.out_features + 1, dtype=torch.bfloat16)
    assert layer._fast is None  # until valid buffers are assigned
