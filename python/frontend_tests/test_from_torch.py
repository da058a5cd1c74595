"""linea.from_torch: a PyTorch module exported once with a dynamic length,
raised, compiled, and checked against the module run eagerly in float64 at
lengths 1, prime, a chunk multiple and not (rel. L2 <= 1e-4); the report
names each raised op at its source line; near misses stay and still run
right; bad input is a LineaError."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import linea

TOLERANCE = 1e-4
LENGTHS = (1, 2, 7, 64, 67)


def rel_l2(out, exact):
    out, exact = out.double(), exact.double()
    return ((out - exact).norm() / exact.norm()).item()


def heads(length, count=3, seed=0):
    generator = torch.Generator().manual_seed(seed + length)
    return tuple(torch.randn(1, 2, length, 8, generator=generator) for _ in range(count))


DYNAMIC3 = {0: {2: "L"}, 1: {2: "L"}, 2: {2: "L"}}


def check(module, make_inputs, dynamic, raised, lengths=LENGTHS):
    """Imports at a length of 16, then checks every length; returns the model."""
    model = linea.from_torch(module, *make_inputs(16), dynamic=dynamic)
    report = model.report()
    for op in raised:
        assert op in report, report
    for length in lengths:
        inputs = make_inputs(length)
        with torch.no_grad():
            exact = module.double()(*(x.double() for x in inputs))
            module.float()
        out = model(*inputs)
        assert isinstance(out, torch.Tensor) and out.shape == exact.shape
        assert rel_l2(out, exact) <= TOLERANCE, (length, rel_l2(out, exact))
    return model


class NormalizedCausal(torch.nn.Module):
    def forward(self, q, k, v):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        a = torch.tril(q @ k.transpose(-1, -2))
        return (a @ v) / (a.sum(-1, keepdim=True) + 1e-6)


def test_causal_normalized_layer_every_length():
    model = check(NormalizedCausal(), heads, DYNAMIC3,
                  ["raised to linea.linear_attention mask = causal normalize"])
    assert "test_from_torch.py:" in model.report()  # the model's source line


class CausalSoftmax(torch.nn.Module):
    def forward(self, q, k, v):
        n = q.shape[-2]
        keep = torch.ones(n, n, dtype=torch.bool).tril()
        scores = (q @ k.transpose(-1, -2)) / 8 ** 0.5
        return torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1) @ v


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("module,raised", [(NormalizedCausal, "linear_attention mask = causal"),
                                           (CausalSoftmax, "attention mask = causal")],
                         ids=["normalized", "softmax"])
def test_half_precision_module(dtype, module, raised):
    """A module run in 16 bits raises like an f32 one; the raised op rounds
    once, so its result is within two roundings of the float64 module and
    comes back in the module's dtype."""
    unit = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8}[dtype]

    def make(length):
        return tuple(x.to(dtype) for x in heads(length))
    model = linea.from_torch(module(), *make(16), dynamic=DYNAMIC3)
    assert "raised to linea." + raised in model.report(), model.report()
    for length in (1, 7, 67):
        inputs = make(length)
        with torch.no_grad():
            exact = module().double()(*(x.double() for x in inputs))
        out = model(*inputs)
        assert out.dtype == dtype and out.shape == exact.shape
        assert rel_l2(out, exact) <= 2 * unit, (length, rel_l2(out, exact))


class PrefixLM(torch.nn.Module):
    def forward(self, q, k, v):
        n = q.shape[-2]
        i, t = torch.arange(n)[:, None], torch.arange(n)[None, :]
        return (q @ k.transpose(-1, -2)).masked_fill(~((t <= i) | (t < 9)), 0.0) @ v


def test_prefixlm_with_lengths_below_and_above_the_prefix():
    # L <= 9 is all prefix (bidirectional); the raised op must agree there too.
    check(PrefixLM(), heads, DYNAMIC3, ["raised to linea.linear_attention mask = prefix(9)"],
          lengths=(1, 5, 9, 10, 31))


class GatedParallel(torch.nn.Module):
    """GLA's parallel form with log-decays as low as -20 per step."""
    def forward(self, q, k, v, g):
        b = torch.cumsum(g, dim=2)
        return torch.tril((q * torch.exp(b)) @ (k * torch.exp(-b)).transpose(-1, -2)) @ v


def test_gated_parallel_form_steep_gates():
    # Log-decays in [-20, 0]: the module's exp(+-b) would overflow float32
    # within a few steps, so it is the float64 reference only; the raised op
    # never forms exp(-b).
    def inputs(length):
        q, k, v = heads(length)
        g = -20 * torch.rand(1, 2, length, 8, generator=torch.Generator().manual_seed(length))
        return q, k, v, g
    model = linea.from_torch(GatedParallel(), *inputs(4), dynamic={i: {2: "L"} for i in range(4)})
    assert "raised to linea.gated_linear_attention mask = causal" in model.report()
    for length in (1, 2, 7, 31):
        x = inputs(length)
        exact = GatedParallel()(*(t.double() for t in x))
        assert rel_l2(model(*x), exact) <= TOLERANCE, length


class PresumLayer(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1) * 0.5 + x


def test_cumsum_several_leading_dims():
    module = PresumLayer()
    make = lambda n: (torch.randn(3, n, 2, 5, generator=torch.Generator().manual_seed(n)),)
    model = linea.from_torch(module, *make(16), dynamic={0: {1: "L"}})
    assert "raised to linea.presum" in model.report()
    for n in LENGTHS:
        (x,) = make(n)
        assert rel_l2(model(x), module(x.double())) <= TOLERANCE, n


class SlidingWindow(torch.nn.Module):
    """A band mask (t in (i - 4, i]): no Linea op computes it."""
    def forward(self, q, k, v):
        n = q.shape[-2]
        i, t = torch.arange(n)[:, None], torch.arange(n)[None, :]
        band = (t <= i) & (t > i - 4)
        return (q @ k.transpose(-1, -2)).masked_fill(~band, 0.0) @ v


def test_near_miss_stays_and_runs():
    model = check(SlidingWindow(), heads, DYNAMIC3, [], lengths=(1, 7, 20))
    report = model.report()
    assert "0 op(s) raised" in report and "not raised" in report, report


def test_one_tensor_passed_for_several_inputs(monkeypatch):
    # torch.export reads one tensor given twice as one input: the front end
    # must not let that collapse the arguments (exported afresh, not read
    # from the export cache).
    monkeypatch.setenv("LINEA_EXPORT_CACHE", "0")
    q = torch.randn(1, 2, 16, 8)
    model = linea.from_torch(NormalizedCausal(), q, q, q, dynamic=DYNAMIC3)
    x = heads(11)
    assert rel_l2(model(*x), NormalizedCausal()(*(t.double() for t in x))) <= TOLERANCE


def test_static_shapes_refuse_other_lengths():
    model = linea.from_torch(NormalizedCausal(), *heads(16))
    with pytest.raises(linea.LineaError, match=r"expected shape \(1, 2, 16, 8\), given"):
        model(*heads(17))


class DataDependent(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


@pytest.mark.parametrize("call,message", [
    (lambda: linea.from_torch(lambda x: x, torch.ones(2)), "takes a torch.nn.Module"),
    (lambda: linea.from_torch(PresumLayer(), np.ones((2, 3), np.float32)),
     "example input 0 is a ndarray"),
    (lambda: linea.from_torch(PresumLayer(), torch.ones(1, 4, 2), dynamic={1: {1: "L"}}),
     "input 1 is not one of the 1 example inputs"),
    (lambda: linea.from_torch(PresumLayer(), torch.ones(1, 4, 2), dynamic={0: {3: "L"}}),
     "input 0 has rank 3, no dim 3"),
    (lambda: linea.from_torch(DataDependent(), torch.ones(3)), "exporting DataDependent failed"),
])
def test_bad_input_is_a_linea_error(call, message):
    with pytest.raises(linea.LineaError, match=message) as failure:
        call()
    assert "\n" not in str(failure.value)


def test_weights_as_arguments_follow_the_module():
    """weights="arguments": the parameters are kernel arguments, not
    constants; a call uses the module's current ones (no recompile after a
    weight update), and a registered buffer stays a constant."""
    import causal_linear_transformer as example
    module = example.CausalLinearAttentionBlock(model_dim=32, heads=2).eval()
    x = torch.randn(1, 16, 32)
    model = linea.from_torch(module, x, dynamic={0: {1: "L"}}, weights="arguments")
    parameters = list(module.parameters())
    assert len(model.kernel.signature["args"]) == 1 + len(parameters)
    assert "raised to linea.linear_attention mask = causal normalize" in model.report()
    for step in range(2):
        y = torch.randn(1, 23, 32)
        with torch.no_grad():
            exact = module.double()(y.double())
            module.float()
            assert rel_l2(model(y), exact) <= TOLERANCE, step
            for p in parameters:  # a "training step"
                p.add_(0.1 * torch.randn_like(p))


def test_unknown_weights_mode():
    with pytest.raises(linea.LineaError, match="weights='inline'; expected"):
        linea.from_torch(PresumLayer(), torch.ones(1, 4, 2), weights="inline")


def test_slow_stages_say_what_they_do(monkeypatch, capsys):
    import linea.frontend as frontend
    monkeypatch.setattr(frontend, "_QUIET_SECONDS", 0.0)
    linea.from_torch(PresumLayer(), torch.ones(1, 4, 2))
    err = capsys.readouterr().err
    assert "linea: exporting PresumLayer (torch.export, torch-mlir): " in err, err
    assert "linea: compiling PresumLayer (linea-compile, target cpu): " in err, err


class BoolBufferMask(torch.nn.Module):
    """A causal mask registered as a bool buffer, sliced to the length."""
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(32, 32, dtype=torch.bool)))

    def forward(self, q, k, v):
        n = q.shape[-2]
        return (q @ k.transpose(-1, -2)).masked_fill(~self.mask[:n, :n], 0.0) @ v


def test_bool_buffer_mask_is_a_table():
    module = BoolBufferMask()
    model = linea.from_torch(module, *heads(16))
    assert "raised to linea.linear_attention mask = causal" in model.report(), model.report()
    x = heads(16, seed=5)
    assert rel_l2(model(*x), module(*(t.double() for t in x))) <= TOLERANCE
