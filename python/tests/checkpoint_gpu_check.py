"""Imported checkpoints on the GPU (not collected by pytest).

    python python/tests/checkpoint_gpu_check.py make DIR    # here: checkpoints of every format,
                                                            # imported with sm_90 bundles
    python3 python/tests/checkpoint_gpu_check.py check DIR  # on the GPU machine (torch, CUDA)

`check` runs every imported linear through qmat.torch.run_layer at M = 1
and 8 (GEMV), 64 (fused GEMM) and 300 (prefill) and compares Y with the
fp64 product of A and qmat.reference.dequantize of the imported tensors:
relative Frobenius error within docs/numerics.md's bounds (f16 2e-3, bf16
1e-2), every value finite. Exit status 1 on any failure.
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import qmat  # noqa: E402
from qmat import checkpoint as ck  # noqa: E402

LINEARS = {"model.layers.0.mlp.down_proj": (512, 1024),
           "model.layers.0.self_attn.q_proj": (384, 512)}
TOLERANCE = {"f16": 2e-3, "bf16": 1e-2}


def checkpoints(rng):
    """name -> (tensors, config, extra JSON files) for each format."""
    from checkpoint_util import CONFIG
    from test_checkpoint_int4 import AWQ_ORDER, pack_words
    config = dict(CONFIG, hidden_size=512, intermediate_size=1024, num_attention_heads=6,
                  head_dim=64)

    def quant(qc):
        return dict(config, quantization_config=qc)

    def e4m3_scales(n, k):
        return ("F8_E4M3", rng.integers(0x20, 0x60, (n, k // 16), dtype=np.uint8))

    out = {}
    t = {}
    for m, (n, k) in LINEARS.items():
        t.update({f"{m}.weight": rng.integers(0, 256, (n, k // 2), dtype=np.uint8),
                  f"{m}.weight_scale": e4m3_scales(n, k),
                  f"{m}.weight_scale_2": np.array(1e-3, np.float32)})
    bias = rng.standard_normal(384).astype(np.float32).view(np.uint32) >> 16
    t["model.layers.0.self_attn.q_proj.bias"] = ("BF16", bias.astype(np.uint16))
    out["modelopt"] = (t, config, {"hf_quant_config.json": {
        "quantization": {"quant_algo": "NVFP4", "group_size": 16}}})
    t = {}
    for m, (n, k) in LINEARS.items():
        t.update({f"{m}.weight_packed": rng.integers(0, 256, (n, k // 2), dtype=np.uint8),
                  f"{m}.weight_scale": e4m3_scales(n, k),
                  f"{m}.weight_global_scale": np.array([2688.0 / 0.37], np.float32)})
    fp4 = {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16,
           "symmetric": True}
    out["ct_nvfp4"] = (t, quant({"quant_method": "compressed-tensors",
                                 "format": "nvfp4-pack-quantized",
                                 "config_groups": {"g": {"targets": ["Linear"],
                                                         "weights": fp4}}}), {})
    t = {}
    for m, (n, k) in LINEARS.items():
        scales = 0x3C00 + rng.integers(0, 64, (n, k // 128)).astype(np.uint16)
        t.update({f"{m}.weight_packed": pack_words(rng.integers(0, 16, (n, k)), axis=1),
                  f"{m}.weight_shape": np.array([n, k], np.int32),
                  f"{m}.weight_scale": ("BF16", scales),
                  f"{m}.weight_zero_point": pack_words(rng.integers(0, 16, (n, k // 128)),
                                                       axis=0)})
    int4 = {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128,
            "symmetric": False}
    out["ct_int4"] = (t, quant({"quant_method": "compressed-tensors", "format": "pack-quantized",
                                "config_groups": {"g": {"targets": ["Linear"],
                                                        "weights": int4}}}), {})
    t = {}
    for m, (n, k) in LINEARS.items():
        t.update({f"{m}.qweight": pack_words(rng.integers(0, 16, (k, n)), axis=0),
                  f"{m}.qzeros": pack_words(rng.integers(0, 15, (k // 128, n)), axis=1),
                  f"{m}.scales": rng.uniform(2e-3, 2e-2, (k // 128, n)).astype(np.float16),
                  f"{m}.g_idx": (np.arange(k) // 128).astype(np.int32)})
    out["gptq"] = (t, quant({"quant_method": "gptq", "bits": 4, "group_size": 128,
                             "sym": False, "desc_act": False}), {})
    t = {}
    for m, (n, k) in LINEARS.items():
        t.update({f"{m}.qweight": pack_words(rng.integers(0, 16, (k, n)), axis=1,
                                             order=AWQ_ORDER),
                  f"{m}.qzeros": pack_words(rng.integers(0, 16, (k // 128, n)), axis=1,
                                            order=AWQ_ORDER),
                  f"{m}.scales": rng.uniform(2e-3, 2e-2, (k // 128, n)).astype(np.float16)})
    out["awq"] = (t, quant({"quant_method": "awq", "bits": 4, "group_size": 128,
                            "zero_point": True, "version": "gemm"}), {})
    t = {}
    for m, (n, k) in LINEARS.items():
        codes = rng.integers(0, 0x7F, (n, k), dtype=np.uint8) | (
            rng.integers(0, 2, (n, k), dtype=np.uint8) << 7)
        t.update({f"{m}.weight": ("F8_E4M3", codes),
                  f"{m}.weight_scale_inv": rng.uniform(1e-4, 1e-3, (-(-n // 128), -(-k // 128)))
                  .astype(np.float32)})
    out["fp8"] = (t, quant({"quant_method": "fp8", "fmt": "e4m3",
                            "weight_block_size": [128, 128]}), {})
    return out


def make(root):
    from checkpoint_util import write_checkpoint
    for name, (tensors, config, extra) in checkpoints(np.random.default_rng(0)).items():
        d = os.path.join(root, name)
        shutil.rmtree(d, ignore_errors=True)
        write_checkpoint(os.path.join(d, "ckpt"), tensors, config, extra=extra)
        result = ck.import_checkpoint(os.path.join(d, "ckpt"), os.path.join(d, "out"),
                                      targets=("sm_90",), quiet=True)
        shutil.rmtree(os.path.join(d, "ckpt"))
        print(name, [layer.name for layer in result.layers], result.manifest["act"])


def check(root):
    import torch
    import qmat.torch as qt
    failures = 0
    for name in sorted(os.listdir(root)):
        out = os.path.join(root, name, "out")
        if not os.path.isdir(out):
            continue
        imported = ck.open_imported(out)
        lib = qt.load_library(qmat.Bundle.open(os.path.join(out, "bundle")))
        for module, entry in imported.manifest["linears"].items():
            layer, t = imported.linear(module)
            f = imported.files[entry["file"]]
            act = layer.act
            act_type = torch.bfloat16 if act == "bf16" else torch.float16

            def device(op):
                array = np.array(t[op])
                dtype = f.tensors[entry["tensors"][op]].dtype
                x = torch.from_numpy(array.view(np.int16) if array.dtype == np.uint16 else array)
                x = x.cuda()
                if dtype in ("BF16", "F16"):
                    return x.view(act_type)
                if dtype == "F8_E4M3" and op == "weights":
                    return x.view(torch.float8_e4m3fn)
                return x

            ops = {op: device(op) for op in t}
            scales = t["scales"].view(np.uint16) if layer.scheme == "int4" else t["scales"]
            g = float(t["global_scale"][0]) if "global_scale" in t else None
            bits = qmat.reference.dequantize(layer.scheme, t["weights"], scales, layer.k, act,
                                             block=layer.block, global_scale=g,
                                             zero_points=t.get("zero_points"))
            w = qmat.reference.to_float32(bits, act).astype(np.float64)
            bias = (qmat.reference.to_float32(t["bias"].view(np.uint16), act).astype(np.float64)
                    if "bias" in t else 0.0)
            for m in (1, 8, 64, 300):
                a = torch.randn(m, layer.k, device="cuda").to(act_type)
                y = qt.run_layer(lib, layer.name, a, ops["weights"], ops["scales"],
                                 ops.get("global_scale"), ops.get("zero_points"), ops.get("bias"))
                torch.cuda.synchronize()
                want = a.double().cpu().numpy() @ w.T + bias
                err = np.linalg.norm(y.double().cpu().numpy() - want) / np.linalg.norm(want)
                ok = err <= TOLERANCE[act] and bool(torch.isfinite(y).all())
                failures += not ok
                print(f"{name:9s} {module:32s} {layer.name:22s} M={m:4d} error {err:.2e} "
                      f"{'ok' if ok else 'FAIL'}")
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("make", "check"):
        sys.exit(__doc__)
    sys.exit(make(sys.argv[2]) if sys.argv[1] == "make" else check(sys.argv[2]))
