#!/usr/bin/env python3
"""The floor under decode_over_bf16: how long a decode step of the
benchmark's Llama (bench/model/llama.py) takes when its decoder linears
cost nothing, measured the way model_bench.py measures it (greedy
generate() with a static cache, the decode step compiled with CUDA graphs;
CUDA events from a logits processor), in one process:

* bf16: the model as it is (random bf16 weights);
* no_decoder_linears: every linear of the decoder layers replaced by a
  module that returns zeros of its output shape (attention over the cache,
  norms, rotary, the bf16 lm_head, sampling and generate()'s own work
  remain);
* no_linears: the lm_head too.

A quantized model's decode step cannot take less than no_decoder_linears
plus the time its decoder weights take to arrive (their bytes at the copy
rate, measured here with a device-to-device copy of the same size): that
sum over bf16 is the floor decode_over_bf16 can reach with a bf16 lm_head.

Usage: decode_floor.py OUT_JSON [--batch 1] [--prompt 2048] [--new-tokens 128]
       [--reps 3] [--bits 4.5]  (bits per weight of the quantized format:
       nvfp4 4 + 8/16 for its e4m3 block scales = 4.5; int4 g128 with bf16
       scales 4.125)
"""
import argparse
import datetime
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import transformers  # noqa: E402

import llama  # noqa: E402
from model_bench import MODES, generate, generation_config  # noqa: E402


class Zeros(torch.nn.Module):
    """A linear's output shape, all zeros, for no weight traffic."""

    def __init__(self, out_features):
        super().__init__()
        self.out_features = out_features

    def forward(self, x):
        return x.new_zeros(*x.shape[:-1], self.out_features)


def strip(model, lm_head):
    for name, module in list(model.named_modules()):
        if isinstance(module, torch.nn.Linear) and (lm_head or name != "lm_head"):
            parent, _, leaf = name.rpartition(".")
            setattr(model.get_submodule(parent) if parent else model, leaf,
                    Zeros(module.out_features))
    return model


def copy_ms(nbytes, reps=20):
    """Median time of a device-to-device copy of `nbytes` (the copy rate
    at which quantized weights of that size arrive)."""
    src = torch.empty(nbytes // 2, dtype=torch.int16, device="cuda")
    dst = torch.empty_like(src)
    times = []
    for _ in range(reps + 3):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times[3:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_json")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--prompt", type=int, default=2048)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--bits", type=float, default=4.5)
    args = parser.parse_args()
    config = transformers.LlamaConfig(**{k: v for k, v in llama.CONFIG.items()
                                         if k != "model_type"})
    torch.manual_seed(0)
    ids = torch.randint(0, config.vocab_size, (args.batch, args.prompt), device="cuda")
    result = {"date": datetime.date.today().isoformat(), "gpu": torch.cuda.get_device_name(),
              "torch": torch.__version__, "transformers": transformers.__version__,
              "batch": args.batch, "prompt": args.prompt, "new_tokens": args.new_tokens,
              "arms": {}}
    decoder_params = 0
    for arm, (decoder, head) in {"bf16": (False, False), "no_decoder_linears": (True, False),
                                 "no_linears": (True, True)}.items():
        default = torch.get_default_dtype()
        torch.set_default_dtype(torch.bfloat16)
        try:
            with torch.device("cuda"):
                model = transformers.LlamaForCausalLM(config).eval()
        finally:
            torch.set_default_dtype(default)
        if arm == "bf16":
            decoder_params = sum(m.weight.numel() for n, m in model.named_modules()
                                 if isinstance(m, torch.nn.Linear) and n != "lm_head")
        if decoder:
            strip(model, head)
        mode, runs = None, []
        for candidate in MODES:
            try:
                for _ in range(args.reps + 1):   # the first run compiles
                    runs.append(generate(model, ids, generation_config(args.new_tokens,
                                                                       candidate))[3])
                mode = candidate
                break
            except Exception as e:  # noqa: BLE001 - the next mode is tried, the error kept
                result.setdefault("mode_errors", {})[f"{arm} {candidate}"] = repr(e)[:300]
                runs = []
        result["arms"][arm] = {"mode": mode, "decode_ms_per_token": statistics.median(runs[1:]),
                               "decode_ms_runs": runs[1:]}
        del model
        torch.cuda.empty_cache()
    weight_bytes = int(decoder_params * args.bits / 8)
    # A copy of B bytes moves 2B (read and write); the weights are read once.
    arrive = copy_ms(weight_bytes) / 2
    bf16 = result["arms"]["bf16"]["decode_ms_per_token"]
    rest = result["arms"]["no_decoder_linears"]["decode_ms_per_token"]
    result.update({
        "decoder_weight_params": decoder_params, "bits_per_weight": args.bits,
        "quantized_decoder_bytes": weight_bytes, "quantized_weights_arrive_ms": arrive,
        "floor_decode_ms_per_token": rest + arrive,
        "floor_decode_over_bf16": (rest + arrive) / bf16,
        "no_decoder_linears_over_bf16": rest / bf16})
    with open(args.out_json, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps({k: v for k, v in result.items() if k != "arms"}, indent=1))
    for arm, values in result["arms"].items():
        print(f"{arm}: {values['decode_ms_per_token']:.3f} ms per token ({values['mode']})")


if __name__ == "__main__":
    main()
