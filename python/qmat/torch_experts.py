"""Mixture-of-experts layers on qmat kernels: modules that take the place
of transformers' experts modules (all experts of a layer in 3-D
parameters) with one QuantLinear per expert and projection
(docs/python.md). QuantGptOssExperts replaces GptOssExperts,
QuantSwiGluExperts the SwiGLU form (Qwen3MoeExperts, MixtralExperts,
DeepseekV3Experts, ...)."""
import torch


@torch.compiler.disable
def _route(hidden_states, indices, weights, num_experts, expert):
    """What transformers' experts modules do with the router's choice: for
    each expert chosen for some token, `expert(e, its tokens' states)`
    weighted by each token's routing weight and added to its output, the
    experts in ascending order. `indices` and `weights` are [tokens, top_k].

    The (token, choice) pairs are sorted by expert once, so that the host
    waits for the device once per call (for the experts' counts) rather than
    once per expert. The loop's shapes depend on the routing, which no
    compiled graph can hold: torch.compile runs it eagerly instead of
    recompiling for every expert index."""
    top_k = indices.shape[-1]
    chosen = indices.reshape(-1)
    order = torch.argsort(chosen, stable=True)
    counts = torch.bincount(chosen, minlength=num_experts).tolist()
    token_of = order // top_k
    pair_weight = weights.reshape(-1)[order]
    states = hidden_states[token_of]
    next_states = torch.zeros_like(hidden_states)
    end = 0
    for e, count in enumerate(counts):
        if not count:
            continue
        begin, end = end, end + count
        out = expert(e, states[begin:end])
        weighted = out * pair_weight[begin:end, None]
        next_states.index_add_(0, token_of[begin:end], weighted.to(hidden_states.dtype))
    return next_states


def _experts(*projections):
    counts = {len(p) for p in projections}
    if len(counts) != 1 or not projections[0]:
        raise ValueError(f"one linear per expert in each projection, got "
                         f"{', '.join(str(len(p)) for p in projections)}")
    return counts.pop()


class QuantGptOssExperts(torch.nn.Module):
    """The experts of one gpt-oss layer, each projection a QuantLinear.

    forward(hidden_states, router_indices, routing_weights) computes what
    transformers' GptOssExperts.forward does: for each expert the router
    chose for some token, gate_up = x W_gu^T + b_gu, its even columns the
    gate and odd ones the up projection, gate clamped above at `limit`, up
    to [-limit, limit], h = (up + 1) * gate * sigmoid(alpha * gate), then
    h W_down^T + b_down weighted by the token's routing weight and added to
    the token's output. The products and biases are the QuantLinear's (one
    rounding to the activation type per product, the bias added in fp32)."""

    def __init__(self, gate_up, down, alpha=1.702, limit=7.0):
        super().__init__()
        self.num_experts = _experts(gate_up, down)
        self.gate_up = torch.nn.ModuleList(gate_up)
        self.down = torch.nn.ModuleList(down)
        self.alpha = alpha
        self.limit = limit

    def _apply_gate(self, gate_up):
        gate, up = gate_up[..., ::2], gate_up[..., 1::2]
        gate = gate.clamp(min=None, max=self.limit)
        up = up.clamp(min=-self.limit, max=self.limit)
        return (up + 1) * (gate * torch.sigmoid(gate * self.alpha))

    def _expert(self, e, x):
        return self.down[e](self._apply_gate(self.gate_up[e](x)).to(x.dtype))

    def forward(self, hidden_states, router_indices=None, routing_weights=None):
        return _route(hidden_states, router_indices, routing_weights, self.num_experts,
                      self._expert)

    def extra_repr(self):
        return f"experts={self.num_experts}, alpha={self.alpha}, limit={self.limit}"


class QuantSwiGluExperts(torch.nn.Module):
    """The SwiGLU experts of one layer (transformers' Qwen3MoeExperts,
    MixtralExperts, DeepseekV3Experts, ...), each projection a QuantLinear.

    forward(hidden_states, top_k_index, top_k_weights) computes what those
    modules' forward does: for each expert the router chose for some token,
    h = act_fn(x W_gate^T) * (x W_up^T), then h W_down^T weighted by the
    token's routing weight and added to the token's output. Each product is
    the QuantLinear's (rounded once to the activation type); `act_fn` is the
    replaced module's."""

    def __init__(self, gate, up, down, act_fn=None):
        super().__init__()
        self.num_experts = _experts(gate, up, down)
        self.gate = torch.nn.ModuleList(gate)
        self.up = torch.nn.ModuleList(up)
        self.down = torch.nn.ModuleList(down)
        self.act_fn = act_fn if act_fn is not None else torch.nn.SiLU()

    def _expert(self, e, x):
        return self.down[e](self.act_fn(self.gate[e](x)) * self.up[e](x))

    def forward(self, hidden_states, top_k_index=None, top_k_weights=None):
        return _route(hidden_states, top_k_index, top_k_weights, self.num_experts, self._expert)

    def extra_repr(self):
        return f"experts={self.num_experts}"
