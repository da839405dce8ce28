#!/usr/bin/env python3
"""A Llama-architecture model (bench/model/llama.py: hidden 4096,
intermediate 14336, 8 layers, vocab 128256, random weights) as a ModelOpt
NVFP4 and a GPTQ int4 checkpoint, imported without a bundle, loaded with
qmat.torch.load_model on the bundle of bench/model/make_bundle.py, against
the same model with the reference-dequantized weights in bf16, in one
process: greedy generate() with a static cache (transformers compiles the
decode step with CUDA graphs where it supports that).

Per format and batch size it reports:
* steps: for every generated step, the relative Frobenius error of qmat's
  logits against the bf16 model's, per sequence (the largest), and whether
  it is within `--bound` (docs/numerics.md's bf16 bound for a matmul);
  qmat's logits come from a run whose tokens are forced to the bf16
  model's greedy ones (a logits processor), so both see the same context;
* batch 1: whether the first 32 greedy tokens agree and, where they part,
  the two candidates' logits in each model and whether both gaps are within
  the tie bound (the larger of one bf16 ulp at the candidates' size and
  2 · bound · the step's logit RMS);
* prefill_ms (generate() up to the first step's logits) and
  decode_ms_per_token (the first to the last step's logits over the steps
  between), medians of --reps timed runs, from CUDA events recorded by a
  logits processor; decode_over_bf16 and prefill_over_bf16.

The JSON is rewritten after every case, so a run stopped by the wall limit
keeps what it measured; cases that would not fit --budget-s are listed as
skipped.

Usage: model_bench.py BUNDLE OUT_JSON [--work DIR] [--formats nvfp4,gptq]
       [--batches 1,16] [--prompt 2048] [--new-tokens 128] [--reps 3]
       [--layers 8] [--compile auto|off] [--budget-s 540] [--keep]
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402

import qmat  # noqa: E402
import qmat.torch as qt  # noqa: E402
import llama  # noqa: E402

AGREE_TOKENS = 32
DEVICE = "cuda"   # a module constant, so that the script can be tried on a CPU stand-in


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("out_json")
    parser.add_argument("--work", default=None, help="checkpoints and imports (default: a "
                        "temporary directory, removed at the end)")
    parser.add_argument("--formats", default="nvfp4,gptq")
    parser.add_argument("--batches", default="1,16")
    parser.add_argument("--prompt", type=int, default=2048)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--reps", type=int, default=3, help="timed generate() runs per model")
    parser.add_argument("--model", choices=sorted(llama.MODELS), default="llama",
                        help="the architecture (bench/model/llama.py); the bundle must be "
                        "make_bundle.py's for the same --model")
    parser.add_argument("--layers", type=int, default=None,
                        help="decoder layers (default: the model's, 8)")
    parser.add_argument("--compile", choices=("auto", "off"), default="auto",
                        help="auto: transformers' compiled decode step (CUDA graphs), whole "
                        "graph, else with graph breaks, else eager; off: eager")
    parser.add_argument("--budget-s", type=float, default=540.0,
                        help="skip the cases that would end later than this")
    parser.add_argument("--bound", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep --work's files")
    parser.add_argument("--exact", action="store_true",
                        help="also an fp32 model with the reference-dequantized weights, run "
                        "eager on the bf16 model's tokens: both models' logits against it")
    args = parser.parse_args(argv)
    args.formats = [f for f in args.formats.split(",") if f]
    args.batches = [int(b) for b in args.batches.split(",") if b]
    unknown = sorted(set(args.formats) - set(llama.FORMATS))
    if unknown:
        parser.error(f"unknown formats {unknown}; known: {sorted(llama.FORMATS)}")
    if args.new_tokens < 2 or args.reps < 1:
        parser.error("--new-tokens must be at least 2 and --reps at least 1")
    return args


class Clock(transformers.LogitsProcessor):
    """Records a CUDA event at every step's logits; `forced` (B, steps)
    replaces the choice of each step by those tokens."""

    def __init__(self, prompt, forced=None):
        self.prompt, self.forced, self.events = prompt, forced, []

    def __call__(self, input_ids, scores):
        event = new_event()
        self.events.append(event)
        if self.forced is None:
            return scores
        step = input_ids.shape[1] - self.prompt
        chosen = torch.full_like(scores, float("-inf"))
        return chosen.scatter_(1, self.forced[:, step:step + 1], 0.0)


def new_event():
    event = torch.cuda.Event(enable_timing=True)
    event.record()
    return event


def synchronize():
    torch.cuda.synchronize()


# How generate() runs the decode step, most wanted first: compiled whole,
# compiled with graph breaks allowed, eager. A mode that fails to run is
# recorded and the next one is taken for this and every later case.
MODES = ("fullgraph", "graph breaks", "eager")


def generation_config(new_tokens, mode):
    options = dict(max_new_tokens=new_tokens, do_sample=False, cache_implementation="static",
                   pad_token_id=0, eos_token_id=None, return_dict_in_generate=True,
                   output_logits=True)
    if mode == "eager":
        options["disable_compile"] = True
    else:
        compile_config = getattr(transformers, "CompileConfig", None) or \
            transformers.generation.CompileConfig
        options["compile_config"] = compile_config(fullgraph=mode == "fullgraph")
    return transformers.GenerationConfig(**options)


def generate(model, ids, config, forced=None):
    """(sequences, logits [steps, B, V] fp32, prefill_ms, decode_ms_per_token)."""
    clock = Clock(ids.shape[1], forced)
    start = new_event()
    with torch.inference_mode():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                             generation_config=config,
                             logits_processor=transformers.LogitsProcessorList([clock]))
    synchronize()
    events = clock.events
    decode = events[0].elapsed_time(events[-1]) / (len(events) - 1)
    return (out.sequences[:, ids.shape[1]:], torch.stack(out.logits).float(),
            start.elapsed_time(events[0]), decode)


def step_errors(got, want):
    """Per step, the largest relative Frobenius error over the sequences."""
    diff = torch.linalg.vector_norm(got.double() - want.double(), dim=-1)
    return (diff / torch.linalg.vector_norm(want.double(), dim=-1)).max(dim=1).values.tolist()


def bf16_ulp(value):
    value = max(abs(float(value)), 2.0 ** -126)
    return 2.0 ** (np.floor(np.log2(value)) - 7)


def divergence(ref_tokens, q_tokens, ref_logits, q_logits, bound):
    """Batch 1: where the greedy tokens first part within AGREE_TOKENS."""
    ref_tokens, q_tokens = ref_tokens[0, :AGREE_TOKENS], q_tokens[0, :AGREE_TOKENS]
    parted = (ref_tokens != q_tokens).nonzero()
    if parted.numel() == 0:
        return True, None
    step = int(parted[0])
    a, b = int(ref_tokens[step]), int(q_tokens[step])
    lr, lq = ref_logits[step, 0], q_logits[step, 0]
    rms = float(lr.double().pow(2).mean().sqrt())
    # A Python float: numpy's would make the comparisons below numpy bools,
    # which json cannot write.
    tie = float(max(2 * bound * rms, bf16_ulp(max(abs(float(lr[a])), abs(float(lr[b]))))))
    gap_ref, gap_q = float(lr[a] - lr[b]), float(lq[b] - lq[a])
    return False, {"step": step, "bf16_token": a, "qmat_token": b,
                   "bf16_logits": [float(lr[a]), float(lr[b])],
                   "qmat_logits": [float(lq[a]), float(lq[b])],
                   "bf16_gap": gap_ref, "qmat_gap": gap_q, "tie_bound": tie,
                   "within_tie_bound": gap_ref <= tie and gap_q <= tie}


def run_case(models, ids, args, state):
    """One format at one batch size (see the module's docstring)."""
    ref, q, exact = models
    started = time.monotonic()
    mode = state["mode"]
    case = {"mode": mode}
    config = generation_config(args.new_tokens, mode)
    first = {}
    try:
        for name, model in (("bf16", ref), ("qmat", q)):
            t = time.monotonic()
            first[name] = generate(model, ids, config)
            case[f"{name}_first_call_s"] = round(time.monotonic() - t, 2)
    except Exception as e:
        if mode == "eager":
            raise
        text = str(e).strip().splitlines()
        state["errors"].append({"mode": mode, "error": f"{type(e).__name__}: "
                                f"{text[0] if text else ''}"})
        state["mode"] = MODES[MODES.index(mode) + 1]
        print(f"generate() with mode {mode} failed ({state['errors'][-1]['error']}); "
              f"now {state['mode']}", flush=True)
        return run_case(models, ids, args, state)
    # transformers keeps the compiled decode step on the model once it has
    # made one (the fp32 model, where there is one, runs eager)
    case["compiled_decode"] = mode != "eager" and all(
        getattr(m, "_compiled_call", None) is not None for m in (ref, q))
    ref_tokens, ref_logits = first["bf16"][0], first["bf16"][1]
    q_tokens, q_logits = first["qmat"][0], first["qmat"][1]
    _, forced_logits, _, _ = generate(q, ids, config, forced=ref_tokens)
    errors = step_errors(forced_logits, ref_logits)
    case["steps"] = [{"step": i, "relative_error": e, "within_bound": e <= args.bound}
                     for i, e in enumerate(errors)]
    case["all_steps_within_bound"] = all(s["within_bound"] for s in case["steps"])
    case["max_relative_error"] = max(errors)
    if exact is not None:
        # The same weights in fp32 and fp32 activations: which of the two
        # models is the nearer to it, step by step.
        _, exact_logits, _, _ = generate(exact, ids, generation_config(args.new_tokens, "eager"),
                                         forced=ref_tokens)
        to_bf16 = step_errors(ref_logits, exact_logits)
        to_qmat = step_errors(forced_logits, exact_logits)
        case["against_fp32_model"] = {
            "bf16_model_max": max(to_bf16), "qmat_max": max(to_qmat),
            "bf16_model_median": statistics.median(to_bf16),
            "qmat_median": statistics.median(to_qmat),
            "steps": [{"step": i, "bf16_model": a, "qmat": b}
                      for i, (a, b) in enumerate(zip(to_bf16, to_qmat))]}
        del exact_logits
    rows = (ref_tokens[:, :AGREE_TOKENS] == q_tokens[:, :AGREE_TOKENS]).all(dim=1)
    case[f"rows_agreeing_first_{AGREE_TOKENS}"] = int(rows.sum())
    if ids.shape[0] == 1:
        agree, where = divergence(ref_tokens, q_tokens, ref_logits, q_logits, args.bound)
        case[f"first_{AGREE_TOKENS}_tokens_agree"] = agree
        case["divergence"] = where
    del first, ref_logits, q_logits, forced_logits
    timings = {"bf16": ([], []), "qmat": ([], [])}
    for _ in range(args.reps):   # interleaved, so that drifts touch both alike
        for name, model in (("bf16", ref), ("qmat", q)):
            _, _, prefill, decode = generate(model, ids, config)
            timings[name][0].append(prefill)
            timings[name][1].append(decode)
    for name, (prefill, decode) in timings.items():
        case[name] = {"prefill_ms": statistics.median(prefill),
                      "decode_ms_per_token": statistics.median(decode),
                      "prefill_ms_runs": prefill, "decode_ms_runs": decode}
    case["decode_over_bf16"] = case["qmat"]["decode_ms_per_token"] / \
        case["bf16"]["decode_ms_per_token"]
    case["prefill_over_bf16"] = case["qmat"]["prefill_ms"] / case["bf16"]["prefill_ms"]
    case["seconds"] = round(time.monotonic() - started, 1)
    return case


def load_library(bundle_dir, work):
    bundle = qmat.Bundle.open(bundle_dir)
    output = os.path.join(work, f"lib{bundle.prefix}.so")
    try:
        bundle.build_library(output=output)
    except qmat.ToolError:   # no usable host g++: nvcc brings its own set-up
        bundle.build_library(output=output, compiler="nvcc")
    return qt.load_library(bundle)


def prepare(args, work, timings):
    """The checkpoints, their imports and the two models per format."""
    config = llama.MODELS[args.model]
    config = dict(config, num_hidden_layers=args.layers or config["num_hidden_layers"])
    rng = np.random.default_rng(args.seed)
    t = time.monotonic()
    library = load_library(args.bundle, work)
    timings["library_s"] = round(time.monotonic() - t, 1)
    t = time.monotonic()
    base = llama.unquantized(config, rng)
    writers = {"nvfp4": llama.write_nvfp4, "gptq": llama.write_gptq}
    models = {}
    for fmt in args.formats:
        checkpoint = os.path.join(work, f"{fmt}-ckpt")
        imported = os.path.join(work, f"{fmt}-import")
        writers[fmt](checkpoint, config, rng, base)
        timings[f"{fmt}_checkpoint_s"] = round(time.monotonic() - t, 1)
        t = time.monotonic()
        qmat.import_checkpoint(checkpoint, imported, act="bf16", bundle=False,
                               include_unquantized=False, quiet=True)
        timings[f"{fmt}_import_s"] = round(time.monotonic() - t, 1)
        t = time.monotonic()
        quantized = qt.load_model(imported, library=library, device=DEVICE)
        timings[f"{fmt}_load_s"] = round(time.monotonic() - t, 1)
        t = time.monotonic()
        dense = qt.load_model(imported, device=DEVICE, dequantize=True)
        timings[f"{fmt}_load_dequantized_s"] = round(time.monotonic() - t, 1)
        exact = None
        if args.exact:
            t = time.monotonic()
            exact = qt.load_model(imported, device=DEVICE, dequantize=True, dtype=torch.float32)
            timings[f"{fmt}_load_fp32_s"] = round(time.monotonic() - t, 1)
        models[fmt] = (dense, quantized, exact)
        t = time.monotonic()
    del base
    return config, models


def main(argv=None):
    args = parse(argv)
    started = time.monotonic()
    for limit in ("recompile_limit", "cache_size_limit"):   # 2 batch sizes x 4 models
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 64)
    work = args.work or tempfile.mkdtemp(prefix="qmat-model-bench-")
    os.makedirs(work, exist_ok=True)
    result = {"bench": "model", "date": datetime.date.today().isoformat(),
              "gpu": torch.cuda.get_device_name() if DEVICE == "cuda" else DEVICE,
              "torch": torch.__version__, "transformers": transformers.__version__,
              "prompt_tokens": args.prompt,
              "new_tokens": args.new_tokens, "reps": args.reps, "bound": args.bound,
              "compile": args.compile, "formats": args.formats, "batches": args.batches,
              "setup_s": {}, "cases": [], "skipped": [], "mode_errors": []}

    def write():
        result["total_s"] = round(time.monotonic() - started, 1)
        with open(args.out_json + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(args.out_json + ".tmp", args.out_json)

    try:
        config, models = prepare(args, work, result["setup_s"])
        result["config"] = config
        write()
        state = {"mode": MODES[0] if args.compile == "auto" else "eager",
                 "errors": result["mode_errors"]}
        gen = torch.Generator(device=DEVICE).manual_seed(args.seed)
        longest = 0.0
        for batch in args.batches:
            ids = torch.randint(0, config["vocab_size"], (batch, args.prompt), device=DEVICE,
                                generator=gen)
            for fmt in args.formats:
                elapsed = time.monotonic() - started
                if elapsed + longest > args.budget_s:
                    result["skipped"].append({"format": fmt, "batch": batch, "reason": (
                        f"{elapsed:.0f} s elapsed + {longest:.0f} s (the longest case) > "
                        f"--budget-s {args.budget_s:.0f}")})
                    write()
                    continue
                print(f"{fmt}, batch {batch}", flush=True)
                case = {"format": fmt, "batch": batch, **run_case(models[fmt], ids, args, state)}
                longest = max(longest, case["seconds"])
                result["cases"].append(case)
                write()
                exact = case.get("against_fp32_model", {})
                print(json.dumps({k: case.get(k) for k in (
                    "max_relative_error", "all_steps_within_bound",
                    f"first_{AGREE_TOKENS}_tokens_agree", "decode_over_bf16",
                    "prefill_over_bf16", "seconds")} | {
                    k: v for k, v in exact.items() if k != "steps"}), flush=True)
    finally:
        write()
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
