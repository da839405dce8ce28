"""Shared pieces of the checkpoint-import tests: a small Llama-like model's
shapes, writing a checkpoint directory with qmat's safetensors writer, and
the reference side of each comparison, written from the formats'
definitions (ml_dtypes for e4m3 and the final rounding, not qmat.reference)."""
import json
import os

import ml_dtypes
import numpy as np

import qmat
from qmat import checkpoint as ck

CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
    "intermediate_size": 512, "vocab_size": 320, "num_hidden_layers": 1,
    "torch_dtype": "bfloat16",
}
# module -> (N, K) for CONFIG
LINEARS = {
    "model.layers.0.self_attn.q_proj": (256, 256),
    "model.layers.0.self_attn.k_proj": (128, 256),
    "model.layers.0.self_attn.v_proj": (128, 256),
    "model.layers.0.self_attn.o_proj": (256, 256),
    "model.layers.0.mlp.gate_proj": (512, 256),
    "model.layers.0.mlp.up_proj": (512, 256),
    "model.layers.0.mlp.down_proj": (256, 512),
}
E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6],
                dtype=np.float32)


def unquantized(rng):
    """The tensors of the model that stay in bf16 (as bit patterns)."""
    def bf16(*shape):
        return ("BF16", rng.standard_normal(shape).astype(np.float32)
                .astype(ml_dtypes.bfloat16).view(np.uint16))
    return {"model.embed_tokens.weight": bf16(320, 256), "model.norm.weight": bf16(256),
            "model.layers.0.input_layernorm.weight": bf16(256),
            "model.layers.0.post_attention_layernorm.weight": bf16(256),
            "lm_head.weight": bf16(320, 256)}


def write_checkpoint(directory, tensors, config, files=1, extra=None):
    """Writes config.json (and `extra` JSON files) and the tensors, split
    over `files` safetensors files with an index when more than one."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(config, f)
    for name, content in (extra or {}).items():
        with open(os.path.join(directory, name), "w") as f:
            json.dump(content, f)
    names = list(tensors)
    if files == 1:
        ck.write_file(os.path.join(directory, "model.safetensors"), tensors)
        return
    weight_map = {}
    for i in range(files):
        part = {n: tensors[n] for n in names[i::files]}
        file = f"model-{i + 1:05d}-of-{files:05d}.safetensors"
        ck.write_file(os.path.join(directory, file), part)
        weight_map.update({n: file for n in part})
    with open(os.path.join(directory, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


def e4m3(bytes_):
    return np.asarray(bytes_, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)


def round_bits(values, act):
    """RNE of float32 values to f16 / bf16 bits with ml_dtypes / numpy."""
    values = np.asarray(values, dtype=np.float32)
    if act == "bf16":
        return values.astype(ml_dtypes.bfloat16).view(np.uint16)
    with np.errstate(over="ignore"):
        return values.astype(np.float16).view(np.uint16)


def act_values(bits, dtype):
    """float32 of F16 / BF16 stored tensors."""
    if dtype == "BF16":
        return np.asarray(bits, np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)
    return np.asarray(bits).view(np.float16).astype(np.float32)


def qmat_bits(imported, module):
    """qmat.reference.dequantize of one imported linear (uint16 bits)."""
    layer, t = imported.linear(module)
    scales = t["scales"]
    if layer.scheme == "int4":
        scales = scales.view(np.uint16)
    global_scale = float(t["global_scale"][0]) if "global_scale" in t else None
    return qmat.reference.dequantize(layer.scheme, t["weights"], scales, layer.k, layer.act,
                                     block=layer.block, global_scale=global_scale,
                                     zero_points=t.get("zero_points"))


def assert_same_bits(got, want_f32, act):
    """qmat's bits against the reference's fp32 values rounded once; a NaN
    must be qmat's canonical 0x7FFF."""
    want = round_bits(want_f32, act)
    nan = np.isnan(want_f32)
    assert got.shape == want.shape
    assert (got[nan] == 0x7FFF).all()
    mismatch = np.argwhere((got != want) & ~nan)
    assert mismatch.size == 0, (f"{len(mismatch)} values differ, first at {mismatch[0]}: "
                                f"0x{int(got[tuple(mismatch[0])]):04x} vs "
                                f"0x{int(want[tuple(mismatch[0])]):04x}")
