"""Folded attention (seed 002, Paeng and Kwon): a global causal attention
layer that reads a long sequence segment by segment. Each step attends over
[memory; segment] (2 l rows) and keeps its second half, the segment's rows
evolved, as both the segment's output and the next memory: context reaches
every later segment through the memory while only 2 l rows are live.

Written as the paper reads, a Python loop over segments: torch.export
unrolls it at the input's length, and Linea raises the chain of steps to one
`linea.fold segment_length = l` whose body is a single step (its attention
`linea.attention mask = causal`), run as a loop: one step's code and O(l)
memory however long the sequence. The loop's trip count is the length's, so
each length is its own compile.

    .deps/frontend/bin/python examples/models/folded_attention.py
"""
import torch
import torch.nn.functional as F

from _demo import demo


class FoldedAttention(torch.nn.Module):
    def __init__(self, model_dim=256, heads=4, segment=64):
        super().__init__()
        self.heads, self.segment = heads, segment
        self.qkv = torch.nn.Linear(model_dim, 3 * model_dim, bias=False)
        self.out = torch.nn.Linear(model_dim, model_dim, bias=False)
        # The memory the first segment attends to: learned tokens.
        self.memory = torch.nn.Parameter(torch.randn(1, segment, model_dim) / model_dim ** 0.5)

    def step(self, window):
        b, n, dm = window.shape
        split = lambda y: y.view(b, n, self.heads, dm // self.heads).transpose(1, 2)
        q, k, v = (split(y) for y in self.qkv(window).split(dm, dim=-1))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return window + self.out(o.transpose(1, 2).reshape(b, n, dm))

    def forward(self, x):
        b, length, dm = x.shape
        l = self.segment
        memory = self.memory.expand(b, l, dm)
        outputs = []
        for s in range(length // l):
            memory = self.step(torch.cat([memory, x[:, s * l:(s + 1) * l]], dim=1))[:, l:]
            outputs.append(memory)
        return torch.cat(outputs, dim=1)


def inputs(length):
    return (torch.randn(1, length, 256),)


# A length of its own per compile (see above); multiples of the segment.
DYNAMIC = None
# Where the length is (for benchmarks that cut one long input into shorter).
SEQUENCE = {0: {1: "L"}}
TEST_LENGTHS = [128, 320]


def example():
    return FoldedAttention(), inputs(128), DYNAMIC


if __name__ == "__main__":
    demo(FoldedAttention(), inputs, DYNAMIC, lengths=[1024, 4096, 16384])
