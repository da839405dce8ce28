"""Which modules of a model an import replaces, on which bundle layer each
runs, and where every other parameter is read from: the torch-independent
half of qmat.torch.replace_linear and load_model (docs/python.md).

The model is described by plain values (ModuleSpec per module name, and
(names, shape, floating) per parameter), so that every check and message
here can be tested without torch."""
import dataclasses
import os

from ..errors import ArgumentError, DTypeError
from .errors import CheckpointError, MissingTensorError, ShapeError
from .importer import ImportedCheckpoint, natural_key
from .experts import FORMS, GPT_OSS, checkpoint_spellings, model_spellings
from .gpt_oss import NAME
from .source import Checkpoint

# safetensors dtype -> the element type names of qmat.launcher.operand_specs
_OPERAND_DTYPE = {"U8": "uint8", "I8": "int8", "F8_E4M3": "float8_e4m3fn",
                  "F8_E8M0": "float8_e8m0fnu", "F16": "float16", "BF16": "bfloat16",
                  "F32": "float32"}
FLOATING = ("F16", "BF16", "F32", "F64")
_LAYER_FIELDS = ("scheme", "n", "k", "block", "act", "bias", "zero_points")


@dataclasses.dataclass(frozen=True)
class ModuleSpec:
    """One module of the model: its class name and, for a torch.nn.Linear,
    its features and whether it has a bias (in_features None otherwise);
    for an experts module (all experts of a layer in 3-D parameters, as
    transformers' GptOssExperts or Qwen3MoeExperts), `experts` = (experts,
    hidden size, intermediate size) and `experts_form` the name of its
    qmat.checkpoint.experts form ("gpt-oss" or "swiglu")."""
    type: str
    in_features: int = None
    out_features: int = None
    bias: bool = False
    experts: tuple = None
    experts_form: str = "gpt-oss"

    @property
    def is_linear(self):
        return self.in_features is not None


@dataclasses.dataclass(frozen=True)
class LinearPlacement:
    """A model linear that becomes a QuantLinear: the bundle `layer` it runs
    on (the import's `import_layer`, or a bundle layer of the same
    description under another name), its weight file (as the manifest names
    it), its tensors (launcher operand -> tensor name) and whether the
    import wrote its codes in the prepared layout (`prepared`: the
    QuantLinear takes them as they are). An expert placed in the model's
    experts module has `expert` = (that module, expert index, the form's
    projection name); `module` is then the import's name for the expert's
    linear."""
    module: str
    layer: str
    import_layer: str
    file: str
    tensors: dict
    prepared: bool = False
    expert: tuple = None


def check_prepared(module, prepared, info):
    """Refuses to run `module`, whose imported codes are in the prepared
    layout when `prepared`, on the bundle layer `info` (a LayerInfo) when
    that layer reads the checkpoint's layout: nothing can convert them for
    it. Codes in the checkpoint layout suit every layer (a prepared one
    prepares them at load)."""
    if prepared and not info.prepared_weights:
        raise ArgumentError(
            f"{module}: the import holds its codes in the prepared layout (imported with "
            f"--prepared-weights), but the bundle's layer {info.name} reads the checkpoint "
            f"layout (compiled without --prepared-weights): run it on a bundle compiled with "
            f"--prepared-weights, such as the import's own, or import without "
            f"--prepared-weights")


@dataclasses.dataclass(frozen=True)
class ParameterSource:
    """Where a parameter (all its tied names) is read from."""
    names: tuple
    tensor: str
    path: str
    dtype: str
    shape: tuple


def open_import(imported):
    """An ImportedCheckpoint from a directory, an ImportResult or itself."""
    if isinstance(imported, ImportedCheckpoint):
        return imported
    directory = getattr(imported, "directory", None)
    if directory is not None and getattr(imported, "manifest", None) is not None:
        return ImportedCheckpoint(directory, imported.manifest["prefix"])
    return ImportedCheckpoint(imported)


def describe_layer(layer):
    """'nvfp4 N = 4096, K = 4096, block 16, bf16' (+ ', bias', ', zero points')
    for a manifest layer (dict) or a LayerInfo."""
    get = layer.get if isinstance(layer, dict) else lambda f: getattr(layer, f)
    text = f"{get('scheme')} N = {get('n')}, K = {get('k')}, block {get('block')}, {get('act')}"
    if get("bias"):
        text += ", bias"
    return text + (", zero points" if get("zero_points") else "")


def _key(layer):
    get = layer.get if isinstance(layer, dict) else lambda f: getattr(layer, f)
    return tuple(get(f) for f in _LAYER_FIELDS)


def plan_linears(imported, modules, bundle_layers=None):
    """The LinearPlacement of every linear the import's manifest names, in
    the manifest's (natural) order, checked against the model's `modules`
    ({name: ModuleSpec}) and, when given, the bundle's layers (LayerInfo
    objects). Raises ArgumentError naming the module when the model has no
    such module, it is not a Linear, its features or bias differ from its
    layer, no bundle layer runs it, or its codes are prepared and its bundle
    layer reads the checkpoint layout (check_prepared); MissingTensorError /
    ArgumentError / DTypeError when a tensor is absent or does not fit the
    layer."""
    from ..bundle import LayerInfo
    from ..launcher import ACT_DTYPE_NAMES, check_operands

    imported = open_import(imported)
    manifest = imported.manifest
    tp = manifest.get("tp", 1)
    if tp != 1:
        raise ArgumentError(f"{imported.directory}: a tensor-parallel import (tp = {tp}); "
                            f"replace_linear and load_model take tp 1 imports")
    layers = {entry["name"]: entry for entry in manifest["layers"]}
    by_name = {l.name: l for l in bundle_layers} if bundle_layers is not None else None
    placements = []
    for module in sorted(manifest["linears"], key=natural_key):
        entry = manifest["linears"][module]
        name = entry["layer"]
        if name not in layers:
            raise CheckpointError(f"{module}: the manifest maps it to layer {name}, which its "
                                  f"layers list lacks")
        layer = layers[name]
        expert = _check_expert(module, entry, layer, modules)
        if expert is None:
            _check_module(module, name, layer, modules.get(module))
        runs_on = name if by_name is None else _bundle_layer(module, layer, by_name)
        prepared = bool(entry.get("prepared_weights", False))
        if by_name is not None:
            check_prepared(module, prepared, by_name[runs_on])
        file = entry["file"]
        handle = imported.files[file]
        info = LayerInfo(name=name, scheme=layer["scheme"], n=layer["n"], k=layer["k"],
                         block=layer["block"], act=layer["act"], bias=layer["bias"],
                         zero_points=layer["zero_points"], workspace_bytes=0, strategy={},
                         kernels={})
        act = ACT_DTYPE_NAMES[layer["act"]]
        described = {"a": ((0, info.k), act), "y": ((0, info.n), act)}
        for operand, tensor in entry["tensors"].items():
            if tensor not in handle.tensors:
                raise MissingTensorError(f"{module}: {tensor} ({operand}) is missing from {file}")
            t = handle.tensors[tensor]
            described[operand] = (t.shape, _OPERAND_DTYPE.get(t.dtype, t.dtype))
        try:
            check_operands(info, described, _describe_tensor)
        except ArgumentError as e:   # DTypeError too: the layer's rule, said of the module
            raise type(e)(f"{module}: {e}") from None
        placements.append(LinearPlacement(module, runs_on, name, file, dict(entry["tensors"]),
                                          prepared, expert))
    _check_experts_complete(placements, modules)
    return placements


def replaced_modules(placements):
    """The model modules the placements replace: each linear, and each
    experts module as a whole."""
    return {p.expert[0] if p.expert else p.module for p in placements}


def experts_placements(placements):
    """{experts module: {projection: placements in expert order}} (the
    form's projection names; plan_linears checked that every expert has
    every projection)."""
    grouped = {}
    for p in placements:
        if p.expert:
            container, index, projection = p.expert
            grouped.setdefault(container, {}).setdefault(projection, {})[index] = p
    return {container: {projection: [by[i] for i in sorted(by)]
                        for projection, by in parts.items()}
            for container, parts in grouped.items()}


def _describe_tensor(value):
    shape, dtype = value
    return tuple(shape), dtype, None, True


def _experts_module(parent, modules):
    """(name, ModuleSpec) of the model's module at the checkpoint's `parent`
    (or at its model spelling, qmat.checkpoint.experts.MODULE_RENAMES),
    (parent, None) when the model has none."""
    for name in [parent] + model_spellings(parent):
        if name in modules:
            return name, modules[name]
    return parent, None


def _check_expert(module, entry, layer, modules):
    """For an expert's linear of the import (<P>.<e>.<projection>) where the
    model has no torch.nn.Linear of that name: (P, e, projection) when the
    model's P (qmat.checkpoint.experts.MODULE_RENAMES applied) is an experts
    module (ModuleSpec.experts) whose form has that projection, that has
    expert e and whose projection has the layer's shape and bias;
    ArgumentError naming the module otherwise. A gpt-oss MXFP4 expert must
    find a gpt-oss experts module. None for every other linear."""
    spec = modules.get(module)
    if spec is not None and spec.is_linear:
        return None
    if module.count(".") < 2:
        return None
    gpt_oss = entry.get("format") == NAME
    parent, index, stored = module.rsplit(".", 2)
    container, owner = _experts_module(parent, modules)
    form = FORMS[owner.experts_form] if owner is not None and owner.experts else None
    if gpt_oss and (form is not GPT_OSS or stored not in form.projections):
        found = f" (the model's {container} is a {owner.type})" if owner is not None else ""
        raise ArgumentError(
            f"{module}: the import holds it as gpt-oss MXFP4 expert "
            f"{entry.get('notes', {}).get('expert', index)} of {parent}, but the model has "
            f"neither a torch.nn.Linear of that name nor a gpt-oss experts module at "
            f"{parent}{found}")
    if not gpt_oss and (form is None or form is GPT_OSS or stored not in form.projections):
        return None   # not an expert: _check_module says what the model lacks
    projection = form.projections[stored]
    experts, hidden, intermediate = owner.experts
    n, k = form.shape(projection, hidden, intermediate)
    if not index.isdigit() or int(index) >= experts:
        raise ArgumentError(f"{module}: the model's {container} ({owner.type}) has {experts} "
                            f"experts, not an expert {index}")
    if (layer["n"], layer["k"]) != (n, k) or bool(layer["bias"]) != form.bias:
        named = stored if stored == projection else f"{stored} ({projection})"
        raise ArgumentError(
            f"{module}: the model's {container} ({owner.type}, hidden size {hidden}, "
            f"intermediate size {intermediate}) multiplies {named} as N = {n}, K = {k} "
            f"{'with' if form.bias else 'without'} a bias; its layer {layer['name']} is "
            f"{describe_layer(layer)}")
    return container, int(index), projection


def _check_experts_complete(placements, modules):
    """Every expert of a replaced experts module has every projection of
    its form."""
    found = {}
    for p in placements:
        if p.expert:
            found.setdefault(p.expert[0], set()).add(p.expert[1:])
    for container, have in found.items():
        spec = modules[container]
        order = FORMS[spec.experts_form].order
        experts = spec.experts[0]
        missing = [f"{e}.{projection}" for e in range(experts) for projection in order
                   if (e, projection) not in have]
        if missing:
            raise ArgumentError(
                f"{container}: the import holds {len(have)} of the {len(order) * experts} expert "
                f"projections of this {spec.type}; it replaces the module as a whole, and these "
                f"are missing: {', '.join(f'{container}.{m}' for m in missing)}")


def _check_module(module, name, layer, spec):
    if spec is None:
        raise ArgumentError(f"{module}: the import maps it to layer {name}, but the model has "
                            f"no module of that name")
    if not spec.is_linear:
        raise ArgumentError(f"{module}: the import maps it to layer {name}, but the model's "
                            f"module is a {spec.type}, not a torch.nn.Linear")
    if (spec.in_features, spec.out_features) != (layer["k"], layer["n"]):
        raise ArgumentError(f"{module}: the model's {spec.type} has in_features "
                            f"{spec.in_features}, out_features {spec.out_features}; its layer "
                            f"{name} has K = {layer['k']}, N = {layer['n']}")
    if spec.bias and not layer["bias"]:
        raise ArgumentError(f"{module}: the model's {spec.type} has a bias, its layer {name} "
                            f"has none")
    if layer["bias"] and not spec.bias:
        raise ArgumentError(f"{module}: its layer {name} has a bias, the model's {spec.type} "
                            f"has none")


def _bundle_layer(module, layer, by_name):
    """The bundle layer that runs the import's `layer`: the one of its name,
    else the first of the same description."""
    name = layer["name"]
    own = by_name.get(name)
    if own is not None:
        if _key(own) != _key(layer):
            raise ArgumentError(f"{module}: the bundle's layer {name} is {describe_layer(own)}, "
                                f"the import's {describe_layer(layer)}")
        return name
    for info in by_name.values():
        if _key(info) == _key(layer):
            return info.name
    listed = "; ".join(f"{n} ({describe_layer(l)})" for n, l in by_name.items()) or "none"
    raise ArgumentError(f"{module}: no layer of the bundle runs its layer {name} "
                        f"({describe_layer(layer)}); the bundle's layers: {listed}")


def tensor_sources(imported, checkpoint=None):
    """[(label, {name: TensorInfo})] in the order parameters are looked up:
    the import's weight files (the unquantized tensors it copied), then the
    checkpoint (`checkpoint`, default the manifest's source directory, when
    it still exists and holds safetensors)."""
    imported = open_import(imported)
    files = {}
    for handle in imported.files.values():
        files.update(handle.tensors)
    label = f"the import {imported.directory} ({', '.join(imported.files)})"
    sources = [(label, files)]
    directory = checkpoint if checkpoint is not None else \
        imported.manifest.get("source", {}).get("directory")
    if directory and os.path.isdir(directory):
        try:
            ckpt = Checkpoint(directory)
        except CheckpointError:
            if checkpoint is not None:
                raise
        else:
            sources.append((f"the checkpoint {ckpt.directory}", ckpt.tensors))
    return sources


def plan_parameters(parameters, sources, replaced=()):
    """The ParameterSource of every parameter that stays in the model.

    `parameters`: (names, shape, floating) per parameter or persistent
    buffer, `names` all its (tied) names; names under a `replaced` module
    are dropped, and a parameter with no name left is skipped. Each is read
    from the first source (tensor_sources) holding one of its names, else
    one of their checkpoint spellings (qmat.checkpoint.experts). Raises
    MissingTensorError when none does, ShapeError when the shape differs,
    DTypeError when a floating-point parameter would be read from a tensor
    that is not floating-point."""
    prefixes = tuple(f"{m}." for m in replaced)
    planned = []
    for names, shape, floating in parameters:
        kept = tuple(n for n in names if not n.startswith(prefixes))
        if not kept:
            continue
        found = None
        spellings = list(kept) + [c for n in kept for c in checkpoint_spellings(n)]
        for _, tensors in sources:
            found = next((tensors[n] for n in spellings if n in tensors), None)
            if found is not None:
                break
        if found is None:
            where = " or ".join(label for label, _ in sources)
            owner = kept[0].rsplit(".", 1)[0] if "." in kept[0] else "the model"
            raise MissingTensorError(f"{kept[0]} (of {owner}): no such tensor in {where}")
        if tuple(found.shape) != tuple(shape):
            raise ShapeError(f"{kept[0]}: {found.name} in {found.path} is {found.dtype} "
                             f"{list(found.shape)}, the model's parameter has shape {list(shape)}")
        if floating and found.dtype not in FLOATING:
            raise DTypeError(f"{kept[0]}: {found.name} in {found.path} is {found.dtype}, not a "
                             f"floating-point type like the model's parameter")
        planned.append(ParameterSource(kept, found.name, found.path, found.dtype,
                                       tuple(found.shape)))
    return planned
