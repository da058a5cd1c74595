"""The raise report tells the truth (issue 56, item 5): its counts are those
of the raised IR and of the candidates the patterns refused, each line is at
a line of this file (the model's code, not torch's `linear.py:134`), a
layer with no softmax gets no softmax remark, and every reason is one line
of at most REASON_WIDTH characters unless explain=2 asks for all of it."""
import pathlib
import re
import subprocess

import torch
import torch.nn as nn
import torch.nn.functional as F

import linea
from first_day_block import Block
from linea.frontend import export_torch
from linea.fx_locations import user_stack_trace
from linea.report import REASON_WIDTH, raise_report
from linea.runner import build_dir

HERE = pathlib.Path(__file__).name
DYNAMIC3 = {0: {2: "L"}, 1: {2: "L"}, 2: {2: "L"}}
# A report line that does not start at a line of this file says where it is.
ELSEWHERE = ("IR line ", "torch's ", "(no source location)")


def heads(length, seed=0):
    generator = torch.Generator().manual_seed(seed + length)
    return tuple(torch.randn(1, 2, length, 8, generator=generator) for _ in range(3))


def lines_of(report):
    first, *lines = report.splitlines()
    assert first.startswith("linea-raise: "), report
    return lines


def reason_of(line):
    """The reason a report line gives, after its place and its kind."""
    for kind in (": not raised: ", " pattern refused it: ", ": raised to "):
        if kind in line:
            return line.split(kind, 1)[1]
    raise AssertionError(f"a report line of no known kind: {line}")


def linea_ops(text):
    """The Linea ops linea-raise makes of `text`."""
    done = subprocess.run([str(build_dir() / "bin" / "linea-opt"), "--linea-raise", "-"],
                          input=text, capture_output=True, text=True, check=True)
    return re.findall(r"= (linea\.\w+)", done.stdout)


class CumulativeSum(nn.Module):
    """Causal linear attention written as a cumulative sum of outer products
    (the issue's layer), feature maps on the queries and keys: the keys'
    is fused into the outer product, whose factor of the keys the raise
    builds as a tensor of its own; the whole layer is one linear attention,
    and the cumsum it absorbed is no candidate."""
    def forward(self, q, k, v):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        S = torch.cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), dim=2)
        return (q.unsqueeze(-2) @ S).squeeze(-2)


def test_cumulative_sum_layer_counts_every_candidate():
    model = linea.from_torch(CumulativeSum(), *heads(16), dynamic=DYNAMIC3)
    report = model.report()
    lines = lines_of(report)
    assert report.splitlines()[0] == \
        "linea-raise: 1 op(s) raised, 0 candidate(s) left as written", report
    assert len(lines) == 1, report
    assert "raised to linea.linear_attention mask = causal (the states as a cumulative " \
        "sum of outer products)" in lines[0], report
    assert all(line.startswith(HERE + ":") for line in lines), report
    # The count of raised ops is the raised IR's.
    assert linea_ops(model.source) == ["linea.linear_attention"]
    for length in (1, 7, 33):
        inputs = heads(length)
        with torch.no_grad():
            exact = CumulativeSum().double()(*(x.double() for x in inputs))
        out = model(*inputs).double()
        assert ((out - exact).norm() / exact.norm()).item() <= 1e-4, length


class MLPBlock(nn.Module):
    """A transformer block with no attention at all: norms, projections."""
    def __init__(self, d=64):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.wi, self.wo = nn.Linear(d, d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.wo(torch.tanh(self.wi(self.ln1(x))))
        return x + self.mlp(self.ln2(x))


class ReluNormalized(nn.Module):
    """Scores normalized by their row sum, but no exponential: a division
    the softmax pattern once took for a softmax along another axis."""
    def forward(self, q, k, v):
        a = torch.relu(q @ k.transpose(-1, -2))
        return (a / (a.sum(-1, keepdim=True) + 1e-6)) @ v


def test_no_softmax_remark_on_layers_without_one():
    block = export_torch(Block(), torch.randn(1, 16, 128), dynamic={0: {1: "L"}})
    report = raise_report(block)
    assert report.splitlines()[0] == \
        "linea-raise: 1 op(s) raised, 0 candidate(s) left as written", report
    assert "raised to linea.linear_attention mask = causal normalize" in report
    for module, inputs, dynamic, source in [
            (Block(), (torch.randn(1, 16, 128),), {0: {1: "L"}}, "first_day_block.py"),
            (MLPBlock(), (torch.randn(1, 16, 64),), {0: {1: "L"}}, HERE),
            (ReluNormalized(), heads(16), DYNAMIC3, HERE)]:
        report = raise_report(export_torch(module, *inputs, dynamic=dynamic))
        assert "softmax" not in report, report
        assert all(line.startswith(source + ":") or line.startswith(ELSEWHERE)
                   for line in lines_of(report)), report
    assert raise_report(export_torch(MLPBlock(), torch.randn(1, 16, 64))) == \
        "linea-raise: 0 op(s) raised, 0 candidate(s) left as written"


class TorchModules(nn.Module):
    """Attention inside torch's own modules: nn.MultiheadAttention's ops
    come from torch/nn/functional.py, its projections from linear.py."""
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(32, 4, batch_first=True)
        self.out = nn.Linear(32, 32)

    def forward(self, x):
        n = x.shape[1]
        future = torch.ones(n, n, dtype=torch.bool).triu(1)
        y = self.attention(x, x, x, attn_mask=future, need_weights=False)[0]
        return self.out(y)


def test_locations_are_the_models_lines():
    text = export_torch(TorchModules(), torch.randn(1, 16, 32), dynamic={0: {1: "L"}})
    # No op keeps a frame inside torch's modules: the innermost frame of
    # each is this file's.
    assert not re.search(r'loc\("[^"]*torch/nn/', text), \
        sorted(set(re.findall(r'loc\("[^"]*torch/nn/[^"]*"', text)))
    assert f'{HERE}":' in text
    report = raise_report(text)
    assert "raised to linea.attention mask = causal" in report, report
    assert all(line.startswith(HERE + ":") for line in lines_of(report)), report


def test_user_stack_trace_keeps_the_innermost_user_frame():
    torch_dir = str(pathlib.Path(torch.__file__).parent)
    trace = ('File "/home/me/model.py", line 12, in forward\n    y = self.proj(x)\n'
             f'  File "{torch_dir}/nn/modules/linear.py", line 134, in forward\n'
             '    return F.linear(input, self.weight, self.bias)')
    assert user_stack_trace(trace) == \
        'File "/home/me/model.py", line 12, in forward\n    y = self.proj(x)'
    # torch's relative names are torch's; a trace with no frame of the
    # model stays as it is.
    inside = 'File "torch/fx/passes/runtime_assert.py", line 24, in insert\n    x'
    assert user_stack_trace(inside) == inside
    assert user_stack_trace("") == ""


class Gated(nn.Module):
    """A causal layer whose scores are multiplied by a gate computed from
    data: refused, with a long expression in the reason."""
    def forward(self, q, k, v):
        g = torch.sigmoid(torch.tanh(q.sum(-1, keepdim=True)) * 3 +
                          torch.cos(k.sum(-1)[..., None, :]) *
                          torch.exp(-q.mean(-1, keepdim=True)))
        return (torch.tril(q @ k.transpose(-1, -2)) * g) @ v


def test_each_reason_is_one_cut_line_and_explain_2_keeps_it_whole(capsys):
    text = export_torch(Gated(), *heads(16), dynamic=DYNAMIC3)
    short = lines_of(raise_report(text))
    whole = lines_of(raise_report(text, explain=2))
    assert len(short) == len(whole) >= 2
    assert all(line.startswith(HERE + ":") for line in short + whole)
    for line in short:
        assert len(reason_of(line)) <= REASON_WIDTH, line
    # The expression in math notation, not IR: `tanh(...) * 3`, no `mulf(`.
    assert "tanh(" in short[0] and "* 3" in short[0] and "mulf(" not in short[0], short
    assert any(line.endswith("(explain=2: all of it)") for line in short), short
    assert any(len(reason_of(line)) > REASON_WIDTH for line in whole), whole
    assert any("nor a decay base^(i - t) or exp(c * (i - t))" in line for line in whole), whole
    # from_torch(explain=2) prints the whole text too, and the model gives it.
    model = linea.from_torch(Gated(), *heads(16), dynamic=DYNAMIC3, explain=2)
    printed = capsys.readouterr().out
    assert "nor a decay base^(i - t) or exp(c * (i - t))" in printed, printed
    assert model.report(explain=2).splitlines()[1:] == whole
    assert model.report().splitlines()[1:] == short
