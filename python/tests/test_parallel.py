"""qmat.parallel: the torch-free plan of tensor-parallel layers (which shard
each rank holds, the split of the input, the gather, the reduction's order
and rounding), checked in numpy against qmat.reference: bit for bit where
the arithmetic is exact, within docs/numerics.md's bounds where it is not.

The layer's kernel is stood in for by `kernel`: each output the exact sum
of its products (math.fsum), rounded to fp32, plus the bias in fp32, one
rounding to the activation type; it depends on one row of W only, as the
GPU paths' sums do."""
import math
import zlib

import numpy as np
import pytest

import qmat
from qmat import checkpoint as ck
from qmat import parallel as par
from qmat import reference as ref
from qmat import shard as sh
from test_shard import (GATE_UP_PROJ, QKV_PROJ, fused_checkpoint, random_tensors,
                        tp_checkpoint)

BF16, F16 = "bf16", "f16"
# Small shards leave the tensor-core K; qmat.shard warns, test_shard.py tests that.
pytestmark = pytest.mark.filterwarnings("ignore::qmat.shard.ShardWarning")


def dequant(layer, t):
    gs = t.get("global_scale")
    return ref.dequantize(layer.scheme, t["weights"], t["scales"], layer.k, layer.act,
                          block=layer.block,
                          global_scale=None if gs is None else float(np.ravel(gs)[0]),
                          zero_points=t.get("zero_points"))


def kernel(layer, t, x_bits):
    """The stand-in kernel: Y = rne(fp32(exact x·w) + bias) for x [M, K]."""
    w = ref.to_float32(dequant(layer, t), layer.act).astype(np.float64)
    x = ref.to_float32(x_bits, layer.act).astype(np.float64)
    sums = np.array([[math.fsum(x[i] * w[j]) for j in range(layer.n)]
                     for i in range(x.shape[0])]).astype(np.float32)
    if layer.bias:
        sums = sums + ref.to_float32(t["bias"], layer.act)
    return ref.round_to_act(sums, layer.act)


def exact_product(layer, t, x_bits, bias=None):
    """The fp64 product of x and the reference weight (+ bias): the error
    bound's reference."""
    w = ref.to_float32(dequant(layer, t), layer.act).astype(np.float64)
    y = ref.to_float32(x_bits, layer.act).astype(np.float64) @ w.T
    if bias is not None:
        y = y + ref.to_float32(bias, layer.act)
    return y


def random_act(rng, shape, act):
    return ref.round_to_act(rng.standard_normal(shape).astype(np.float32), act)


# (scheme, block, zero points, K, row TP degrees); N = 48 splits 1, 2, 3, 4, 6 ways
CASES = [
    ("nvfp4", 16, False, 192, (2, 3, 4)),
    ("mxfp4", 32, False, 192, (2, 3, 6)),
    ("fp8", 128, False, 256, (2,)),
    ("int4", 32, True, 192, (2, 3, 6)),
    ("int4", 32, False, 224, (7,)),
]
N = 48


def case_id(case):
    scheme, block, zp, k, _ = case
    return f"{scheme}_b{block}{'_zp' if zp else ''}_k{k}"


def case_layer(case, act, bias, name="w"):
    scheme, block, zp, k, _ = case
    return qmat.Layer(name, scheme, N, k, block=block, act=act, bias=bias, zero_points=zp)


def sane(layer, t):
    """Random tensors with finite weights (NaN scale bytes replaced)."""
    if layer.scheme in ("nvfp4", "fp8"):
        if layer.scheme == "nvfp4":
            t["scales"] = (t["scales"] % 0x70).astype(np.uint8)
        else:
            t["weights"] = np.where((t["weights"] & 0x7F) == 0x7F, 0, t["weights"]).astype(np.uint8)
    if layer.scheme == "mxfp4":
        t["scales"] = np.clip(t["scales"], 110, 130).astype(np.uint8)
    return t


# --- the plans ----------------------------------------------------------------------

def test_plan_ranges_cover_every_row_and_input_once():
    layer = qmat.Layer("gu", "nvfp4", 96, 64)
    for tp in (1, 2, 3, 4, 6):
        rows = np.concatenate([par.make_plan(layer, "column", tp, r).rows() for r in range(tp)])
        assert np.array_equal(rows, np.arange(96))
        merged = [par.make_plan(layer, "column", tp, r, parts=(48, 48)) for r in range(tp)]
        assert np.array_equal(np.sort(np.concatenate([p.rows() for p in merged])), np.arange(96))
        for p in merged:   # the rank's gate rows, then its up rows
            w = 48 // tp
            assert np.array_equal(p.rows(), np.concatenate([np.arange(p.rank * w, (p.rank + 1) * w),
                                                            48 + np.arange(p.rank * w,
                                                                           (p.rank + 1) * w)]))
            assert p.shard.n == 96 // tp and p.shard.k == 64
    row = qmat.Layer("down", "int4", 32, 192, bias=True, zero_points=True)
    for tp in (1, 2, 3, 6):
        plans = [par.make_plan(row, "row", tp, r) for r in range(tp)]
        assert [p.input_range() for p in plans] == [(r * 192 // tp, (r + 1) * 192 // tp)
                                                    for r in range(tp)]
        assert all(p.shard.k == 192 // tp and p.shard.n == 32 for p in plans)
        assert all(p.shard.bias == (tp == 1) and p.bias_after_reduce == (tp > 1) for p in plans)
    plan = par.make_plan(row, "row", 2, 1, name="model.layers.0.mlp.down_proj")
    assert plan.shard == sh.shard_layer(row, "row", 2)
    assert plan.describe() == ("row-parallel layer model.layers.0.mlp.down_proj (rank 1 of 2: "
                               "int4 32x192 split along K, shard 32x96)")
    assert plan.for_rank(0).input_range() == (0, 96)


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("act", [BF16, F16])
def test_column_gather_is_the_whole_layer_bit_for_bit(case, bias, act):
    layer = case_layer(case, act, bias)
    rng = np.random.default_rng(zlib.crc32(f"col{case_id(case)}{bias}{act}".encode()))
    t = sane(layer, random_tensors(rng, layer))
    x = random_act(rng, (3, layer.k), act)
    whole = kernel(layer, t, x)
    for tp in (1, 2, 3, 4, 6):
        plans = [par.make_plan(layer, "column", tp, r) for r in range(tp)]
        held = [par.shard_tensors(p, t) for p in plans]
        # the rank's tensors are qmat.shard's column shard
        for h, s in zip(held, sh.shard_column(layer, t, tp)):
            assert h.tensors.keys() == s.tensors.keys() and h.bias is None
            assert all(np.array_equal(h.tensors[r], s.tensors[r]) for r in s.tensors)
        outputs = [kernel(p.shard, h.tensors, x) for p, h in zip(plans, held)]
        assert np.array_equal(par.gather_outputs(plans[0], outputs), whole)
        if tp > 1:  # the gather's order matters: rank order reversed is another matrix
            assert not np.array_equal(par.gather_outputs(plans[0], outputs[::-1]), whole)


def test_merged_column_layer_keeps_each_part_in_place():
    layer = qmat.Layer("gate_up", "int4", 2 * 48, 64, bias=True, zero_points=True)
    rng = np.random.default_rng(5)
    t = random_tensors(rng, layer)
    x = random_act(rng, (2, 64), BF16)
    whole = kernel(layer, t, x)
    for tp in (2, 3, 4):
        plans = [par.make_plan(layer, "column", tp, r, parts=(48, 48)) for r in range(tp)]
        outputs = []
        for p in plans:
            h = par.shard_tensors(p, t)
            y = kernel(p.shard, h.tensors, x)
            w = 48 // tp
            # [gate_r | up_r]: what silu_and_mul needs on the rank
            assert np.array_equal(y[:, :w], whole[:, p.rank * w:(p.rank + 1) * w])
            assert np.array_equal(y[:, w:], whole[:, 48 + p.rank * w:48 + (p.rank + 1) * w])
            outputs.append(y)
        assert np.array_equal(par.gather_outputs(plans[0], outputs), whole)
        # a plain column split of the same layer puts other rows on rank 0
        plain = par.make_plan(layer, "column", tp, 0)
        assert not np.array_equal(plain.rows(), plans[0].rows())


def test_merged_parts_split_with_qmat_shard_per_part():
    layer = qmat.Layer("gate_up", "nvfp4", 96, 64)
    t = random_tensors(np.random.default_rng(8), layer)
    p = par.make_plan(layer, "column", 2, 1, parts=(48, 48))
    h = par.shard_tensors(p, t)
    half = qmat.Layer("gate_up", "nvfp4", 48, 64)

    def rows(a, b):
        return {r: (v if r == "global_scale" else v[a:b]) for r, v in t.items()}
    gate = sh.shard_column(half, rows(0, 48), 2)[1]
    up = sh.shard_column(half, rows(48, 96), 2)[1]
    for role in ("weights", "scales"):
        assert np.array_equal(h.tensors[role], np.concatenate([gate.tensors[role],
                                                               up.tensors[role]]))
    assert np.array_equal(h.tensors["global_scale"], t["global_scale"])


def exact_layer(rng, scheme, act, k, bias):
    """A layer whose products and sums are exact in the activation type:
    weights in {-1, 0, 1}, activations in {-1, 0, 1}, |sums| <= K <= 256."""
    zp = scheme == "int4"
    layer = qmat.Layer("w", scheme, N, k, act=act, bias=bias, zero_points=zp)
    cols = layer.scale_cols
    t = {}
    if scheme == "int4":
        q = rng.integers(7, 10, (N, k), dtype=np.uint8)        # q - 8 in {-1, 0, 1}
        t["weights"] = ref.pack_nibbles(q)
        t["scales"] = ref.round_to_act(np.ones((N, cols), np.float32), act)
        zps = np.full((N, cols + cols % 2), 8, dtype=np.uint8)
        t["zero_points"] = ref.pack_nibbles(zps)
    else:   # nvfp4: e2m1 codes 0 (0), 2 (1), 10 (-1); e4m3 scale 1.0, global 1.0
        codes = rng.choice(np.array([0, 2, 10], dtype=np.uint8), (N, k))
        t["weights"] = ref.pack_nibbles(codes)
        t["scales"] = np.full((N, cols), 0x38, dtype=np.uint8)
        t["global_scale"] = np.array([1.0], dtype=np.float32)
    if bias:
        t["bias"] = ref.round_to_act(rng.integers(-8, 9, N).astype(np.float32), act)
    x = ref.round_to_act(rng.integers(-1, 2, (4, k)).astype(np.float32), act)
    return layer, t, x


@pytest.mark.parametrize("scheme, k, tps", [("int4", 192, (2, 3, 6)), ("nvfp4", 256, (2, 4, 8))])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("act", [BF16, F16])
def test_row_reduction_exact_data_bit_for_bit(scheme, k, tps, bias, act):
    rng = np.random.default_rng(zlib.crc32(f"row{scheme}{bias}{act}".encode()))
    layer, t, x = exact_layer(rng, scheme, act, k, bias)
    whole = kernel(layer, t, x)
    assert np.array_equal(whole, ref.round_to_act(exact_product(layer, t, x, t.get("bias")),
                                                  act))
    for tp in tps:
        plans = [par.make_plan(layer, "row", tp, r) for r in range(tp)]
        held = [par.shard_tensors(p, t) for p in plans]
        partials = [kernel(p.shard, h.tensors, par.split_input(p, x))
                    for p, h in zip(plans, held)]
        got = par.reduce_partials(plans[0], partials, held[0].bias)
        assert np.array_equal(got, whole)
        if bias:
            assert all(np.array_equal(h.bias, t["bias"]) for h in held)   # every rank holds it
            assert "bias" not in held[0].tensors
            twice = [kernel(dataclass_with_bias(p.shard), dict(h.tensors, bias=t["bias"]),
                            par.split_input(p, x)) for p, h in zip(plans, held)]
            assert not np.array_equal(par.reduce_partials(plans[0], twice, t["bias"]), whole)
        # the input split must pair rank r's K columns with its weights
        shifted = [kernel(p.shard, h.tensors, par.split_input(plans[(p.rank + 1) % tp], x))
                   for p, h in zip(plans, held)]
        assert not np.array_equal(par.reduce_partials(plans[0], shifted, held[0].bias), whole)


def dataclass_with_bias(layer):
    return qmat.Layer(layer.name, layer.scheme, layer.n, layer.k, block=layer.block,
                      act=layer.act, bias=True, zero_points=layer.zero_points)


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("act", [BF16, F16])
def test_row_reduction_random_data_within_bound(case, act):
    layer = case_layer(case, act, True)
    rng = np.random.default_rng(zlib.crc32(f"rowrand{case_id(case)}{act}".encode()))
    t = sane(layer, random_tensors(rng, layer))
    x = random_act(rng, (3, layer.k), act)
    exact = exact_product(layer, t, x, t["bias"])
    whole = kernel(layer, t, x)
    assert par.relative_error(ref.to_float32(whole, act), exact) <= par.BOUNDS[act]
    for tp in case[4]:
        plans = [par.make_plan(layer, "row", tp, r) for r in range(tp)]
        held = [par.shard_tensors(p, t) for p in plans]
        partials = [kernel(p.shard, h.tensors, par.split_input(p, x)) for p, h in zip(plans, held)]
        got = par.reduce_partials(plans[0], partials, held[0].bias)
        assert not np.isnan(ref.to_float32(got, act)).any()
        assert par.relative_error(ref.to_float32(got, act), exact) <= par.BOUNDS[act]
        assert par.relative_error(ref.to_float32(got, act),
                                  ref.to_float32(whole, act)) <= par.BOUNDS[act]


def bf16_bits(*values):
    return ref.round_to_act(np.array(values, dtype=np.float32), BF16)


def plan_of(tp, act=BF16, bias=False):
    return par.make_plan(qmat.Layer("w", "fp8", 1, 1536, act=act, bias=bias), "row", tp, 0)


def test_reduction_is_fp32_in_rank_order_with_one_rounding():
    e = 2.0 ** -24
    # rank order: 1 + 2^-24 rounds to 1 (a tie, to even), twice; then + 2^-8
    # is 1 + 2^-8, a bf16 tie, to 1.0. Summed the other way the small
    # partials survive (1 + 2^-8 + 2^-23) and round up to 1 + 2^-7.
    partials = [bf16_bits(1.0), bf16_bits(e), bf16_bits(e), bf16_bits(2.0 ** -8)]
    got = par.reduce_partials(plan_of(4), partials)
    assert got[0] == bf16_bits(1.0)[0]
    assert par.reduce_partials(plan_of(4), partials[::-1])[0] == bf16_bits(1 + 2.0 ** -7)[0]
    # one rounding: 1 + 2^-8 + 2^-8 is 1 + 2^-7 in fp32; rounding each step
    # to bf16 would give 1.0 (1 + 2^-8 ties to even twice).
    got = par.reduce_partials(plan_of(3), [bf16_bits(1.0), bf16_bits(2.0 ** -8),
                                           bf16_bits(2.0 ** -8)])
    assert got[0] == bf16_bits(1 + 2.0 ** -7)[0]
    # the bias exactly once: 1 + 2^-8 + 2^-8 is 1 + 2^-7; without it 1.0
    # (a tie), with it twice 1 + 2^-6 (1 + 3·2^-8 ties to even)
    got = par.reduce_partials(plan_of(2, bias=True), [bf16_bits(1.0), bf16_bits(2.0 ** -8)],
                              bias=bf16_bits(2.0 ** -8))
    assert got[0] == bf16_bits(1 + 2.0 ** -7)[0]
    # the bias after the partials: 2^-8 + 2^-24 + 2^-24 is exact, + 1 is
    # 1 + 2^-8 + 2^-23, which rounds up to 1 + 2^-7; the bias first would
    # lose each 2^-24 (ties to even) and end on the bf16 tie 1 + 2^-8 -> 1.0
    got = par.reduce_partials(plan_of(3, bias=True),
                              [bf16_bits(2.0 ** -8), bf16_bits(e), bf16_bits(e)],
                              bias=bf16_bits(1.0))
    assert got[0] == bf16_bits(1 + 2.0 ** -7)[0]
    # NaN is the canonical pattern; inf - inf is NaN
    nan = par.reduce_partials(plan_of(2), [bf16_bits(np.inf), bf16_bits(-np.inf)])
    assert nan[0] == ref.CANONICAL_NAN
    # f16: the same rounding rule
    f16 = lambda v: ref.round_to_act(np.array([v], dtype=np.float32), F16)   # noqa: E731
    got = par.reduce_partials(plan_of(3, F16), [f16(1.0), f16(2.0 ** -11), f16(2.0 ** -11)])
    assert got[0] == f16(1 + 2.0 ** -10)[0]


def test_reduction_matches_scalar_fp32_loop():
    rng = np.random.default_rng(3)
    for act in (BF16, F16):
        for tp in (2, 3):
            plan = par.make_plan(qmat.Layer("w", "fp8", 64, 768, act=act, bias=True), "row", tp, 0)
            bits = rng.integers(0, 1 << 16, (tp, 5, 64), dtype=np.uint16)
            bits = np.where(np.isfinite(ref.to_float32(bits, act)), bits, 0).astype(np.uint16)
            bias = rng.integers(0, 1 << 16, 64, dtype=np.uint16)
            bias = np.where(np.isfinite(ref.to_float32(bias, act)), bias, 0).astype(np.uint16)
            got = par.reduce_partials(plan, list(bits), bias)
            want = np.empty((5, 64), dtype=np.uint16)
            with np.errstate(over="ignore", invalid="ignore"):
                for i in range(5):
                    for j in range(64):
                        acc = ref.to_float32(bits[0, i, j], act)
                        for r in range(1, tp):
                            acc = np.float32(acc + ref.to_float32(bits[r, i, j], act))
                        acc = np.float32(acc + ref.to_float32(bias[j], act))
                        want[i, j] = ref.round_to_act(np.array([acc]), act)[0]
            assert np.array_equal(got, want)


def test_mlp_block_plan_within_bound():
    """gate / up column-parallel, silu_and_mul on the rank's own columns,
    down row-parallel: against the whole block on one device."""
    rng = np.random.default_rng(21)
    hidden, inter = 64, 128
    gate = qmat.Layer("gate", "nvfp4", inter, hidden)
    up = qmat.Layer("up", "nvfp4", inter, hidden)
    down = qmat.Layer("down", "nvfp4", hidden, inter, bias=True)
    tensors = {}
    for layer in (gate, up, down):
        t = sane(layer, random_tensors(rng, layer))
        t["scales"] = rng.integers(0x30, 0x40, t["scales"].shape, dtype=np.uint8)
        t["global_scale"] = np.array([0.05], dtype=np.float32)
        tensors[layer.name] = t
    x = random_act(rng, (3, hidden), BF16)
    h = par.silu_and_mul(kernel(gate, tensors["gate"], x), kernel(up, tensors["up"], x), BF16)
    whole = kernel(down, tensors["down"], h)
    g64 = exact_product(gate, tensors["gate"], x)
    u64 = exact_product(up, tensors["up"], x)
    exact = (g64 / (1 + np.exp(-g64)) * u64) @ ref.to_float32(
        dequant(down, tensors["down"]), BF16).astype(np.float64).T + ref.to_float32(
        tensors["down"]["bias"], BF16)
    for tp in (2, 4):
        partials, bias = [], None
        for r in range(tp):
            pg, pu = (par.make_plan(gate, "column", tp, r), par.make_plan(up, "column", tp, r))
            pd = par.make_plan(down, "row", tp, r)
            par.check_mlp(pd, gate=pg, up=pu)
            hg = kernel(pg.shard, par.shard_tensors(pg, tensors["gate"]).tensors, x)
            hu = kernel(pu.shard, par.shard_tensors(pu, tensors["up"]).tensors, x)
            hr = par.silu_and_mul(hg, hu, BF16)
            # the rank's hidden columns are the whole block's, bit for bit
            k0, k1 = pd.input_range()
            assert np.array_equal(hr, h[:, k0:k1])
            held = par.shard_tensors(pd, tensors["down"])
            bias = held.bias
            partials.append(kernel(pd.shard, held.tensors, hr))
        got = ref.to_float32(par.reduce_partials(pd, partials, bias), BF16)
        assert par.relative_error(got, ref.to_float32(whole, BF16)) <= par.BOUNDS[BF16]
        assert par.relative_error(got, exact) <= par.BOUNDS[BF16]


# --- per-rank weights of `qmat import --tp 2` ----------------------------------------

def test_imported_shards_are_the_in_memory_split(tmp_path):
    source = tp_checkpoint(tmp_path)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    ck.import_checkpoint(source, tmp_path / "two", bundle=False, quiet=True, tp=2)
    one, two = ck.open_imported(tmp_path / "one"), ck.open_imported(tmp_path / "two")
    rng = np.random.default_rng(4)
    for module, entry in two.manifest["linears"].items():
        kind = entry["parallel"]
        full_layer, full_t = one.linear(module)
        x = random_act(rng, (2, full_layer.k), full_layer.act)
        outputs = []
        for rank in range(2):
            held = par.imported_shard(two, module, kind, 2, rank)
            assert held.layer_name == entry["layer"] and held.plan.name == module
            mine = par.shard_tensors(par.make_plan(full_layer, kind, 2, rank, name=module),
                                     full_t)
            assert held.tensors.keys() == mine.tensors.keys()
            for role in mine.tensors:
                assert np.array_equal(np.ravel(held.tensors[role]), np.ravel(mine.tensors[role]))
            if kind == "row" and full_layer.bias:
                assert np.array_equal(held.bias, full_t["bias"])   # rank 1 reads rank 0's file
            else:
                assert held.bias is None
            xr = par.split_input(held.plan, x) if kind == "row" else x
            outputs.append(kernel(held.plan.shard, held.tensors, xr))
        whole = kernel(full_layer, full_t, x)
        if kind == "column":
            assert np.array_equal(par.gather_outputs(held.plan, outputs), whole)
        else:
            got = par.reduce_partials(held.plan, outputs, held.bias)
            assert par.relative_error(ref.to_float32(got, BF16),
                                      exact_product(full_layer, full_t, x,
                                                    full_t.get("bias"))) <= par.BOUNDS[BF16]
    # a tp 1 import runs as one rank
    held = par.imported_shard(one, "model.layers.0.mlp.down_proj", "row", 1, 0)
    assert held.plan.tp == 1 and held.plan.shard.k == 512


def test_imported_refusals(tmp_path):
    source = tp_checkpoint(tmp_path)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    ck.import_checkpoint(source, tmp_path / "two", bundle=False, quiet=True, tp=2)
    one, two = ck.open_imported(tmp_path / "one"), ck.open_imported(tmp_path / "two")
    down = "model.layers.0.mlp.down_proj"
    cases = [
        (two, down, "row", 4, 0,
         f"layer {down}: {two.directory} was imported with --tp 2, but the process group has "
         f"4 ranks"),
        (one, down, "row", 2, 0,
         f"layer {down}: {one.directory} holds whole layers (imported without --tp), but the "
         f"process group has 2 ranks: shard them in memory (from_full) or import with --tp 2"),
        (two, down, "column", 2, 0,
         f"layer {down} was imported row-parallel, not column-parallel (qmat.shard.parallel_kind "
         f"names the split by the linear's last name, or import_checkpoint's parallel=)"),
        (two, "model.layers.0.mlp.router", "row", 2, 0,
         f"{two.directory}: no quantized linear 'model.layers.0.mlp.router' (linears: "
         f"model.layers.0.mlp.down_proj, model.layers.0.mlp.gate_proj, "
         f"model.layers.0.mlp.up_proj, model.layers.0.self_attn.k_proj, "
         f"model.layers.0.self_attn.o_proj, model.layers.0.self_attn.q_proj, ...)"),
        (two, down, "row", 2, 2,
         f"layer {down}: rank must be an integer in 0..1 (tp = 2), got 2"),
    ]
    for checkpoint, module, kind, tp, rank, message in cases:
        with pytest.raises(qmat.ArgumentError) as e:
            par.imported_shard(checkpoint, module, kind, tp, rank)
        assert str(e.value) == message


def test_imported_fused_layers_run_as_the_whole_block(tmp_path):
    """`qmat import --tp` of fused gate_up_proj and qkv_proj: every rank's
    plan holds the manifest's parts, gate_up's [gate_r | up_r] outputs are
    the whole layer's columns of each part, the MLP block's check accepts
    it, and the gathered qkv output (kv heads replicated at tp 4) is the
    whole layer's."""
    source = tmp_path / "ckpt"
    fused_checkpoint(source)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    one = ck.open_imported(tmp_path / "one")
    rng = np.random.default_rng(6)
    x = random_act(rng, (2, 256), BF16)
    gu_layer, gu_t = one.linear(GATE_UP_PROJ)
    gu_whole = kernel(gu_layer, gu_t, x)
    hidden = par.silu_and_mul(gu_whole[:, :512], gu_whole[:, 512:], BF16)
    qkv_layer, qkv_t = one.linear(QKV_PROJ)
    qkv_whole = kernel(qkv_layer, qkv_t, x)
    down = "model.layers.0.mlp.down_proj"
    for tp in (2, 4):
        ck.import_checkpoint(source, tmp_path / f"tp{tp}", bundle=False, quiet=True, tp=tp)
        split = ck.open_imported(tmp_path / f"tp{tp}")
        w, outputs = 512 // tp, []
        for rank in range(tp):
            gu = par.imported_shard(split, GATE_UP_PROJ, "column", tp, rank)
            assert gu.plan.parts == (512, 512) and gu.plan.part_names == ("gate", "up")
            d = par.imported_shard(split, down, "row", tp, rank)
            par.check_mlp(d.plan, gate_up=gu.plan)
            y = kernel(gu.plan.shard, gu.tensors, x)
            assert np.array_equal(y[:, :w], gu_whole[:, rank * w:(rank + 1) * w])
            assert np.array_equal(y[:, w:], gu_whole[:, 512 + rank * w:512 + (rank + 1) * w])
            k0, k1 = d.plan.input_range()
            assert np.array_equal(par.silu_and_mul(y[:, :w], y[:, w:], BF16), hidden[:, k0:k1])
            qkv = par.imported_shard(split, QKV_PROJ, "column", tp, rank)
            assert qkv.plan.part_names == ("q", "k", "v")
            assert [s.replicas for s in qkv.plan.splits] == ([1, 1, 1] if tp == 2 else [1, 2, 2])
            outputs.append(kernel(qkv.plan.shard, qkv.tensors, x))
        assert np.array_equal(par.gather_outputs(qkv.plan, outputs), qkv_whole)
        if tp == 4:   # ranks 0 and 1 hold kv head 0, ranks 2 and 3 kv head 1
            assert np.array_equal(outputs[0][:, 64:], outputs[1][:, 64:])
            assert np.array_equal(outputs[2][:, 64:], outputs[3][:, 64:])
            assert not np.array_equal(outputs[0][:, 64:], outputs[2][:, 64:])
            # the gather takes a replicated head from the first rank holding it
            others = [y if r % 2 == 0 else np.concatenate([y[:, :64], 0 * y[:, 64:]], axis=1)
                      for r, y in enumerate(outputs)]
            assert np.array_equal(par.gather_outputs(qkv.plan, others), qkv_whole)
            first = [y if r % 2 else np.concatenate([y[:, :64], 0 * y[:, 64:]], axis=1)
                     for r, y in enumerate(outputs)]
            assert not np.array_equal(par.gather_outputs(qkv.plan, first), qkv_whole)
            assert qkv.plan.describe() == (
                f"column-parallel layer {QKV_PROJ} (rank 3 of 4: nvfp4 512x256 split along N "
                f"per part (q 256, k 128 on 2 ranks each, v 128 on 2 ranks each), shard 192x256)")


def test_imported_fused_manifest_refusals(tmp_path):
    import copy
    source = tmp_path / "ckpt"
    fused_checkpoint(source)
    ck.import_checkpoint(source, tmp_path / "two", bundle=False, quiet=True, tp=2)
    two = ck.open_imported(tmp_path / "two")
    down = "model.layers.0.mlp.down_proj"
    manifest = two.manifest
    # parts that do not match the split
    two.manifest = copy.deepcopy(manifest)
    two.manifest["linears"][GATE_UP_PROJ]["parts"][1]["rank_size"] = 128
    with pytest.raises(qmat.QMatError) as e:
        par.imported_shard(two, GATE_UP_PROJ, "column", 2, 0)
    assert str(e.value) == (f"layer {GATE_UP_PROJ}: the manifest's parts hold [256, 128] rows "
                            f"per rank, but splitting them 2 ways gives [256, 256]")
    two.manifest["linears"][GATE_UP_PROJ]["parts"] = [{"size": 512}]
    with pytest.raises(qmat.QMatError) as e:
        par.imported_shard(two, GATE_UP_PROJ, "column", 2, 0)
    assert str(e.value) == (f"layer {GATE_UP_PROJ}: the manifest's parts [{{'size': 512}}] are "
                            f"not a list of {{name, size, rank_size}}")
    # a manifest without parts: one block of rows, which the MLP refuses
    del two.manifest["linears"][GATE_UP_PROJ]["parts"]
    block = par.imported_shard(two, GATE_UP_PROJ, "column", 2, 0)
    assert block.plan.parts == (1024,)
    with pytest.raises(qmat.ArgumentError) as e:
        par.check_mlp(par.imported_shard(two, down, "row", 2, 0).plan, gate_up=block.plan)
    assert str(e.value) == (
        f"MLP with down {down}: the merged {GATE_UP_PROJ} must stack gate and up as parts (512, "
        f"512), each split on its own so that every rank holds its gate and up rows; its parts "
        f"are [1024] (one block of rows: rank 0 would hold gate rows only; give make_plan / "
        f"from_full parts=(I, I), or import with qmat import --tp, which splits gate_up_proj "
        f"per part and records the parts)")
    two.manifest = manifest


# --- every refusal's message -------------------------------------------------------

LAYER = qmat.Layer("proj", "nvfp4", 48, 192, bias=True)


def refusal(call, *args, **kwargs):
    with pytest.raises(qmat.QMatError) as e:
        call(*args, **kwargs)
    assert isinstance(e.value, (qmat.ArgumentError, qmat.ShardError))
    return str(e.value)


def test_plan_refusals():
    mp = par.make_plan
    assert refusal(mp, LAYER, "column", 5, 0) == (
        "layer proj: N = 48 cannot be split 5 ways (9.6 rows per rank; blocks of 16 run along "
        "K); legal TP degrees: 1, 2, 3, 4, 6, 8, 12, 16")
    assert refusal(mp, LAYER, "row", 5, 0, name="model.layers.0.mlp.down_proj") == (
        "layer model.layers.0.mlp.down_proj: K = 192 in blocks of 16 cannot be split 5 ways "
        "(2.4 blocks per rank); legal TP degrees: 1, 2, 3, 4, 6, 12")
    assert refusal(mp, LAYER, "replicate", 2, 0) == (
        "layer proj is replicated, not split: every rank runs the whole layer "
        "(qmat.torch.QuantLinear)")
    assert refusal(mp, LAYER, "diagonal", 2, 0) == (
        "layer proj: unknown parallel kind 'diagonal' (expected one of column, row)")
    assert refusal(mp, LAYER, "column", 0, 0) == (
        "layer proj: the TP degree must be a positive integer, got 0")
    assert refusal(mp, LAYER, "column", 2, 2) == (
        "layer proj: rank must be an integer in 0..1 (tp = 2), got 2")
    assert refusal(mp, LAYER, "column", 2, True) == (
        "layer proj: rank must be an integer in 0..1 (tp = 2), got True")
    assert refusal(mp, LAYER, "row", 2, 0, parts=(24, 24)) == (
        "layer proj: parts (stacked outputs) are for column-parallel layers, this one is "
        "row-parallel")
    assert refusal(mp, LAYER, "column", 2, 0, parts=(24, 20)) == (
        "layer proj: parts [24, 20] add up to 44, not N = 48")
    assert refusal(mp, LAYER, "column", 2, 0, parts=(24, -24, 48)) == (
        "layer proj: parts must be positive integers, got [24, -24, 48]")
    assert refusal(mp, LAYER, "column", 4, 0, parts=(18, 30)) == (
        "layer proj: part 0 (rows 0..18 of N = 48) has 18 rows, which cannot be split 4 ways "
        "(4.5 rows per rank); legal TP degrees: 1, 2, 3, 6")
    assert refusal(mp, "proj", "column", 2, 0) == (
        "expected a qmat.Layer for the whole layer, got str")
    row = mp(LAYER, "row", 2, 0)
    assert refusal(row.output_ranges) == (
        "layer proj: output_ranges is for column-parallel layers, this one is row-parallel")
    assert refusal(mp(LAYER, "column", 2, 0).input_range) == (
        "layer proj: input_range is for row-parallel layers, this one is column-parallel")
    assert refusal(row.for_rank, -1) == (
        "layer proj: rank must be an integer in 0..1 (tp = 2), got -1")


def test_world_and_compiled_layer_refusals():
    plan = par.make_plan(LAYER, "row", 2, 1, name="model.layers.0.self_attn.o_proj")
    assert refusal(par.check_world, plan, 4, 1) == (
        "layer model.layers.0.self_attn.o_proj: the shards are for tp = 2 ranks, but the "
        "process group has 4; the TP degree is the group's size")
    assert refusal(par.check_world, plan, 2, 0) == (
        "layer model.layers.0.self_attn.o_proj: this process is rank 0 of the group, but "
        "holds rank 1's shard")
    par.check_world(plan, 2, 1)
    wrong = qmat.Layer("nvfp4_48x192", "nvfp4", 48, 192)
    assert refusal(par.check_compiled, plan, wrong) == (
        "layer model.layers.0.self_attn.o_proj: rank 1's shard is nvfp4 48x96 (block 16, bf16, "
        "no bias), but the compiled layer nvfp4_48x192 is nvfp4 48x192 (block 16, bf16, no "
        "bias)")
    right = qmat.Layer("o_tp2", "nvfp4", 48, 96)
    biased = qmat.Layer("o_tp2_bias", "nvfp4", 48, 96, bias=True)
    assert par.find_compiled(plan, [wrong, right, biased]) is right
    assert par.find_compiled(plan, [wrong, right], "o_tp2") is right
    assert refusal(par.find_compiled, plan, [wrong, biased]) == (
        "layer model.layers.0.self_attn.o_proj: no compiled layer runs rank 1's shard, nvfp4 "
        "48x96 (block 16, bf16, no bias) (layers: nvfp4_48x192, o_tp2_bias); compile "
        "qmat.shard.shard_layer(layer, 'row', 2)")
    again = qmat.Layer("again", "nvfp4", 48, 96)
    assert par.find_compiled(plan, [again, right]) is again   # the same kernels
    named = qmat.Layer("proj_tp2_row", "nvfp4", 48, 96)
    assert par.find_compiled(plan, [again, named, right]) is named   # shard_layer's name
    assert refusal(par.find_compiled, plan, [right], "gone") == (
        "layer model.layers.0.self_attn.o_proj: the library has no layer 'gone' (layers: o_tp2)")


def test_tensor_and_data_refusals():
    t = random_tensors(np.random.default_rng(0), LAYER)
    plan = par.make_plan(LAYER, "row", 2, 0)
    bad = dict(t, weights=t["weights"][:, :-1])
    assert refusal(par.shard_tensors, plan, bad) == (
        "layer proj: weights must have the whole layer's shape [48, 96], got [48, 95]")
    assert refusal(par.shard_tensors, plan, {k: v for k, v in t.items() if k != "bias"}) == (
        "layer proj: bias is required (the whole layer, [48])")
    assert refusal(par.shard_tensors, plan, dict(t, zero_points=t["scales"])) == (
        "layer proj: zero_points must be absent: the layer (nvfp4 48x192 (block 16, bf16, "
        "bias)) has none")
    assert refusal(par.shard_tensors, plan, dict(t, codes=t["weights"])) == (
        "layer proj: unknown operands codes (expected weights, scales, global_scale, bias)")
    assert refusal(par.shard_tensors, plan, dict(t, global_scale=np.ones(2, np.float32))) == (
        "layer proj: global_scale must hold one value, got shape [2]")
    assert refusal(par.shard_tensors, plan, [t]) == (
        "layer proj: tensors must be a dict {operand: array}, got list")
    x = np.zeros((2, 96), np.uint16)
    assert refusal(par.split_input, plan, x) == (
        "layer proj: the whole input must have shape [..., 192], got [2, 96]")
    p = np.zeros((2, 48), np.uint16)
    assert refusal(par.reduce_partials, plan, [p]) == (
        "layer proj: partials of 2 ranks are needed, got 1")
    assert refusal(par.reduce_partials, plan, [p, p[:1]], np.zeros(48, np.uint16)) == (
        "layer proj: rank 1's partial output has shape [1, 48], rank 0's [2, 48]")
    assert refusal(par.reduce_partials, plan, [p[:, :24], p[:, :24]]) == (
        "layer proj: each rank's partial output must have shape [..., 48], got [2, 24]")
    assert refusal(par.reduce_partials, plan, [p, p]) == (
        "layer proj has a bias: it is added once, after the sum over ranks, and must be given")
    assert refusal(par.reduce_partials, plan, [p, p], np.zeros(24, np.uint16)) == (
        "layer proj: the bias must have shape [48], got [24]")
    no_bias = par.make_plan(qmat.Layer("nb", "nvfp4", 48, 192), "row", 2, 0)
    assert refusal(par.reduce_partials, no_bias, [p, p], np.zeros(48, np.uint16)) == (
        "layer nb: no bias is added after the sum (the layer has none)")
    one = par.make_plan(LAYER, "row", 1, 0)
    assert refusal(par.reduce_partials, one, [p], np.zeros(48, np.uint16)) == (
        "layer proj: no bias is added after the sum (with tp = 1 the kernel adds it)")
    col = par.make_plan(LAYER, "column", 2, 0)
    assert refusal(par.gather_outputs, col, [p, p]) == (
        "layer proj: each rank's output must have shape [..., 24], got [2, 48]")
    assert refusal(par.gather_outputs, col, [p[:, :24], p[:1, :24]]) == (
        "layer proj: rank 1's output has shape [1, 24], rank 0's [2, 24]")


def test_mlp_refusals():
    gate = qmat.Layer("gate", "nvfp4", 96, 64)
    down = qmat.Layer("down", "nvfp4", 64, 96)
    merged = qmat.Layer("gate_up", "nvfp4", 192, 64)
    g, u = par.make_plan(gate, "column", 2, 0), par.make_plan(gate, "column", 2, 0, name="up")
    d = par.make_plan(down, "row", 2, 0)
    par.check_mlp(d, gate=g, up=u)
    par.check_mlp(d, gate_up=par.make_plan(merged, "column", 2, 0, parts=(96, 96)))
    assert refusal(par.check_mlp, d, gate_up=par.make_plan(merged, "column", 2, 0)) == (
        "MLP with down down: the merged gate_up must stack gate and up as parts (96, 96), each "
        "split on its own so that every rank holds its gate and up rows; its parts are [192] "
        "(one block of rows: rank 0 would hold gate rows only; give make_plan / from_full "
        "parts=(I, I), or import with qmat import --tp, which splits gate_up_proj per part "
        "and records the parts)")
    assert refusal(par.check_mlp, g, gate=g, up=u) == (
        "the MLP's down projection must be row-parallel, got column-parallel layer gate")
    assert refusal(par.check_mlp, d, gate=g) == (
        "MLP with down down: gate and up (or a merged gate_up) are required")
    assert refusal(par.check_mlp, d, gate=g, up=par.make_plan(gate, "column", 2, 1)) == (
        "MLP with down down: gate is rank 1 of 2, down rank 0 of 2")
    assert refusal(par.check_mlp, d, gate=g, up=par.make_plan(down, "row", 2, 0, name="up")) == (
        "MLP with down down: up must be column-parallel, it is row-parallel")
    wide = qmat.Layer("wide", "nvfp4", 128, 64)
    assert refusal(par.check_mlp, d, gate=g, up=par.make_plan(wide, "column", 2, 0)) == (
        "MLP with down down: wide has N = 128, down K = 96: they must be equal")
    other_k = qmat.Layer("gk", "nvfp4", 96, 128)
    assert refusal(par.check_mlp, d, gate=par.make_plan(other_k, "column", 2, 0), up=u) == (
        "MLP with down down: gk takes K = 128, but down gives N = 64 (the block maps the "
        "hidden size to itself)")
