"""qmat: block-quantized matmul code generation, from Python.

    import qmat
    layers = [qmat.Layer("qkv_proj", "nvfp4", n=6144, k=5120, act="bf16")]
    print(qmat.emit_module(layers))                  # the qmat IR
    bundle = qmat.compile(layers, targets=("sm_90",), out_dir="out")
    bundle.build_library()                           # out/libqmat.so

`qmat.reference` holds the numpy reference numerics and quantizers and
`qmat.torch` the torch integration (QuantLinear), `qmat.torch_parallel` its
tensor-parallel layers over torch.distributed (their plans, torch-free, in
`qmat.parallel`); all load on first use, so
`import qmat` needs neither numpy nor torch (the build imports qmat.ir with a
bare python3). The C++ core is driven through the qmat-aot executable: see
docs/python.md for why and how it is found.
"""
import importlib

from .bundle import KNOWN_TARGETS, Bundle, LayerInfo, compile, find_cuda
from .errors import (ArgumentError, DTypeError, LauncherError, QMatError, ShardError,
                     ToolError, ToolNotFoundError)
from .layers import DEFAULT_BLOCK, SCHEMES, Layer, Module, emit_module, load_mlir
from .tools import find_tool

__version__ = "0.1.0"

__all__ = [
    "ArgumentError", "Bundle", "DEFAULT_BLOCK", "DTypeError", "KNOWN_TARGETS", "LauncherError",
    "Layer", "LayerInfo", "Module", "QMatError", "SCHEMES", "ShardError", "ToolError", "ToolNotFoundError",
    "compile", "emit_module", "find_cuda", "find_tool", "import_checkpoint", "load_library",
    "load_mlir",
]

_LAZY_MODULES = ("reference", "torch", "launcher", "checkpoint", "shard", "parallel",
                 "torch_parallel", "torch_reference")


def import_checkpoint(checkpoint, out_dir, **options):
    """A quantized Hugging Face checkpoint directory into qmat's module,
    bundle, weights and manifest (qmat.checkpoint.import_checkpoint;
    docs/checkpoints.md)."""
    from .checkpoint import import_checkpoint as run
    return run(checkpoint, out_dir, **options)


def load_library(source, prefix=None):
    """A compiled launcher loaded with ctypes (see qmat.launcher.load_library)."""
    from .launcher import load_library as load
    return load(source, prefix)


def __getattr__(name):
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'qmat' has no attribute {name!r}")
