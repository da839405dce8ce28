"""Transformers models whose quantized linears are qmat QuantLinear modules:
replace_linear(model, imported) and load_model(path) (docs/python.md).

What is replaced, by which bundle layer, and where every other parameter is
read from is planned without torch (qmat.checkpoint.replace); this module
describes the model to the plan and carries it out."""
import contextlib
import json
import os
import warnings

import numpy as np
import torch

from . import torch_reference
from .checkpoint.importer import import_checkpoint
from .checkpoint.replace import (ModuleSpec, experts_placements, open_import, plan_linears,
                                 plan_parameters, replaced_modules, tensor_sources)
from .errors import ArgumentError
from .launcher import load_library
from .torch import QuantLinear
from .torch_experts import QuantGptOssExperts, QuantSwiGluExperts

_ACT = {"bf16": torch.bfloat16, "f16": torch.float16}
_STORED = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32,
           "F64": torch.float64}


def module_specs(model):
    """{name: ModuleSpec} for every module of `model` (the root excluded)."""
    specs = {}
    for name, module in model.named_modules():
        if not name:
            continue
        if isinstance(module, torch.nn.Linear):
            specs[name] = ModuleSpec(type(module).__name__, module.in_features,
                                     module.out_features, module.bias is not None)
        elif _is_gptoss_experts(module):
            intermediate = getattr(module, "intermediate_size", None) or module.expert_dim
            specs[name] = ModuleSpec(type(module).__name__,
                                     experts=(module.num_experts, module.hidden_size,
                                              intermediate))
        elif _is_swiglu_experts(module):
            experts, rows, hidden = module.gate_up_proj.shape
            specs[name] = ModuleSpec(type(module).__name__, experts=(experts, hidden, rows // 2),
                                     experts_form="swiglu")
        else:
            specs[name] = ModuleSpec(type(module).__name__)
    return specs


def _is_gptoss_experts(module):
    """transformers' GptOssExperts (all experts of a layer in 3-D
    parameters), or a module of its attributes."""
    return (type(module).__name__ == "GptOssExperts"
            or all(hasattr(module, a) for a in ("gate_up_proj", "down_proj", "num_experts",
                                                 "hidden_size", "alpha", "limit")))


def _is_swiglu_experts(module):
    """An experts module of transformers 5 in the SwiGLU form (Qwen3MoeExperts,
    MixtralExperts, DeepseekV3Experts, ...): gate_up_proj [E, 2I, H] (gate
    rows, then up rows), down_proj [E, H, I], act_fn, no bias, not
    transposed."""
    gate_up, down = (getattr(module, a, None) for a in ("gate_up_proj", "down_proj"))
    if not isinstance(gate_up, torch.Tensor) or not isinstance(down, torch.Tensor):
        return False
    if gate_up.dim() != 3 or down.dim() != 3 or not hasattr(module, "act_fn"):
        return False
    if getattr(module, "is_transposed", False) or getattr(module, "has_bias", False) \
            or not getattr(module, "has_gate", True):
        return False
    experts, rows, hidden = gate_up.shape
    return rows % 2 == 0 and tuple(down.shape) == (experts, hidden, rows // 2)


def replace_linear(model, imported, *, library=None, device=None):
    """Replaces, in place, every linear of `model` that the import's
    manifest names with a QuantLinear on its bundle layer, holding the
    import's tensors, and returns `model`. A gpt-oss experts module
    (transformers' GptOssExperts) whose experts the import holds becomes a
    QuantGptOssExperts with a QuantLinear per expert and projection.

    `imported`: an import's output directory (qmat.import_checkpoint /
    `qmat import`), its ImportResult or ImportedCheckpoint. `library`: the
    bundle that runs the layers (a directory, qmat.Bundle or loaded
    library; default the import's own bundle/); a bundle layer of another
    name but the same description also serves. `device`: a CUDA device
    (default the current one). The plan is checked for every module before
    anything is replaced (qmat.checkpoint.plan_linears gives the errors)."""
    imported = open_import(imported)
    library = _library(imported, library)
    placements = plan_linears(imported, module_specs(model), library.layers)
    _set_quantized(model, imported, placements, library, device)
    return model


def _set_quantized(model, imported, placements, library, device):
    for placement in placements:
        if not placement.expert:
            _set_module(model, placement.module,
                        _quant_linear(imported, placement, library, device))
    for container, parts in experts_placements(placements).items():
        original = model.get_submodule(container)
        linears = {projection: [_quant_linear(imported, p, library, device) for p in part]
                   for projection, part in parts.items()}
        if "gate_up_proj" in linears:
            module = QuantGptOssExperts(
                linears["gate_up_proj"], linears["down_proj"],
                alpha=getattr(original, "alpha", 1.702), limit=getattr(original, "limit", 7.0))
        else:
            module = QuantSwiGluExperts(linears["gate_proj"], linears["up_proj"],
                                        linears["down_proj"], original.act_fn)
        _set_module(model, container, module)


def load_model(path, *, imported=None, library=None, config=None, device="cuda", dtype=None,
               model_class=None, dequantize=False):
    """A transformers model for a quantized checkpoint, its quantized
    linears QuantLinear modules and everything else in `dtype`.

    `path`: an import's output directory, or the checkpoint directory
    itself with `imported` naming its import (a directory: imported into
    it first, with a bundle unless `library` is given, when it holds no
    manifest yet). The model is built from config.json (`config`: a
    directory, a config.json path or a PretrainedConfig; default the
    checkpoint's) by `model_class` (default AutoModelForCausalLM) with its
    parameters on the meta device, so that no dense copy of a quantized
    weight is ever made; its quantized linears are replaced (replace_linear)
    and every other parameter is read from the import's copy of the
    checkpoint's unquantized tensors, else the checkpoint. `dtype` defaults
    to the import's activation type. `dequantize=True` builds the same
    model with torch.nn.Linear layers holding the reference-dequantized
    weights instead (qmat.reference's, bit for bit what the kernels use,
    computed on `device` by qmat.torch_reference), the dense model to
    compare against; it needs no bundle, except for an
    import whose codes are prepared (--prepared-weights), which its
    launcher restores to the checkpoint layout first.

    Codes the import wrote prepared are used as they are, on bundle layers
    compiled for the prepared layout; a bundle layer that reads the
    checkpoint layout is refused for them, naming the module
    (qmat.checkpoint.check_prepared)."""
    checkpoint = None
    if imported is not None:
        checkpoint = os.fspath(path)
        if not _is_import(imported):
            import_checkpoint(checkpoint, imported, bundle=library is None and not dequantize,
                              quiet=True)
    elif _is_import(path):
        imported = path
    else:
        raise ArgumentError(f"{os.fspath(path)}: not an import (no *.checkpoint.json); pass "
                            f"imported=DIR to load a checkpoint through its import in DIR")
    imported = open_import(imported)
    act = imported.manifest["act"]
    dtype = _ACT[act] if dtype is None else dtype
    if not dequantize and dtype != _ACT[act]:
        raise ArgumentError(f"{imported.directory}: the import's activation type is {act}, the "
                            f"model's dtype {dtype}: the QuantLinear layers take {_ACT[act]}")
    device = torch.device(device)
    source = checkpoint or imported.manifest["source"]["directory"]
    config = _config(config, source, imported.directory, dtype)
    if model_class is None:
        import transformers
        model_class = transformers.AutoModelForCausalLM
    with _parameters_on_meta():
        model = model_class.from_config(config)
    model.eval()
    if dequantize:
        lib = None
        if any(entry.get("prepared_weights") for entry in imported.manifest["linears"].values()):
            # Codes imported prepared: the bundle's launcher restores the
            # checkpoint layout (Library.checkpoint_weights).
            lib = _library(imported, library)
        placements = plan_linears(imported, module_specs(model),
                                  None if lib is None else lib.layers)
        for placement in placements:
            if not placement.expert:
                _set_dequantized(model, imported, placement, device, dtype, lib)
        for container, parts in experts_placements(placements).items():
            _set_dequantized_experts(model, imported, container, parts, device, dtype, lib)
    else:
        lib = _library(imported, library)
        placements = plan_linears(imported, module_specs(model), lib.layers)
        _set_quantized(model, imported, placements, lib, device)
    replaced = replaced_modules(placements)
    _load_parameters(model, tensor_sources(imported, checkpoint), replaced, device, dtype)
    model.to(device)
    model.requires_grad_(False)
    _load_generation_config(model, source)
    return model


def _is_import(directory):
    directory = os.fspath(directory)
    return os.path.isdir(directory) and any(
        n.endswith(".checkpoint.json") for n in os.listdir(directory))


def _library(imported, library):
    if library is not None:
        return load_library(library)
    bundle = imported.manifest.get("bundle")
    if not bundle:
        raise ArgumentError(f"{imported.directory}: the import has no bundle (imported with "
                            f"bundle=False / --no-bundle): pass library= (a bundle directory, "
                            f"qmat.Bundle or loaded library)")
    return load_library(os.path.join(imported.directory, bundle["directory"]))


def _quant_linear(imported, placement, library, device):
    with warnings.catch_warnings():  # the map is read-only; the tensors are only copied
        warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
        arrays = _linear_arrays(imported, placement)
        return QuantLinear(library, placement.layer, arrays["weights"], arrays["scales"],
                           arrays.get("global_scale"), arrays.get("zero_points"),
                           arrays.get("bias"), device=device, prepared=placement.prepared)


def _linear_arrays(imported, placement):
    handle = imported.files[placement.file]
    return {op: handle.get(name) for op, name in placement.tensors.items()}


def _set_module(model, name, module):
    parent, _, leaf = name.rpartition(".")
    setattr(model.get_submodule(parent) if parent else model, leaf, module)


def _dequantized(imported, placement, device, library=None):
    """(weight, bias or None) of the placement: the reference dequantization
    of the import's tensors (qmat.torch_reference, bit for bit
    qmat.reference's) as a [N, K] tensor of the activation type on
    `device`. Prepared codes are first restored to the checkpoint layout by
    `library`."""
    layer = next(l for l in imported.manifest["layers"] if l["name"] == placement.import_layer)
    t = _linear_arrays(imported, placement)
    if placement.prepared:
        t["weights"] = library.checkpoint_weights(placement.layer, t["weights"])
    scales = t["scales"].view(np.uint16) if layer["scheme"] == "int4" else t["scales"]
    global_scale = float(t["global_scale"].reshape(-1)[0]) if "global_scale" in t else None
    weight = torch_reference.dequantize(
        layer["scheme"], t["weights"], scales, layer["k"], layer["act"], block=layer["block"],
        global_scale=global_scale, zero_points=t.get("zero_points"), device=device)
    bias = None
    if "bias" in t:
        bias = _as_torch(np.ascontiguousarray(t["bias"]), _ACT[layer["act"]])
    return weight, bias


def _set_dequantized(model, imported, placement, device, dtype, library=None):
    """The Linear's weight (and bias) from _dequantized."""
    weight, bias = _dequantized(imported, placement, device, library)
    linear = model.get_submodule(placement.module)
    linear.weight = torch.nn.Parameter(weight.to(device=device, dtype=dtype),
                                       requires_grad=False)
    if bias is not None:
        linear.bias = torch.nn.Parameter(bias.to(device=device, dtype=dtype),
                                         requires_grad=False)


def _set_dequantized_experts(model, imported, container, parts, device, dtype, library=None):
    """The experts module's 3-D parameters from _dequantized, expert by
    expert. GptOssExperts: gate_up_proj [E, H, 2I] and down_proj [E, I, H]
    hold W^T (its forward computes x @ W + b), the biases [E, 2I] and
    [E, H]. The SwiGLU form: gate_up_proj [E, 2I, H] holds W_gate over
    W_up, down_proj [E, H, I] W_down (its forward computes x W^T)."""
    experts = model.get_submodule(container)

    def stacked(placements, transposed):
        weights, biases = [], []
        for placement in placements:
            weight, bias = _dequantized(imported, placement, device, library)
            weights.append((weight.t() if transposed else weight).to(device=device, dtype=dtype))
            if bias is not None:
                biases.append(bias.to(device=device, dtype=dtype))
        return torch.stack(weights), torch.stack(biases) if biases else None

    def put(name, value):
        setattr(experts, name, torch.nn.Parameter(value, requires_grad=False))

    if "gate_up_proj" in parts:
        for projection in ("gate_up_proj", "down_proj"):
            weight, bias = stacked(parts[projection], transposed=True)
            put(projection, weight)
            put(projection + "_bias", bias)
        return
    gate, _ = stacked(parts["gate_proj"], transposed=False)
    up, _ = stacked(parts["up_proj"], transposed=False)
    put("gate_up_proj", torch.cat([gate, up], dim=1))
    put("down_proj", stacked(parts["down_proj"], transposed=False)[0])


def _as_torch(array, dtype):
    """A numpy array of a stored tensor (bf16 as uint16 bits) as a tensor."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
        if dtype == torch.bfloat16:
            return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(array)


def _parameter_groups(model, replaced):
    """[(names, shape, floating, owners, value)] per parameter (tied names
    together) and persistent buffer outside the `replaced` modules; owners
    are (module, attribute, kind)."""
    groups = {}
    for module_name, module in model.named_modules(remove_duplicate=False):
        if isinstance(module, QuantLinear) or module_name in replaced:
            continue
        prefix = f"{module_name}." if module_name else ""
        for attr, value in module._parameters.items():
            if value is not None:
                entry = groups.setdefault(id(value), ([], value, []))
                entry[0].append(prefix + attr)
                entry[2].append((module, attr, "parameter"))
        for attr, value in module._buffers.items():
            if value is not None and attr not in module._non_persistent_buffers_set:
                entry = groups.setdefault(id(value), ([], value, []))
                entry[0].append(prefix + attr)
                entry[2].append((module, attr, "buffer"))
    return [(tuple(names), tuple(value.shape), value.is_floating_point(), owners, value)
            for names, value, owners in groups.values()]


def _load_parameters(model, sources, replaced, device, dtype):
    """Every parameter and persistent buffer outside `replaced` from the
    plan's tensors, converted to `dtype` (floating point) on `device`; tied
    names get one Parameter again."""
    from .checkpoint.safetensors_io import SafetensorsFile
    groups = _parameter_groups(model, replaced)
    plan = plan_parameters([(names, shape, floating) for names, shape, floating, _, _ in groups],
                           sources, replaced)
    group_of = {name: group for group in groups for name in group[0]}
    files = {}
    for source in plan:
        _, _, floating, owners, old = group_of[source.names[0]]
        handle = files.get(source.path)
        if handle is None:
            handle = files[source.path] = SafetensorsFile(source.path)
        value = _as_torch(handle.get(source.tensor), _STORED.get(source.dtype)).to(
            device=device, dtype=dtype if floating else old.dtype, copy=True)
        param = torch.nn.Parameter(value, requires_grad=False)
        for module, attr, kind in owners:
            if kind == "parameter":
                module._parameters[attr] = param
            else:
                module._buffers[attr] = value
    left = [name for name, p in model.named_parameters() if p.device.type == "meta"]
    left += [name for name, b in model.named_buffers() if b.device.type == "meta"]
    if left:
        raise ArgumentError(f"the model's {', '.join(left)} have no value (on the meta device "
                            f"after loading)")


@contextlib.contextmanager
def _parameters_on_meta():
    """Parameters registered inside go to the meta device (their storage
    is never filled); buffers are made as usual, so that computed ones such
    as rotary frequencies keep their values."""
    original = torch.nn.Module.register_parameter

    def register(module, name, param):
        if param is not None and param.device.type != "meta":
            param = torch.nn.Parameter(param.to("meta"), requires_grad=param.requires_grad)
        original(module, name, param)

    torch.nn.Module.register_parameter = register
    try:
        yield
    finally:
        torch.nn.Module.register_parameter = original


def _config(config, source, import_dir, dtype):
    import transformers
    if config is None:
        config = source
        if not os.path.isfile(os.path.join(os.fspath(source), "config.json")):
            raise ArgumentError(f"{import_dir}: its checkpoint {source} has no config.json; "
                                f"pass config=")
    if not isinstance(config, transformers.PretrainedConfig):
        path = os.fspath(config)
        config = transformers.AutoConfig.from_pretrained(
            os.path.dirname(path) if os.path.isfile(path) else path)
    if getattr(config, "quantization_config", None) is not None:
        del config.quantization_config   # the linears are qmat's, not a transformers quantizer's
    if hasattr(config, "dtype"):
        config.dtype = dtype
    else:
        config.torch_dtype = dtype
    return config


def _load_generation_config(model, source):
    path = os.path.join(os.fspath(source), "generation_config.json")
    if os.path.isfile(path) and hasattr(model, "generation_config"):
        import transformers
        with open(path, encoding="utf-8") as f:
            model.generation_config = transformers.GenerationConfig.from_dict(json.load(f))
