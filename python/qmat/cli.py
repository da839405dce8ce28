"""The qmat command line: `qmat import CHECKPOINT -o OUT` (also
`python -m qmat import ...`)."""
import argparse
import sys

from .errors import QMatError

_SIZE_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1000, "KIB": 1 << 10, "M": 1 << 20,
               "MB": 1000 ** 2, "MIB": 1 << 20, "G": 1 << 30, "GB": 1000 ** 3, "GIB": 1 << 30}


def _size(text):
    number = text.strip().upper()
    unit = number.lstrip("0123456789.")
    value = number[:len(number) - len(unit)]
    if unit not in _SIZE_UNITS or not value:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 4GiB, 500MB)")
    size = int(float(value) * _SIZE_UNITS[unit])
    if size <= 0:
        raise argparse.ArgumentTypeError(f"size must be positive: {text!r}")
    return size


def _parts(text):
    """LAYER=NAME:ROWS[:HEADS[:replicate]],... -> (LAYER, (Part, ...))."""
    from .shard import Part
    layer, sep, spec = text.partition("=")
    usage = (f"not a parts spec: {text!r} (LAYER=NAME:ROWS[:HEADS[:replicate]],..., e.g. "
             f"qkv_proj=q:4096:32,k:1024:8:replicate,v:1024:8:replicate)")
    if not sep or not layer or not spec:
        raise argparse.ArgumentTypeError(usage)
    parts = []
    for item in spec.split(","):
        fields = item.split(":")
        if len(fields) not in (2, 3, 4) or not fields[0] or \
                not all(f.isdigit() and int(f) > 0 for f in fields[1:3]) or \
                (len(fields) == 4 and fields[3] != "replicate"):
            raise argparse.ArgumentTypeError(usage)
        parts.append(Part(fields[0], int(fields[1]),
                          heads=int(fields[2]) if len(fields) > 2 else None,
                          replicate=len(fields) == 4))
    return layer, tuple(parts)


def _parser():
    parser = argparse.ArgumentParser(prog="qmat", description="qmat's command-line tools.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    imp = commands.add_parser(
        "import", help="import a quantized Hugging Face checkpoint",
        description="Reads a quantized Hugging Face checkpoint directory (ModelOpt NVFP4, "
                    "compressed-tensors nvfp4-pack-quantized / mxfp4-pack-quantized / "
                    "pack-quantized, GPTQ, AWQ, block-scaled FP8, gpt-oss MXFP4 experts) or an "
                    "ONNX model with MatMulNBits nodes and writes the qmat module, its bundle, "
                    "the weights in qmat's layout and a manifest (docs/checkpoints.md).")
    imp.add_argument("checkpoint", help="the checkpoint directory (config.json, *.safetensors), "
                                        "or an .onnx model with MatMulNBits nodes")
    imp.add_argument("-o", "--output", required=True, help="the output directory")
    imp.add_argument("--target", default="sm_90",
                     help="comma-separated GPU targets of the bundle (default sm_90)")
    imp.add_argument("--act", choices=("bf16", "f16"),
                     help="activation type (default: the int4 scales' dtype, else config.json's "
                          "torch_dtype)")
    imp.add_argument("--prefix", default="model",
                     help="name of the module, bundle and weight files (a C identifier)")
    imp.add_argument("--format", choices=("modelopt", "compressed-tensors", "gptq", "awq", "fp8",
                                             "mxfp4", "onnx"),
                     help="the checkpoint's format (detected from its configs by default)")
    imp.add_argument("--no-bundle", action="store_true",
                     help="write the module, weights and manifest but do not run qmat-aot")
    imp.add_argument("--no-config-check", action="store_true",
                     help="do not compare the linear shapes with config.json")
    imp.add_argument("--no-unquantized", action="store_true",
                     help="leave out the tensors that are not quantized linears (embeddings, "
                          "norms, ...)")
    imp.add_argument("--max-shard-size", type=_size, default=4 << 30,
                     help="largest weight file before sharding (default 4GiB)")
    imp.add_argument("--emit-ptx", action="store_true", help="also embed PTX in the bundle")
    imp.add_argument("--prepared-weights", nargs="?", const="import",
                     choices=("import", "load"), metavar="WHEN",
                     help="compile the bundle for the prepared code layout. WHEN the codes are "
                          "prepared: 'import' (the default) writes them prepared, by the "
                          "bundle's launcher, which the import builds (the CUDA toolkit and a "
                          "C++ compiler are needed), so nothing is converted at load; 'load' "
                          "(--prepared-weights=load) writes them in the checkpoint layout, for "
                          "the loader to prepare (weight files other tools read as they are, or "
                          "no CUDA toolkit where the import runs)")
    imp.add_argument("--qmat-aot", help="the qmat-aot executable (default: found as qmat.compile "
                                        "finds it)")
    imp.add_argument("--tp", type=int, default=1,
                     help="tensor-parallel degree: write rank<r>/ weight files of each rank's "
                          "shard (q/k/v/gate/up/lm_head column-parallel, o/down row-parallel, "
                          "anything else replicated; a fused gate_up_proj or qkv_proj is split "
                          "part by part, in whole heads, from config.json)")
    imp.add_argument("--parts", type=_parts, action="append", metavar="LAYER=PARTS",
                     help="with --tp: the parts stacked along N of a fused column-parallel "
                          "layer, where config.json does not give them: LAYER (a module's "
                          "name, or a last name such as qkv_proj for every layer) = "
                          "NAME:ROWS[:HEADS[:replicate]],... (whole heads per rank; "
                          "'replicate': heads fewer than --tp are copied, as kv heads); "
                          "repeatable")
    imp.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command != "import":
        parser.print_help(sys.stderr)
        return 2
    from .checkpoint import import_checkpoint
    try:
        result = import_checkpoint(
            args.checkpoint, args.output, targets=args.target, act=args.act, prefix=args.prefix,
            bundle=not args.no_bundle, format=args.format, check_config=not args.no_config_check,
            include_unquantized=not args.no_unquantized, max_shard_bytes=args.max_shard_size,
            quiet=args.quiet, qmat_aot=args.qmat_aot, emit_ptx=args.emit_ptx,
            prepared_weights={None: False, "import": True, "load": "load"}[
                args.prepared_weights], tp=args.tp,
            parts=dict(args.parts) if args.parts else None)
    except QMatError as e:
        sys.stderr.write(f"qmat import: error: {e}\n")
        return 1
    print(result.manifest_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
