"""What every example does: import the layer once with a dynamic sequence
length through `linea.from_torch`, print the raise report, then at a few
lengths the largest error against the module run eagerly in float64 and the
median time of both (one thread each).

Run an example with the Python that has PyTorch >= 2.1 and torch-mlir
(.deps/frontend/bin/python, made by scripts/install-deps.sh).
"""
import os
import pathlib
import statistics
import sys
import time

# One thread for both: torch's and Linea's kernels read it when they start.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

# The examples run from a checkout: its python/ holds the linea package.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
import linea  # noqa: E402


def _median_seconds(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def demo(module, make_inputs, dynamic, lengths, **options):
    """`make_inputs(L)` gives the example inputs at length L; `dynamic` marks
    their length dims (`{input_index: {dim: "L"}}`), or is None for a model
    compiled at each length (a loop torch.export unrolls)."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    module = module.eval()
    model = linea.from_torch(module, *make_inputs(lengths[0]), dynamic=dynamic, **options)
    print(model.report())
    print(f"{'L':>7} {'max |error|':>12} {'rel. L2':>9} {'torch eager':>12} {'Linea':>10}")
    for length in lengths:
        inputs = make_inputs(length)
        if dynamic is None and length != lengths[0]:
            model = linea.from_torch(module, *inputs, **options)
        with torch.no_grad():
            # Token ids stay integers; everything else is taken in float64.
            exact = module.double()(*(x.double() if x.is_floating_point() else x
                                      for x in inputs)).float()
            module.float()
            eager = _median_seconds(lambda: module(*inputs))
        out = model(*inputs)
        error = (out - exact).abs().max().item()
        rel = ((out.double() - exact.double()).norm() / exact.double().norm()).item()
        ours = _median_seconds(lambda: model(*inputs))
        print(f"{length:>7} {error:>12.2e} {rel:>9.1e} {eager * 1e3:>9.1f} ms "
              f"{ours * 1e3:>7.1f} ms")
    return model
