#!/usr/bin/env python3
"""Forward + backward of the example models: torch eager's autograd against
Linea's (`linea.from_torch(..., weights="arguments")`, whose backward() runs
the gradient program linea-differentiate derives from the raised model).

For each layer of examples/models (weights from one seed, inputs from its
`inputs(L)`), one thread each: the time of `(module(*x) * dy).sum()
.backward()` with every float input and parameter requiring grad, the
median of --repeat runs after a warm one (Linea's compiles, forward and
gradient, are cached before it; not timed). Every run's gradients are checked
against torch's: the largest relative L2 error over inputs and parameters is
printed beside the times.

    .deps/frontend/bin/python bench/training.py [--lengths L...] [--examples NAME...]
        [--repeat N] [--results bench/TRAINING.md]
"""

import argparse
import os
import pathlib
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples" / "models"))
import linea  # noqa: E402

EXAMPLES = ["presum_layer", "causal_linear_transformer", "prefixlm_linear_attention",
            "retnet_retention", "gla_parallel_form", "causal_softmax_block",
            "small_language_model"]


def step(forward, module, inputs, cotangent):
    """One forward + backward; returns the seconds and the gradients."""
    xs = [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]
    module.zero_grad(set_to_none=True)
    start = time.perf_counter()
    (forward(*xs) * cotangent).sum().backward()
    seconds = time.perf_counter() - start
    grads = [x.grad for x in xs if x.is_floating_point()]
    grads += [p.grad for p in module.parameters()]
    return seconds, grads


def measure(name, length, repeat):
    example = __import__(name)
    torch.manual_seed(0)
    module, inputs, dynamic = example.example()
    module.eval()
    model = linea.from_torch(module, *inputs, dynamic=dynamic, weights="arguments")
    torch.manual_seed(length)
    x = list(example.inputs(length))
    with torch.no_grad():
        dy = torch.randn(module(*x).shape)
    rows = {}
    for label, forward in (("torch eager", module), ("Linea", model)):
        step(forward, module, x, dy)  # warm: Linea compiles its gradient here
        runs = [step(forward, module, x, dy) for _ in range(repeat)]
        rows[label] = (statistics.median(s for s, _ in runs), runs[-1][1])
    error = max(((a.double() - b.double()).norm() / b.double().norm()).item()
                for a, b in zip(rows["Linea"][1], rows["torch eager"][1])
                if b.norm() > 0)
    return rows["torch eager"][0], rows["Linea"][0], error


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[4096])
    parser.add_argument("--examples", nargs="+", default=EXAMPLES, metavar="NAME")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--results", help="write the table to this Markdown file")
    args = parser.parse_args()
    torch.set_num_threads(1)
    lines = ["| layer | L | torch eager fwd+bwd | Linea fwd+bwd | Linea / torch | "
             "max rel. L2 of the gradients |", "|---|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    for name in args.examples:
        for length in args.lengths:
            eager, ours, error = measure(name, length, args.repeat)
            lines.append(f"| {name} | {length} | {eager * 1e3:.1f} ms | {ours * 1e3:.1f} ms | "
                         f"{ours / eager:.2f} | {error:.1e} |")
            print(lines[-1], flush=True)
    if args.results:
        pathlib.Path(args.results).write_text(
            "# Forward + backward: torch eager autograd and Linea (bench/training.py)\n\n"
            "One thread each; medians of --repeat runs after a warm one; compiles not "
            "timed.\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
