"""qmat.import_checkpoint: a quantized Hugging Face checkpoint directory
into a qmat module, its bundle, the weights in qmat's layout and a manifest
that maps the model's linear layers onto them (docs/checkpoints.md)."""
import json
import os
import re
import sys
import time

import numpy as np

from ..errors import ArgumentError, QMatError
from ..layers import DEFAULT_BLOCK, Layer, emit_module, normalize_act
from . import awq, compressed_tensors, fp8_block, gpt_oss, gptq, modelopt, onnx_nbits
from .errors import CheckpointError, UnsupportedFormatError
from .safetensors_io import SafetensorsWriter
from .source import Checkpoint

FORMATS = {
    "modelopt": modelopt,
    "compressed-tensors": compressed_tensors,
    "gptq": gptq,
    "awq": awq,
    "fp8": fp8_block,
    "mxfp4": gpt_oss,
    "onnx": onnx_nbits,
}
MANIFEST_VERSION = 1
ROLES = ("codes", "scales", "global_scale", "zero_points", "bias")
# The launcher's operand name of each imported tensor.
OPERAND = {"codes": "weights", "scales": "scales", "global_scale": "global_scale",
           "zero_points": "zero_points", "bias": "bias"}


def open_source(path):
    """A checkpoint directory (Checkpoint), or an ONNX model (an .onnx
    file, or a directory holding one .onnx file and no safetensors)."""
    path = os.fspath(path)
    if onnx_nbits.is_onnx(path):
        return onnx_nbits.OnnxSource(path)
    if os.path.isdir(path):
        names = os.listdir(path)
        models = [n for n in names if n.endswith(".onnx")]
        if len(models) == 1 and not any(n.endswith(".safetensors") for n in names):
            return onnx_nbits.OnnxSource(os.path.join(path, models[0]))
    return Checkpoint(path)


def detect_format(ckpt):
    """The format key of FORMATS for a checkpoint, from its configs."""
    if isinstance(ckpt, onnx_nbits.OnnxSource):
        return "onnx"
    if modelopt.quant_config(ckpt) is not None:
        return "modelopt"
    qc = ckpt.config.get("quantization_config")
    if isinstance(qc, dict):
        method = str(qc.get("quant_method", "")).lower()
        if method in FORMATS:
            return method
        raise UnsupportedFormatError(
            f"config.json quantization_config: quant_method {qc.get('quant_method')!r}; qmat "
            f"imports {', '.join(sorted(set(FORMATS) - {'onnx'}))}")
    if ckpt.json("quantize_config.json") is not None:
        return "gptq"
    if isinstance(ckpt.json("quant_config.json"), dict):
        return "awq"   # AutoAWQ's own file
    raise UnsupportedFormatError(
        f"{ckpt.directory}: no quantization config (config.json quantization_config, "
        f"hf_quant_config.json or quantize_config.json)")


def natural_key(name):
    """Sort key that orders model.layers.2 before model.layers.10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def layer_name(key):
    scheme, n, k, block, zero_points, act, bias = key
    name = f"{scheme}_{n}x{k}"
    if block != DEFAULT_BLOCK[scheme]:
        name += f"_b{block}"
    if zero_points:
        name += "_zp"
    if bias:
        name += "_bias"
    return name


class Progress:
    def __init__(self, stream, total):
        self.stream, self.total, self.done = stream, total, 0
        self.width = len(str(total))

    def __call__(self, text):
        self.done += 1
        if self.stream is not None:
            self.stream.write(f"[{self.done:>{self.width}}/{self.total}] {text}\n")
            self.stream.flush()


class ImportResult:
    """What import_checkpoint wrote: `manifest` (the parsed JSON) and its
    path, the module's path, the Bundle (None with bundle=False)."""

    def __init__(self, out_dir, manifest_path, manifest, module_path, bundle, layers):
        self.directory = out_dir
        self.manifest_path = manifest_path
        self.manifest = manifest
        self.module_path = module_path
        self.bundle = bundle
        self.layers = layers

    def __repr__(self):
        return (f"qmat.checkpoint.ImportResult({self.directory!r}, "
                f"{len(self.manifest['linears'])} linears, {len(self.layers)} layers)")


def _shards(tensors, max_shard_bytes, prefix):
    """Greedy split of (OutTensor or passthrough) entries into files."""
    groups, current, size = [], [], 0
    for entry in tensors:
        nbytes = entry[3]
        if current and size + nbytes > max_shard_bytes:
            groups.append(current)
            current, size = [], 0
        current.append(entry)
        size += nbytes
    groups.append(current)
    if len(groups) == 1:
        return [(f"{prefix}.safetensors", groups[0])]
    count = len(groups)
    return [(f"{prefix}-{i + 1:05d}-of-{count:05d}.safetensors", g) for i, g in enumerate(groups)]


def _nbytes(dtype, shape):
    from .safetensors_io import STORAGE
    count = 1
    for d in shape:
        count *= int(d)
    return count * STORAGE[dtype].itemsize


def import_checkpoint(checkpoint, out_dir, *, targets=("sm_90",), act=None, prefix="model",
                      bundle=True, format=None, check_config=True, include_unquantized=True,
                      max_shard_bytes=4 << 30, chunk_bytes=64 << 20, quiet=False, stream=None,
                      qmat_aot=None, emit_ptx=False, prepared_weights=False, tp=1,
                      parallel=None, parts=None):
    """Imports a checkpoint directory into `out_dir` (docs/checkpoints.md):

    * <prefix>.mlir: one qmat layer per distinct (scheme, N, K, block,
      zero points, bias, activation type);
    * bundle/: qmat-aot's bundle for `targets` (skipped with bundle=False);
    * <prefix>.safetensors (or shards and <prefix>.safetensors.index.json):
      per linear M the tensors M.codes, M.scales and, where the scheme has
      them, M.global_scale, M.zero_points, M.bias in qmat's layout; with
      include_unquantized, every tensor that is not part of a quantized
      linear, unchanged;
    * <prefix>.checkpoint.json: the manifest.

    `checkpoint`: a Hugging Face checkpoint directory, or an ONNX model
    with MatMulNBits nodes (an .onnx file). `format`: modelopt,
    compressed-tensors, gptq, awq, fp8, mxfp4 (gpt-oss) or onnx (detected by
    default).
    `act`: 'bf16' or 'f16' (default: the int4 scales' dtype, else
    config.json's torch_dtype, else bf16). Anything that
    cannot be carried exactly raises a CheckpointError naming the tensor and
    the rule, before any output is written. Progress goes to `stream`
    (default stderr) unless `quiet`.

    `prepared_weights`: False (the default) compiles the bundle for the
    checkpoint's code layout. True compiles it for the prepared layout
    (qmat-aot --prepared-weights) and writes the codes of every layer that
    takes it in that layout, prepared by the bundle's own launcher
    (qmat.checkpoint.prepare; it is built for that, which needs the CUDA
    toolkit and a C++ compiler), each marked "prepared_weights": true in
    the manifest. 'load' compiles the bundle for the prepared layout but
    writes the codes in the checkpoint layout, for the loader to prepare
    (qmat.torch.QuantLinear). Both need the bundle.

    `tp` > 1 splits every quantized linear for tensor parallelism
    (qmat.shard): `parallel(module)` gives its kind, 'column', 'row' or
    'replicate' (default qmat.shard.parallel_kind, the Llama / Qwen names);
    rank r's weights go to rank<r>/ and the module holds the shard shapes.
    A fused column-parallel linear (gate_up_proj, qkv_proj) is split part
    by part, rank r holding [gate_r; up_r] or [q_r; k_r; v_r], the parts
    from config.json (qmat.shard.fused_parts) or from `parts`: {module:
    parts} (a key may also be a last name such as qkv_proj, for every
    module of that name; a key that names no quantized linear is refused)
    or parts(module) -> parts or None, the parts as qmat.shard.as_parts
    takes them. A split that is not exact raises
    qmat.ShardError before any output.
    """
    from ..layers import is_identifier
    if not is_identifier(prefix):
        raise ArgumentError(f"prefix must be a C identifier, got {prefix!r}")
    if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
        raise ArgumentError(f"tp must be a positive integer, got {tp!r}")
    if parts is not None and not callable(parts) and not isinstance(parts, dict):
        raise ArgumentError(f"parts must be a dict {{module: parts}} or a function of the "
                            f"module, got {type(parts).__name__}")
    if max_shard_bytes <= 0 or chunk_bytes <= 0:
        raise ArgumentError("max_shard_bytes and chunk_bytes must be positive")
    if not (isinstance(prepared_weights, bool) or prepared_weights == "load"):
        raise ArgumentError(f"prepared_weights must be False, True or 'load', got "
                            f"{prepared_weights!r}")
    if prepared_weights and not bundle:
        raise ArgumentError("prepared weights (--prepared-weights) are for a bundle compiled "
                            "for the prepared code layout, and the import compiles none "
                            "(bundle=False / --no-bundle)")
    stream = None if quiet else (stream or sys.stderr)
    ckpt = open_source(checkpoint)
    out_dir = os.path.abspath(os.fspath(out_dir))
    if out_dir == ckpt.directory:
        raise ArgumentError(f"the output directory is the checkpoint directory ({out_dir})")
    key = format or detect_format(ckpt)
    if key not in FORMATS:
        raise ArgumentError(f"unknown format {key!r} (expected one of {', '.join(FORMATS)})")
    handler = FORMATS[key]
    aot = None
    if bundle:   # wrong targets or a missing qmat-aot fail before the long part
        from ..bundle import _check_targets
        from ..tools import find_tool
        targets = _check_targets(targets)
        aot = find_tool("qmat-aot", qmat_aot)
    qc = handler.parse_config(ckpt)
    act = normalize_act(act) if act is not None else _default_act(ckpt, handler, qc)
    ctx = {"act": act, "check_config": check_config}

    modules = sorted(handler.find_linears(ckpt, qc), key=natural_key)
    if not modules:
        raise CheckpointError(f"{ckpt.directory}: no quantized linear layers of the {key} format "
                              f"found")
    started = time.monotonic()
    if stream:
        stream.write(f"qmat import: {ckpt.directory} ({key}, {len(modules)} quantized linears, "
                     f"act {act})\n")
    plans = [handler.plan(ckpt, module, qc, ctx) for module in modules]
    kinds, by_rank, fused = {}, None, {}
    if tp != 1:   # every split is checked before any output is written
        from .. import shard as tp_shard
        kinds = {plan.module: (parallel or tp_shard.parallel_kind)(plan.module) for plan in plans}
        if isinstance(parts, dict):
            known = {plan.module for plan in plans}
            known |= {module.rsplit(".", 1)[-1] for module in known}
            unknown = sorted(str(key) for key in parts if key not in known)
            if unknown:
                raise ArgumentError(f"parts names {', '.join(unknown)}: not a quantized linear "
                                    f"of the checkpoint (a module's name, or the last name of "
                                    f"some, such as qkv_proj)")
        for plan in plans:
            splits = _fused_splits(ckpt, plan, kinds[plan.module], tp, parts)
            if splits is not None:
                fused[plan.module] = splits
        for plan in plans:   # after the q heads' own check, which names the cause
            if kinds[plan.module] == "row":
                tp_shard.check_output_heads(plan.module, plan.scheme, plan.n, plan.k,
                                            plan.block, _text_config_of(ckpt, plan.module), tp)
        by_rank = [[_shard_plan(plan, kinds[plan.module], tp, rank, fused.get(plan.module))
                    for plan in plans] for rank in range(tp)]
        if stream:
            for module, splits in fused.items():
                for split in splits:
                    if split.replicas > 1:
                        stream.write(f"qmat import: {module}: {split.part.name} has "
                                     f"{split.part.heads} heads, fewer than tp = {tp}: each is "
                                     f"held by {split.replicas} ranks\n")
    layer_plans = plans if by_rank is None else by_rank[0]

    # Layers, in order of first use.
    names, layers = {}, []
    for plan in layer_plans:
        if plan.key() not in names:
            name = layer_name(plan.key())
            names[plan.key()] = name
            layers.append(Layer(name, plan.scheme, plan.n, plan.k, block=plan.block, act=plan.act,
                                bias=plan.bias, zero_points=plan.zero_points))
    consumed = set()
    for plan in plans:
        consumed.update(plan.sources)
        consumed.update(plan.ignored)
    passthrough = sorted((name for name in ckpt.tensors if name not in consumed),
                         key=natural_key) if include_unquantized else []
    from .safetensors_io import STORAGE
    for name in passthrough:
        if ckpt.info(name).dtype not in STORAGE:
            raise UnsupportedFormatError(f"{name}: {ckpt.info(name).dtype} has no safetensors "
                                         f"dtype to copy it as (import with "
                                         f"include_unquantized=False / --no-unquantized)")

    os.makedirs(out_dir, exist_ok=True)
    module_path = os.path.join(out_dir, f"{prefix}.mlir")
    with open(module_path, "w", encoding="utf-8") as f:
        f.write(emit_module(layers))
    built = None
    if bundle:
        from ..bundle import compile as qmat_compile
        if stream:
            stream.write(f"qmat import: compiling {len(layers)} layers for "
                         f"{', '.join(targets)}\n")
        built = qmat_compile(layers, targets=targets, out_dir=os.path.join(out_dir, "bundle"),
                             prefix=prefix, emit_ptx=emit_ptx,
                             prepared_weights=bool(prepared_weights), qmat_aot=aot)
    # The layers whose codes are written prepared: those the bundle compiled
    # for the prepared layout (packed 4-bit, N % 16 == 0, K % 128 == 0).
    prepared = {info.name for info in built.layers if info.prepared_weights} \
        if built and prepared_weights is True else set()
    preparer = None
    if prepared:
        from .prepare import Preparer
        if stream:
            stream.write(f"qmat import: building the launcher to prepare the codes of "
                         f"{len(prepared)} layers\n")
        try:
            preparer = Preparer(built)
        except QMatError as e:
            raise QMatError(f"prepared weights (--prepared-weights) are written by the bundle's "
                            f"launcher, which could not be built or loaded: {e}\n"
                            f"(--prepared-weights=load writes the codes in the checkpoint "
                            f"layout, for the loader to prepare)") from e
    prepare = (preparer, prepared)

    try:
        if tp == 1:
            shards, file_of = _write_weights(out_dir, prefix, plans, passthrough, ckpt, key,
                                             names, stream, max_shard_bytes, chunk_bytes, prepare)
        else:
            _remove_stale(out_dir, prefix)   # a tp 1 import's files
            rank_files = []
            for rank, rank_plans in enumerate(by_rank):
                if stream:
                    stream.write(f"qmat import: rank {rank} of {tp}\n")
                shards_r, file_of_r = _write_weights(
                    os.path.join(out_dir, f"rank{rank}"), prefix, rank_plans, passthrough, ckpt,
                    key, names, stream, max_shard_bytes, chunk_bytes, prepare)
                rank_files.append(([f"rank{rank}/{name}" for name, _ in shards_r],
                                   {t: f"rank{rank}/{f}" for t, f in file_of_r.items()}))
            shards = [(name, None) for files, _ in rank_files for name in files]
            file_of = rank_files[0][1]
    finally:
        if preparer is not None:
            preparer.close()

    symbols = {info.name: info.symbol for info in built.layers} if built else {}
    manifest = {
        "format": "qmat-checkpoint",
        "version": MANIFEST_VERSION,
        "source": {"directory": ckpt.directory, "format": key,
                   "quantization": {k: v for k, v in qc.items()
                                    if k not in ("groups", "nodes")}},
        "act": act,
        "prefix": prefix,
        "module": os.path.basename(module_path),
        "bundle": {"directory": "bundle", "targets": list(built.targets),
                   "manifest": os.path.relpath(built.manifest_path, out_dir),
                   "prepared_weights": bool(prepared_weights)} if built else None,
        "weights": [name for name, _ in shards],
        "layers": [{"name": l.name, "scheme": l.scheme, "n": l.n, "k": l.k, "block": l.block,
                    "act": l.act, "bias": l.bias, "zero_points": l.zero_points,
                    "symbol": symbols.get(l.name, l.name)} for l in layers],
        "linears": {},
        "unquantized": passthrough,
    }
    if tp != 1:
        manifest["tp"] = tp
        manifest["ranks"] = [files for files, _ in rank_files]
    for i, plan in enumerate(plans):
        shard0 = layer_plans[i]
        entry = manifest["linears"][plan.module] = {
            "layer": names[shard0.key()],
            "format": plan.format,
            "file": file_of[plan.outputs["codes"].name],
            "tensors": {OPERAND[role]: plan.outputs[role].name
                        for role in ROLES if role in shard0.outputs
                        and (role != "bias" or shard0.bias)},
            "source_tensors": plan.sources,
            "ignored_tensors": plan.ignored,
            **({"notes": plan.notes} if plan.notes else {}),
            **({"prepared_weights": True} if names[shard0.key()] in prepared else {}),
        }
        if tp != 1:
            entry["parallel"] = kinds[plan.module]
            entry["shape"] = [plan.n, plan.k]
            entry["files"] = [files[plan.outputs["codes"].name] for _, files in rank_files]
            if "bias" in plan.outputs and not shard0.bias:
                entry["reduce_bias"] = plan.outputs["bias"].name   # in rank 0's file alone
            if plan.module in fused:
                entry["parts"] = [split.describe() for split in fused[plan.module]]
    manifest_path = os.path.join(out_dir, f"{prefix}.checkpoint.json")
    with open(manifest_path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    if stream:
        stream.write(f"qmat import: {len(plans)} linears in {len(layers)} layers, "
                     f"{len(passthrough)} tensors copied, {time.monotonic() - started:.1f} s -> "
                     f"{manifest_path}\n")
    return ImportResult(out_dir, manifest_path, manifest, module_path, built, layers)


def _fused_splits(ckpt, plan, kind, tp, parts):
    """The PartSplits of a column-parallel linear split part by part (given
    `parts`, else a fused name's parts from config.json), or None."""
    from .. import shard as tp_shard
    module = plan.module
    if callable(parts):
        given = parts(module)
    else:
        parts = parts or {}
        given = parts.get(module, parts.get(module.rsplit(".", 1)[-1]))
    if given is not None and plan.parts is not None:
        raise ArgumentError(f"layer {module}: parts= does not apply: its parts are fixed by "
                            f"the checkpoint's row order ({plan.notes.get('rows', plan.format)})")
    if given is not None and kind != "column":
        raise ArgumentError(f"layer {module}: parts (stacked outputs) are for column-parallel "
                            f"layers, this one is {kind}-parallel")
    if kind != "column":
        return None
    if plan.parts is not None:
        return tp_shard.check_parts(module, plan.parts, plan.n, tp)
    if given is None:
        given = tp_shard.fused_parts(module, _text_config_of(ckpt, module), plan.n)
        if given is None:
            return None
    return tp_shard.check_parts(module, given, plan.n, tp)


def _text_config_of(ckpt, module):
    """The config.json entries that describe `module`: text_config describes
    the language model only."""
    cfg = ckpt.text_config()
    if cfg is not ckpt.config and "language_model" not in module:
        return {}
    return cfg


def _rows_of(full, segments, r0, r1):
    """Rows r0:r1 of a shard whose rows are the whole tensor's `segments`
    ([start, stop) each) laid end to end."""
    pieces, local = [], 0
    for start, stop in segments:
        a, b = max(r0, local), min(r1, local + stop - start)
        if a < b:
            pieces.append(np.asarray(full.chunk(start + a - local, start + b - local)))
        local += stop - start
    return pieces[0] if len(pieces) == 1 else np.concatenate(pieces, axis=0)


def _shard_plan(plan, kind, tp, rank, splits=None):
    """`rank`'s part of a LinearPlan: the shard's shape and OutTensors that
    read the full tensors' rows and keep that rank's rows or columns
    (`splits`: a fused linear's PartSplits, the rank's rows of each part
    stacked in part order)."""
    import dataclasses

    from .. import shard as tp_shard
    from .common import OutTensor
    if splits is None:
        n, k = tp_shard.check(plan.module, plan.scheme, plan.n, plan.k, plan.block, kind, tp)
    else:
        n, k = sum(split.rank_size for split in splits), plan.k
    out = dataclasses.replace(plan, n=n, k=k, bias=plan.bias and kind != "row", outputs={})
    for role, full in plan.outputs.items():
        operand = OPERAND[role]
        if kind == "replicate" or role == "global_scale":
            out.outputs[role] = full
        elif kind == "column" and splits is not None:
            segments = [split.rows(rank) for split in splits]
            out.outputs[role] = OutTensor(full.name, full.dtype, (n,) + tuple(full.shape[1:]),
                                          lambda r0, r1, f=full, s=segments:
                                          _rows_of(f, s, r0, r1), full.row_bytes)
        elif kind == "column":
            rows, off = n, rank * n
            out.outputs[role] = OutTensor(full.name, full.dtype, (rows,) + tuple(full.shape[1:]),
                                          lambda r0, r1, f=full, o=off: f.chunk(o + r0, o + r1),
                                          full.row_bytes)
        elif role == "bias":
            if rank == 0:
                out.outputs[role] = full   # added once, after the reduction
        elif role == "zero_points":
            b0, b1 = tp_shard.columns("scales", plan.scheme, plan.k, plan.block, tp, rank)
            out.outputs[role] = OutTensor(
                full.name, full.dtype, (full.shape[0], -(-(b1 - b0) // 2)),
                lambda r0, r1, f=full, b0=b0, b1=b1: tp_shard.slice_zero_points(
                    f.chunk(r0, r1), b0, b1), full.row_bytes)
        else:
            c0, c1 = tp_shard.columns(operand, plan.scheme, plan.k, plan.block, tp, rank)
            out.outputs[role] = OutTensor(full.name, full.dtype, (full.shape[0], c1 - c0),
                                          lambda r0, r1, f=full, c0=c0, c1=c1:
                                          np.asarray(f.chunk(r0, r1))[:, c0:c1], full.row_bytes)
    return out


def _write_weights(out_dir, prefix, plans, passthrough, ckpt, key, names, stream,
                   max_shard_bytes, chunk_bytes, prepare=(None, ())):
    """Writes the weight files of `plans` and the passthrough tensors into
    out_dir; returns ([(file, entries)], {tensor: file}). `prepare`:
    (Preparer, layer names): the codes of those layers are written in the
    prepared layout."""
    os.makedirs(out_dir, exist_ok=True)
    preparer, prepared = prepare
    # (kind, name, dtype, nbytes, payload) in the order they are written.
    entries = []
    for plan in plans:
        for role in ROLES:
            if role in plan.outputs:
                t = plan.outputs[role]
                if role == "codes" and names[plan.key()] in prepared:
                    t = _prepared_codes(t, names[plan.key()], preparer)
                entries.append(("linear", t.name, t.dtype, _nbytes(t.dtype, t.shape), (plan, t)))
    for name in passthrough:
        info = ckpt.info(name)
        entries.append(("copy", name, info.dtype, info.nbytes, info))
    taken = set()
    for entry in entries:
        if entry[1] in taken:
            raise CheckpointError(f"{entry[1]}: the imported name of a quantized tensor is also a "
                                  f"tensor of the checkpoint")
        taken.add(entry[1])
    shards = _shards(entries, max_shard_bytes, prefix)
    _remove_stale(out_dir, prefix)
    progress = Progress(stream, len(plans) + len(passthrough))
    file_of = {}
    for file_name, group in shards:
        declared = []
        for kind, name, dtype, nbytes, payload in group:
            shape = payload[1].shape if kind == "linear" else payload.shape
            declared.append((name, dtype, shape))
            file_of[name] = file_name
        with SafetensorsWriter(os.path.join(out_dir, file_name), declared,
                               metadata={"format": "qmat", "source": key}) as writer:
            for kind, name, dtype, nbytes, payload in group:
                if kind == "linear":
                    plan, tensor = payload
                    _write_rows(writer, tensor, chunk_bytes)
                    if tensor is plan.outputs[[r for r in ROLES if r in plan.outputs][-1]]:
                        progress(f"{plan.module}: {plan.scheme} {plan.n}x{plan.k} "
                                 f"-> {names[plan.key()]}"
                                 + (", codes prepared" if names[plan.key()] in prepared else ""))
                else:
                    _copy(writer, ckpt, payload, chunk_bytes)
                    progress(f"{name}: copied ({dtype} {list(payload.shape)})")
    if len(shards) > 1:
        index = {"metadata": {"total_size": sum(e[3] for e in entries)},
                 "weight_map": {name: file_of[name] for name in file_of}}
        with open(os.path.join(out_dir, f"{prefix}.safetensors.index.json"), "w") as f:
            json.dump(index, f, indent=1)

    return shards, file_of


def _prepared_codes(tensor, layer, preparer):
    """The codes OutTensor `tensor` of bundle layer `layer` in the prepared
    layout. The launcher's prepare_weights takes a whole layer: the first
    chunk prepares all its rows, and the chunks are served from that."""
    from .common import OutTensor
    held = {}

    def chunk(r0, r1):
        if "codes" not in held:
            held["codes"] = preparer.prepare(layer, np.asarray(tensor.chunk(0, tensor.rows)))
        rows = held["codes"][r0:r1]
        if r1 >= tensor.rows:
            held.clear()
        return rows

    return OutTensor(tensor.name, tensor.dtype, tensor.shape, chunk, tensor.row_bytes)


def _remove_stale(out_dir, prefix):
    """Weight files of an earlier import into this directory would contradict the manifest."""
    for stale in os.listdir(out_dir):
        if re.fullmatch(re.escape(prefix) + r"(-\d{5}-of-\d{5})?\.safetensors(\.index\.json)?",
                        stale):
            os.unlink(os.path.join(out_dir, stale))


def _default_act(ckpt, handler, qc):
    hinted = handler.default_act(ckpt, qc)
    if hinted:
        return hinted
    cfg = ckpt.text_config()
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or ckpt.config.get("torch_dtype")
                or "bfloat16").replace("torch.", "")
    return {"float16": "f16", "half": "f16", "bfloat16": "bf16"}.get(dtype, "bf16")


def _write_rows(writer, tensor, chunk_bytes):
    rows = tensor.rows
    per_row = max(1, tensor.row_bytes, _nbytes(tensor.dtype, tensor.shape[1:]))
    step = max(1, chunk_bytes // per_row)
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        data = tensor.chunk(r0, r1)
        expected = (r1 - r0,) + tuple(tensor.shape[1:]) if tensor.shape else ()
        if tuple(data.shape) != expected and not (len(tensor.shape) == 1 and data.size == r1 - r0):
            raise CheckpointError(f"{tensor.name}: produced rows of shape {list(data.shape)}, "
                                  f"expected {list(expected)}")
        writer.write(tensor.name, data)


def _copy(writer, ckpt, info, chunk_bytes):
    array = ckpt.get(info.name)
    if array.ndim == 0 or array.size == 0:
        if array.size:
            writer.write(info.name, array.reshape(1))
        return
    per_row = max(1, array.nbytes // array.shape[0])
    step = max(1, chunk_bytes // per_row)
    for r0 in range(0, array.shape[0], step):
        writer.write(info.name, array[r0:r0 + step])


def open_imported(directory, prefix=None):
    """An imported directory: (manifest, weights) where weights(module)
    returns {operand: numpy array} of one linear (bit patterns for bf16 and
    fp8 tensors) and its qmat.Layer."""
    return ImportedCheckpoint(directory, prefix)


class ImportedCheckpoint:
    """Reads what import_checkpoint wrote: `manifest`, `layer(name)`,
    `linear(module)` -> (qmat.Layer, {operand: numpy array})."""

    def __init__(self, directory, prefix=None):
        from .safetensors_io import SafetensorsFile
        self.directory = os.path.abspath(os.fspath(directory))
        if prefix is None:
            found = [n for n in os.listdir(self.directory) if n.endswith(".checkpoint.json")]
            if len(found) != 1:
                raise CheckpointError(f"{self.directory}: expected one *.checkpoint.json, found "
                                      f"{', '.join(found) or 'none'}")
            prefix = found[0][:-len(".checkpoint.json")]
        with open(os.path.join(self.directory, f"{prefix}.checkpoint.json"),
                  encoding="utf-8") as f:
            self.manifest = json.load(f)
        self.files = {name: SafetensorsFile(os.path.join(self.directory, name))
                      for name in self.manifest["weights"]}
        self.layers = {entry["name"]: Layer(entry["name"], entry["scheme"], entry["n"],
                                            entry["k"], block=entry["block"], act=entry["act"],
                                            bias=entry["bias"], zero_points=entry["zero_points"])
                       for entry in self.manifest["layers"]}

    def layer(self, name):
        return self.layers[name]

    def linear(self, module, rank=0):
        """(qmat.Layer, {operand: array}) of a linear, as stored: the codes
        in the prepared layout where prepared(module); of a tensor-parallel
        import, `rank`'s shard (reduce_bias(module) holds a row-parallel
        layer's bias)."""
        entry = self.manifest["linears"][module]
        f = self.files[entry["files"][rank] if "files" in entry else entry["file"]]
        tensors = {op: f.get(name) for op, name in entry["tensors"].items()}
        return self.layers[entry["layer"]], tensors

    def prepared(self, module):
        """Whether the import wrote `module`'s codes in the prepared layout
        (--prepared-weights; the manifest's "prepared_weights"), which only
        a bundle layer compiled for that layout runs
        (qmat.checkpoint.check_prepared)."""
        return bool(self.manifest["linears"][module].get("prepared_weights", False))

    def reduce_bias(self, module):
        """The bias a row-parallel linear adds once after the sum over
        ranks (stored with rank 0), or None."""
        entry = self.manifest["linears"][module]
        if "reduce_bias" not in entry:
            return None
        return self.files[entry["files"][0]].get(entry["reduce_bias"])

    def tensor(self, name):
        for f in self.files.values():
            if name in f.tensors:
                return f.get(name)
        raise KeyError(name)
