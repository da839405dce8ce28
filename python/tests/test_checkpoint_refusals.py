"""What the importer refuses, each with its exact message (naming the tensor
and the rule), and that a refused import writes nothing."""
import os

import numpy as np
import pytest

from qmat import checkpoint as ck
from checkpoint_util import CONFIG, write_checkpoint
from test_checkpoint_int4 import pack_words

Q = "model.layers.0.self_attn.q_proj"
HF_QUANT = {"quantization": {"quant_algo": "NVFP4", "group_size": 16}}


def nvfp4(n=256, k=256, g=1e-4, scales=None):
    rng = np.random.default_rng(0)
    return {f"{Q}.weight": rng.integers(0, 256, (n, k // 2), dtype=np.uint8),
            f"{Q}.weight_scale": ("F8_E4M3", rng.integers(0, 0x7F, (n, k // 16), dtype=np.uint8)
                                  if scales is None else scales),
            f"{Q}.weight_scale_2": np.array(g, dtype=np.float32)}


def ct_nvfp4(**weights):
    rng = np.random.default_rng(0)
    tensors = {f"{Q}.weight_packed": rng.integers(0, 256, (256, 128), dtype=np.uint8),
               f"{Q}.weight_scale": ("F8_E4M3", rng.integers(0, 0x7F, (256, 16), dtype=np.uint8)),
               f"{Q}.weight_global_scale": np.array([3000.0], dtype=np.float32)}
    w = dict({"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16,
              "symmetric": True}, **weights)
    qc = {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
          "config_groups": {"group_0": {"targets": ["Linear"], "weights": w}}}
    return tensors, dict(CONFIG, quantization_config=qc)


def gptq(bits=4, sym=True, fmt="gptq", scale=0.01, **extra):
    rng = np.random.default_rng(0)
    k, n = 256, 256
    zero = np.full((2, n), 8 - (fmt == "gptq"))
    tensors = {f"{Q}.qweight": pack_words(rng.integers(0, 16, (k, n)), axis=0),
               f"{Q}.qzeros": pack_words(zero, axis=1),
               f"{Q}.scales": np.full((2, n), scale, dtype=np.float16),
               f"{Q}.g_idx": (np.arange(k) // 128).astype(np.int32)}
    qc = dict({"quant_method": "gptq", "bits": bits, "group_size": 128, "sym": sym,
               "desc_act": False, "checkpoint_format": fmt}, **extra)
    return tensors, dict(CONFIG, quantization_config=qc)


def fp8(**qc):
    rng = np.random.default_rng(0)
    tensors = {f"{Q}.weight": ("F8_E4M3", rng.integers(0, 0x7F, (256, 256), dtype=np.uint8)),
               f"{Q}.weight_scale_inv": np.full((2, 2), 0.01, dtype=np.float32)}
    return tensors, dict(CONFIG, quantization_config=dict(
        {"quant_method": "fp8", "weight_block_size": [128, 128]}, **qc))


def refused(tmp_path, tensors, config, error, message, extra=None, **options):
    write_checkpoint(tmp_path / "ckpt", tensors, config, extra=extra)
    with pytest.raises(error) as caught:
        ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True,
                             **options)
    assert str(caught.value) == message
    assert isinstance(caught.value, ck.CheckpointError)
    assert not os.path.exists(tmp_path / "out")   # nothing written


def test_unknown_quant_method(tmp_path):
    refused(tmp_path, nvfp4(), dict(CONFIG, quantization_config={"quant_method": "bitsandbytes"}),
            ck.UnsupportedFormatError,
            "config.json quantization_config: quant_method 'bitsandbytes'; qmat imports awq, "
            "compressed-tensors, fp8, gptq, modelopt, mxfp4")


def test_no_quantization_config(tmp_path):
    write_checkpoint(tmp_path / "ckpt", nvfp4(), CONFIG)
    with pytest.raises(ck.UnsupportedFormatError) as caught:
        ck.import_checkpoint(tmp_path / "ckpt", tmp_path / "out", bundle=False, quiet=True)
    assert str(caught.value) == (
        f"{tmp_path / 'ckpt'}: no quantization config (config.json quantization_config, "
        f"hf_quant_config.json or quantize_config.json)")


def test_modelopt_other_algorithm(tmp_path):
    refused(tmp_path, nvfp4(), CONFIG, ck.UnsupportedFormatError,
            "hf_quant_config.json: quant_algo 'W4A8_AWQ'; qmat imports ModelOpt's NVFP4 "
            "(weight-only) checkpoints",
            extra={"hf_quant_config.json": {"quantization": {"quant_algo": "W4A8_AWQ"}}})


def test_modelopt_swizzled_scales_padded(tmp_path):
    tensors = nvfp4(n=64, scales=np.zeros((128, 16), dtype=np.uint8))
    refused(tmp_path, tensors, dict(CONFIG, num_attention_heads=1), ck.UnsupportedFormatError,
            f"{Q}.weight_scale: shape [128, 16] is [N, K/16] = [64, 16] padded to 128 x 4 tiles, "
            f"the swizzled block-scale layout; qmat reads the linear row-major [N, K/16] layout",
            extra={"hf_quant_config.json": HF_QUANT})


def test_modelopt_swizzled_scales_flat(tmp_path):
    tensors = nvfp4()
    tensors[f"{Q}.weight_scale"] = np.zeros(256 * 16, dtype=np.uint8)
    refused(tmp_path, tensors, CONFIG, ck.UnsupportedFormatError,
            f"{Q}.weight_scale: a flat U8 block-scale tensor is the swizzled (CUTLASS / "
            f"TensorRT-LLM) layout; qmat reads the linear row-major [N, K/16] F8_E4M3 layout "
            f"(re-export with ModelOpt's Hugging Face export)",
            extra={"hf_quant_config.json": HF_QUANT})


def test_modelopt_missing_tensor(tmp_path):
    tensors = nvfp4()
    del tensors[f"{Q}.weight_scale_2"]
    refused(tmp_path, tensors, CONFIG, ck.MissingTensorError,
            f"{Q}.weight_scale_2: missing (the fp32 tensor scale)",
            extra={"hf_quant_config.json": HF_QUANT})
    tensors = nvfp4()
    del tensors[f"{Q}.weight_scale"]
    refused(tmp_path / "2", tensors, CONFIG, ck.MissingTensorError,
            f"{Q}.weight_scale: missing (e4m3 block scales [N, K/16])",
            extra={"hf_quant_config.json": HF_QUANT})


def test_shape_not_matching_config(tmp_path):
    refused(tmp_path, nvfp4(), dict(CONFIG, hidden_size=512), ck.ShapeError,
            f"{Q}.weight: q_proj has K = 256, but config.json gives hidden_size = 512 (pass "
            f"check_config=False / --no-config-check for an architecture whose q_proj differs)",
            extra={"hf_quant_config.json": HF_QUANT})
    refused(tmp_path / "2", nvfp4(), dict(CONFIG, head_dim=32), ck.ShapeError,
            f"{Q}.weight: q_proj has N = 256, but config.json gives num_attention_heads * "
            f"head_dim = 128 (pass check_config=False / --no-config-check for an architecture "
            f"whose q_proj differs)", extra={"hf_quant_config.json": HF_QUANT})
    # The check can be turned off.
    ck.import_checkpoint(tmp_path / "2" / "ckpt", tmp_path / "2" / "out", bundle=False,
                         quiet=True, check_config=False)


def test_scale_shape_not_matching_weight(tmp_path):
    tensors = nvfp4(scales=np.zeros((256, 8), dtype=np.uint8))
    refused(tmp_path, tensors, CONFIG, ck.ShapeError,
            f"{Q}.weight_scale: shape [256, 8], expected [256, 16] ([N, K/16] for weight [N, K/2], "
            f"one e4m3 scale per 16 k)", extra={"hf_quant_config.json": HF_QUANT})


def test_nvfp4_global_scale_without_exact_fp32_value(tmp_path):
    every = np.zeros((256, 16), dtype=np.uint8)
    every.reshape(-1)[:256] = np.arange(256)
    tensors = nvfp4(g=0.00785115547478199, scales=every)
    refused(tmp_path, tensors, CONFIG, ck.InexactError,
            f"{Q}.weight_scale_2: no fp32 global scale within 16 steps of 0.00785115547478199 "
            f"gives this format's weights exactly: e2m1 code 3 with scale byte 0x05 is f16 0x0789 "
            f"in the format but 0x078a in qmat's rne(e2m1 * scale * global) (ModelOpt "
            f"dequantizes e2m1 * (weight_scale * weight_scale_2))",
            extra={"hf_quant_config.json": HF_QUANT}, act="f16")


def test_asymmetric_fp4(tmp_path):
    tensors, config = ct_nvfp4(symmetric=False)
    refused(tmp_path, tensors, config, ck.UnsupportedFormatError,
            f"{Q}.weight_packed: asymmetric fp4 (config group group_0); qmat's nvfp4 has no zero "
            f"points")
    tensors, config = ct_nvfp4()
    tensors[f"{Q}.weight_zero_point"] = np.zeros((256, 16), dtype=np.uint8)
    refused(tmp_path / "2", tensors, config, ck.UnsupportedFormatError,
            f"{Q}.weight_zero_point: asymmetric fp4 (config group group_0); qmat's nvfp4 has no "
            f"zero points")


def test_three_bit(tmp_path):
    tensors, config = gptq(bits=3)
    refused(tmp_path, tensors, config, ck.UnsupportedFormatError,
            "config.json quantization_config: bits 3; qmat reads 4-bit GPTQ only")
    tensors, config = ct_nvfp4(num_bits=3)
    refused(tmp_path / "2", tensors, config, ck.UnsupportedFormatError,
            f"{Q}.weight_packed: config group group_0 has num_bits 3; qmat's schemes are 4-bit "
            f"(nvfp4, mxfp4, int4)")


def test_act_order(tmp_path):
    tensors, config = gptq(desc_act=True)
    g_idx = (np.arange(256) // 128).astype(np.int32)
    tensors[f"{Q}.g_idx"] = np.ascontiguousarray(g_idx[::-1])
    refused(tmp_path, tensors, config, ck.UnsupportedFormatError,
            f"{Q}.g_idx: act-order (desc_act) puts k = 0 in group 1, not 0 // 128 = 0; qmat's "
            f"blocks are runs of 128 consecutive k (quantize without act-order, or with static "
            f"groups)")


def test_gptq_v1_zero_point_sixteen(tmp_path):
    tensors, config = gptq(sym=False)
    zero = np.full((2, 256), 4)
    zero[1, 37] = 15
    tensors[f"{Q}.qzeros"] = pack_words(zero, axis=1)
    refused(tmp_path, tensors, config, ck.InexactError,
            f"{Q}.qzeros: group 1, column 37 stores 15, which the GPTQ v1 format (zero - 1 "
            f"stored) reads as zero point 16; qmat's zero points are 0..15")


def test_gptq_symmetric_with_other_zeros(tmp_path):
    tensors, config = gptq(sym=True)
    zero = np.full((2, 256), 7)
    zero[0, 3] = 5
    tensors[f"{Q}.qzeros"] = pack_words(zero, axis=1)
    refused(tmp_path, tensors, config, ck.UnsupportedFormatError,
            f"{Q}.qzeros: sym is true but group 0, column 3 has zero point 6, not 8; readers of "
            f"symmetric GPTQ disagree on which applies")


def test_int4_scales_not_exact_in_the_activation_type(tmp_path):
    tensors, config = gptq(scale=0.0100021)
    refused(tmp_path, tensors, config, ck.InexactError,
            f"{Q}.scales: F16 value 0.01000213623046875 at [0, 0] is not exactly a bf16 value "
            f"(qmat's int4 scales are bf16, the activation type; import with act matching the "
            f"scales' dtype)", act="bf16")


def test_bias_not_exact_in_the_activation_type(tmp_path):
    tensors = nvfp4()
    tensors[f"{Q}.bias"] = np.full(256, 0.1, dtype=np.float32)
    refused(tmp_path, tensors, CONFIG, ck.InexactError,
            f"{Q}.bias: F32 value 0.10000000149011612 at [0] is not exactly a bf16 value (the "
            f"bias is added in the activation type)", extra={"hf_quant_config.json": HF_QUANT})


def test_missing_gptq_tensor(tmp_path):
    tensors, config = gptq()
    del tensors[f"{Q}.scales"]
    refused(tmp_path, tensors, config, ck.MissingTensorError, f"{Q}.scales: missing ([K/G, N])")


def test_awq_other_packing(tmp_path):
    tensors, _ = gptq()
    refused(tmp_path, tensors, dict(CONFIG, quantization_config={
        "quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemv"}),
        ck.UnsupportedFormatError,
        "config.json quantization_config: version 'gemv'; qmat reads AWQ's GEMM packing "
        "(version 'gemm')")


def test_fp8_scale_without_float32_value(tmp_path):
    tensors, config = fp8()
    tensors[f"{Q}.weight_scale_inv"] = np.array([[0.01, 0.5], [0.25, 1.0]], dtype=np.float64)
    refused(tmp_path, tensors, config, ck.InexactError,
            f"{Q}.weight_scale_inv: F64 value 0.01 at [0, 0] is not exactly a float32 (qmat's "
            f"fp8 scales are float32)")


def test_fp8_without_blocks_and_e5m2(tmp_path):
    tensors, config = fp8(weight_block_size=None)
    refused(tmp_path, tensors, config, ck.UnsupportedFormatError,
            "config.json quantization_config: weight_block_size None; qmat reads block-scaled "
            "fp8 with weight_block_size [BN, BK] (per-tensor fp8 is not read)")
    tensors, config = fp8()
    tensors[f"{Q}.weight"] = ("F8_E5M2", tensors[f"{Q}.weight"][1])
    refused(tmp_path / "2", tensors, config, ck.UnsupportedFormatError,
            f"{Q}.weight: dtype F8_E5M2, expected F8_E4M3 (e4m3 weights [N, K])")


def test_fp8_tile_grid_not_matching(tmp_path):
    tensors, config = fp8(weight_block_size=[128, 64])
    refused(tmp_path, tensors, config, ck.ShapeError,
            f"{Q}.weight_scale_inv: shape [2, 2], expected [2, 4] ([ceil(N/128), ceil(K/64)] for "
            f"weight [256, 256] and weight_block_size [128, 64])")


def test_compressed_tensors_actorder(tmp_path):
    rng = np.random.default_rng(0)
    w = {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 128,
         "actorder": "group"}
    tensors = {f"{Q}.weight_packed": pack_words(rng.integers(0, 16, (256, 256)), axis=1),
               f"{Q}.weight_shape": np.array([256, 256], np.int32),
               f"{Q}.weight_scale": np.full((256, 2), 0.5, np.float16),
               f"{Q}.weight_g_idx": (np.arange(256) % 2).astype(np.int32)}
    config = dict(CONFIG, quantization_config={
        "quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": w}}})
    refused(tmp_path, tensors, config, ck.UnsupportedFormatError,
            f"{Q}.weight_g_idx: act-order (actorder, config group group_0) puts k = 1 in group 1, "
            f"not 1 // 128 = 0; qmat's blocks are runs of 128 consecutive k (quantize without "
            f"act-order, or with static groups)")
    tensors[f"{Q}.weight_g_idx"] = (np.arange(256) // 128).astype(np.int32)   # trivial: read
    write_checkpoint(tmp_path / "trivial", tensors, config)
    result = ck.import_checkpoint(tmp_path / "trivial", tmp_path / "out", bundle=False,
                                  quiet=True)
    assert f"{Q}.weight_g_idx" in result.manifest["linears"][Q]["source_tensors"]


def test_config_shapes_of_experts_and_latent_attention(tmp_path):
    """Experts take moe_intermediate_size, DeepSeek's shared experts
    moe_intermediate_size * n_shared_experts; latent-attention configs skip
    the head products."""
    from qmat.checkpoint.common import check_config_shape

    class Fake:
        def __init__(self, config):
            self.config = config

        def text_config(self):
            return self.config

    ds = Fake(dict(CONFIG, moe_intermediate_size=64, n_shared_experts=2, kv_lora_rank=512,
                   qk_nope_head_dim=128))
    check_config_shape("model.layers.1.mlp.experts.3.up_proj", 64, 256, ds, "w")
    check_config_shape("model.layers.1.mlp.shared_experts.up_proj", 128, 256, ds, "w")
    check_config_shape("model.layers.1.mlp.up_proj", 512, 256, ds, "w")
    check_config_shape("model.layers.0.self_attn.q_proj", 3072, 256, ds, "w")
    with pytest.raises(ck.ShapeError) as caught:
        check_config_shape("model.layers.1.mlp.experts.3.down_proj", 256, 512, ds, "w")
    assert str(caught.value) == (
        "w: down_proj has K = 512, but config.json gives moe_intermediate_size = 64 (pass "
        "check_config=False / --no-config-check for an architecture whose down_proj differs)")
    qwen = Fake(dict(CONFIG, shared_expert_intermediate_size=768))
    check_config_shape("model.layers.0.mlp.shared_expert.gate_proj", 768, 256, qwen, "w")
    # Mixtral: experts intermediate_size wide, their projections w1 / w3 / w2.
    mixtral = Fake(CONFIG)
    check_config_shape("model.layers.0.block_sparse_moe.experts.7.w1", 512, 256, mixtral, "w")
    check_config_shape("model.layers.0.block_sparse_moe.experts.7.w3", 512, 256, mixtral, "w")
    check_config_shape("model.layers.0.block_sparse_moe.experts.7.w2", 256, 512, mixtral, "w")
    check_config_shape("model.layers.0.mlp.w2", 256, 256, mixtral, "w")   # not an expert
    with pytest.raises(ck.ShapeError) as caught:
        check_config_shape("model.layers.0.block_sparse_moe.experts.7.w2", 256, 256, mixtral, "w")
    assert str(caught.value) == (
        "w: w2 has K = 256, but config.json gives intermediate_size = 512 (pass "
        "check_config=False / --no-config-check for an architecture whose w2 differs)")
