"""Issue 56's pre-norm transformer block, as practitioners write it (d = 128,
4 heads, normalized causal linear attention, a GELU MLP): the front-end
tests (test_first_day.py, test_report.py) and the GPU kit's saved-model
check (gpu_saved_models.py) share it."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d=128, heads=4):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d) for _ in range(4))
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):  # [B, L, D]
        B, L, D = x.shape
        h = self.ln1(x)
        q, k, v = (w(h).view(B, L, self.h, self.dh).transpose(1, 2)
                   for w in (self.wq, self.wk, self.wv))
        q, k = F.elu(q) + 1, F.elu(k) + 1
        a = torch.tril(q @ k.transpose(-1, -2))
        o = ((a @ v) / (a.sum(-1, keepdim=True) + 1e-6)).transpose(1, 2).reshape(B, L, D)
        x = x + self.wo(o)
        return x + self.mlp(self.ln2(x))


def block(seed=0):
    """The block with weights drawn from `seed`, in eval mode."""
    torch.manual_seed(seed)
    return Block().eval()
