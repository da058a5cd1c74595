"""Linea's hand-off run by IREE (issue 61): every example model through
`linea.from_torch(..., backend="iree")` (torch-mlir's export, `linea.export`,
IREE's llvm-cpu) against the module in float64, within SPEC's 1e-4; the
hand-off parsed by the MLIR inside torch-mlir too. IREE on the hand-off
against IREE on the model as exported, and their speeds, are
bench/models.py's --handoff rows."""

import importlib

import pytest
import torch

import linea
from linea import LineaError

EXAMPLES = ["causal_linear_transformer", "prefixlm_linear_attention", "retnet_retention",
            "gla_parallel_form", "causal_softmax_block", "presum_layer",
            "small_language_model", "folded_attention"]


def rel_l2(ours, exact):
    return ((ours.double() - exact).norm() / exact.norm()).item()


def exact(module, inputs):
    """The module in float64 (token ids stay integers)."""
    with torch.no_grad():
        out = module.double()(*(x.double() if x.is_floating_point() else x for x in inputs))
    module.float()
    return out


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_through_iree(name):
    torch.manual_seed(0)
    example = importlib.import_module(name)
    module, inputs, dynamic = example.example()
    module = module.eval()
    model = linea.from_torch(module, *inputs, dynamic=dynamic, backend="iree")
    assert isinstance(model, linea.iree.IreeModel)
    # Another length where the sequence dim is dynamic (prime, not a multiple
    # of any chunk).
    if dynamic:
        inputs = example.inputs(97)
    out = model(*inputs)
    assert out.dtype == torch.float32
    assert rel_l2(out, exact(module, inputs)) <= 1e-4


def test_hand_off_parses_in_torch_mlir():
    """The MLIR inside torch-mlir's Python package reads the hand-off."""
    from torch_mlir import ir
    torch.manual_seed(0)
    example = importlib.import_module("causal_linear_transformer")
    module, inputs, dynamic = example.example()
    text = linea.export(linea.frontend.export_torch(module.eval(), *inputs, dynamic=dynamic))
    with ir.Context() as context:
        context.allow_unregistered_dialects = False
        module_op = ir.Module.parse(text)
        assert "linalg.generic" in str(module_op)


def test_weights_as_arguments_and_grad_refused():
    torch.manual_seed(0)
    example = importlib.import_module("presum_layer")
    module, inputs, dynamic = example.example()
    model = linea.from_torch(module.eval(), *inputs, dynamic=dynamic, backend="iree",
                             weights="arguments")
    assert rel_l2(model(*inputs), exact(module, inputs)) <= 1e-4
    x = inputs[0].clone().requires_grad_()
    with pytest.raises(LineaError, match="backward through IREE is not supported"):
        model(x)


def test_unknown_backend():
    example = importlib.import_module("presum_layer")
    module, inputs, dynamic = example.example()
    with pytest.raises(LineaError, match="backend='tvm'; expected 'linea' or 'iree'"):
        linea.from_torch(module, *inputs, backend="tvm")


@pytest.mark.parametrize("name", EXAMPLES)
def test_cuda_hand_off_compiles(name):
    """IREE's CUDA target builds every example's GPU hand-off (running it
    needs a GPU; IREE 3.13 describes chips up to sm_89, whose PTX a Hopper
    runs). Softmax attention (the softmax block; inside the fold's steps) is
    handed off loop-free: IREE's CUDA target crashed on the tiles of the GPU
    plan. The gated models (RetNet, GLA) need the zero steps of their chunk
    scan as pads and, for RetNet's scalar gate, the decay after the scores:
    IREE refused both as Linea writes them for itself."""
    from linea import iree
    example = importlib.import_module(name)
    module, inputs, dynamic = example.example()
    text = linea.export(linea.frontend.export_torch(module.eval(), *inputs, dynamic=dynamic),
                        target="gpu")
    assert len(iree.compile_vmfb(text, target="cuda", chip="sm_90a")) > 0


@pytest.mark.parametrize("layer", ["PackedCausal", "PackedNormalized", "PackedBidirectional"])
def test_packed_layer_through_iree(layer):
    """The raise corpus's packed layers (documents by segment ids, a dynamic
    L) through IREE: the ids' runs become i64 offsets and the segments run
    one after another, both as IREE takes them; ids not in runs take the
    layer as written, also through IREE."""
    import pathlib
    import sys
    import numpy as np
    from linea import iree
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "test" / "Raise"
                           / "models"))
    import models
    torch.manual_seed(0)
    module = getattr(models, layer)().eval()
    example = [torch.randn(1, 4, 64, 16) for _ in range(3)] + [torch.arange(64) // 20]
    dynamic = {0: {2: "L"}, 1: {2: "L"}, 2: {2: "L"}, 3: {0: "L"}}
    source = linea.frontend.export_torch(module, *example, dynamic=dynamic)
    # IREE's CUDA target builds the GPU hand-off too (not run: no GPU here).
    assert len(iree.compile_vmfb(linea.export(source, target="gpu"), target="cuda")) > 0
    model = iree.IreeModel(None, linea.export(source), layer)
    length = 97
    # A document of one token (id 3); ids that skip values (1, 4, 5, 6).
    in_runs = torch.tensor(np.repeat([0, 2, 3, 7], [13, 40, 1, 43]))
    interleaved = torch.arange(length) % 3
    for ids in (in_runs, interleaved):
        inputs = [torch.randn(1, 4, length, 16) for _ in range(3)] + [ids]
        assert rel_l2(model(*inputs), exact(module, inputs)) <= 1e-4
