#!/usr/bin/env python3
"""Model layers at scale: what linea-raise buys on model IR.

The raise corpus's layers (test/Raise/models/models.py) and its two-block
linear transformer (layer norms, projections, GELU MLPs around two normalized
causal linear attentions), exported by torch-mlir's FX importer with a
dynamic sequence length at 1 x 4 heads of 64,
and the same file run by every compiler, one thread each:

- torch eager (torch.set_num_threads(1)) on the PyTorch layer itself,
- IREE llvm-cpu (iree-base-compiler / -runtime from PyPI, local-sync),
- Linea with raising (the default) and with --no-raise (OMP_NUM_THREADS=1),

or, with --threads N, each on N threads (IREE's local-task driver);
--linea-only reruns Linea's rows alone (torch still runs, for the check).
--handoff (issue 61) adds IREE on Linea's hand-off (`linea-opt
--linea-export`, upstream MLIR only) beside IREE on the model as exported,
at L = 4096 and, alone with Linea raised, at 65536 (its peak memory there).
--matmuls times plain projections instead ([4096, K] x [K, N] linalg.matmul)
through numpy's OpenBLAS sgemm, torch.mm, IREE and Linea, each checked
against the float64 product.

at L = 4096 and 16384, and Linea raised alone at 65536 (the score matrix of
the others would be 64 GiB). Each run is a process of its own under a memory
cap, timed (median of calls after a warm one) and measured (peak RSS; for
Linea, of a second, plain call: the timed one keeps freed buffers in its
heap for the next call); a run that exceeds the cap or the time limit says so. Outputs are checked against
torch's at the same L, and at 65536 the first 16384 rows against torch's at
16384 (every layer here is causal: a row never sees later tokens).

Run with the front-end environment (scripts/install-frontend.sh):
    .deps/frontend/bin/python bench/models.py [--quick] [--threads N] [--linea-only]
        [--matmuls] [--layers NAME...] [--results bench/MODELS.md]
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
# After bench/: `models` is the raise corpus's module, not this file.
sys.path.insert(0, str(ROOT / "test" / "Raise" / "models"))
import models  # noqa: E402
from measure import (bench_threads, conditions, iree_label, iree_module,  # noqa: E402
                     measure, median_ms, rel_l2, table_rows, thread_env, with_threads,
                     write_results)

# Each layer: its corpus name and the layout of its inputs: "heads" (q, k, v
# of [1, H, L, D]) or "model" (one sequence of [1, L, H * D]).
LAYERS = {
    "causal linear attention": ("la_causal_tril", "heads"),
    "PrefixLM linear attention (j = 2048)": ("la_prefix", "heads"),
    "normalized linear attention (elu + 1)": ("la_normalized_elu", "heads"),
    "causal softmax attention": ("sm_causal", "heads"),
    "packed causal linear attention (ids mask; 64 long-tailed docs per 65536 tokens)": (
        "la_packed_causal", "packed"),
    "two-block linear transformer (d_model 256)": ("model_linear_transformer", "model"),
    # Other writing styles (issue 59).
    "causal linear attention, heads split after x @ W (d_model 256)": ("la_projected", "model"),
    "GLA, log-sigmoid gates summed, heads split after x @ W (d_model 256)": (
        "gla_log_gates_projected", "model"),
    "retention, decay from float positions": ("gla_float_positions", "heads"),
    "causal linear attention in einsum": ("la_einsum_causal", "heads"),
    "causal linear attention, a cumsum of outer products read by q @ S": (
        "la_cumulative_outer_matmul", "heads"),
    "normalized linear attention, the RNN way (cumsums of states and keys)": (
        "la_cumulative_normalized", "heads"),
}
SEQUENCE_DIM = {"heads": 2, "model": 1, "packed": 2}
DOCUMENTS = 64
HEADS, DIM, PREFIX = 4, 64, 2048


def configure():
    models.B, models.H, models.D, models.DV, models.PREFIX = 1, HEADS, DIM, DIM, PREFIX


def inputs(layout, L, seed=0):
    """q, k, v of length L, or a model's input sequence; packed, the
    documents' ids of the tokens last (DOCUMENTS runs, long-tailed lengths:
    a prefix of them is a packed row too)."""
    rng = np.random.default_rng(seed)
    if layout == "model":
        return [rng.standard_normal((1, L, HEADS * DIM)).astype(np.float32)]
    qkv = [rng.standard_normal((1, HEADS, L, DIM)).astype(np.float32) / DIM ** 0.25
           for _ in range(3)]
    if layout == "packed":
        weights = rng.pareto(1.5, DOCUMENTS) + 0.05
        starts = np.unique((np.cumsum(weights) / weights.sum() * L).astype(np.int64)[:-1])
        qkv.append(np.searchsorted(starts, np.arange(L), side="right").astype(np.int64))
    return qkv


def sequence_dim(a, layout):
    return SEQUENCE_DIM[layout] if a.ndim > 1 else 0


def first_rows(a, layout, L):
    """The first L positions of `a` along the sequence."""
    return a[(slice(None),) * sequence_dim(a, layout) + (slice(0, L),)]


def arg_files(args_dir):
    return sorted(pathlib.Path(args_dir).glob("arg*.npy"))


# ---------------------------------------------------------------------------
# Workers: one measurement each, in a process of its own.
# ---------------------------------------------------------------------------
def worker(impl, name, mlir, args_dir, out, repeat):
    configure()
    args = [np.load(f) for f in arg_files(args_dir)]
    threads = bench_threads()
    if impl == "torch":
        import torch
        torch.set_num_threads(threads)
        tensors = [torch.from_numpy(a) for a in args]
        module = torch.mm if name == "matmul" else models.CORPUS[name]["module"]()
        with torch.no_grad():
            ms = median_ms(lambda: module(*tensors), repeat)
            result = module(*tensors).numpy()
    elif impl == "numpy":
        # numpy's own BLAS (PyPI's wheels bundle OpenBLAS): sgemm, threads
        # from OPENBLAS_NUM_THREADS.
        ms = median_ms(lambda: np.matmul(*args), repeat)
        result = np.matmul(*args)
    elif impl == "iree":
        module = iree_module(mlir, pathlib.Path(out).with_suffix(".vmfb"), threads)
        ms = median_ms(lambda: module.main(*args), repeat)
        # A copy while IREE's array lives: to_host() can be a view of its
        # buffer, which goes with it.
        on_device = module.main(*args)
        result = np.array(on_device.to_host(), copy=True)
    else:
        raise SystemExit(f"unknown worker {impl}")
    np.save(out, result)
    print(json.dumps({"ms": ms}))


def linea_run(mlir, args_dir, out_dir, repeat, raising):
    """The timed command: --reuse-memory keeps the page faults of fresh
    buffers out of the timings (but every freed buffer stays in the heap);
    with `repeat` None, one plain call, whose peak is the program's own."""
    cmd = [str(ROOT / "build" / "bin" / "linea-run"), mlir, "--output-dir", out_dir]
    if repeat:
        cmd += ["--repeat", str(repeat), "--reuse-memory"]
    if not raising:
        cmd.append("--no-raise")
    cmd += [a for f in arg_files(args_dir) for a in ("--arg", str(f))]
    return cmd


def measure_linea(mlir, args_dir, out_dir, repeat, raising, env):
    """(ms, peak MiB, status): the time of the timed run, the peak of a
    plain call (the timed run's heap keeps what the program freed)."""
    ms, peak, status = measure(linea_run(mlir, args_dir, out_dir, repeat, raising), env=env)
    if status == "ok":
        _, peak, _ = measure(linea_run(mlir, args_dir, out_dir + "-peak", None, raising),
                             env=env)
    return ms, peak, status


def hand_off(mlir):
    """The exported model as Linea hands it to another compiler."""
    path = pathlib.Path(mlir).with_name(pathlib.Path(mlir).stem + "-handoff.mlir")
    subprocess.run([str(ROOT / "build" / "bin" / "linea-opt"), str(mlir), "--linea-export",
                    "-o", str(path)], check=True)
    return str(path)


HANDOFF_LABEL = "IREE llvm-cpu on Linea's hand-off"


def export(name, layout, directory):
    """The layer with a dynamic L through torch-mlir's FX importer."""
    import torch
    from torch_mlir import fx
    configure()
    spec = models.CORPUS[name]
    L = torch.export.Dim("L", min=2, max=1 << 20)
    example = [torch.from_numpy(a) for a in inputs(layout, 64)]
    mlir = fx.export_and_import(spec["module"](), *example, output_type="linalg-on-tensors",
                                func_name="main",
                                dynamic_shapes=tuple({sequence_dim(a.numpy(), layout): L}
                                                     for a in example))
    path = pathlib.Path(directory) / f"{name}.mlir"
    path.write_text(str(mlir))
    return str(path)


# Plain projections: [M, K] x [K, N], against the BLAS sgemm.
MATMULS = [(4096, 256, 256), (4096, 1024, 1024)]


def matmul_program(m, k, n):
    a, b, c = (f"tensor<{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    return (f"func.func @main(%a: {a}, %b: {b}) -> {c} {{\n"
            f"  %zero = arith.constant 0.0 : f32\n  %e = tensor.empty() : {c}\n"
            f"  %f = linalg.fill ins(%zero : f32) outs(%e : {c}) -> {c}\n"
            f"  %r = linalg.matmul ins(%a, %b : {a}, {b}) outs(%f : {c}) -> {c}\n"
            f"  return %r : {c}\n}}\n")


def matmul_rows(tmp, repeat, threads):
    """Each shape through numpy's OpenBLAS sgemm, torch.mm, IREE and
    Linea; checked against the float64 product, Linea's rate as a share
    of OpenBLAS's."""
    rows = []
    env = thread_env(threads)
    for m, k, n in MATMULS:
        title = f"linalg.matmul [{m} x {k}] x [{k} x {n}]"
        mlir = tmp / f"matmul-{m}-{k}-{n}.mlir"
        mlir.write_text(matmul_program(m, k, n))
        args_dir = tmp / f"matmul-args-{m}-{k}-{n}"
        args_dir.mkdir(exist_ok=True)
        rng = np.random.default_rng(0)
        args = [rng.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n))]
        for i, a in enumerate(args):
            np.save(args_dir / f"arg{i}.npy", a)
        want = args[0].astype(np.float64) @ args[1].astype(np.float64)
        runs = []
        for impl, label in (("numpy", "OpenBLAS sgemm (numpy)"), ("torch", "torch.mm"),
                            ("iree", iree_label(threads))):
            out = tmp / f"matmul-{impl}-{m}-{k}-{n}-{threads}.npy"
            cmd = [sys.executable, __file__, "--repeat", str(repeat), "--worker",
                   impl, "matmul", str(mlir), str(args_dir), str(out)]
            runs.append((with_threads(label, threads) if impl != "iree" else label,
                         *measure(cmd, env=env), out))
        out_dir = tmp / f"matmul-linea-{m}-{k}-{n}-{threads}"
        runs.append((with_threads("Linea", threads),
                     *measure_linea(str(mlir), args_dir, str(out_dir), repeat, False, env),
                     out_dir / "result0.npy"))
        sgemm = runs[0][1]
        for label, ms, peak, status, out in runs:
            check = ""
            if status == "ok" and pathlib.Path(out).exists():
                check = f"{rel_l2(np.load(out), want):.1e} vs float64"
                if ms and sgemm:
                    check += f"; {100 * sgemm / ms:.0f}% of OpenBLAS's rate"
            rows.append((title, m, label, ms, peak, status, check))
            print(rows[-1], flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", nargs=5, metavar=("IMPL", "NAME", "MLIR", "ARGS", "OUT"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="L = 1024 and 4096 only")
    parser.add_argument("--results", help="write the table to this Markdown file")
    parser.add_argument("--layers", nargs="+", metavar="NAME",
                        help="only these corpus layers (e.g. model_linear_transformer); "
                             "with --results, their rows replace those in the file")
    parser.add_argument("--matmuls", action="store_true",
                        help="the plain matmul rows (against OpenBLAS sgemm) instead of "
                             "the layers, or besides those --layers names")
    parser.add_argument("--linea-only", action="store_true",
                        help="only Linea's rows (the peers' rows in --results stay)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads of every implementation (IREE: local-task above 1)")
    parser.add_argument("--handoff", action="store_true",
                        help="IREE on Linea's hand-off (linea-export) beside IREE on the "
                             "model as exported, at 4096 and 65536 (no --no-raise rows)")
    opts = parser.parse_args()
    if opts.worker:
        impl, name, mlir, args_dir, out = opts.worker
        worker(impl, name, mlir, args_dir, out, opts.repeat)
        return
    lengths = [1024, 4096] if opts.quick else [4096] if opts.handoff else [4096, 16384]
    longest = 4096 if opts.quick else 65536
    env = thread_env(opts.threads)
    rows = []
    with tempfile.TemporaryDirectory(prefix="linea-models-") as tmp:
        tmp = pathlib.Path(tmp)
        if opts.matmuls:
            rows += matmul_rows(tmp, opts.repeat, opts.threads)
        for title, (name, layout) in LAYERS.items():
            if (opts.layers or opts.matmuls) and name not in (opts.layers or ()):
                continue
            mlir = export(name, layout, tmp)
            handoff = hand_off(mlir) if opts.handoff else None
            full = inputs(layout, longest)
            reference = {}
            for L in lengths + ([longest] if longest not in lengths else []):
                args_dir = tmp / f"{name}-args{L}"
                args_dir.mkdir(exist_ok=True)
                for k, a in enumerate(full):
                    np.save(args_dir / f"arg{k}.npy", np.ascontiguousarray(first_rows(a, layout, L)))
                repeat = opts.repeat if L <= 4096 else 1
                runs = []
                if L != longest or L in lengths:
                    # With --linea-only, torch still runs: its result checks Linea's.
                    for impl in ("torch",) if opts.linea_only else ("torch", "iree"):
                        out = tmp / f"{name}-{impl}-{L}.npy"
                        cmd = [sys.executable, __file__, "--repeat", str(repeat), "--worker",
                               impl, name, mlir, str(args_dir), str(out)]
                        label = (with_threads("torch", opts.threads) if impl == "torch"
                                 else iree_label(opts.threads))
                        runs.append((label, *measure(cmd, env=env), out))
                if handoff is not None:
                    out = tmp / f"{name}-handoff-{L}.npy"
                    cmd = [sys.executable, __file__, "--repeat", str(repeat), "--worker",
                           "iree", name, handoff, str(args_dir), str(out)]
                    runs.append((with_threads(HANDOFF_LABEL, opts.threads),
                                  *measure(cmd, env=env), out))
                both = (L != longest or L in lengths) and not opts.handoff
                for raising in ((True, False) if both else (True,)):
                    out_dir = tmp / f"{name}-linea-{raising}-{L}"
                    ms, peak, status = measure_linea(mlir, args_dir, str(out_dir), repeat,
                                                     raising, env)
                    label = with_threads("Linea, raised" if raising else "Linea, --no-raise",
                                         opts.threads)
                    runs.append((label, ms, peak, status, out_dir / "result0.npy"))
                torch_out = next((o for label, _, _, s, o in runs
                                  if label.startswith("torch") and s == "ok"), None)
                if torch_out is not None:
                    reference[L] = np.load(torch_out)
                for label, ms, peak, status, out in runs:
                    check = ""
                    if status == "ok" and pathlib.Path(out).exists():
                        got = np.load(out)
                        if L in reference and not label.startswith("torch"):
                            check = f"{rel_l2(got, reference[L]):.1e}"
                        elif L not in reference and lengths[-1] in reference:
                            want = reference[lengths[-1]]
                            first = want.shape[sequence_dim(want, layout)]
                            check = (f"{rel_l2(first_rows(got, layout, first), want):.1e} "
                                     f"(first {first} rows)")
                    if opts.linea_only and not label.startswith("Linea"):
                        continue
                    rows.append((title, L, label, ms, peak, status, check))
                    print(rows[-1], flush=True)
    table = table_rows(rows)
    header = conditions(opts.repeat, f"; 1 x {HEADS} heads x {DIM}")
    text = header + "\n".join(table) + "\n"
    print(text)
    if opts.results:
        rerun = {row[0] for row in rows} if (opts.layers or opts.matmuls or opts.linea_only
                                             or opts.threads != 1 or opts.handoff) else None
        write_results(opts.results, "Model layers through linea-raise (bench/models.py)",
                      text, table, rerun)

if __name__ == "__main__":
    main()
