"""Text emission of qmat IR for layers and dequantization variants.

These helpers write the textual form that examples/qwen-like-27b-nvfp4.mlir
uses; they check only what they need to spell the types. qmat.Layer does the
user-facing validation before calling them.
"""

# Scale element type per scheme; int4 scales have the activation type.
SCALE_ELEMENT = {"nvfp4": "f8E4M3FN", "mxfp4": "f8E8M0FNU", "fp8": "f32"}
SCHEMES = ("nvfp4", "mxfp4", "fp8", "int4")
ACTIVATIONS = ("f16", "bf16")


def operand_types(scheme, k, block, act, rows="?"):
    """The memref types of weights, scales and zero points for one layer."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r} (expected one of {SCHEMES})")
    if act not in ACTIVATIONS:
        raise ValueError(f"unknown activation type {act!r} (expected f16 or bf16)")
    packed = scheme != "fp8"
    if packed and k % 2:
        raise ValueError(f"{scheme} packs two codes per byte: K must be even, got {k}")
    blocks = -(-k // block)
    weights = f"memref<{rows}x{k // 2}xi8>" if packed else f"memref<{rows}x{k}xf8E4M3FN>"
    scales = f"memref<{rows}x{blocks}x{SCALE_ELEMENT.get(scheme, act)}>"
    zero_points = f"memref<{rows}x{-(-blocks // 2)}xi8>"
    return weights, scales, zero_points


def _optional_operands(scheme, zero_points, zp_type, bias_type=None):
    """(extra function arguments, extra op clauses) in the op's clause order:
    global_scale, zero_points, bias."""
    args, clauses = [], ""
    if scheme == "nvfp4":
        args.append("%g: memref<f32>")
        clauses += " global_scale(%g : memref<f32>)"
    if zero_points:
        if scheme != "int4":
            raise ValueError("zero points exist only for int4")
        args.append(f"%zp: {zp_type}")
        clauses += f" zero_points(%zp : {zp_type})"
    if bias_type:
        args.append(f"%b: {bias_type}")
        clauses += f" bias(%b : {bias_type})"
    return args, clauses


def _signature(name, args, attrs=""):
    """`func.func @name(` with one argument per line after the first few, so
    that large layers stay readable."""
    head = f"func.func @{name}("
    lines, line = [], head
    for i, arg in enumerate(args):
        piece = arg + (", " if i + 1 < len(args) else "")
        if line != head and len(line) + len(piece) > 88:
            lines.append(line.rstrip())
            line = " " * len(head)
        line += piece
    lines.append(line)
    return "\n".join(lines) + f"){attrs} {{\n"


def matmul_func(name, scheme, n, k, block, act, bias=False, zero_points=False, comment=None):
    """A func.func holding one qmat.matmul layer: Y[?, N] = A[?, K] · Wᵀ."""
    wt, st, zt = operand_types(scheme, k, block, act, rows=n)
    a_type, y_type = f"memref<?x{k}x{act}>", f"memref<?x{n}x{act}>"
    extra_args, clauses = _optional_operands(scheme, zero_points, zt,
                                             f"memref<{n}x{act}>" if bias else None)
    args = [f"%a: {a_type}", f"%w: {wt}", f"%s: {st}"] + extra_args + [f"%y: {y_type}"]
    text = "".join(f"// {line}\n" for line in (comment.splitlines() if comment else []))
    return (text + _signature(name, args)
            + f"  qmat.matmul <{scheme}, block = {block}>\n"
            f"      ins(%a, %w, %s : {a_type}, {wt}, {st})\n"
            f"     {clauses} outs(%y : {y_type})\n"
            f"  return\n}}\n")


def dequantize_func(name, scheme, k, block, act, kernel=None, decode=None,
                    zero_points=False, emit_c_interface=False, prepared=False):
    """A func.func holding one qmat.dequantize of a [?, K] weight (codes in
    the prepared layout with `prepared`)."""
    wt, st, zt = operand_types(scheme, k, block, act)
    extra_args, extras = _optional_operands(scheme, zero_points, zt)
    out = f"memref<?x{k}x{act}>"
    args = [f"%w: {wt}", f"%s: {st}"] + extra_args + [f"%out: {out}"]
    attrs = " attributes {llvm.emit_c_interface}" if emit_c_interface else ""
    choices = ((f" kernel = {kernel}" if kernel else "") + (f" decode = {decode}" if decode else "")
               + (" prepared_weights" if prepared else ""))
    return (f"func.func @{name}({', '.join(args)}){attrs} {{\n"
            f"  qmat.dequantize <{scheme}, block = {block}> ins(%w, %s : {wt}, {st}){extras}\n"
            f"      outs(%out : {out}){choices}\n"
            f"  return\n}}\n")
