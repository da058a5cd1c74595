#!/usr/bin/env python3
"""Training on a GPU: forward + backward of the example models through Linea
(`from_torch(..., target="cuda", weights="arguments")`, its backward the
gradient program of the same raised model) against torch autograd on the
same module on the GPU, and against float64 autograd.

    here:  .deps/frontend/bin/python bench/gpu_training.py --build-only KIT_TRAINING_DIR
           (each example compiled for the kit's chip, forward and gradient,
           saved with model.save(path, gradient=True) beside a copy of it)
    there: python3 bench/gpu_training.py --saved KIT_TRAINING_DIR [--results FILE]

There, each example's module is built from the same seed, moved to the GPU
and handed to `linea.load(path, module=...)`: the loaded model takes the
module's parameters at each call, and backward() fills their .grad. Each
row: the largest relative L2 error of Linea's gradients (inputs and
parameters) against float64 autograd, torch's f32 error beside it, and the
time of `(model(x) * dy).sum().backward()` for both (CUDA events, median of
5 after a warm call). An example whose gradient program does not compile for
the GPU says why at build time and is reported there as skipped.
"""

import argparse
import json
import pathlib
import shutil
import sys

from gpu import median_ms  # (bench/gpu.py, beside this file here and in the kit)

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ["causal_linear_transformer", "prefixlm_linear_attention", "retnet_retention",
            "gla_parallel_form", "causal_softmax_block", "presum_layer", "small_language_model"]
LENGTHS = [4096]


def build(directory, chip):
    """Here: each example compiled for `chip`, saved with its gradient."""
    sys.path.insert(0, str(ROOT / "examples" / "models"))
    import torch
    import linea
    directory.mkdir(parents=True, exist_ok=True)
    for name in ["_demo"] + EXAMPLES:
        shutil.copy(ROOT / "examples" / "models" / f"{name}.py", directory)
    skipped = {}
    for name in EXAMPLES:
        torch.manual_seed(0)
        example = __import__(name)
        module, inputs, dynamic = example.example()
        try:
            # (precision="f32": the forward is bench/gpu_models.py's f32 library.)
            model = linea.from_torch(module.eval(), *inputs, dynamic=dynamic, target="cuda",
                                     chip=chip, precision="f32", weights="arguments")
            model.save(directory / name, gradient=True)
        except linea.LineaError as error:
            skipped[name] = str(error).strip().splitlines()[0]
    (directory / "skipped.json").write_text(json.dumps(skipped, indent=2) + "\n")
    print(f"gpu_training: {len(EXAMPLES) - len(skipped)} of {len(EXAMPLES)} examples compiled "
          f"for {chip} with their gradients" +
          "".join(f"\n  skipped {name}: {why}" for name, why in skipped.items()))


def gradients(forward, module, inputs, cotangent):
    import torch
    xs = [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]
    module.zero_grad(set_to_none=True)
    (forward(*xs) * cotangent).sum().backward()
    grads = [x.grad for x in xs if x.is_floating_point()]
    return grads + [p.grad if p.grad is not None else torch.zeros_like(p)
                    for p in module.parameters()]


def largest_error(got, exact):
    scale = max(e.norm().item() for e in exact)
    return max(((g.double() - e).norm() / max(e.norm().item(), 1e-3 * scale)).item()
               for g, e in zip(got, exact))


def run(directory, results):
    import torch
    import linea
    sys.path.insert(0, str(directory))
    skipped = json.loads((directory / "skipped.json").read_text())
    lines = ["| layer | L | Linea grads rel. L2 | torch f32 grads rel. L2 | torch fwd+bwd | "
             "Linea fwd+bwd | Linea / torch |", "|---|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    for name in EXAMPLES:
        if name in skipped:
            lines.append(f"| {name} | | skipped: {skipped[name][:120]} | | | | |")
            print(lines[-1], flush=True)
            continue
        for length in LENGTHS:
            try:
                torch.manual_seed(0)
                example = __import__(name)
                module, _, _ = example.example()
                module = module.eval().cuda()
                model = linea.load(directory / name, module=module)
                torch.manual_seed(length)
                x = [t.cuda() for t in example.inputs(length)]
                with torch.no_grad():
                    dy = torch.randn_like(module(*x))
                module.double()
                exact = gradients(module, module,
                                  [t.double() if t.is_floating_point() else t for t in x],
                                  dy.double())
                module.float()
                ours = gradients(model, module, x, dy)
                theirs = gradients(module, module, x, dy)
                torch_ms = median_ms(torch, lambda: gradients(module, module, x, dy), 5)
                linea_ms = median_ms(torch, lambda: gradients(model, module, x, dy), 5)
                lines.append(f"| {name} | {length} | {largest_error(ours, exact):.1e} | "
                             f"{largest_error(theirs, exact):.1e} | {torch_ms:.2f} ms | "
                             f"{linea_ms:.2f} ms | {linea_ms / torch_ms:.2f} |")
            except Exception as error:  # a failing row says why, the others run
                lines.append(f"| {name} | {length} | FAILED: {type(error).__name__}: "
                             f"{str(error).strip().splitlines()[0][:160]} | | | | |")
            print(lines[-1], flush=True)
    if results:
        pathlib.Path(results).write_text(
            "# Training on the GPU: forward + backward, torch autograd and Linea "
            "(bench/gpu_training.py)\n\n" + "\n".join(lines) + "\n")
    return all("FAILED" not in line for line in lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-only", type=pathlib.Path, metavar="DIR")
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--saved", type=pathlib.Path, metavar="DIR")
    parser.add_argument("--results")
    args = parser.parse_args()
    if args.build_only:
        build(args.build_only, args.chip)
    elif args.saved:
        sys.exit(0 if run(args.saved, args.results) else 1)
    else:
        parser.error("give --build-only DIR (here) or --saved DIR (there)")


if __name__ == "__main__":
    main()
