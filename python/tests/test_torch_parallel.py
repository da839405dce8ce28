"""qmat.torch_parallel on the CPU: two gloo ranks run the column- and
row-parallel layers and the MLP block with the local matmul stood in for
(tp_workers.StandIn; QuantLinear needs CUDA), and every output is compared
bit for bit with what qmat.parallel says the ranks produce. Skipped
without torch."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

import qmat  # noqa: E402
from qmat import parallel as par  # noqa: E402
from qmat import reference as ref  # noqa: E402
from qmat import torch_parallel as tpl  # noqa: E402
import tp_workers  # noqa: E402

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                reason="torch.distributed without gloo")


def spawn(target, world, tmp_path, *args):
    mp.spawn(target, args=(world, str(tmp_path / "init"), str(tmp_path)) + args,
             nprocs=world, join=True)
    results = []
    for rank in range(world):
        with open(tmp_path / f"rank{rank}.json") as f:
            results.append(json.load(f))
    for rank, r in enumerate(results):
        assert r["error"] is None, f"rank {rank}:\n{r['error']}"
    return results


@pytest.fixture(scope="module")
def cpu_results(tmp_path_factory):
    return spawn(tp_workers.run_cpu, 2, tmp_path_factory.mktemp("gloo"))


def test_ranks_produce_the_plans_bits(cpu_results):
    for rank, r in enumerate(cpu_results):
        failed = [name for name, ok in r["checks"].items() if not ok]
        assert not failed, f"rank {rank}: {failed}"
        assert len(r["checks"]) == 19
    digests = [{k: v for k, v in r["values"].items() if k.endswith("_digest")}
               for r in cpu_results]
    assert len(digests[0]) == 7 and digests[0] == digests[1]   # every rank, the same bits


def test_refusals_through_the_modules(cpu_results):
    for rank, r in enumerate(cpu_results):
        where = f"row-parallel layer tp_down (rank {rank} of 2)"
        got = r["values"]["refusals"]
        assert got == {
            "row_whole_input": f"{where}: the input must be this rank's K shard, shape [..., "
                               f"256] (inputs {256 * rank}..{256 * rank + 256} of K = 512); the "
                               f"whole input takes input_is_parallel=False, got [2, 512]",
            "row_dtype": f"{where}: the input must have dtype torch.bfloat16 (the layer is "
                         f"bf16), got torch.float32",
            "row_out_shape": f"{where}: out must have shape [2, 256], got [2, 7]",
            "row_no_bias": f"{where}: the layer has a bias, added once after the sum over "
                           f"ranks: every rank needs the whole bias [N]",
            "row_reduction": f"{where}: unknown reduction 'tree' (expected one of ordered, "
                             f"all_reduce)",
            "world": "layer tp_down: the shards are for tp = 4 ranks, but the process group "
                     "has 2; the TP degree is the group's size",
            "column_as_row": "layer tp_qkv: RowParallelQuantLinear takes a row-parallel plan, "
                             "this one is column-parallel",
            "wrong_local": f"layer tp_qkv: rank {rank}'s shard is nvfp4 192x256 (block 16, "
                           f"bf16, bias), but the compiled layer tp_down_tp2_row is nvfp4 "
                           f"256x256 (block 16, bf16, no bias)",
            "mlp_gathering": "MLP with down tp_down: tp_gate must not gather its output "
                             "(gather_output=False): each rank multiplies its own hidden "
                             "columns",
        }


def test_load_library_failure_reaches_every_rank(cpu_results):
    first = "no such launcher library or bundle directory: /nonexistent/bundle"
    assert cpu_results[0]["values"]["load_library"] == first
    assert cpu_results[1]["values"]["load_library"] == (
        f"rank 0 could not load the library /nonexistent/bundle: ArgumentError: {first}")


def test_ordered_sum_is_reduce_partials_bit_for_bit():
    rng = np.random.default_rng(2)
    for act, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        for tp in (2, 3, 4):
            bits = rng.integers(0, 1 << 16, (tp, 6, 64), dtype=np.uint16)
            bits[:, 0, :4] = [0x0001, 0x8001, 0x0000, 0x8000]   # subnormals and zeros
            bias = rng.integers(0, 1 << 16, 64, dtype=np.uint16)
            plan = par.make_plan(qmat.Layer("w", "fp8", 64, 128 * 12, act=act, bias=True),
                                 "row", tp, 0)
            want = par.reduce_partials(plan, list(bits), bias)
            stacked = torch.from_numpy(bits.view(np.int16)).view(dtype)
            got = tpl.ordered_sum(stacked, torch.from_numpy(bias.view(np.int16)).view(dtype))
            got = got.view(torch.int16).numpy().view(np.uint16)
            nan = np.isnan(ref.to_float32(want, act))
            assert np.array_equal(np.isnan(ref.to_float32(got, act)), nan)
            assert np.array_equal(got[~nan], want[~nan])   # torch's NaN payload is its own
            out = torch.empty((6, 64), dtype=dtype)
            assert tpl.ordered_sum(stacked, None, out=out) is out
            plain = par.make_plan(qmat.Layer("w", "fp8", 64, 1536, act=act), "row", tp, 0)
            want = par.reduce_partials(plain, list(bits))
            nan = np.isnan(ref.to_float32(want, act))
            got = out.view(torch.int16).numpy().view(np.uint16)
            assert np.array_equal(got[~nan], want[~nan])


def test_ordered_sum_adds_in_rank_order():
    # 1 + 2^-24 + 2^-24 + 2^-8 in rank order is 1.0 in bf16, in reverse
    # order 1 + 2^-7 (qmat.parallel's test says why)
    values = torch.tensor([[1.0], [2.0 ** -24], [2.0 ** -24], [2.0 ** -8]], dtype=torch.bfloat16)
    assert tpl.ordered_sum(values).item() == 1.0
    assert tpl.ordered_sum(values.flip(0)).item() == 1 + 2.0 ** -7
    bias = torch.tensor([1.0], dtype=torch.bfloat16)
    small = torch.tensor([[2.0 ** -8], [2.0 ** -24], [2.0 ** -24]], dtype=torch.bfloat16)
    assert tpl.ordered_sum(small, bias).item() == 1 + 2.0 ** -7   # the bias last


def test_silu_and_mul_rounds_once():
    g = torch.tensor([0.0, 1.0, -3.5, 8.0, -0.25], dtype=torch.bfloat16)
    u = torch.tensor([2.0, -1.5, 0.75, 0.125, 3.0], dtype=torch.bfloat16)
    got = tpl.silu_and_mul(g, u)
    assert got.dtype == torch.bfloat16
    want = (g.double() * torch.sigmoid(g.double()) * u.double()).float().to(torch.bfloat16)
    assert torch.equal(got, want)
    host = par.silu_and_mul(g.view(torch.int16).numpy().view(np.uint16),
                            u.view(torch.int16).numpy().view(np.uint16), "bf16")
    assert np.array_equal(host, got.view(torch.int16).numpy().view(np.uint16))


def test_one_process_refusals():
    """Without torch.distributed a layer of one rank is allowed, tp 2 is not."""
    StandIn = tp_workers.stand_in_class()
    layer = tp_workers.WHOLE["down"]
    t = tp_workers.layer_tensors(layer, 1)
    plan = par.make_plan(layer, "row", 2, 0)
    held = par.shard_tensors(plan, t)
    with pytest.raises(qmat.ArgumentError) as e:
        tpl.RowParallelQuantLinear(StandIn(plan.shard, held.tensors), plan, held.bias)
    assert str(e.value) == ("layer tp_down: the shards are for tp = 2 ranks, but the process "
                            "group has 1; the TP degree is the group's size")
    one = par.make_plan(layer, "row", 1, 0)
    local = StandIn(one.shard, par.shard_tensors(one, t).tensors)
    row = tpl.RowParallelQuantLinear(local, one)
    x = torch.randn(3, layer.k).to(torch.bfloat16)
    assert torch.equal(row(x), local(x))   # tp 1: the layer itself, bias in the kernel
    with pytest.raises(qmat.ArgumentError) as e:
        tpl.RowParallelQuantLinear(local, one, t["bias"])
    assert str(e.value) == ("row-parallel layer tp_down (rank 0 of 1): bias must be None: with "
                            "tp = 1 the layer's kernel adds it")
    with pytest.raises(qmat.ArgumentError) as e:
        tpl.ColumnParallelQuantLinear(local, one)
    assert str(e.value) == ("layer tp_down: ColumnParallelQuantLinear takes a column-parallel "
                            "plan, this one is row-parallel")
    with pytest.raises(qmat.ArgumentError) as e:
        tpl.RowParallelQuantLinear(object(), one)
    assert str(e.value) == ("layer tp_down: the local layer must be a QuantLinear (or have its "
                            "layer_info and forward(x, out=None)), got object")
    with pytest.raises(qmat.ArgumentError) as e:
        tpl.RowParallelQuantLinear(local, one, group=object())
    assert str(e.value) == ("layer tp_down: a process group was given, but torch.distributed "
                            "is not initialized")
