"""The forms of mixture-of-experts modules that keep all experts of a layer
in 3-D parameters (transformers 5: GptOssExperts, Qwen3MoeExperts,
MixtralExperts, DeepseekV3Experts, ...), and how a checkpoint's per-expert
linears map onto them (docs/python.md).

A checkpoint holds expert e of the experts module P as linears
P.<e>.<projection>; each form names its projections, the shape (N, K) each
has for hidden size H and intermediate size I, and whether it has a bias.
"""
import dataclasses


@dataclasses.dataclass(frozen=True)
class ExpertsForm:
    """`projections`: the checkpoint's projection names -> the form's own
    (`order` lists the form's own, in the order a module takes them);
    `shapes`: the form's projection -> (N, K) as functions of (H, I)."""
    name: str
    projections: dict
    order: tuple
    shapes: dict
    bias: bool

    def shape(self, projection, hidden, intermediate):
        return self.shapes[projection](hidden, intermediate)


# gpt-oss: gate and up in one projection (rows interleaved), with biases;
# the import names its experts' linears after the checkpoint's tensors.
GPT_OSS = ExpertsForm(
    "gpt-oss", {"gate_up_proj": "gate_up_proj", "down_proj": "down_proj"},
    ("gate_up_proj", "down_proj"),
    {"gate_up_proj": lambda h, i: (2 * i, h), "down_proj": lambda h, i: (h, i)}, bias=True)

# The SwiGLU experts of Qwen2/3-MoE, Mixtral, DeepSeek-V2/V3, OLMoE, ...:
# act(x W_gate^T) * (x W_up^T), then W_down, no biases. Mixtral's
# checkpoints name the three w1 (gate), w3 (up) and w2 (down).
SWIGLU = ExpertsForm(
    "swiglu", {"gate_proj": "gate_proj", "up_proj": "up_proj", "down_proj": "down_proj",
               "w1": "gate_proj", "w3": "up_proj", "w2": "down_proj"},
    ("gate_proj", "up_proj", "down_proj"),
    {"gate_proj": lambda h, i: (i, h), "up_proj": lambda h, i: (i, h),
     "down_proj": lambda h, i: (h, i)}, bias=False)

FORMS = {form.name: form for form in (GPT_OSS, SWIGLU)}

# Module paths a checkpoint spells otherwise than the model (transformers'
# own conversion on load): (the model's, the checkpoint's). Mixtral's
# checkpoints keep the sparse block as block_sparse_moe, transformers 5
# names it mlp.
MODULE_RENAMES = ((".mlp.", ".block_sparse_moe."),)


def checkpoint_spellings(name):
    """Other names a checkpoint may give the model's `name`."""
    return [name.replace(model, stored) for model, stored in MODULE_RENAMES if model in name]


def model_spellings(name):
    """Other names the model may give a checkpoint's `name`."""
    return [name.replace(stored, model) for model, stored in MODULE_RENAMES if stored in name]
