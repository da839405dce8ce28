"""gpt-oss mixture-of-experts layers on qmat kernels: QuantGptOssExperts
takes the place of transformers' GptOssExperts (all experts of a layer in
3-D parameters) with one QuantLinear per expert and projection
(docs/python.md)."""
import torch


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
        if len(gate_up) != len(down) or not gate_up:
            raise ValueError(f"one gate_up and one down projection per expert, got "
                             f"{len(gate_up)} and {len(down)}")
        self.gate_up = torch.nn.ModuleList(gate_up)
        self.down = torch.nn.ModuleList(down)
        self.num_experts = len(gate_up)
        self.alpha = alpha
        self.limit = limit

    def _apply_gate(self, gate_up):
        gate, up = gate_up[..., ::2], gate_up[..., 1::2]
        gate = gate.clamp(min=None, max=self.limit)
        up = up.clamp(min=-self.limit, max=self.limit)
        return (up + 1) * (gate * torch.sigmoid(gate * self.alpha))

    def forward(self, hidden_states, router_indices=None, routing_weights=None):
        next_states = torch.zeros_like(hidden_states)
        with torch.no_grad():
            # [experts, top_k, tokens]: which (choice, token) pairs each expert has.
            mask = torch.nn.functional.one_hot(router_indices, num_classes=self.num_experts)
            mask = mask.permute(2, 1, 0)
            hit = torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero()
        for e in hit[:, 0].tolist():
            top_k_pos, token_idx = torch.where(mask[e])
            gated = self._apply_gate(self.gate_up[e](hidden_states[token_idx]))
            out = self.down[e](gated.to(hidden_states.dtype))
            weighted = out * routing_weights[token_idx, top_k_pos, None]
            next_states.index_add_(0, token_idx, weighted.to(hidden_states.dtype))
        return next_states

    def extra_repr(self):
        return f"experts={self.num_experts}, alpha={self.alpha}, limit={self.limit}"
