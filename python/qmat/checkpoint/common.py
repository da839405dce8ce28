"""What every format's importer shares: the plan of one linear layer, exact
conversions into qmat's operand types, u4 packing, and the config.json
shape rule."""
import dataclasses

import numpy as np

from .. import reference as ref
from .errors import InexactError, MissingTensorError, ShapeError, UnsupportedFormatError

ACT_DTYPE = {"f16": "F16", "bf16": "BF16"}


@dataclasses.dataclass
class OutTensor:
    """One tensor of the imported weights: `chunk(r0, r1)` returns its rows
    r0:r1 (the leading dimension) in the storage dtype."""
    name: str
    dtype: str
    shape: tuple
    chunk: object
    row_bytes: int = 0  # source bytes read per row, to size the chunks

    @property
    def rows(self):
        return self.shape[0] if self.shape else 1


@dataclasses.dataclass
class LinearPlan:
    """One model linear layer and how its qmat operands are made."""
    module: str
    format: str
    scheme: str
    n: int
    k: int
    block: int
    act: str
    bias: bool = False
    zero_points: bool = False
    outputs: dict = dataclasses.field(default_factory=dict)   # role -> OutTensor
    sources: list = dataclasses.field(default_factory=list)   # source tensors read
    ignored: list = dataclasses.field(default_factory=list)   # source tensors left out
    notes: dict = dataclasses.field(default_factory=dict)
    # A column-parallel split's parts (qmat.shard.Part), fixed by the format's row order
    # (gpt-oss' interleaved gate/up pairs); None: config.json's or import_checkpoint's parts=.
    parts: tuple = None

    def key(self):
        return (self.scheme, self.n, self.k, self.block, self.zero_points, self.act, self.bias)

    def add(self, role, dtype, shape, chunk, row_bytes=0):
        name = f"{self.module}.{role}"
        self.outputs[role] = OutTensor(name, dtype, tuple(shape), chunk, row_bytes)


def require(ckpt, name, dtypes=None, ndim=None, why=""):
    """The TensorInfo of `name`, which must exist (and have one of `dtypes`
    and `ndim` dimensions)."""
    if name not in ckpt:
        raise MissingTensorError(f"{name}: missing" + (f" ({why})" if why else ""))
    info = ckpt.info(name)
    if dtypes is not None and info.dtype not in dtypes:
        raise UnsupportedFormatError(f"{name}: dtype {info.dtype}, expected "
                                     f"{' or '.join(dtypes)}" + (f" ({why})" if why else ""))
    if ndim is not None and len(info.shape) != ndim:
        raise ShapeError(f"{name}: shape {list(info.shape)}, expected {ndim} dimensions"
                         + (f" ({why})" if why else ""))
    return info


def expect_shape(info, shape, rule):
    if tuple(info.shape) != tuple(shape):
        raise ShapeError(f"{info.name}: shape {list(info.shape)}, expected {list(shape)} ({rule})")


def to_float32(array, dtype):
    """float32 values of F16 / BF16 (bits) / F32 / F64 storage; F64 is
    returned as float64 (its exactness in float32 is checked separately)."""
    if dtype == "F16":
        return np.asarray(array).astype(np.float32)
    if dtype == "BF16":
        return (np.asarray(array, dtype=np.uint32) << 16).view(np.float32)
    if dtype == "F32":
        return np.asarray(array, dtype=np.float32)
    if dtype == "F64":
        return np.asarray(array, dtype=np.float64)
    raise ValueError(dtype)


def _same_bits(a32, b32):
    a32, b32 = np.asarray(a32, np.float32), np.asarray(b32, np.float32)
    return (a32.view(np.uint32) == b32.view(np.uint32)) | (np.isnan(a32) & np.isnan(b32))


def _first(mask):
    index = np.argwhere(mask)[0]
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def exact_float32(array, dtype, name, rule):
    """float32 of a float tensor, refusing an F64 value float32 cannot hold."""
    values = to_float32(array, dtype)
    if dtype == "F64":
        narrow = values.astype(np.float32)
        bad = ~((narrow.astype(np.float64) == values) | (np.isnan(values)))
        if bad.any():
            value = float(values[tuple(np.argwhere(bad)[0])])
            raise InexactError(f"{name}: F64 value {value!r} at {_first(bad)} is not exactly a "
                               f"float32 ({rule})")
        values = narrow
    return values


def to_act_bits(array, dtype, act, name, rule, offset=0):
    """Bits (uint16) of a float tensor in the activation type, refusing any
    value (sign of zero included) the activation type cannot hold exactly.
    `offset` is added to the reported row index (for row chunks)."""
    if ACT_DTYPE[act] == dtype:
        return np.array(array).view(np.uint16)  # the bits themselves (F16 is stored as float16)
    values = exact_float32(array, dtype, name, rule)
    bits = ref.round_to_act(values, act)
    bad = ~_same_bits(ref.to_float32(bits, act), values)
    if bad.any():
        index = np.argwhere(bad)[0]
        where = list(int(i) for i in index)
        if where:
            where[0] += offset
        raise InexactError(f"{name}: {dtype} value {float(values[tuple(index)])!r} at {where} "
                           f"is not exactly a {act} value ({rule})")
    return bits


def pack_u4(values):
    """[R, C] values 0..15 -> [R, ceil(C/2)] bytes, the even column in the
    low nibble (qmat's order), an odd C padded with a zero nibble."""
    values = np.asarray(values, dtype=np.uint8)
    if values.shape[1] % 2:
        values = np.pad(values, ((0, 0), (0, 1)))
    return (values[:, 0::2] & 0xF) | ((values[:, 1::2] & 0xF) << 4)


def unpack_int32_nibbles(words):
    """int32 words [..., C] -> [..., 8C] nibbles, nibble j of a word (bits
    4j..4j+3) at position 8c + j."""
    words = np.ascontiguousarray(words).astype("<i4", copy=False)
    as_bytes = words.view(np.uint8).reshape(words.shape[:-1] + (words.shape[-1] * 4,))
    out = np.empty(words.shape[:-1] + (words.shape[-1] * 8,), dtype=np.uint8)
    out[..., 0::2] = as_bytes & 0xF
    out[..., 1::2] = as_bytes >> 4
    return out


def scalar(ckpt, name, dtypes, rule):
    """A one-element float tensor ([] or [1]) as a float32."""
    info = require(ckpt, name, dtypes, why=rule)
    if int(np.prod(info.shape, dtype=np.int64)) != 1:
        raise ShapeError(f"{name}: shape {list(info.shape)}, expected one value ({rule})")
    return np.float32(exact_float32(np.array(ckpt.get(name)).reshape(()), info.dtype, name, rule))


def scale_bytes_present(ckpt, name, rows_per_chunk=1 << 16):
    """Which of the 256 byte values occur in a byte tensor."""
    array = ckpt.get(name)
    seen = np.zeros(256, dtype=bool)
    for r in range(0, array.shape[0], rows_per_chunk):
        seen |= np.bincount(np.asarray(array[r:r + rows_per_chunk]).reshape(-1),
                            minlength=256) > 0
    return seen


def nvfp4_global_scale(present, effective, g0, act, name, rule):
    """An fp32 global scale g with which qmat's nvfp4 dequantization,
    rne(e2m1 * e4m3 * g) in fp32 left to right, gives the same bits in `act`
    as the format's `effective(e2m1, e4m3)` (fp32 values) for every e2m1
    code and every scale byte in `present`. Tries g0, then its fp32
    neighbours up to 16 steps away; returns (g, steps) or raises
    InexactError."""
    codes = np.arange(16, dtype=np.uint8)
    e2m1 = ref.decode_e2m1(codes)[:, None]
    bytes_ = np.nonzero(present)[0].astype(np.uint8)
    e4m3 = ref.decode_e4m3(bytes_)[None, :]
    with np.errstate(all="ignore"):
        want = ref.round_to_act(np.asarray(effective(e2m1, e4m3), dtype=np.float32), act)
        product = (e2m1 * e4m3).astype(np.float32)
        g0 = np.float32(g0)
        candidates = [(g0, 0)]
        for step in range(1, 17):
            for direction in (1, -1):
                g = g0
                for _ in range(step):
                    g = np.nextafter(g, np.float32(direction * np.inf))
                candidates.append((np.float32(g), direction * step))
        for g, step in candidates:
            got = ref.round_to_act((product * g).astype(np.float32), act)
            if (got == want).all():
                return g, step
        got = ref.round_to_act((product * g0).astype(np.float32), act)
    bad = np.argwhere(got != want)[0]
    code, byte = int(codes[bad[0]]), int(bytes_[bad[1]])
    raise InexactError(
        f"{name}: no fp32 global scale within 16 steps of {float(g0)!r} gives this format's "
        f"weights exactly: e2m1 code {code} with scale byte 0x{byte:02x} "
        f"is {act} 0x{int(want[tuple(bad)]):04x} in the format but 0x{int(got[tuple(bad)]):04x} "
        f"in qmat's rne(e2m1 * scale * global) ({rule})")


# config.json's linear shapes: leaf name -> (N, K) as config expressions.
_LINEAR_SHAPES = {
    "q_proj": ("num_attention_heads * head_dim", "hidden_size"),
    "k_proj": ("num_key_value_heads * head_dim", "hidden_size"),
    "v_proj": ("num_key_value_heads * head_dim", "hidden_size"),
    "o_proj": ("hidden_size", "num_attention_heads * head_dim"),
    "gate_proj": ("intermediate_size", "hidden_size"),
    "up_proj": ("intermediate_size", "hidden_size"),
    "down_proj": ("hidden_size", "intermediate_size"),
    "lm_head": ("vocab_size", "hidden_size"),
}
# Mixtral's names for an expert's projections.
_EXPERT_LEAVES = {"w1": "gate_proj", "w3": "up_proj", "w2": "down_proj"}


def _config_value(cfg, expression, module):
    heads = cfg.get("num_attention_heads")
    values = {
        "hidden_size": cfg.get("hidden_size"),
        "num_attention_heads": heads,
        "num_key_value_heads": cfg.get("num_key_value_heads", heads),
        "vocab_size": cfg.get("vocab_size"),
        "intermediate_size": cfg.get("intermediate_size"),
    }
    values["head_dim"] = cfg.get("head_dim") or (
        values["hidden_size"] // heads if values["hidden_size"] and heads else None)
    names = {}
    if ".shared_experts." in module:   # DeepSeek: n_shared_experts experts side by side
        moe, shared = cfg.get("moe_intermediate_size"), cfg.get("n_shared_experts")
        values["intermediate_size"] = moe * shared if isinstance(moe, int) and isinstance(
            shared, int) else None
        names["intermediate_size"] = "moe_intermediate_size * n_shared_experts"
    elif ".shared_expert." in module:  # Qwen-MoE
        values["intermediate_size"] = cfg.get("shared_expert_intermediate_size")
        names["intermediate_size"] = "shared_expert_intermediate_size"
    elif ".experts." in module and "moe_intermediate_size" in cfg:
        values["intermediate_size"] = cfg.get("moe_intermediate_size")
        names["intermediate_size"] = "moe_intermediate_size"
    # Mixtral's experts are intermediate_size wide (it has no moe_intermediate_size).
    if "kv_lora_rank" in cfg or "qk_nope_head_dim" in cfg:
        # Multi-head latent attention: q_proj is heads * (nope + rope head dims), o_proj's K
        # heads * v_head_dim; not the usual products.
        values["head_dim"] = None
    result = 1
    for factor in expression.split(" * "):
        value = values.get(factor)
        if not isinstance(value, int) or isinstance(value, bool):
            return None, expression
        result *= value
    return result, " * ".join(names.get(f, f) for f in expression.split(" * "))


def check_config_shape(module, n, k, ckpt, source_tensor):
    """Refuses a linear whose [N, K] differs from what config.json gives
    for its name (q_proj, k_proj, v_proj, o_proj, gate/up/down_proj,
    lm_head, and an expert's w1 / w3 / w2 as Mixtral names gate / up /
    down; other names and missing config keys are not checked)."""
    cfg = ckpt.text_config()
    if cfg is not ckpt.config and "language_model" not in module and module != "lm_head":
        return  # a multimodal checkpoint: only its language model is described by text_config
    leaf = module.rsplit(".", 1)[-1]
    shape_of = _EXPERT_LEAVES.get(leaf, leaf) if ".experts." in module else leaf
    if shape_of not in _LINEAR_SHAPES:
        return
    want = [_config_value(cfg, expression, module)[::-1]
            for expression in _LINEAR_SHAPES[shape_of]]
    for (expression, value), got, dim in zip(want, (n, k), "NK"):
        if value is not None and value != got:
            raise ShapeError(
                f"{source_tensor}: {leaf} has {dim} = {got}, but config.json gives "
                f"{expression} = {value} (pass check_config=False / --no-config-check for an "
                f"architecture whose {leaf} differs)")


def find_qweight_linears(ckpt):
    """The modules holding a packed `qweight` (GPTQ and AWQ), sorted."""
    return sorted(name[:-len(".qweight")] for name in ckpt.tensors if name.endswith(".qweight"))


def default_act_from_scales(ckpt, modules):
    """The activation type of the first module's f16 / bf16 `scales`."""
    for module in modules:
        if f"{module}.scales" in ckpt:
            return {"F16": "f16", "BF16": "bf16"}.get(ckpt.info(f"{module}.scales").dtype)
    return None


def quantization_config(ckpt, method):
    """config.json's quantization_config, which must name `method`."""
    qc = ckpt.config.get("quantization_config") or {}
    if str(qc.get("quant_method", "")).lower() != method:
        raise UnsupportedFormatError(
            f"{ckpt.directory}: config.json has no quantization_config with quant_method "
            f"{method}")
    return qc


def refuse_swizzled_nvfp4_scale(scale, n, cols):
    """NVFP4 block scales padded to 128 x 4 tiles are the swizzled layout,
    which qmat does not read: refuse them by name."""
    padded = (-(-n // 128) * 128, -(-cols // 4) * 4)
    if tuple(scale.shape) != (n, cols) and tuple(scale.shape) == padded:
        raise UnsupportedFormatError(
            f"{scale.name}: shape {list(scale.shape)} is [N, K/16] = [{n}, {cols}] padded to "
            f"128 x 4 tiles, the swizzled block-scale layout; qmat reads the linear row-major "
            f"[N, K/16] layout")
