"""Gated linear attention (Yang et al., "Gated Linear Attention Transformers
with Hardware-Efficient Training"), its parallel form: with the running
log-decay b = cumsum(g) along the sequence (one per key dim, g <= 0),
o = tril((q exp(b)) (k exp(-b))^T) v. As written it overflows float32 once
-b grows past about 88; Linea raises it to `linea.gated_linear_attention`,
which never forms exp(-b), and runs it chunked in linear time.

    .deps/frontend/bin/python examples/models/gla_parallel_form.py
"""
import torch
import torch.nn.functional as F

from _demo import demo


class GatedLinearAttention(torch.nn.Module):
    def forward(self, q, k, v, g):
        b = torch.cumsum(g, dim=2)
        return torch.tril((q * torch.exp(b)) @ (k * torch.exp(-b)).transpose(-1, -2)) @ v


def inputs(length):
    q, k, v = (torch.randn(1, 4, length, 64) / 8 for _ in range(3))
    # Gates as GLA makes them: log-sigmoid of a projection, scaled down so
    # that the module itself stays finite in float32 at these lengths.
    g = F.logsigmoid(torch.randn(1, 4, length, 64)) / 64
    return q, k, v, g


DYNAMIC = {i: {2: "L"} for i in range(4)}


def example():
    return GatedLinearAttention(), inputs(256), DYNAMIC


if __name__ == "__main__":
    demo(GatedLinearAttention(), inputs, DYNAMIC, lengths=[256, 1024, 4096])
