"""Training through Linea: a `linea.from_torch` model under torch's autograd.

A call under grad mode whose float inputs, or whose module's parameters
(weights="arguments"), require grad goes through one
`torch.autograd.Function`: its forward is the model's kernel, its backward
the model's gradient program, `@main_vjp`, that `linea-differentiate`
derives from the same raised module (docs/Gradients.md). The backward
recomputes the forward (the gradient program takes the inputs and weights
and the outputs' cotangents): the Function saves only the tensors the call
was given, never activations. The gradient program is compiled at the first
backward (with the forward's target and options, so a dynamic length stays
dynamic) and kept on the model.
"""

import functools

from .runner import LineaError

_FLOATS = ("f32", "f16", "bf16")


def _is_float(spec):
    return spec["dtype"] in _FLOATS


def _detached(torch, value):
    return value.detach() if isinstance(value, torch.Tensor) else value


def needs_gradient(torch, tensors):
    """Whether a call on `tensors` must record a graph for backward()."""
    return torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad for t in tensors)


@functools.lru_cache(maxsize=None)
def _function():
    """The autograd Function (defined at first use: `import linea` does not
    import torch)."""
    import torch

    class LineaFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, model, *args):
            out = model.kernel(*(_detached(torch, a) for a in args))
            results = out if isinstance(out, tuple) else (out,)
            specs = model.kernel.signature["results"]
            ctx.model = model
            # Tensors through save_for_backward (torch checks that nothing
            # modified them in place before backward); scalars as they are.
            ctx.save_for_backward(*(a for a in args if isinstance(a, torch.Tensor)))
            ctx.args = [None if isinstance(a, torch.Tensor) else a for a in args]
            # What a missing cotangent is zeros of (not the outputs
            # themselves: they would stay alive until backward).
            ctx.result_like = [(tuple(r.shape), r.dtype, r.device) for r in results]
            ctx.mark_non_differentiable(*(r for r, spec in zip(results, specs)
                                          if not _is_float(spec)))
            return out

        @staticmethod
        def backward(ctx, *cotangents):
            model = ctx.model
            saved = iter(ctx.saved_tensors)
            args = [next(saved) if a is None else a for a in ctx.args]
            specs = model.kernel.signature
            seeds = []
            for d, spec, (shape, dtype, device) in zip(cotangents, specs["results"],
                                                       ctx.result_like):
                if not _is_float(spec):
                    continue
                seeds.append(torch.zeros(shape, dtype=dtype, device=device) if d is None
                             else d.to(dtype).contiguous())
            got = model.gradient_kernel()(*(_detached(torch, a) for a in args), *seeds)
            got = list(got) if isinstance(got, tuple) else [got]
            grads = []
            for k, (a, spec) in enumerate(zip(args, specs["args"])):
                d = got.pop(0) if _is_float(spec) else None
                needed = ctx.needs_input_grad[1 + k]  # (0: the model)
                grads.append(d.to(a.dtype) if needed and d is not None else None)
            return (None, *grads)

    return LineaFunction


def call_recorded(model, tensors):
    """`model.kernel(*tensors)` as a node of torch's graph."""
    return _function().apply(model, *tensors)


def gradient_kernel(model):
    """The compiled `@main_vjp` of `model`'s imported IR."""
    from .compiler import compile as _compile
    from .compiler import differentiate
    if model.source is None:
        raise LineaError(1, f"linea.Model {model.name} has no gradient program: it was "
                            "loaded without one (and without its imported IR); save it with "
                            "model.save(path, gradient=True), or build it with "
                            "linea.from_torch, to train through it")
    entry = model.kernel.signature["name"]
    target = model.compile_options.get("target", "cpu")
    chip = model.compile_options.get("chip") if target != "cpu" else None
    program = differentiate(model.source, raising=model.raising, target=target, chip=chip)
    return _compile(program, entry=f"{entry}_vjp", raising=False, **model.compile_options)
