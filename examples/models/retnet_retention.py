"""Retention (Sun et al., "Retentive Network"), its parallel form:
((Q K^T) .* D) V with D[i, t] = gamma^(i - t) for t <= i and 0 above the
diagonal, one gamma per head. Linea raises it to a gated causal linear
attention (`linea.gated_linear_attention`, log-decay log gamma per step),
which it runs chunked in linear time.

    .deps/frontend/bin/python examples/models/retnet_retention.py
"""
import torch

from _demo import demo


class Retention(torch.nn.Module):
    def forward(self, q, k, v):
        length, num_heads = q.shape[-2], q.shape[1]
        i = torch.arange(length, device=q.device)[:, None]
        t = torch.arange(length, device=q.device)[None, :]
        gamma = 1 - 2.0 ** (-5.0 - torch.arange(num_heads, dtype=q.dtype, device=q.device))
        decay = torch.where(t <= i, gamma[:, None, None] ** (i - t).to(q.dtype),
                            torch.zeros((), dtype=q.dtype, device=q.device))
        return ((q @ k.transpose(-1, -2)) * decay) @ v


def inputs(length):
    return tuple(torch.randn(1, 4, length, 64) / 8 for _ in range(3))


DYNAMIC = {0: {2: "L"}, 1: {2: "L"}, 2: {2: "L"}}


def example():
    return Retention(), inputs(256), DYNAMIC


if __name__ == "__main__":
    demo(Retention(), inputs, DYNAMIC, lengths=[256, 1024, 4096])
