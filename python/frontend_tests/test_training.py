"""Training through Linea (SPEC, fourth wave): a `from_torch` model under
torch's autograd. For every example model, the gradients of a scalar loss
with respect to its inputs and parameters (weights="arguments") against
torch autograd on the module as written in float64, at three lengths from
one dynamic export; the gradient program's GPU form, run on the CPU
(linea-gpu-mapped-to-cpu), against the same oracle; a directional central
difference of the float64 module; and what a call does outside grad mode,
with constant weights, and on a model that cannot be differentiated."""
import numpy as np
import pytest
import torch

import linea
from test_examples import EXAMPLES, at_length, lengths_of

TOLERANCE = 1e-4  # SPEC: relative L2 for f32 against float64


def gradient_error(got, exact, scale):
    """Relative L2 error of a gradient, measured against `scale` (the largest
    gradient's norm) where the exact gradient is a thousand times smaller:
    a gradient that vanishes in exact arithmetic (a gate's at L = 1, where
    its cumulative sum cancels; a normalized row's queries where the row
    sees one key) is f32 rounding over a float64 ~0."""
    return ((got.double() - exact).norm() / max(exact.norm().item(), 1e-3 * scale)).item()


def parameter_gradients(module):
    """Each trainable parameter's .grad (zeros where none flowed)."""
    return [p.grad.clone() if p.grad is not None else torch.zeros_like(p)
            for p in module.parameters() if p.requires_grad]


def float64_gradients(module, inputs, cotangent):
    """Torch autograd on the module as written, in float64: the gradients of
    <module(inputs), cotangent> for each float input, then each parameter."""
    module.double()
    try:
        xs = [x.detach().double().requires_grad_() if x.is_floating_point() else x
              for x in inputs]
        (module(*xs) * cotangent.double()).sum().backward()
        grads = [x.grad for x in xs if x.is_floating_point()]
        grads += parameter_gradients(module)
    finally:
        module.float()
        module.zero_grad(set_to_none=True)
    return grads


def gradients_of(forward, module, inputs, cotangent):
    """The gradients of <forward(inputs), cotangent> (forward: the module
    or its Linea model) for each float input, then each parameter, in the
    inputs' dtype."""
    xs = [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]
    out = forward(*xs)
    assert out.grad_fn is not None
    (out.float() * cotangent.float()).sum().backward()
    grads = [x.grad for x in xs if x.is_floating_point()]
    grads += parameter_gradients(module)
    module.zero_grad(set_to_none=True)
    return grads


def linea_gradients(model, module, inputs, cotangent):
    """The same gradients through the Linea model's backward()."""
    return gradients_of(model, module, inputs, cotangent)


def assert_close(got, exact, where):
    scale = max(g.norm().item() for g in exact)
    errors = [gradient_error(g, e, scale) for g, e in zip(got, exact)]
    assert len(got) == len(exact) and max(errors) <= TOLERANCE, (where, errors)


def cotangent_like(model, inputs, seed):
    with torch.no_grad():
        out = model(*inputs)
    return torch.randn(out.shape, generator=torch.Generator().manual_seed(seed))


def trainable_example(name, weights="arguments"):
    """An example (with a dynamic length), its module in eval mode and its
    from_torch model."""
    example = __import__(name)
    module, inputs, dynamic = example.example()
    module.eval()
    return example, module, linea.from_torch(module, *inputs, dynamic=dynamic, weights=weights)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_gradients_against_autograd(name):
    """One export with the example's dynamic length and its weights as
    arguments; backward() at L = 1, a prime and a length past a chunk
    (or the example's own lengths where it has no dynamic one) fills each
    input's and parameter's .grad as float64 autograd does."""
    example = __import__(name)
    module, inputs, dynamic = example.example()
    module.eval()
    # (An example without a dynamic length: at its first length.)
    lengths = lengths_of(example) if dynamic is not None else lengths_of(example)[:1]
    model = linea.from_torch(module, *(inputs if dynamic is not None
                                       else at_length(example, lengths[0])),
                             dynamic=dynamic, weights="arguments")
    for length in lengths:
        x = at_length(example, length)
        dy = cotangent_like(model, x, seed=length)
        assert_close(linea_gradients(model, module, x, dy),
                     float64_gradients(module, x, dy), (name, length))


# The presum layer's bias gradient is a reduction over L into a static band
# (linea-map-to-gpu's mapStaticBand), GLA's a gated backward, the folded
# attention's a loop over segments.
@pytest.mark.parametrize("name", ["presum_layer", "gla_parallel_form", "folded_attention"])
def test_gradient_program_gpu_form(name):
    """The gradient program compiled for sm_90a (no GPU needed to build) and
    its GPU form run on the CPU (each launch's blocks and threads
    emulated) against float64 autograd."""
    example = __import__(name)
    module, inputs, dynamic = example.example()
    module.eval()
    length = lengths_of(example)[1 if dynamic is not None else 0]
    x = at_length(example, length)
    text = linea.frontend.export_torch(module, *(inputs if dynamic is not None else x),
                                       dynamic=dynamic, weights="arguments")
    program = linea.differentiate(text, raising=True)
    assert linea.compile_library(program, entry="main_vjp", raising=False,
                                 target="cuda").exists()
    model = linea.from_torch(module, *(inputs if dynamic is not None else x),
                             dynamic=dynamic, weights="arguments")
    dy = cotangent_like(model, x, seed=7)
    args = [t.numpy() for t in x] + [p.detach().numpy() for p in module.parameters()]
    got = linea.run(program, args + [dy.numpy()], entry="main_vjp", raising=False,
                    pipeline="linea-gpu-mapped-to-cpu")
    assert_close([torch.from_numpy(np.asarray(g)) for g in got],
                 float64_gradients(module, x, dy), (name, "gpu form"))


def test_bfloat16_gradients():
    """A module in bfloat16 (weights and inputs) trains through Linea within
    bf16's rounding: each gradient's error against float64 autograd is at
    most twice torch's own bf16 autograd error on the same module, plus one
    bf16 rounding (2^-8). (Weight gradients sum over every token: Linea
    accumulates those sums in f32, as torch does.)"""
    example = __import__("causal_linear_transformer")
    module, inputs, dynamic = example.example()
    module.eval().to(torch.bfloat16)
    try:
        model = linea.from_torch(module, *(t.to(torch.bfloat16) for t in inputs),
                                 dynamic=dynamic, weights="arguments")
        x = [t.to(torch.bfloat16) for t in at_length(example, 37)]
        dy = cotangent_like(model, x, seed=6).to(torch.bfloat16)
        ours = linea_gradients(model, module, x, dy)
        theirs = gradients_of(module, module, x, dy)
        exact = float64_gradients(module, x, dy)
    finally:
        module.float()
    scale = max(e.norm().item() for e in exact)
    for k, (got, torch_got, want) in enumerate(zip(ours, theirs, exact)):
        assert got.dtype == torch.bfloat16
        ours_error = gradient_error(got, want, scale)
        torch_error = gradient_error(torch_got, want, scale)
        assert ours_error <= 2 * torch_error + 2 ** -8, (k, ours_error, torch_error)


def test_directional_difference():
    """<J^T dy, u> from backward() equals the central difference of
    <dy, module(x + t u)> of the float64 module (the check gradcheck makes,
    along one random direction of the inputs and the weights at once)."""
    example, module, model = trainable_example("causal_linear_transformer")
    x = at_length(example, 23)
    dy = cotangent_like(model, x, seed=3)
    grads = linea_gradients(model, module, x, dy)
    generator = torch.Generator().manual_seed(4)
    directions = [torch.randn(g.shape, generator=generator, dtype=torch.float64)
                  for g in grads]
    ours = sum((g.double() * u).sum().item() for g, u in zip(grads, directions))
    module.double()
    try:
        parameters = list(module.parameters())
        originals = [p.detach().clone() for p in parameters]

        def loss(t):
            with torch.no_grad():
                for p, p0, u in zip(parameters, originals, directions[1:]):
                    p.copy_(p0 + t * u)
                return (module(x[0].double() + t * directions[0]) * dy.double()).sum().item()

        step = 1e-5
        exact = (loss(step) - loss(-step)) / (2 * step)
        loss(0.0)
    finally:
        module.float()
    assert abs(ours - exact) <= 1e-4 * abs(exact), (ours, exact)


def test_no_graph_outside_grad_mode_and_constant_weights():
    """Under no_grad, or on inputs that do not require grad with the
    weights in the IR, a call records nothing; with the weights in the IR,
    backward() fills the inputs' .grad only (as float64 autograd)."""
    example, module, model = trainable_example("presum_layer", weights="constants")
    x = at_length(example, 37)
    assert model(*x).grad_fn is None
    xs = [t.clone().requires_grad_() for t in x]
    module.requires_grad_(False)  # (the oracle's .grad: the inputs' only)
    with torch.no_grad():
        assert model(*xs).grad_fn is None
    dy = cotangent_like(model, x, seed=5)
    (model(*xs) * dy).sum().backward()
    try:
        assert_close([t.grad for t in xs], float64_gradients(module, x, dy), "constants")
    finally:
        module.requires_grad_(True)


def test_loaded_models_train_with_a_saved_gradient(tmp_path):
    """A model saved with gradient=True trains where it is loaded (no
    compiler needed): backward() gives the original's gradients. One saved
    without it has no gradient program: backward() says so (a LineaError),
    it does not crash; saving it again over the first drops the first's."""
    example, module, model = trainable_example("presum_layer")
    x = at_length(example, 9)
    dy = cotangent_like(model, x, seed=9)
    expected = linea_gradients(model, module, x, dy)
    loaded = linea.load(model.save(tmp_path / "m", gradient=True), module=module)
    assert (tmp_path / "m" / "gradient" / "libkernel.so").is_file()
    for got, want in zip(linea_gradients(loaded, module, x, dy), expected):
        assert torch.equal(got, want)
    loaded = linea.load(model.save(tmp_path / "m"), module=module)
    assert not (tmp_path / "m" / "gradient").exists()
    out = loaded(x[0].clone().requires_grad_())
    with pytest.raises(linea.LineaError, match="no gradient program"):
        out.sum().backward()


def test_training_example_follows_torch():
    """examples/models/train_tiny_lm.py: after 100 AdamW steps from one seed
    on the same batches, the loss through Linea is within 1e-3 (relative)
    of torch eager's, and both learned the corpus."""
    import io

    import train_tiny_lm
    eager, ours = train_tiny_lm.train(steps=100, out=io.StringIO())
    assert abs(ours[-1] - eager[-1]) <= 1e-3 * abs(eager[-1]), (ours[-1], eager[-1])
    assert eager[-1] < 0.5 * eager[0], eager
