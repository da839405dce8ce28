"""A linear layer's bias, carried exactly into the activation type."""
from .common import ACT_DTYPE, expect_shape, require, to_act_bits


def add_bias(plan, ckpt):
    name = f"{plan.module}.bias"
    if name not in ckpt:
        return
    info = require(ckpt, name, ("F16", "BF16", "F32", "F64"), 1, "the bias [N]")
    expect_shape(info, (plan.n,), "the bias has one value per output row N")
    rule = "the bias is added in the activation type"
    to_act_bits(ckpt.get(name), info.dtype, plan.act, name, rule)  # refuse before writing
    plan.bias = True
    plan.sources.append(name)
    plan.add("bias", ACT_DTYPE[plan.act], (plan.n,),
             lambda r0, r1: to_act_bits(ckpt.get(name)[r0:r1], info.dtype, plan.act, name, rule),
             row_bytes=2)
