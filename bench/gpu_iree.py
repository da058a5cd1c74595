#!/usr/bin/env python3
"""IREE's CUDA target on Linea's hand-off (issue 61): each example model of
examples/models, as torch-mlir exports it (weights as arguments, dynamic L),
compiled by IREE twice, as exported and as `linea.export(target="gpu")`
hands it off, and both run on the GPU against the module in float64, at
L = 4096 and 16384 (and the hand-off alone at 65536, where the model as
exported needs the whole score matrix).

    here:  .deps/frontend/bin/python bench/gpu_iree.py --build-only KIT_IREE_DIR
           (the .vmfb files, IREE 3.13's CUDA target: PTX for sm_89, which a
           Hopper runs; a model IREE refuses gets a .txt saying why)
    there: python3 bench/gpu_iree.py --models KIT_IREE_DIR --results GPU-IREE.md
           (needs IREE's runtime: pip install iree-base-runtime==3.13.0, or
           its wheel from PyPI carried along, as gpu-check.sh says)

Each row: IREE's time on the model as exported and on the hand-off (median
of 5 calls after a warm one, wall clock of the call and of copying its
output to the host, the inputs already on the GPU; one timed call where the
warm one took a second or more), their ratio, and each one's error against
the module in float64 on the GPU. `--target cpu` builds and runs the same on
the host's CPU (llvm-cpu, one thread: local-sync), which also tries the
script without a GPU.
"""

import argparse
import json
import pathlib
import shutil
import statistics
import sys
import time

from gpu import rows_of_each  # (bench/gpu.py, beside this file here and in the kit)

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ["causal_linear_transformer", "prefixlm_linear_attention", "retnet_retention",
            "gla_parallel_form", "causal_softmax_block", "presum_layer",
            "small_language_model", "folded_attention"]
LENGTHS = [4096, 16384]
LONGEST = 65536
FORMS = ["source", "handoff"]


def vmfb_path(models_dir, name, form, length=None):
    """An example's module: one for every length where its sequence dim is
    dynamic, else one per length."""
    suffix = "" if length is None else f"-{length}"
    return models_dir / f"{name}-{form}{suffix}.vmfb"


def exports(example, lengths):
    return [None] if example.DYNAMIC else lengths


def build(models_dir, target, chip, lengths):
    """Here: each example exported (weights as arguments), handed off, and
    both compiled by IREE."""
    sys.path.insert(0, str(ROOT / "examples" / "models"))
    import torch
    import linea
    from linea import iree
    from linea.frontend import export_torch
    models_dir.mkdir(parents=True, exist_ok=True)
    for name in ["_demo"] + EXAMPLES:
        shutil.copy(ROOT / "examples" / "models" / f"{name}.py", models_dir)
    built = 0
    for name in EXAMPLES:
        torch.manual_seed(0)
        example = __import__(name)
        module, inputs, dynamic = example.example()
        for length in exports(example, lengths):
            if length is not None:
                inputs = example.inputs(length)
            source = export_torch(module.eval(), *inputs, dynamic=dynamic, weights="arguments")
            texts = {"source": source,
                     "handoff": linea.export(source,
                                             target="gpu" if target == "cuda" else "cpu")}
            for form, text in texts.items():
                if form == "source" and length == LONGEST:
                    continue
                path = vmfb_path(models_dir, name, form, length)
                try:
                    path.write_bytes(iree.compile_vmfb(text, target=target, chip=chip))
                    built += 1
                except linea.LineaError as error:
                    path.with_suffix(".txt").write_text(str(error).splitlines()[0][:300] + "\n")
    (models_dir / "target.txt").write_text(target + "\n")
    print(f"gpu_iree: {built} IREE modules built for {target}")


def rel_l2(ours, exact):
    return ((ours.double() - exact).norm() / exact.norm()).item()


def iree_function(runtime, driver, vmfb):
    """`main` of the module on the driver's device, and that device."""
    config = runtime.Config(driver)
    context = runtime.SystemContext(config=config)
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, vmfb))
    return context.modules.module["main"], config.device


def run_example(models_dir, name, lengths):
    """There, in a process of its own: one example at every length; prints
    each row as a JSON line `ROW [...]`."""
    import numpy as np
    import torch
    import iree.runtime as runtime
    target = (models_dir / "target.txt").read_text().strip()
    driver = "cuda" if target == "cuda" else "local-sync"
    device = "cuda" if target == "cuda" else "cpu"
    sys.path.insert(0, str(models_dir))
    example = __import__(name)
    torch.manual_seed(0)
    module, _, _ = example.example()
    module = module.eval().to(device)
    weights = [p.detach().cpu().numpy() for p in module.parameters()]
    for length in lengths:
        functions = {}
        for form in FORMS:
            path = vmfb_path(models_dir, name, form, None if example.DYNAMIC else length)
            if path.exists():
                functions[form] = iree_function(runtime, driver, path.read_bytes())
        row = [name, length]
        torch.manual_seed(length)
        inputs = example.inputs(length)
        try:
            with torch.no_grad():
                exact = module.double()(*(x.to(device).double() if x.is_floating_point()
                                          else x.to(device) for x in inputs))
                module.float()
        except RuntimeError:  # out of memory for the module as written (L = 65536)
            exact = None
        for form in FORMS:
            if form not in functions:
                why = vmfb_path(models_dir, name, form,
                                None if example.DYNAMIC else length).with_suffix(".txt")
                row += [why.read_text().strip()[:80] if why.exists() else "not run", ""]
                continue
            main, hal_device = functions[form]
            args = [runtime.asdevicearray(hal_device, np.ascontiguousarray(a))
                    for a in [x.numpy() for x in inputs] + weights]
            try:
                def call():
                    out = main(*args)
                    return np.array((out[0] if isinstance(out, (list, tuple)) else out)
                                    .to_host(), copy=True)
                start = time.perf_counter()
                call()
                warm = time.perf_counter() - start
                times = []
                # (A call of seconds, as the quadratic models take on one CPU
                # thread, is timed once.)
                for _ in range(5 if warm < 1.0 else 1):
                    start = time.perf_counter()
                    got = call()
                    times.append((time.perf_counter() - start) * 1e3)
                error = (f"{rel_l2(torch.from_numpy(got), exact.cpu()):.1e}"
                         if exact is not None else "")
                row += [f"{statistics.median(times):.2f}", error]
            except (RuntimeError, ValueError) as failure:  # IREE's errors
                row += [str(failure).splitlines()[0][:80], ""]
        print("ROW " + json.dumps(row), flush=True)


def ratio(row):
    try:
        return f"{float(row[2]) / float(row[4]):.1f}x"
    except (ValueError, ZeroDivisionError, IndexError):
        return ""


def run(models_dir, results, lengths):
    """There: every example in a process of its own (a crash costs its own
    rows only and is reported as one)."""
    rows = rows_of_each(
        EXAMPLES,
        lambda name: [sys.executable, "-X", "faulthandler", __file__, "--models",
                      str(models_dir), "--only", name, "--lengths", *map(str, lengths)],
        timeout=240)
    columns = ["example", "L", "IREE on the model as exported (ms)", "rel. L2 vs float64",
               "IREE on Linea's hand-off (ms)", "rel. L2 vs float64", "exported / hand-off"]
    table = ["| " + " | ".join(columns) + " |", "| --- | ---: | ---: | --- | ---: | --- | ---: |"]
    table += [f"| {' | '.join(str(c) for c in (row + [''] * 6)[:6])} | {ratio(row)} |"
              for row in rows]
    target = (models_dir / "target.txt").read_text().strip()
    text = (f"# IREE ({target}) on the example models and on Linea's hand-off "
            "(bench/gpu_iree.py)\n\n" + "\n".join(table) + "\n")
    print(text)
    if results:
        pathlib.Path(results).write_text(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-only", metavar="MODELS_DIR")
    parser.add_argument("--models", metavar="MODELS_DIR")
    parser.add_argument("--results")
    parser.add_argument("--target", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--lengths", type=int, nargs="+", default=LENGTHS + [LONGEST])
    parser.add_argument("--only", metavar="EXAMPLE", help="run this example alone, in this process")
    opts = parser.parse_args()
    if opts.build_only:
        build(pathlib.Path(opts.build_only), opts.target, opts.chip, opts.lengths)
        return
    try:
        import iree.runtime  # noqa: F401
    except ImportError:
        sys.exit("bench/gpu_iree.py: no IREE runtime here (pip install iree-base-runtime==3.13.0)")
    if opts.only:
        run_example(pathlib.Path(opts.models), opts.only, opts.lengths)
    else:
        run(pathlib.Path(opts.models), opts.results, opts.lengths)


if __name__ == "__main__":
    main()
