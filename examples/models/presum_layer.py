"""The causal layer of seed 000: a prefix sum along the sequence, with a
gate and a residual around it. `torch.cumsum` reaches MLIR as torch-mlir's
`tm_tensor.scan`; Linea raises it to `linea.presum` and runs it as a blocked
scan in one pass.

    .deps/frontend/bin/python examples/models/presum_layer.py
"""
import torch

from _demo import demo


class PresumLayer(torch.nn.Module):
    def __init__(self, dim=256):
        super().__init__()
        self.gate = torch.nn.Linear(dim, dim)

    def forward(self, x):
        running = torch.cumsum(x, dim=1)
        counts = torch.arange(1, x.shape[1] + 1, dtype=x.dtype, device=x.device)[None, :, None]
        return x + torch.sigmoid(self.gate(x)) * running / counts


def inputs(length):
    return (torch.randn(1, length, 256),)


DYNAMIC = {0: {1: "L"}}


def example():
    return PresumLayer(), inputs(256), DYNAMIC


if __name__ == "__main__":
    demo(PresumLayer(), inputs, DYNAMIC, lengths=[256, 1024, 4096])
