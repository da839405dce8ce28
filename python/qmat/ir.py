"""Text emission of qmat IR for layers and dequantization variants."""

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


def dequantize_func(name, scheme, k, block, act, kernel=None, decode=None,
                    zero_points=False, emit_c_interface=False):
    """A func.func holding one qmat.dequantize of a [?, K] weight."""
    wt, st, zt = operand_types(scheme, k, block, act)
    args, extras = [f"%w: {wt}", f"%s: {st}"], ""
    if scheme == "nvfp4":
        args.append("%g: memref<f32>")
        extras += " global_scale(%g : memref<f32>)"
    if zero_points:
        if scheme != "int4":
            raise ValueError("zero points exist only for int4")
        args.append(f"%zp: {zt}")
        extras += f" zero_points(%zp : {zt})"
    out = f"memref<?x{k}x{act}>"
    args.append(f"%out: {out}")
    attrs = " attributes {llvm.emit_c_interface}" if emit_c_interface else ""
    choices = (f" kernel = {kernel}" if kernel else "") + (f" decode = {decode}" if decode else "")
    return (f"func.func @{name}({', '.join(args)}){attrs} {{\n"
            f"  qmat.dequantize <{scheme}, block = {block}> ins(%w, %s : {wt}, {st}){extras}\n"
            f"      outs(%out : {out}){choices}\n"
            f"  return\n}}\n")
