"""A pre-norm block of the causal linear transformer (Katharopoulos et al.,
"Transformers are RNNs"): layer norm, q/k/v projections, heads, the feature
map elu + 1, causal linear attention normalized by its row sums, an output
projection and a residual, then an MLP. Written the quadratic way, as the
paper's equation reads; Linea raises the attention to one
`linea.linear_attention mask = causal normalize` and runs it chunked, in
linear time.

    .deps/frontend/bin/python examples/models/causal_linear_transformer.py
"""
import torch
import torch.nn.functional as F

from _demo import demo


class CausalLinearAttentionBlock(torch.nn.Module):
    def __init__(self, model_dim=256, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(model_dim)
        self.norm2 = torch.nn.LayerNorm(model_dim)
        self.qkv = torch.nn.Linear(model_dim, 3 * model_dim, bias=False)
        self.out = torch.nn.Linear(model_dim, model_dim, bias=False)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(model_dim, 2 * model_dim),
                                       torch.nn.GELU(),
                                       torch.nn.Linear(2 * model_dim, model_dim))

    def forward(self, x):
        b, length, dm = x.shape
        split = lambda y: y.view(b, length, self.heads, dm // self.heads).transpose(1, 2)
        q, k, v = (split(y) for y in self.qkv(self.norm1(x)).split(dm, dim=-1))
        q, k = F.elu(q) + 1, F.elu(k) + 1
        scores = torch.tril(q @ k.transpose(-1, -2))
        o = (scores @ v) / (scores.sum(-1, keepdim=True) + 1e-6)
        x = x + self.out(o.transpose(1, 2).reshape(b, length, dm))
        return x + self.mlp(self.norm2(x))


def inputs(length):
    return (torch.randn(1, length, 256),)


DYNAMIC = {0: {1: "L"}}


def example():
    """For `python3 -m linea.import causal_linear_transformer.py`."""
    return CausalLinearAttentionBlock(), inputs(64), DYNAMIC


if __name__ == "__main__":
    demo(CausalLinearAttentionBlock(), inputs, DYNAMIC, lengths=[256, 1024, 4096])
