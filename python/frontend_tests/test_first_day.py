"""A real model's first day (issue 56): a pre-norm transformer block as
practitioners write it, exported with every dim of its input dynamic (batch
and length), raised, run at several (B, L) against torch in float64; its
gradient program (linea-differentiate) against torch autograd; a failed
run-time check leaves the process sound."""
import pathlib
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn as nn

import linea
from first_day_block import block

ROOT = pathlib.Path(__file__).resolve().parents[2]


def rel_l2(out, exact):
    out, exact = out.double(), exact.double()
    return ((out - exact).norm() / exact.norm()).item()


def inputs(batch, length, seed=0):
    generator = torch.Generator().manual_seed(1000 * batch + length + seed)
    return torch.randn(batch, length, 128, generator=generator)


@pytest.fixture(scope="module")
def dynamic_block():
    module = block()
    model = linea.from_torch(module, inputs(2, 64), dynamic={0: {0: "B", 1: "L"}})
    return module, model


def test_dynamic_batch_and_length_raise(dynamic_block):
    _, model = dynamic_block
    report = model.report()
    assert "raised to linea.linear_attention mask = causal normalize" in report, report
    assert "tensor<?x?x128xf32>" in model.source.split("func.func @main")[1].splitlines()[0]


@pytest.mark.parametrize("batch, length", [(1, 7), (3, 64), (2, 1000)])
def test_dynamic_batch_and_length_match_torch(dynamic_block, batch, length):
    module, model = dynamic_block
    x = inputs(batch, length)
    with torch.no_grad():
        exact = module.double()(x.double())
        module.float()
    out = model(x)
    assert out.shape == (batch, length, 128)
    assert rel_l2(out, exact) <= 1e-4


@pytest.mark.parametrize("batch, length", [(1, 1), (2, 5), (5, 33)])
def test_linear_with_dynamic_batch(batch, length):
    """nn.Linear of a [B, L, D] input merges B and L: torch-mlir lowered that
    view wrongly (a cast to ?x1xD) and every call failed its broadcast check."""
    torch.manual_seed(1)
    linear = nn.Linear(128, 64).eval()
    model = linea.from_torch(linear, inputs(2, 64), dynamic={0: {0: "B", 1: "L"}})
    x = inputs(batch, length)
    with torch.no_grad():
        exact = linear.double()(x.double())
        linear.float()
    assert rel_l2(model(x), exact) <= 1e-5


def test_differentiate_the_block_against_autograd():
    """linea-differentiate on the static-shape block (raised and not): the
    vector-Jacobian product for the input against torch autograd in float64,
    and a directional finite difference of the float64 module."""
    module = block(seed=3)
    x, dy = inputs(2, 16, seed=1), inputs(2, 16, seed=2)
    text = linea.frontend.export_torch(module, x)
    xd = x.double().requires_grad_()
    module.double()
    exact_out = module(xd)
    (exact,) = torch.autograd.grad(exact_out, xd, dy.double())
    for raising in (True, False):
        program = linea.differentiate(text, raising=raising)
        kernel = linea.compile(program, entry="main_vjp", raising=False)
        got = kernel(x.numpy(), dy.numpy())
        got = torch.from_numpy(got[0] if isinstance(got, tuple) else got)
        assert rel_l2(got, exact) <= 1e-4, (raising, rel_l2(got, exact))
    # <dy, J u> by central differences in float64 equals <J^T dy, u>.
    u = inputs(2, 16, seed=3).double()
    step = 1e-5
    with torch.no_grad():
        plus = module(x.double() + step * u)
        minus = module(x.double() - step * u)
    directional = ((plus - minus) / (2 * step) * dy.double()).sum().item()
    assert abs((got.double() * u).sum().item() - directional) <= 1e-4 * abs(directional)
    module.float()


FAILING_CHECK = textwrap.dedent("""
    import gc, sys, torch
    sys.path.insert(0, {python!r})
    import linea

    class Scores(torch.nn.Module):
        def forward(self, q, k):
            return torch.tril(q @ k.transpose(-1, -2)).sum(-1)

    model = linea.from_torch(Scores(), torch.randn(2, 16, 8), torch.randn(2, 16, 8),
                             dynamic={{0: {{1: "L"}}, 1: {{1: "L"}}}})
    failures = 0
    for step in range(20):
        try:  # the two lengths differ: the model's own broadcast check fails
            model(torch.randn(2, 9, 8), torch.randn(2, 13, 8))
        except linea.LineaError as error:
            failures += 1
            assert "run-time check failed" in str(error), error
        q, k = torch.randn(2, 40, 8), torch.randn(2, 40, 8)
        exact = torch.tril(q.double() @ k.double().transpose(-1, -2)).sum(-1)
        out = model(q, k)
        assert ((out.double() - exact).norm() / exact.norm()).item() < 1e-5
        gc.collect()
    print("failures", failures)
""")


def test_failed_check_leaves_the_process_sound(tmp_path):
    """A call whose run-time check fails returns a LineaError and frees
    nothing it should not: twenty failures between good calls, with garbage
    collection, end normally (once a segfault while collecting garbage)."""
    script = tmp_path / "failing.py"
    script.write_text(FAILING_CHECK.format(python=str(ROOT / "python")))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "failures 20" in done.stdout
