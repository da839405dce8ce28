"""The benchmark's models: a Llama-architecture config (and a Qwen3-MoE one,
`--model qwen3-moe`: 128 SwiGLU experts of intermediate size 768, 8 per
token, as Qwen3-30B-A3B), their linear shapes, and random-weight
checkpoints in two quantized formats, written with numpy
and qmat's safetensors writer (ModelOpt NVFP4, and GPTQ int4 with groups of
128, symmetric, its fp16 scales bf16 values so that the import can take
bf16 activations).

The random weights have the spread of a freshly initialised Llama (about
0.02): NVFP4 codes uniform over the 16 e2m1 values, e4m3 block scales in
one binade (2 to 3.75) times a global scale; GPTQ codes uniform over 0..15
around the implied zero point 8 with scales around 4e-3."""
import json
import os

import numpy as np

import qmat
from qmat import checkpoint as ck
from qmat.checkpoint.importer import layer_name

CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 8,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
    "vocab_size": 128256, "max_position_embeddings": 8192, "rms_norm_eps": 1e-5,
    "rope_theta": 500000.0, "hidden_act": "silu", "tie_word_embeddings": False,
    "attention_bias": False, "mlp_bias": False, "bos_token_id": 128000,
    "eos_token_id": 128001, "torch_dtype": "bfloat16",
}
# Qwen3-30B-A3B's shapes; its experts are one linear per expert and
# projection in the checkpoints (mlp.experts.<e>.gate_proj ...), and one
# Qwen3MoeExperts module per layer in transformers' model.
QWEN3_MOE = {
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
    "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
    "num_experts": 128, "num_experts_per_tok": 8, "norm_topk_prob": True,
    "num_hidden_layers": 8, "num_attention_heads": 32, "num_key_value_heads": 4,
    "head_dim": 128, "vocab_size": 151936, "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
    "tie_word_embeddings": False, "attention_bias": False, "decoder_sparse_step": 1,
    "mlp_only_layers": [], "bos_token_id": 151643, "eos_token_id": 151645,
    "torch_dtype": "bfloat16",
}
MODELS = {"llama": CONFIG, "qwen3-moe": QWEN3_MOE}
PROJECTIONS = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
               "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")
# format -> (scheme, block) of its layers
FORMATS = {"nvfp4": ("nvfp4", 16), "gptq": ("int4", 128)}
GPTQ_GROUP = 128


def is_moe(config):
    return "num_experts" in config


def shapes(config):
    """{projection: (N, K)} of one decoder layer (an MoE model's expert
    projections under mlp.experts.gate_proj ...)."""
    h = config["hidden_size"]
    q = config["num_attention_heads"] * config["head_dim"]
    kv = config["num_key_value_heads"] * config["head_dim"]
    mlp = "mlp.experts." if is_moe(config) else "mlp."
    i = config["moe_intermediate_size"] if is_moe(config) else config["intermediate_size"]
    return {"self_attn.q_proj": (q, h), "self_attn.k_proj": (kv, h),
            "self_attn.v_proj": (kv, h), "self_attn.o_proj": (h, q),
            f"{mlp}gate_proj": (i, h), f"{mlp}up_proj": (i, h), f"{mlp}down_proj": (h, i)}


def bundle_layers(config, formats=tuple(FORMATS)):
    """The distinct qmat layers the imports of `formats` use, named as the
    importer names them."""
    layers, seen = [], set()
    for fmt in formats:
        scheme, block = FORMATS[fmt]
        for n, k in shapes(config).values():
            key = (scheme, n, k, block, False, "bf16", False)
            if key not in seen:
                seen.add(key)
                layers.append(qmat.Layer(layer_name(key), scheme, n, k, block=block, act="bf16"))
    return layers


def linears(config):
    """(module, (N, K)) of every quantized linear: each expert's own."""
    out = []
    for i in range(config["num_hidden_layers"]):
        for projection, shape in shapes(config).items():
            if projection.startswith("mlp.experts."):
                leaf = projection.rsplit(".", 1)[1]
                out += [(f"model.layers.{i}.mlp.experts.{e}.{leaf}", shape)
                        for e in range(config["num_experts"])]
            else:
                out.append((f"model.layers.{i}.{projection}", shape))
    return out


def random_bf16(rng, shape, exponent, signed=True):
    """Random bf16 bit patterns with magnitudes in [2^exponent, 2^(exponent + 2)),
    made from random bytes with integer operations (a normal draw of the
    embeddings alone would take longer than the whole measurement): bit 7 of
    each random word is the exponent's lowest bit, bits 0-6 the mantissa."""
    count = int(np.prod(shape))
    words = np.frombuffer(rng.bytes(2 * count), np.uint16).reshape(shape)
    kept = words & np.uint16(0x80FF if signed else 0x00FF)
    return kept + np.uint16((127 + exponent) << 7)


def unquantized(config, rng):
    """Embeddings, norms and lm_head as bf16 bit patterns (kept in bf16):
    magnitudes 2^-7 .. 2^-5 (RMS about 0.017) and norm weights 0.5 .. 2."""
    h, v = config["hidden_size"], config["vocab_size"]
    tensors = {"model.embed_tokens.weight": ("BF16", random_bf16(rng, (v, h), -7)),
               "lm_head.weight": ("BF16", random_bf16(rng, (v, h), -7)),
               "model.norm.weight": ("BF16", random_bf16(rng, (h,), -1, signed=False))}
    for i in range(config["num_hidden_layers"]):
        for norm in ("input_layernorm", "post_attention_layernorm"):
            tensors[f"model.layers.{i}.{norm}.weight"] = (
                "BF16", random_bf16(rng, (h,), -1, signed=False))
        if is_moe(config):   # the router (magnitudes 2^-7 .. 2^-5), q_norm and k_norm
            tensors[f"model.layers.{i}.mlp.gate.weight"] = (
                "BF16", random_bf16(rng, (config["num_experts"], h), -7))
            for norm in ("q_norm", "k_norm"):
                tensors[f"model.layers.{i}.self_attn.{norm}.weight"] = (
                    "BF16", random_bf16(rng, (config["head_dim"],), -1, signed=False))
    return tensors


def _write(directory, config, tensors, extra=None):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    for name, content in (extra or {}).items():
        with open(os.path.join(directory, name), "w") as f:
            json.dump(content, f, indent=1)
    ck.write_file(os.path.join(directory, "model.safetensors"), tensors)


def write_nvfp4(directory, config, rng, base):
    """A ModelOpt NVFP4 checkpoint (lm_head excluded) over `base`'s tensors."""
    tensors = dict(base)
    for module, (n, k) in linears(config):
        tensors[f"{module}.weight"] = np.frombuffer(rng.bytes(n * k // 2), np.uint8).reshape(
            n, k // 2)
        # e4m3 bytes 0x40..0x47 are 2.0 .. 3.75; the codes' RMS is 2.93
        tensors[f"{module}.weight_scale"] = ("F8_E4M3", rng.integers(
            0x40, 0x48, (n, k // 16), dtype=np.uint8))
        tensors[f"{module}.weight_scale_2"] = np.array(0.02 / (2.93 * 2.9), dtype=np.float32)
        tensors[f"{module}.input_scale"] = np.array(1.0, dtype=np.float32)
    quant = {"producer": {"name": "modelopt"},
             "quantization": {"quant_algo": "NVFP4", "group_size": 16,
                              "exclude_modules": ["lm_head"]}}
    _write(directory, config, tensors, {"hf_quant_config.json": quant})


def write_gptq(directory, config, rng, base):
    """A GPTQ (v1) int4 checkpoint, groups of 128, symmetric, over `base`'s."""
    tensors = dict(base)
    for module, (n, k) in linears(config):
        groups = k // GPTQ_GROUP
        tensors[f"{module}.qweight"] = np.frombuffer(rng.bytes(k * n // 2), np.int32).reshape(
            k // 8, n)
        tensors[f"{module}.qzeros"] = np.full((groups, n // 8), 0x77777777, np.uint32).view(
            np.int32)   # v1 stores zero - 1: 7 in every nibble is zero point 8
        spread = rng.uniform(3e-3, 6e-3, (groups, n)).astype(np.float32)
        bf16_exact = ((spread.view(np.uint32) >> 16) << 16).view(np.float32)
        tensors[f"{module}.scales"] = bf16_exact.astype(np.float16)
        tensors[f"{module}.g_idx"] = (np.arange(k) // GPTQ_GROUP).astype(np.int32)
    gptq = {"quant_method": "gptq", "bits": 4, "group_size": GPTQ_GROUP, "sym": True,
            "desc_act": False, "checkpoint_format": "gptq"}
    _write(directory, dict(config, quantization_config=gptq), tensors)
