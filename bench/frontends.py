#!/usr/bin/env python3
"""The example models end to end: a PyTorch layer as its authors wrote it,
run by PyTorch and by the compilers that take it from there.

For each layer of examples/models (weights from one seed, inputs from its
`inputs(L)`), one thread each:

- torch eager (torch.set_num_threads(1)),
- torch.compile (inductor, CPU; the compile is the warm call, not timed),
- IREE llvm-cpu (local-sync) on the linalg IR `linea.from_torch` exports,
- Linea through `linea.from_torch` (OMP_NUM_THREADS=1; the compile is cached
  before the run, not timed),

at L = 4096 and 16384, and at 65536 Linea and torch eager (whose score
matrix would be 4 heads x 65536^2 floats, 64 GiB, past the cap: the row says
what happened), and every peer for the presum layer, which is linear as
written. Each run is a process of its own under the memory cap of
bench/measure.py; outputs are checked against torch eager's at the same L,
and at 65536 Linea's first 16384 positions against torch's at 16384 (every
layer here is causal: a position never sees later ones). The folded
attention is exported once per length (its loop over segments unrolls at the
input's length; Linea raises the unrolled steps back to one `linea.fold`),
and every peer runs it at 65536 too: as written it is linear in L.

With --threads N every implementation runs on N threads (IREE: local-task).

    .deps/frontend/bin/python bench/frontends.py [--quick] [--threads N] [--examples NAME...]
        [--lengths L...] [--results bench/FRONTENDS.md]
"""

import argparse
import json
import pathlib
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "examples" / "models"))
sys.path.insert(0, str(ROOT / "python"))
from measure import (bench_threads, conditions, iree_label, iree_module,  # noqa: E402
                     measure, median_ms, rel_l2, table_rows, thread_env, with_threads,
                     write_results)

EXAMPLES = {
    "causal linear transformer block (d_model 256)": "causal_linear_transformer",
    "PrefixLM linear attention (j = 128)": "prefixlm_linear_attention",
    "RetNet retention": "retnet_retention",
    "GLA, parallel form": "gla_parallel_form",
    "causal softmax attention block (d_model 256)": "causal_softmax_block",
    "presum layer (d_model 256)": "presum_layer",
    "small language model (embeddings, 2 blocks, vocabulary 1000)": "small_language_model",
    "folded attention (segments of 64, d_model 256)": "folded_attention",
}
# As written, the layers whose peers keep an L x L matrix.
QUADRATIC = set(EXAMPLES.values()) - {"presum_layer", "folded_attention"}
QUADRATIC_PEERS = ("torch.compile (inductor)", "IREE llvm-cpu")


def _build(name):
    """The example's module (weights from the caller's seed), the example
    itself and its dynamic dims."""
    example = __import__(name)
    module, _, dynamic = example.example()
    return module.eval(), example, dynamic


def worker(impl, name, mlir, args_dir, out, repeat):
    import torch
    threads = bench_threads()
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    module, _, _ = _build(name)
    args = [np.load(f) for f in sorted(pathlib.Path(args_dir).glob("arg*.npy"))]
    tensors = [torch.from_numpy(a) for a in args]
    with torch.no_grad():
        if impl == "torch":
            call = lambda: module(*tensors)  # noqa: E731
        elif impl == "compile":
            compiled = torch.compile(module)
            call = lambda: compiled(*tensors)  # noqa: E731
        elif impl == "iree":
            vm = iree_module(mlir, pathlib.Path(out).with_suffix(".vmfb"), threads)
            call = lambda: vm.main(*args)  # noqa: E731
        elif impl == "linea":
            import linea
            kernel = linea.compile(pathlib.Path(mlir).read_text())
            call = lambda: kernel(*tensors)  # noqa: E731
        else:
            raise SystemExit(f"unknown worker {impl}")
        ms = median_ms(call, repeat)
        result = call()
    # IREE's to_host() can be a view of its array's buffer: copied while
    # the array lives.
    result = np.array(result.to_host(), copy=True) if impl == "iree" else result.numpy()
    np.save(out, result)
    print(json.dumps({"ms": ms}))


def export(name, directory, length):
    """The layer's linalg IR as from_torch makes it: with its dynamic length,
    or at `length` where the example has none; its Linea library compiled
    into the cache (a compile is not a call)."""
    import torch
    import linea
    from linea.frontend import export_torch
    torch.manual_seed(0)
    module, example, dynamic = _build(name)
    path = pathlib.Path(directory) / (f"{name}.mlir" if dynamic else f"{name}-{length}.mlir")
    if not path.exists():
        text = export_torch(module, *example.inputs(length if not dynamic else 64),
                            dynamic=dynamic)
        path.write_text(text)
        linea.compile(text)
    return str(path)


def sliced(arrays, dynamic, length):
    out = []
    for k, a in enumerate(arrays):
        index = [slice(None)] * a.ndim
        for dim in dynamic.get(k, {}):
            index[dim] = slice(0, length)
        out.append(np.ascontiguousarray(a[tuple(index)]))
    return out


def first_positions(result, reference):
    """`result`'s first positions along the one dim where it is longer."""
    index = tuple(slice(0, r) for r in reference.shape)
    return result[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", nargs=5, metavar=("IMPL", "NAME", "MLIR", "ARGS", "OUT"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="L = 1024 and 4096 only")
    parser.add_argument("--results", help="write the table to this Markdown file")
    parser.add_argument("--examples", nargs="+", metavar="NAME",
                        help="only these examples (e.g. retnet_retention)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads of every implementation (IREE: local-task above 1)")
    parser.add_argument("--lengths", type=int, nargs="+", metavar="L",
                        help="only these lengths (the longest is the one peers may skip)")
    opts = parser.parse_args()
    if opts.worker:
        worker(*opts.worker, opts.repeat)
        return
    import torch
    lengths = [1024, 4096] if opts.quick else [4096, 16384]
    longest = 4096 if opts.quick else 65536
    if opts.lengths:
        lengths, longest = sorted(opts.lengths), max(opts.lengths)
    env = thread_env(opts.threads)
    rows = []
    with tempfile.TemporaryDirectory(prefix="linea-frontends-") as tmp:
        tmp = pathlib.Path(tmp)
        for title, name in EXAMPLES.items():
            if opts.examples and name not in opts.examples:
                continue
            _, example, dynamic = _build(name)
            torch.manual_seed(1)
            full = [x.numpy() for x in example.inputs(longest)]
            reference = {}
            for L in sorted(set(lengths + [longest])):
                mlir = export(name, tmp, L)
                args_dir = tmp / f"{name}-args{L}"
                args_dir.mkdir(exist_ok=True)
                for k, a in enumerate(sliced(full, dynamic or example.SEQUENCE, L)):
                    np.save(args_dir / f"arg{k}.npy", a)
                repeat = opts.repeat if L <= 4096 else 1
                runs = []
                for impl, peer in (("torch", "torch eager"),
                                   ("compile", QUADRATIC_PEERS[0]),
                                   ("iree", QUADRATIC_PEERS[1]),
                                   ("linea", "Linea (from_torch)")):
                    out = tmp / f"{name}-{impl}-{L}.npy"
                    label = (iree_label(opts.threads) if impl == "iree"
                             else with_threads(peer, opts.threads))
                    if (L == longest and L not in lengths and peer in QUADRATIC_PEERS
                            and name in QUADRATIC):
                        runs.append((label, None, None, "not run (quadratic: the score "
                                     "matrix alone is past the memory cap)", out))
                        continue
                    cmd = [sys.executable, __file__, "--repeat", str(repeat), "--worker",
                           impl, name, mlir, str(args_dir), str(out)]
                    runs.append((label, *measure(cmd, env=env), out))
                eager = next((o for label, _, _, s, o in runs
                              if label.startswith("torch eager") and s == "ok"), None)
                if eager is not None:
                    reference[L] = np.load(eager)
                for label, ms, peak, status, out in runs:
                    check = ""
                    if status == "ok" and out.exists() and not label.startswith("torch eager"):
                        got = np.load(out)
                        if L in reference:
                            check = f"{rel_l2(got, reference[L]):.1e}"
                        elif lengths[-1] in reference:
                            want = reference[lengths[-1]]
                            check = (f"{rel_l2(first_positions(got, want), want):.1e} "
                                     f"(first {lengths[-1]} positions)")
                    rows.append((title, L, label, ms, peak, status, check))
                    print(rows[-1], flush=True)
    table = table_rows(rows)
    header = conditions(opts.repeat)
    text = header + "\n".join(table) + "\n"
    print(text)
    if opts.results:
        rerun = ({row[0] for row in rows} if opts.examples or opts.threads != 1
                 else None)
        write_results(opts.results, "The example models end to end (bench/frontends.py)",
                      text, table, rerun)

if __name__ == "__main__":
    main()
