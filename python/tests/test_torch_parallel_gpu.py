"""qmat.torch_parallel on two GPUs with NCCL (torch.multiprocessing spawn):
the column-parallel gather bit for bit the shards' outputs put in place and
within bounds of the whole layer; the row-parallel layer, both reductions,
bit for bit the host's fp32 rank-order sum of the shards' partials, the
same on every rank and on a second call; the MLP block within bounds of
the whole block on one GPU. Skipped without torch, CUDA or a second GPU.

The bundle (tp_workers.gpu_layers(): the whole layers and their tp 2
shards) comes from $QMAT_TP_TEST_BUNDLE (bench/tp/prepare.py writes one,
for GPU machines without MLIR) or is compiled here with qmat-aot.
"""
import glob
import gzip
import json
import os
import shutil

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch has no CUDA device", allow_module_level=True)
if torch.cuda.device_count() < 2:
    pytest.skip(f"tensor parallel needs 2 GPUs, {torch.cuda.device_count()} found",
                allow_module_level=True)
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

if not dist.is_nccl_available():
    pytest.skip("torch.distributed has no NCCL", allow_module_level=True)

import qmat  # noqa: E402
import tp_workers  # noqa: E402
from conftest import tool_or_skip  # noqa: E402

WORLD = 2


@pytest.fixture(scope="module")
def library_files(tmp_path_factory):
    directory = os.environ.get("QMAT_TP_TEST_BUNDLE")
    if directory:
        for packed in glob.glob(os.path.join(directory, "*.cpp.gz")):
            if not os.path.isfile(packed[:-3]):   # prepare.py gzips a large launcher
                with gzip.open(packed, "rb") as g, open(packed[:-3] + ".tmp", "wb") as f:
                    shutil.copyfileobj(g, f)
                os.replace(packed[:-3] + ".tmp", packed[:-3])
        bundle = qmat.Bundle.open(directory)
    else:
        bundle = qmat.compile(tp_workers.gpu_layers(), targets=("sm_90",),
                              out_dir=tmp_path_factory.mktemp("tpgpu"), prefix="tpgpu",
                              qmat_aot=tool_or_skip("qmat-aot"))
    output = tmp_path_factory.mktemp("tplib") / f"lib{bundle.prefix}.so"
    try:
        bundle.build_library(output=output)
    except qmat.ToolError:
        bundle.build_library(output=output, compiler="nvcc")
    return bundle.directory, str(output)


@pytest.fixture(scope="module")
def results(library_files, tmp_path_factory):
    out = tmp_path_factory.mktemp("nccl")
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    mp.spawn(tp_workers.run_gpu, args=(WORLD, str(out / "init"), str(out)) + library_files,
             nprocs=WORLD, join=True)
    found = []
    for rank in range(WORLD):
        with open(out / f"rank{rank}.json") as f:
            found.append(json.load(f))
    for rank, r in enumerate(found):
        assert r["error"] is None, f"rank {rank}:\n{r['error']}"
    return found


def test_every_check_holds_on_every_rank(results):
    for rank, r in enumerate(results):
        failed = {name: r["values"].get(name) for name, ok in r["checks"].items() if not ok}
        assert not failed, f"rank {rank}: {failed}"
        # 4 M x (2 qkv + 2 layers x (2 reductions x 3 + 1)) + the MLP
        assert len(r["checks"]) == 4 * (2 + 2 * 7) + 1


def test_ranks_agree_bit_for_bit(results):
    digests = [{k: v for k, v in r["values"].items() if k.endswith("_digest")} for r in results]
    assert len(digests[0]) == 4 * 5 + 1
    assert digests[0] == digests[1]


def test_reductions_agree_for_two_ranks(results):
    # one fp32 addition is commutative: NCCL's all-reduce and the ordered
    # sum give the same bits at tp = 2
    values = results[0]["values"]
    for key in ("down", "o_int4"):
        for m in (1, 5, 16, 300):
            assert values[f"{key}_m{m}_ordered_digest"] == values[f"{key}_m{m}_all_reduce_digest"]


def test_refusal_names_the_layer(results):
    for rank, r in enumerate(results):
        assert r["values"]["refusal"] == (
            f"row-parallel layer tp_down (rank {rank} of 2): the input must be this rank's K "
            f"shard, shape [..., 256] (inputs {256 * rank}..{256 * rank + 256} of K = 512); the "
            f"whole input takes input_is_parallel=False, got [2, 512]")
