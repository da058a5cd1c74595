"""Each example layer of examples/models (its `example()`) imports through
from_torch with its dynamic length, raises what its docstring says, and
matches the module at a few small lengths; `python3 -m linea.import` writes
the same IR for the command-line tools. Each also goes through ONNX (torch's
exporter, then from_onnx) with the same raise and values."""
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import linea
from conftest import ROOT

EXAMPLES = {
    "causal_linear_transformer": "linea.linear_attention mask = causal normalize",
    "prefixlm_linear_attention": "linea.linear_attention mask = prefix(128) normalize",
    "retnet_retention": "linea.gated_linear_attention mask = causal",
    "presum_layer": "linea.presum",
    "gla_parallel_form": "linea.gated_linear_attention mask = causal",
    "causal_softmax_block": "linea.attention mask = causal",
    "small_language_model": "linea.linear_attention mask = causal normalize",
    "folded_attention": "linea.fold segment_length = 64",
}


def exactly(module, inputs):
    """The module in float64 on `inputs` (token ids stay integers)."""
    with torch.no_grad():
        exact = module.double()(*(t.double() if t.is_floating_point() else t for t in inputs))
        module.float()
    return exact


def at_length(example, length):
    """The example's own inputs at `length`, seeded."""
    torch.manual_seed(length)
    return list(example.inputs(length))


def lengths_of(example):
    """L = 1, prime, not a chunk multiple, on one compile; an example with no
    dynamic length (a loop over segments, unrolled by torch.export) names
    its own, each a compile of its own."""
    return getattr(example, "TEST_LENGTHS", [1, 37, 130])


def compiled_at_lengths(example, compile_one):
    """The example's module, and (length, model) for each test length: one
    model for every length, or one per length where the example has no
    dynamic length."""
    module, inputs, dynamic = example.example()
    module.eval()
    if dynamic is not None:
        model = compile_one(module, inputs, dynamic)
        return module, [(length, model) for length in lengths_of(example)]
    return module, [(length, compile_one(module, at_length(example, length), None))
                    for length in lengths_of(example)]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example(name):
    example = __import__(name)

    def compile_one(module, inputs, dynamic):
        model = linea.from_torch(module, *inputs, dynamic=dynamic)
        assert "raised to " + EXAMPLES[name] in model.report(), model.report()
        return model

    module, models = compiled_at_lengths(example, compile_one)
    for length, model in models:
        x = at_length(example, length)
        exact = exactly(module, x)
        out = model(*x)
        rel = ((out.double() - exact).norm() / exact.norm()).item()
        assert rel <= 1e-4, (length, rel)


def onnx_file(module, inputs, dynamic, path):
    """The module as ONNX (torch's TorchScript exporter: the ONNX importer's
    input needs no onnxscript), its dynamic dims named as from_torch's."""
    names = [f"input{i}" for i in range(len(inputs))]
    axes = {names[i]: dict(dims) for i, dims in (dynamic or {}).items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's deprecation notice
        torch.onnx.export(module, tuple(inputs), str(path), dynamo=False, input_names=names,
                          output_names=["output"], dynamic_axes=axes, opset_version=17)
    return path


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_from_onnx(name, tmp_path):
    """The same layer as an ONNX file: one compile with a dynamic length
    (or one per length, as from_torch), the same raise, the same values."""
    example = __import__(name)

    def compile_one(module, inputs, dynamic):
        path = tmp_path / f"{name}-{inputs[0].shape[1]}.onnx"
        model = linea.from_onnx(onnx_file(module, inputs, dynamic, path))
        assert "raised to " + EXAMPLES[name] in model.report(), model.report()
        return model

    module, models = compiled_at_lengths(example, compile_one)
    for length, model in models:
        x = at_length(example, length)
        exact = exactly(module, x)
        out = torch.as_tensor(model(*(t.numpy() for t in x))).double()
        rel = ((out - exact).norm() / exact.norm()).item()
        assert rel <= 1e-4, (length, rel)


def test_import_command(tmp_path):
    out = tmp_path / "presum.mlir"
    done = subprocess.run([sys.executable, "-m", "linea.import",
                           str(ROOT / "examples" / "models" / "presum_layer.py"), "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    tool = linea.runner.build_dir() / "bin" / "linea-opt"
    raised = subprocess.run([str(tool), str(out), "--linea-raise"], capture_output=True, text=True)
    assert raised.returncode == 0 and "linea.presum" in raised.stdout, raised.stderr
    bad = subprocess.run([sys.executable, "-m", "linea.import", str(tmp_path / "none.onnx"),
                          "-o", str(out)], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.startswith("linea.import: error: cannot read")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_cuda_path(name):
    """target="cuda": the imported layer compiles for sm_90a (no GPU needed to
    build), and its GPU form, run on the CPU (linea-gpu-mapped-to-cpu: each
    launch's blocks and threads emulated), matches the module."""
    from linea.frontend import export_torch
    example = __import__(name)
    module, inputs, dynamic = example.example()
    module.eval()
    length = lengths_of(example)[1 if dynamic is not None else 0]
    x = at_length(example, length)
    text = export_torch(module, *(inputs if dynamic is not None else x), dynamic=dynamic)
    library = linea.compile_library(text, target="cuda")
    assert library.exists()
    (out,) = linea.run(text, [t.numpy() for t in x], pipeline="linea-gpu-mapped-to-cpu")
    exact = exactly(module, x).numpy()
    rel = np.linalg.norm(out - exact) / np.linalg.norm(exact)
    assert rel <= 1e-4, rel


@pytest.mark.parametrize("name", ["causal_linear_transformer", "causal_softmax_block"])
def test_example_on_tensor_cores(name):
    """The same GPU form with precision=bf16, one compile for every length:
    the projections over the dynamic L on warpgroup MMA (their last row tile
    partial at L = 130), the normalized values with their ones column on
    mma.sync; within bf16 rounding of the module in float64."""
    from linea.frontend import export_torch
    example = __import__(name)
    module, inputs, dynamic = example.example()
    module.eval()
    text = export_torch(module, *inputs, dynamic=dynamic)
    pipeline = "linea-gpu-mapped-to-cpu{precision=bf16}"
    tool = linea.runner.build_dir() / "bin" / "linea-opt"
    lowered = subprocess.run([str(tool), "-", "--linea-raise",
                              "--linea-gpu-mapped-to-cpu=precision=bf16"],
                             input=text, capture_output=True, text=True, check=True).stdout
    assert "llvm.call @linea_gpu_emu_wgmma" in lowered
    x = at_length(example, 130)
    (out,) = linea.run(text, [t.numpy() for t in x], pipeline=pipeline)
    exact = exactly(module, x).numpy()
    rel = np.linalg.norm(out - exact) / np.linalg.norm(exact)
    assert rel <= 1e-2, rel
