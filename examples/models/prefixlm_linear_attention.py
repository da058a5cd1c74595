"""PrefixLM linear attention (the JRT-style encoder-decoder split of Arora et
al., "Just read twice"): the first `prefix` tokens see each other, the rest
see what came before them. Linea raises it to `mask = prefix(j)` and splits
it: the prefix as one state `phi(K)^T V` computed once (a matmul, no loop),
the rest chunked from that state, so PrefixLM costs less than causal.

    .deps/frontend/bin/python examples/models/prefixlm_linear_attention.py
"""
import torch
import torch.nn.functional as F

from _demo import demo


class PrefixLMLinearAttention(torch.nn.Module):
    def __init__(self, prefix=128):
        super().__init__()
        self.prefix = prefix

    def forward(self, q, k, v):
        length = q.shape[-2]
        i = torch.arange(length, device=q.device)[:, None]
        t = torch.arange(length, device=q.device)[None, :]
        visible = (t <= i) | (t < self.prefix)
        q, k = F.elu(q) + 1, F.elu(k) + 1
        scores = (q @ k.transpose(-1, -2)).masked_fill(~visible, 0.0)
        return (scores @ v) / (scores.sum(-1, keepdim=True) + 1e-6)


def inputs(length):
    return tuple(torch.randn(1, 4, length, 64) for _ in range(3))


DYNAMIC = {0: {2: "L"}, 1: {2: "L"}, 2: {2: "L"}}


def example():
    return PrefixLMLinearAttention(), inputs(256), DYNAMIC


if __name__ == "__main__":
    demo(PrefixLMLinearAttention(), inputs, DYNAMIC, lengths=[256, 1024, 4096])
