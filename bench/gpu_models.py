#!/usr/bin/env python3
"""The example models on a GPU: each layer of examples/models, exported as
`linea.from_torch` exports it with its weights as arguments (so that the
GPU machine passes the weights of the module it builds there, whatever its
torch's initializer makes), compiled for the kit's chip, and timed against
the same module run by torch on the GPU, at L = 4096 and 16384.

    here:  .deps/frontend/bin/python bench/gpu_models.py --build-only KIT_MODELS_DIR
           (exports each layer into KIT_MODELS_DIR/NAME.mlir, next to a copy of
           the example, and compiles it into $LINEA_CACHE_DIR)
    there: python3 bench/gpu_models.py --models KIT_MODELS_DIR --results GPU-MODELS.md

Each row: torch's time and Linea's (CUDA events, median of 5 after a warm
call), and Linea's error against the module in float64 on the GPU; in f32
(Linea on CUDA cores, torch's f32 matmuls) and with 16-bit tensor cores
(Linea's `precision=bf16`: the contractions' operands rounded to bf16, f32
accumulation; torch under `torch.autocast` bf16).
"""

import argparse
import json
import os
import pathlib
import shutil
import sys

from gpu import kernel_profile, median_ms, rows_of_each  # (bench/gpu.py, beside this file here and in the kit)

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ["causal_linear_transformer", "prefixlm_linear_attention", "retnet_retention",
            "gla_parallel_form", "causal_softmax_block", "presum_layer",
            "small_language_model", "folded_attention"]
LENGTHS = [4096, 16384]
PRECISIONS = ["f32", "bf16"]


def exports(example):
    """The lengths of the example's exports: one export serving every length
    (None) where its sequence dim is dynamic, else one per length."""
    return [None] if example.DYNAMIC else LENGTHS


def ir_path(models_dir, name, length):
    return models_dir / (f"{name}.mlir" if length is None else f"{name}-{length}.mlir")


def build(models_dir, chip):
    """Here: each example's IR (weights as arguments, dynamic L, or one per
    length) and its CUDA libraries in the cache."""
    sys.path.insert(0, str(ROOT / "examples" / "models"))
    import torch
    import linea
    from linea.frontend import export_torch
    models_dir.mkdir(parents=True, exist_ok=True)
    for name in ["_demo"] + EXAMPLES:
        shutil.copy(ROOT / "examples" / "models" / f"{name}.py", models_dir)
    for name in EXAMPLES:
        torch.manual_seed(0)
        example = __import__(name)
        module, inputs, dynamic = example.example()
        for length in exports(example):
            if length is not None:
                inputs = example.inputs(length)
            text = export_torch(module.eval(), *inputs, dynamic=dynamic, weights="arguments")
            ir_path(models_dir, name, length).write_text(text)
            for precision in PRECISIONS:
                linea.compile_library(text, target="cuda", chip=chip, precision=precision)
    print(f"gpu_models: {len(EXAMPLES)} example models exported and compiled for {chip}")


def run_example(models_dir, name, chip, profile):
    """There, in a process of its own: one example at every length; prints
    each row as a JSON line `ROW [...]`."""
    import torch
    import linea
    sys.path.insert(0, str(models_dir))
    example = __import__(name)
    torch.manual_seed(0)
    module, _, _ = example.example()
    module = module.eval().cuda()
    weights = [p.detach() for p in module.parameters()]
    kernels = {}
    for length in exports(example):
        text = ir_path(models_dir, name, length).read_text()
        try:
            kernels[length] = {p: linea.compile(text, target="cuda", chip=chip, precision=p)
                               for p in PRECISIONS}
        except linea.LineaError as error:
            print("ROW " + json.dumps([name, length or "", "not run: "
                                       + str(error).splitlines()[0]]))
            return
    for length in LENGTHS:
        torch.manual_seed(length)
        inputs = [x.cuda() for x in example.inputs(length)]
        try:
            with torch.no_grad():
                # Token ids stay integers.
                exact = module.double()(*(x.double() if x.is_floating_point() else x
                                          for x in inputs))
                module.float()
                row = [name, length]
                for precision, ours in kernels.get(length, kernels.get(None)).items():
                    error = rel_l2(ours(*inputs, *weights), exact)
                    with torch.autocast("cuda", dtype=torch.bfloat16,
                                        enabled=precision == "bf16"):
                        theirs_ms = median_ms(torch, lambda: module(*inputs), 5)
                    ours_ms = median_ms(torch, lambda: ours(*inputs, *weights), 5)
                    row += [f"{theirs_ms:.2f}", f"{ours_ms:.2f}", f"{error:.1e}"]
        except (RuntimeError, linea.LineaError) as error:  # e.g. torch out of memory
            row = [name, length, str(error).splitlines()[0][:100]]
        print("ROW " + json.dumps(row), flush=True)
        if profile and length == LENGTHS[0]:
            with torch.no_grad():
                for precision, ours in kernels.get(length, kernels.get(None)).items():
                    listed = kernel_profile(torch, lambda: ours(*inputs, *weights))
                    launches = sum(count for _, count, _ in listed)
                    busy = sum(ms for _, _, ms in listed)
                    print(f"  {name} {precision}: {launches} launches per call, "
                          f"{busy:.3f} ms in kernels", flush=True)
                    for kname, count, ms in listed[:8]:
                        print(f"  {name} {precision}: kernel {ms:9.3f} ms {count:6d} launches  "
                              f"{kname[:90]}", flush=True)


def rel_l2(ours, exact):
    return ((ours.double() - exact).norm() / exact.norm()).item()


def run(models_dir, chip, results, profile):
    """There: every example, each in a process of its own (a crash costs
    its own rows only and is reported as one), at every length."""
    import torch
    rows = rows_of_each(
        EXAMPLES,
        lambda name: [sys.executable, "-X", "faulthandler", __file__, "--models",
                      str(models_dir), "--only", name, "--chip", chip]
        + (["--profile"] if profile else []),
        timeout=150)
    columns = ["example", "L"]
    for precision in PRECISIONS:
        columns += [f"torch {precision} (ms)", f"Linea {precision} (ms)",
                    f"Linea {precision} rel. L2 vs float64"]
    table = ["| " + " | ".join(columns) + " |",
             "| --- | ---: |" + " ---: | ---: | --- |" * len(PRECISIONS)]
    # A row that stopped early says why after its name (and length): padded.
    table += [f"| {' | '.join(str(c) for c in row + [''] * (len(columns) - len(row)))} |"
              for row in rows]
    text = (f"# The example models on {torch.cuda.get_device_name()} (bench/gpu_models.py)\n\n"
            + "\n".join(table) + "\n")
    print(text)
    if results:
        pathlib.Path(results).write_text(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-only", metavar="MODELS_DIR")
    parser.add_argument("--models", metavar="MODELS_DIR")
    parser.add_argument("--results")
    parser.add_argument("--chip", default=os.environ.get("LINEA_GPU_CHIP", "sm_90a"))
    parser.add_argument("--only", metavar="EXAMPLE", help="run this example alone, in this process")
    parser.add_argument("--profile", action="store_true",
                        help="also list each model's CUDA kernels at the first length")
    opts = parser.parse_args()
    if opts.build_only:
        build(pathlib.Path(opts.build_only), opts.chip)
        return
    import torch
    if not torch.cuda.is_available():
        sys.exit("bench/gpu_models.py: no CUDA device here (--build-only compiles the models)")
    if opts.only:
        run_example(pathlib.Path(opts.models), opts.only, opts.chip, opts.profile)
    else:
        run(pathlib.Path(opts.models), opts.chip, opts.results, opts.profile)


if __name__ == "__main__":
    main()
