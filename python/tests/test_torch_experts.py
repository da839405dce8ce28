"""The experts modules' routing (qmat.torch_experts._route) on the CPU,
skipped without torch: every (token, choice) pair reaches its expert once,
weighted by its own routing weight, against a loop over the pairs written
here; experts nobody chose are never called."""
import pytest

torch = pytest.importorskip("torch")

from qmat.torch_experts import _route  # noqa: E402


def _pairwise(states, indices, weights, expert):
    out = torch.zeros_like(states)
    for t in range(indices.shape[0]):
        for k in range(indices.shape[1]):
            e = int(indices[t, k])
            out[t] += (expert(e, states[t:t + 1])[0] * weights[t, k]).to(states.dtype)
    return out


@pytest.mark.parametrize("tokens, top_k", [(1, 2), (7, 3), (40, 4)])
def test_every_pair_reaches_its_expert_once(tokens, top_k):
    num_experts, hidden = 9, 16
    generator = torch.Generator().manual_seed(tokens)
    states = torch.randn(tokens, hidden, generator=generator, dtype=torch.float64)
    # distinct experts per token, as a top-k router chooses them
    indices = torch.stack([torch.randperm(num_experts, generator=generator)[:top_k]
                           for _ in range(tokens)])
    weights = torch.rand(tokens, top_k, generator=generator, dtype=torch.float64)
    scale = torch.arange(1, num_experts + 1, dtype=torch.float64)
    called = []

    def expert(e, x):
        called.append((e, x.shape[0]))
        return x * scale[e] + e

    routed = _route(states, indices, weights, num_experts, expert)
    expected_calls = [(e, int((indices == e).sum())) for e in range(num_experts)
                      if (indices == e).any()]
    assert called == expected_calls
    called.clear()
    torch.testing.assert_close(routed, _pairwise(states, indices, weights, expert),
                               rtol=1e-12, atol=1e-12)
