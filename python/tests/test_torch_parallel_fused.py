"""qmat.torch_parallel on the CPU with fused layers from `qmat import --tp`:
gloo ranks build ParallelQuantMLP.from_imported over a merged gate_up_proj
and ColumnParallelQuantLinear.from_imported over a qkv_proj (at tp 4 with
its kv heads replicated), the local matmuls stood in for
(tp_workers.StandIn; the library is stood in for by the import's layers),
and compare every output bit for bit with what qmat.parallel says the
ranks produce. Skipped without torch."""
import json
import traceback

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from qmat import checkpoint as ck  # noqa: E402
from qmat import parallel as par  # noqa: E402
import tp_workers  # noqa: E402
from test_shard import GATE_UP_PROJ, QKV_PROJ, fused_checkpoint  # noqa: E402

pytestmark = [pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                 reason="torch.distributed without gloo"),
              pytest.mark.filterwarnings("ignore::qmat.shard.ShardWarning")]
MLP = "model.layers.0.mlp"


class _Library:
    """What from_imported needs of a library: its layers."""

    def __init__(self, layers):
        self.layers = layers


def run_fused(rank, world, init_file, out_dir, whole_dir, split_dir):
    from qmat import torch_parallel as tpl

    results = tp_workers.Results(out_dir, rank)
    try:
        dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank,
                                world_size=world)
        StandIn = tp_workers.stand_in_class()
        split = ck.open_imported(split_dir)
        whole = ck.open_imported(whole_dir)
        # this process's stand-ins for the compiled library and QuantLinear
        library = _Library(list(split.layers.values()))
        tpl._load_library = lambda source: library
        tpl._quant_linear = (lambda lib, info, tensors, device, prepared=False:
                             StandIn(info, tensors))
        x = torch.randn(3, 256, generator=torch.Generator().manual_seed(5)).to(torch.bfloat16)
        bits = tp_workers.bits_of

        mlp = tpl.ParallelQuantMLP.from_imported(split, MLP, library="stand-in")
        results.check("mlp_parts", mlp.gate_up.plan.parts == (512, 512)
                      and mlp.gate_up.plan.part_names == ("gate", "up"))
        with torch.no_grad():
            y = mlp(x)
            # the block as qmat.parallel defines it, every rank's part computed here
            gu_layer, gu_t = whole.linear(f"{MLP}.gate_up_proj")
            full = StandIn(gu_layer, gu_t)(x)
            hidden = tpl.silu_and_mul(full[:, :512], full[:, 512:])
            partials, bias = [], None
            for r in range(world):
                held = par.imported_shard(split, f"{MLP}.down_proj", "row", world, r)
                k0, k1 = held.plan.input_range()
                partials.append(bits(StandIn(held.plan.shard, held.tensors)(
                    hidden[:, k0:k1].contiguous())))
                bias = held.bias
        want = par.reduce_partials(held.plan, partials, bias)
        results.check("mlp_bits", np.array_equal(bits(y), want))
        # gate_up's local output is [gate_r | up_r] of the whole layer's columns
        w = 512 // world
        with torch.no_grad():
            local = mlp.gate_up(x)
        results.check("gate_up_columns", np.array_equal(
            bits(local), np.concatenate([bits(full[:, rank * w:(rank + 1) * w]),
                                         bits(full[:, 512 + rank * w:512 + (rank + 1) * w])],
                                        axis=1)))

        qkv = tpl.ColumnParallelQuantLinear.from_imported(split, QKV_PROJ, library="stand-in",
                                                          gather_output=True)
        q_layer, q_t = whole.linear(QKV_PROJ)
        with torch.no_grad():
            for m in (1, 3):
                results.check(f"qkv_gather_m{m}", np.array_equal(
                    bits(qkv(x[:m])), bits(StandIn(q_layer, q_t)(x[:m]))))
        results.values["qkv_replicas"] = [s.replicas for s in qkv.plan.splits]
        dist.barrier()
        dist.destroy_process_group()
        results.write()
    except Exception:
        results.write(traceback.format_exc())


@pytest.mark.parametrize("world", [2, 4])
def test_fused_imports_run_on_every_rank(tmp_path, world):
    source = tmp_path / "ckpt"
    fused_checkpoint(source)
    ck.import_checkpoint(source, tmp_path / "one", bundle=False, quiet=True)
    ck.import_checkpoint(source, tmp_path / "split", bundle=False, quiet=True, tp=world)
    mp.spawn(run_fused, args=(world, str(tmp_path / "init"), str(tmp_path),
                              str(tmp_path / "one"), str(tmp_path / "split")),
             nprocs=world, join=True)
    for rank in range(world):
        with open(tmp_path / f"rank{rank}.json") as f:
            r = json.load(f)
        assert r["error"] is None, f"rank {rank}:\n{r['error']}"
        assert r["checks"] == {"mlp_parts": True, "mlp_bits": True, "gate_up_columns": True,
                               "qkv_gather_m1": True, "qkv_gather_m3": True}
        assert r["values"]["qkv_replicas"] == ([1, 1, 1] if world == 2 else [1, 2, 2])
