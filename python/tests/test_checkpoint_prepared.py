"""`qmat import --prepared-weights`: the codes written in the prepared layout
by the bundle's own launcher, the manifest's per-linear "prepared_weights",
`--prepared-weights=load` (the checkpoint layout, prepared at load), tensor-
parallel shards prepared from their own codes, and the loaders' plans that
take prepared codes as they are or refuse them.

The expected codes are the plain import's, sent through the launcher's
prepare_weights (qmat.Library.prepare_weights, the existing preparation
function) in a separate process against the CUDA stub library, and checked
again against the layout as PreparedWeights.h describes it."""
import dataclasses
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import qmat
from qmat import checkpoint as ck, cli, parallel
from conftest import CUDA_ROOT, PYTHON_DIR
from checkpoint_util import CONFIG, LINEARS, write_checkpoint
from test_checkpoint_nvfp4 import HF_QUANT, modelopt_tensors
from test_shard import FUSED_LINEARS, fused_checkpoint

STUB = os.path.join(CUDA_ROOT, "lib64", "stubs", "libcuda.so")
# A layer the prepared layout does not apply to (N = 24, not whole 16-row tiles).
EXTRA = "model.layers.0.mlp.extra_proj"
Q_PROJ = "model.layers.0.self_attn.q_proj"
DOWN_PROJ = "model.layers.0.mlp.down_proj"


@pytest.fixture(scope="module")
def stub():
    if not os.path.isfile(STUB):
        pytest.skip(f"no stub libcuda at {STUB}")
    return STUB


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    directory = tmp_path_factory.mktemp("prepared") / "ckpt"
    rng = np.random.default_rng(21)
    tensors = modelopt_tensors(rng)
    bits = rng.standard_normal(256).astype(np.float32).view(np.uint32)
    tensors[f"{Q_PROJ}.bias"] = ("BF16", (bits >> 16).astype(np.uint16))
    tensors[f"{EXTRA}.weight"] = rng.integers(0, 256, (24, 128), dtype=np.uint8)
    tensors[f"{EXTRA}.weight_scale"] = ("F8_E4M3", rng.integers(0, 0x7F, (24, 16), np.uint8))
    tensors[f"{EXTRA}.weight_scale_2"] = np.array(1e-4, np.float32)
    write_checkpoint(directory, tensors, CONFIG, extra={"hf_quant_config.json": HF_QUANT})
    return directory


@pytest.fixture(scope="module")
def imports(source, qmat_aot, stub, tmp_path_factory):
    """The same checkpoint imported plain (no bundle), with
    --prepared-weights and with --prepared-weights=load; the second's
    stderr."""
    root = tmp_path_factory.mktemp("imports")
    ck.import_checkpoint(source, root / "plain", bundle=False, quiet=True)
    read = subprocess.run([sys.executable, "-m", "qmat", "import", str(source), "-o",
                           str(root / "prepared"), "--prepared-weights", "--qmat-aot", qmat_aot],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=PYTHON_DIR))
    assert read.returncode == 0, read.stderr
    assert cli.main(["import", str(source), "-o", str(root / "load"), "-q",
                     "--prepared-weights=load", "--qmat-aot", qmat_aot]) == 0
    return {name: ck.open_imported(root / name) for name in ("plain", "prepared", "load")}, \
        read.stderr


PREPARE_SCRIPT = r"""
import ctypes, json, sys
sys.path.insert(0, sys.argv[1])
ctypes.CDLL(sys.argv[4], mode=ctypes.RTLD_GLOBAL)   # the stub: no driver needed
import numpy as np
import qmat
from qmat.launcher import Library
lib = Library(sys.argv[2], qmat.Bundle.open(sys.argv[3]))
for layer, source, target in json.loads(sys.stdin.read()):
    np.save(target, np.frombuffer(lib.prepare_weights(layer, np.load(source)), np.uint8))
"""


def launcher_prepared(bundle_dir, jobs, work, stub):
    """{key: codes in the layout bundle_dir's layer reads} for jobs {key:
    (layer, checkpoint-layout codes)}, through Library.prepare_weights of
    the bundle's launcher (built into `work`)."""
    os.makedirs(work, exist_ok=True)
    library = qmat.Bundle.open(bundle_dir).build_library(
        output=os.path.join(work, "libprepare.so"), cuda_path=CUDA_ROOT)
    listed = []
    for i, (key, (layer, codes)) in enumerate(jobs.items()):
        np.save(os.path.join(work, f"in{i}.npy"), np.ascontiguousarray(codes))
        listed.append((layer, os.path.join(work, f"in{i}.npy"), os.path.join(work, f"out{i}.npy")))
    result = subprocess.run([sys.executable, "-c", PREPARE_SCRIPT, PYTHON_DIR, library,
                             str(bundle_dir), stub], input=json.dumps(listed),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return {key: np.load(out).reshape(jobs[key][1].shape)
            for key, (_, _, out) in zip(jobs, listed)}


def as_specified(codes):
    """PreparedWeights.h: per 16-row tile and 128-element K step one
    kilobyte, row g + 8h's 16-byte piece t at 512h + 16 (4g + t)."""
    rows, cols = codes.shape
    return codes.reshape(rows // 16, 2, 8, cols // 64, 4, 16).transpose(
        0, 3, 1, 2, 4, 5).reshape(rows, cols)


def test_prepared_import_writes_the_launchers_prepared_codes(imports, stub, tmp_path):
    found, stderr = imports
    plain, prepared = found["plain"], found["prepared"]
    m = prepared.manifest
    assert m["bundle"]["prepared_weights"] is True
    bundle = qmat.Bundle.open(os.path.join(prepared.directory, "bundle"))
    takes = {info.name: info.prepared_weights for info in bundle.layers}
    assert takes == {"nvfp4_256x512": True, "nvfp4_512x256": True, "nvfp4_128x256": True,
                     "nvfp4_24x256": False, "nvfp4_256x256": True, "nvfp4_256x256_bias": True}
    flags = {module: entry.get("prepared_weights") for module, entry in m["linears"].items()}
    assert flags == {**{module: True for module in LINEARS}, EXTRA: None}
    assert {module: prepared.prepared(module) for module in m["linears"]} == \
        {**{module: True for module in LINEARS}, EXTRA: False}
    assert not any(plain.prepared(module) for module in plain.manifest["linears"])
    assert f"[ 7/13] {Q_PROJ}: nvfp4 256x256 -> nvfp4_256x256_bias, codes prepared" in \
        stderr.splitlines()
    assert f"[ 2/13] {EXTRA}: nvfp4 24x256 -> nvfp4_24x256" in stderr.splitlines()
    assert "qmat import: building the launcher to prepare the codes of 5 layers" in \
        stderr.splitlines()

    jobs = {module: (m["linears"][module]["layer"], plain.linear(module)[1]["weights"])
            for module in LINEARS}
    want = launcher_prepared(os.path.join(prepared.directory, "bundle"), jobs, tmp_path, stub)
    for module in m["linears"]:
        layer, got = prepared.linear(module)
        plain_layer, codes = plain.linear(module)
        assert layer == plain_layer
        assert got.keys() == codes.keys()
        for operand in got:   # every other tensor as the plain import wrote it
            if operand != "weights":
                assert np.array_equal(got[operand], codes[operand]), (module, operand)
        if module == EXTRA:
            assert np.array_equal(got["weights"], codes["weights"])
            continue
        assert got["weights"].dtype == np.uint8 and got["weights"].shape == codes["weights"].shape
        assert np.array_equal(got["weights"], want[module]), module
        assert np.array_equal(got["weights"], as_specified(codes["weights"])), module
        assert not np.array_equal(got["weights"], codes["weights"]), module


def test_prepared_weights_load_keeps_the_checkpoint_layout(imports):
    found, _ = imports
    plain, load = found["plain"], found["load"]
    assert load.manifest["bundle"]["prepared_weights"] is True
    assert [info.prepared_weights for info in qmat.Bundle.open(
        os.path.join(load.directory, "bundle")).layers].count(True) == 5
    assert not any("prepared_weights" in entry for entry in load.manifest["linears"].values())
    for module in load.manifest["linears"]:
        _, got = load.linear(module)
        _, codes = plain.linear(module)
        for operand in codes:
            assert np.array_equal(got[operand], codes[operand]), (module, operand)


def test_tp2_prepared_import_prepares_each_shard_from_its_own_codes(qmat_aot, stub, tmp_path):
    """Column shards (a fused qkv_proj and gate_up_proj, split part by
    part) and row shards (o_proj, down_proj: K halved) each hold their own
    codes prepared, not a slice of the whole layer's prepared codes."""
    fused_checkpoint(tmp_path / "ckpt")
    ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "plain", bundle=False, quiet=True, tp=2)
    assert cli.main(["import", str(tmp_path / "ckpt"), "-o", str(tmp_path / "prepared"),
                     "--tp", "2", "--prepared-weights", "-q", "--qmat-aot", qmat_aot]) == 0
    plain = ck.open_imported(tmp_path / "plain")
    prepared = ck.open_imported(tmp_path / "prepared")
    linears = prepared.manifest["linears"]
    assert sorted(linears) == sorted(FUSED_LINEARS)
    assert all(entry["prepared_weights"] is True for entry in linears.values())
    jobs = {(module, rank): (linears[module]["layer"], plain.linear(module, rank)[1]["weights"])
            for module in linears for rank in (0, 1)}
    want = launcher_prepared(tmp_path / "prepared" / "bundle", jobs, tmp_path / "work", stub)
    for (module, rank), codes in want.items():
        layer, got = prepared.linear(module, rank)
        assert layer == plain.linear(module, rank)[0]
        assert np.array_equal(got["weights"], codes), (module, rank)
        assert np.array_equal(got["weights"], as_specified(jobs[module, rank][1])), (module, rank)
        for operand, value in plain.linear(module, rank)[1].items():
            if operand != "weights":
                assert np.array_equal(got[operand], value), (module, rank, operand)
        shard = parallel.imported_shard(prepared, module, linears[module]["parallel"], 2, rank)
        assert shard.prepared is True
        assert np.array_equal(shard.tensors["weights"], codes)
    # A row shard's prepared codes are not the whole layer's prepared codes cut at K / 2.
    whole = ck.open_imported(tmp_path / "plain")   # rank 0 + rank 1 columns = the whole layer
    down = "model.layers.0.mlp.down_proj"
    full = np.concatenate([whole.linear(down, r)[1]["weights"] for r in (0, 1)], axis=1)
    assert not np.array_equal(prepared.linear(down, 0)[1]["weights"],
                              as_specified(full)[:, :full.shape[1] // 2])
    plain_shard = parallel.imported_shard(plain, down, "row", 2, 0)
    assert plain_shard.prepared is False


def specs_of(imported):
    return {module: ck.ModuleSpec("Linear", layer.k, layer.n, layer.bias)
            for module, layer in ((m, imported.linear(m)[0])
                                  for m in imported.manifest["linears"])}


def test_loader_plans_take_prepared_codes_or_refuse_them(imports):
    found, _ = imports
    prepared, load = found["prepared"], found["load"]
    layers = qmat.Bundle.open(os.path.join(prepared.directory, "bundle")).layers
    placements = ck.plan_linears(prepared, specs_of(prepared), layers)
    assert {p.module: p.prepared for p in placements} == \
        {**{module: True for module in LINEARS}, EXTRA: False}
    # Prepared codes on layers compiled for the checkpoint layout: refused,
    # naming the first module (natural order) before any other is placed.
    checkpoint_layout = [dataclasses.replace(info, prepared_weights=False) for info in layers]
    with pytest.raises(qmat.ArgumentError) as e:
        ck.plan_linears(prepared, specs_of(prepared), checkpoint_layout)
    assert str(e.value) == (
        f"{DOWN_PROJ}: the import holds its codes in the prepared layout (imported with "
        f"--prepared-weights), but the bundle's layer nvfp4_256x512 reads the checkpoint layout "
        f"(compiled without --prepared-weights): run it on a bundle compiled with "
        f"--prepared-weights, such as the import's own, or import without --prepared-weights")
    # The one layer without the layout keeps checkpoint codes: any bundle runs it.
    only_extra = {EXTRA: specs_of(prepared)[EXTRA]}
    manifest = dict(prepared.manifest, linears={EXTRA: prepared.manifest["linears"][EXTRA]})
    narrowed = ck.ImportedCheckpoint(prepared.directory)
    narrowed.manifest = manifest
    assert [p.prepared for p in ck.plan_linears(narrowed, only_extra, checkpoint_layout)] == \
        [False]
    # Codes in the checkpoint layout (=load, or a plain import) run on
    # either kind of layer: a prepared one prepares them at load.
    for bundle_layers in (layers, checkpoint_layout):
        assert not any(p.prepared for p in ck.plan_linears(load, specs_of(load), bundle_layers))
    # Without bundle layers (load_model's dequantize=True plan) the flag is carried.
    assert [p.prepared for p in ck.plan_linears(prepared, specs_of(prepared))].count(True) == 7
    with pytest.raises(qmat.ArgumentError) as e:
        ck.check_prepared(Q_PROJ, True, checkpoint_layout[0])
    assert str(e.value).startswith(f"{Q_PROJ}: the import holds its codes in the prepared "
                                   f"layout (imported with --prepared-weights), but the bundle's "
                                   f"layer nvfp4_256x512 reads the checkpoint layout")
    ck.check_prepared(Q_PROJ, True, layers[0])
    ck.check_prepared(Q_PROJ, False, checkpoint_layout[0])


def test_prepared_weights_refusals(source, tmp_path, capsys):
    for value in (True, "load"):
        with pytest.raises(qmat.ArgumentError) as e:
            ck.import_checkpoint(source, tmp_path / "out", bundle=False, quiet=True,
                                 prepared_weights=value)
        assert str(e.value) == (
            "prepared weights (--prepared-weights) are for a bundle compiled for the prepared "
            "code layout, and the import compiles none (bundle=False / --no-bundle)")
    with pytest.raises(qmat.ArgumentError) as e:
        ck.import_checkpoint(source, tmp_path / "out", quiet=True, prepared_weights="import")
    assert str(e.value) == "prepared_weights must be False, True or 'load', got 'import'"
    assert cli.main(["import", str(source), "-o", str(tmp_path / "out"), "--no-bundle",
                     "--prepared-weights"]) == 1
    assert capsys.readouterr().err == (
        "qmat import: error: prepared weights (--prepared-weights) are for a bundle compiled "
        "for the prepared code layout, and the import compiles none (bundle=False / "
        "--no-bundle)\n")
    with pytest.raises(SystemExit):
        cli.main(["import", str(source), "-o", str(tmp_path / "out"), "--prepared-weights=later"])
    assert "argument --prepared-weights: invalid choice: 'later' (choose from" in \
        capsys.readouterr().err
    assert not os.path.exists(tmp_path / "out")


def test_a_launcher_that_cannot_be_built_stops_the_import_before_the_weights(
        source, qmat_aot, tmp_path, monkeypatch):
    def no_toolkit(self, *args, **kwargs):
        raise qmat.ToolNotFoundError("the CUDA toolkit (cuda.h, cublasLt.h)", ["default: /nope"])

    monkeypatch.setattr(qmat.Bundle, "build_library", no_toolkit)
    with pytest.raises(qmat.QMatError) as e:
        ck.import_checkpoint(source, tmp_path / "out", quiet=True, prepared_weights=True,
                             qmat_aot=qmat_aot)
    assert str(e.value) == (
        "prepared weights (--prepared-weights) are written by the bundle's launcher, which "
        "could not be built or loaded: cannot find the CUDA toolkit (cuda.h, cublasLt.h); "
        "searched:\n  - default: /nope\n(--prepared-weights=load writes the codes in the "
        "checkpoint layout, for the loader to prepare)")
    assert not [name for name in os.listdir(tmp_path / "out")
                if name.endswith((".safetensors", ".checkpoint.json"))]
