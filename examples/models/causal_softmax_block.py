"""A causal softmax attention block as nanoGPT writes it: q/k/v projections,
heads, scores scaled by 1/sqrt(d), a causal mask of -inf, softmax, an output
projection. Linea raises the attention to `linea.attention mask = causal`
and runs it tiled (flash-attention style: no L x L score matrix); it stays
quadratic in time, as softmax attention is.

    .deps/frontend/bin/python examples/models/causal_softmax_block.py
"""
import math

import torch

from _demo import demo


class CausalSelfAttention(torch.nn.Module):
    def __init__(self, model_dim=256, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(model_dim, 3 * model_dim, bias=False)
        self.out = torch.nn.Linear(model_dim, model_dim, bias=False)

    def forward(self, x):
        b, length, dm = x.shape
        split = lambda y: y.view(b, length, self.heads, dm // self.heads).transpose(1, 2)
        q, k, v = (split(y) for y in self.qkv(x).split(dm, dim=-1))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        i = torch.arange(length, device=q.device)[:, None]
        t = torch.arange(length, device=q.device)[None, :]
        scores = scores.masked_fill(t > i, float("-inf"))
        o = torch.softmax(scores, dim=-1) @ v
        return x + self.out(o.transpose(1, 2).reshape(b, length, dm))


def inputs(length):
    return (torch.randn(1, length, 256),)


DYNAMIC = {0: {1: "L"}}


def example():
    return CausalSelfAttention(), inputs(64), DYNAMIC


if __name__ == "__main__":
    demo(CausalSelfAttention(), inputs, DYNAMIC, lengths=[256, 1024, 4096])
