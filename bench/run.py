#!/usr/bin/python3
"""Linea's CPU benchmarks: every row is measured side by side in one run
against its ceiling and its peers, and reported as medians and ratios.

    /usr/bin/python3 bench/run.py [--quick] [--results bench/RESULTS.md]

Peers come from Debian's python3-torch over OpenBLAS (scripts/bench.sh
installs both), limited to one thread like Linea's CPU code. Timings are medians of
--repeat runs; the machine is noisy, so read the ratios, not the digits.
"""

import argparse
import ctypes
import datetime
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from linea import run as linea_run  # noqa: E402
from linea.runner import linea_run_path  # noqa: E402
from measure import with_threads  # noqa: E402

RNG = np.random.default_rng(0)


def _openblas():
    """The OpenBLAS that torch loaded, or None. torch.set_num_threads does
    not reach it: its own thread pool would run a "one-thread" torch.mm on
    every core."""
    for line in open("/proc/self/maps"):
        fields = line.split()
        if len(fields) >= 6 and ("openblas" in fields[5] or "libblas" in fields[5]):
            library = ctypes.CDLL(fields[5])
            if hasattr(library, "openblas_set_num_threads"):
                return library
    return None


OPENBLAS = _openblas()


def set_threads(threads):
    torch.set_num_threads(threads)
    if OPENBLAS is not None:
        OPENBLAS.openblas_set_num_threads(threads)


set_threads(1)


def median_ms(fn, repeat):
    fn()  # warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def linea_ms(program, args, repeat, optimize="linea-optimize", threads=1,
             reuse_memory=False, entry=None):
    """Median ms of `program` through `optimize` and linea-lower-to-cpu on
    `threads` threads (0: every core)."""
    pipeline = f"{optimize},linea-lower-to-cpu{{threads={threads}}}"
    _, ms = linea_run(program, args, pipeline=pipeline, repeat=repeat,
                      reuse_memory=reuse_memory, entry=entry)
    return ms


def ttype(shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def attention_program(shape, mask, gate_shape=None):
    t = ttype(shape)
    if gate_shape is None:
        return (f"func.func @f(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
                f"  %o = linea.linear_attention %q, %k, %v mask = {mask} : {t}, {t}, {t} -> {t}\n"
                f"  return %o : {t}\n}}\n")
    g = ttype(gate_shape)
    return (f"func.func @f(%q: {t}, %k: {t}, %v: {t}, %g: {g}) -> {t} {{\n"
            f"  %o = linea.gated_linear_attention %q, %k, %v, %g mask = {mask} : "
            f"{t}, {t}, {t}, {g} -> {t}\n  return %o : {t}\n}}\n")


def sgemm_rate(repeat):
    """FLOP/s of one large torch sgemm: the ceiling for contraction work."""
    a = torch.randn(1024, 1024)
    b = torch.randn(1024, 1024)
    ms = median_ms(lambda: torch.mm(a, b), repeat)
    return 2 * 1024 ** 3 / (ms * 1e-3)


class Table:
    def __init__(self):
        self.rows = []

    def add(self, name, linea, reference, ref_name, note=""):
        self.rows.append((name, linea, reference, ref_name, linea / reference, note))

    def render(self):
        lines = ["| row | Linea ms | vs | ms | ratio (Linea / vs) | note |",
                 "| --- | ---: | --- | ---: | ---: | --- |"]
        for name, ours, theirs, what, ratio, note in self.rows:
            lines.append(f"| {name} | {ours:.2f} | {what} | {theirs:.2f} | {ratio:.2f} | {note} |")
        return "\n".join(lines)


def bench_presum(table, L, repeat):
    shape = (16, L, 64)
    x = RNG.standard_normal(shape).astype(np.float32)
    program = (f"func.func @f(%x: {ttype(shape)}) -> {ttype(shape)} {{\n"
               f"  %y = linea.presum %x : {ttype(shape)}\n  return %y : {ttype(shape)}\n}}\n")
    ours = linea_ms(program, [x], repeat, reuse_memory=True)
    fresh = linea_ms(program, [x], repeat)
    tx = torch.from_numpy(x)
    out = torch.empty_like(tx)
    copy = median_ms(lambda: tx.clone(), repeat)
    copy_into = median_ms(lambda: out.copy_(tx), repeat)
    cumsum = median_ms(lambda: torch.cumsum(tx, dim=1), repeat)
    name = f"presum [16, {L}, 64]"
    table.add(name, ours, copy_into, "memory copy into an existing buffer",
              "the bandwidth ceiling; goal <= 1/0.7 = 1.43")
    table.add(name, ours, cumsum, "torch.cumsum")
    # A fresh result pays the page faults of new memory, as a
    # clone does.
    table.add(name + ", fresh result buffer", fresh, copy, "memory copy into a fresh tensor",
              f"both pay page faults of a new {x.nbytes >> 20} MB buffer")


def torch_ms(fn, repeat, threads=1):
    """`fn` timed with torch on `threads` threads (0: every core)."""
    set_threads(threads or os.cpu_count())
    try:
        return median_ms(fn, repeat)
    finally:
        set_threads(1)


def bench_linear(table, L, D, repeat, rate, calibrated):
    """`calibrated`: a target description `python3 -m linea.calibrate` wrote
    for this machine."""
    H, C = 16, 64
    shape = (H, L, D)
    q, k, v = (RNG.standard_normal(shape).astype(np.float32) for _ in range(3))
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    cores = os.cpu_count()

    # Linea's rows reuse the buffers one run frees (linea-run
    # --reuse-memory): the work without the page faults of a fresh result,
    # which the "fresh result buffers" row shows.
    none_program = attention_program(shape, "none")
    none_ms = linea_ms(none_program, [q, k, v], repeat, reuse_memory=True)
    oneshot_flops = 4 * L * D * D * H
    name = f"bidirectional one-shot L={L} D={D}"
    table.add(name, none_ms, oneshot_flops / rate * 1e3, "sgemm ceiling, same FLOPs",
              "goal <= 1/0.6 = 1.67")
    torch_oneshot = lambda: tq @ (tk.transpose(1, 2) @ tv)  # noqa: E731
    table.add(name, none_ms, torch_ms(torch_oneshot, repeat), "torch q @ (k^T @ v), 1 thread",
              "goal <= 1/1.5 = 0.67")
    table.add(name, none_ms, torch_ms(torch_oneshot, repeat, threads=0),
              f"torch q @ (k^T @ v), {cores} threads")
    table.add(name + f", {cores} threads",
              linea_ms(none_program, [q, k, v], repeat, threads=0, reuse_memory=True),
              none_ms, "Linea, 1 thread", "thread scaling (threads=0: every core)")
    table.add(name + ", fresh result buffers", linea_ms(none_program, [q, k, v], repeat),
              none_ms, "the same, buffers reused", "the page faults of a new result")

    causal_program = attention_program(shape, "causal")
    causal_ms = linea_ms(causal_program, [q, k, v], repeat, reuse_memory=True)
    chunked_flops = H * L * (2 * C * 2 * D + 4 * D * D)
    name = f"causal chunked L={L} D={D}"
    table.add(name, causal_ms, chunked_flops / rate * 1e3, "sgemm ceiling, same FLOPs (C=64)",
              "full C x C scores counted; goal <= 1.67")

    def torch_chunked():
        state = torch.zeros(H, D, D)
        out = torch.empty(H, L, D)
        mask = torch.tril(torch.ones(C, C))
        for start in range(0, L, C):
            qc, kc, vc = tq[:, start:start + C], tk[:, start:start + C], tv[:, start:start + C]
            n = qc.shape[1]
            out[:, start:start + n] = qc @ state + ((qc @ kc.transpose(1, 2)) * mask[:n, :n]) @ vc
            state = state + kc.transpose(1, 2) @ vc
        return out

    table.add(name, causal_ms, torch_ms(torch_chunked, repeat),
              "torch chunked (C=64, python loop), 1 thread", "goal <= 0.5")
    table.add(name, causal_ms, torch_ms(torch_chunked, repeat, threads=0),
              f"torch chunked (C=64, python loop), {cores} threads")
    table.add(name + f", {cores} threads",
              linea_ms(causal_program, [q, k, v], repeat, threads=0, reuse_memory=True),
              causal_ms, "Linea, 1 thread", "thread scaling")
    table.add(name + ", calibrated cost model",
              linea_ms(causal_program, [q, k, v], repeat, reuse_memory=True,
                       optimize=f"linea-optimize{{target-description={calibrated}}}"),
              causal_ms, "built-in estimates (chunk 64)",
              "forms and chunk from `python3 -m linea.calibrate` on this machine")
    if D != 64:
        return

    # A ratio of two Linea runs: measured in alternating rounds so that the
    # machine's drift hits both sides alike.
    prefix_program = attention_program(shape, f"prefix({L // 2})")
    rounds = [(linea_ms(causal_program, [q, k, v], 3, reuse_memory=True),
               linea_ms(prefix_program, [q, k, v], 3, reuse_memory=True)) for _ in range(3)]
    table.add(f"seed 001: causal / prefix(L/2), L={L}",
              float(np.median([c for c, _ in rounds])),
              float(np.median([p for _, p in rounds])),
              "Linea prefix(L/2)", "ratio > 1: PrefixLM is faster (alternating rounds)")


def bench_quadratic(table, repeat):
    H, L, D = 16, 4096, 64
    shape = (H, L, D)
    q, k, v = (RNG.standard_normal(shape).astype(np.float32) for _ in range(3))
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    ours = linea_ms(attention_program(shape, "causal"), [q, k, v], repeat)
    mask = torch.tril(torch.ones(L, L))
    table.add(f"causal L={L}", ours,
              median_ms(lambda: ((tq @ tk.transpose(1, 2)) * mask) @ tv, repeat),
              "torch quadratic masked form", "L x L scores per head")


def bench_gated(table, L, repeat):
    H, D = 16, 64
    shape, gshape = (H, L, D), (H, L, D)
    q, k, v = (RNG.standard_normal(shape).astype(np.float32) for _ in range(3))
    g = (-0.1 * RNG.uniform(size=gshape)).astype(np.float32)
    oneshot = linea_ms(attention_program(shape, f"prefix({L})", gshape), [q, k, v, g], repeat)
    chunked = linea_ms(attention_program(shape, "causal", gshape), [q, k, v, g], repeat)
    del q, k, v, g
    table.add(f"gated prefix(L) via presum, L={L}", oneshot, chunked,
              "Linea gated chunked (same data, causal)",
              "ratio < 1: the gate does not force chunking")


def bench_chunk_parallel(table, L, repeat):
    """The chunk-parallel form against the sequential chunked one (both C =
    64, both forced): few sequences on every core, where the chunked form
    has one sequence per core at most, and 16 heads on one thread, where
    the chunk-parallel form pays for its extra pass over the chunk states."""
    forms = {f: f"linea-optimize{{form={f} chunk-size=64}}" for f in ("chunk_parallel", "chunked")}
    cores = os.cpu_count()
    D = 64
    for H, threads, gated in ((1, 0, False), (1, 0, True), (16, 1, False), (16, 1, True)):
        shape = (H, L, D)
        q, k, v = (RNG.standard_normal(shape).astype(np.float32) for _ in range(3))
        args, gshape = [q, k, v], None
        if gated:
            gshape = shape
            args.append((-0.1 * RNG.uniform(size=gshape)).astype(np.float32))
        program = attention_program(shape, "causal", gshape)
        ms = {f: linea_ms(program, args, repeat, optimize=p, threads=threads)
              for f, p in forms.items()}
        where = f"{cores} threads" if threads == 0 else "1 thread"
        table.add(f"{'gated ' if gated else ''}causal chunk-parallel, {H} head(s), L={L}, "
                  f"D={D}, {where}", ms["chunk_parallel"], ms["chunked"],
                  "Linea sequential chunked (C=64)",
                  "ratio < 1: parallel over chunks pays" if H == 1
                  else "the price of the chunk-state pass")


def bench_backward(table, L, repeat):
    """The gradient function linea-differentiate adds (`@f_vjp`: the forward
    recomputed, then dq, dk, dv as three linear attentions, the keys' and
    values' under the transposed mask) against the forward pass, both
    optimized the same way. The usual target for a backward pass is 2-3x
    the forward."""
    from linea import differentiate
    H, D = 4, 64
    shape = (H, L, D)
    q, k, v = (RNG.standard_normal(shape).astype(np.float32) for _ in range(3))
    dO = RNG.standard_normal(shape).astype(np.float32)
    for mask in ("causal", f"prefix({L // 4})", "none"):
        program = differentiate(attention_program(shape, mask))
        for reuse in (False, True):
            forward = linea_ms(program, [q, k, v], repeat, entry="f", reuse_memory=reuse)
            backward = linea_ms(program, [q, k, v, dO], repeat, entry="f_vjp",
                                reuse_memory=reuse)
            where = "buffers reused (no page faults)" if reuse else "fresh buffers"
            table.add(f"linear attention backward (f_vjp), {mask}, {H} heads, L={L}, D={D}, "
                      f"{where}", backward, forward, "Linea forward (f)",
                      "target: 2-3x the forward")
    # gated: a scalar gate has gated-op adjoints (chunked like the forward);
    # a per-key-dim gate goes through token recurrences (not chunked yet)
    for gate_shape, kind in (((H, L), "scalar gate"), ((H, L, D), "per-dim gate")):
        g = -np.abs(RNG.standard_normal(gate_shape)).astype(np.float32) * 0.1
        program = differentiate(attention_program(shape, "causal", gate_shape))
        forward = linea_ms(program, [q, k, v, g], repeat, entry="f")
        backward = linea_ms(program, [q, k, v, g, dO], repeat, entry="f_vjp")
        table.add(f"gated linear attention backward (f_vjp), causal, {kind}, {H} heads, "
                  f"L={L}, D={D}", backward, forward, "Linea forward (f)",
                  "target: 2-3x the forward")
    # folded attention: the backward loop recomputes every window, so the
    # forward runs twice in f_vjp
    D, l, heads = 64, 64, 4
    tx, tm, tw = ttype((L, D)), ttype((l, D)), ttype((D, D))
    program = differentiate(
        f"func.func @f(%x: {tx}, %m: {tm}, %wq: {tw}, %wk: {tw}, %wv: {tw}, %wo: {tw}) "
        f"-> ({tx}, {tm}) {{\n  %y, %mem = linea.folded_attention %x, %m "
        f"weights(%wq, %wk, %wv, %wo) segment_length = {l} num_heads = {heads} : "
        f"{tx}, {tm}, {tw}, {tw}, {tw}, {tw}\n  return %y, %mem : {tx}, {tm}\n}}\n")
    inputs = ([RNG.standard_normal((L, D)), RNG.standard_normal((l, D))]
              + [RNG.standard_normal((D, D)) / np.sqrt(D) for _ in range(4)])
    inputs = [x.astype(np.float32) for x in inputs]
    cotangents = [RNG.standard_normal(x.shape).astype(np.float32) for x in inputs[:2]]
    forward = linea_ms(program, inputs, repeat, entry="f")
    backward = linea_ms(program, inputs + cotangents, repeat, entry="f_vjp")
    table.add(f"folded attention backward (f_vjp), l={l}, {heads} heads, L={L}, D={D}",
              backward, forward, "Linea forward (f)",
              "windows recomputed: forward twice + backward")


def peak_rss_mb(cmd):
    """Peak RSS of `cmd`, measured by GNU time: a child forked from this big
    Python process would inherit its high-water mark."""
    done = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return int(done.stderr.strip().splitlines()[-1]) / 1024.0


def bench_fold_memory(lengths):
    """Peak RSS of linea-run on a folded_attention program, forward (`@f`)
    and backward (`@f_vjp` from linea-differentiate: the forward recomputed,
    then a loop over the segments in reverse recomputing each window). What
    the backward must hold at L's scale is x, y (the stored memories), dy
    and dx; the rest should stay flat as L grows."""
    from linea import differentiate
    D, l, heads = 64, 64, 4
    rows = ["| L | forward peak RSS MB | forward I/O MB | forward RSS - I/O MB "
            "| backward peak RSS MB | backward I/O + stored memories MB | backward RSS - that MB "
            "| L x L scores would be MB |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    with tempfile.TemporaryDirectory() as tmp:
        for L in lengths:
            tx, tm, tw = ttype((L, D)), ttype((l, D)), ttype((D, D))
            program = (f"func.func @f(%x: {tx}, %m: {tm}, %wq: {tw}, %wk: {tw}, %wv: {tw}, "
                       f"%wo: {tw}) -> ({tx}, {tm}) {{\n"
                       f"  %y, %mem = linea.folded_attention %x, %m weights(%wq, %wk, %wv, %wo) "
                       f"segment_length = {l} num_heads = {heads} : {tx}, {tm}, {tw}, {tw}, {tw}, {tw}\n"
                       f"  return %y, %mem : {tx}, {tm}\n}}\n")
            path = pathlib.Path(tmp) / "fold.mlir"
            path.write_text(differentiate(program))
            args = []
            inputs = [("x", (L, D)), ("m", (l, D))] + [(w, (D, D)) for w in ("wq", "wk", "wv", "wo")]
            for name, shape in inputs + [("dy", (L, D)), ("dm", (l, D))]:
                data = RNG.standard_normal(shape) / (np.sqrt(D) if name.startswith("w") else 1)
                np.save(f"{tmp}/{name}.npy", data.astype(np.float32))
                args += ["--arg", f"{tmp}/{name}.npy"]
            run = [str(linea_run_path()), str(path), "--output-dir", f"{tmp}/out"]
            forward = peak_rss_mb(run + ["--entry", "f"] + args[:2 * len(inputs)])
            backward = peak_rss_mb(run + ["--entry", "f_vjp"] + args)
            rows_mb = L * D * 4 / 2 ** 20
            io, held = 2 * rows_mb, 4 * rows_mb  # x, y | x, y, dy, dx
            rows.append(f"| {L} | {forward:.1f} | {io:.1f} | {forward - io:.1f} | {backward:.1f} "
                        f"| {held:.1f} | {backward - held:.1f} | {L * L * 4 / 2 ** 20:.0f} |")
    return "\n".join(rows)


def machine():
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.platform()}, torch {torch.__version__}"


def bench_runtime_checks(table, L, repeat):
    """Dynamic sizes and a prefix-length operand: the checks are a few
    integer compares per call. Alternating rounds, as for seed 001."""
    H, D = 16, 64
    t = "tensor<?x?x64xf32>"
    program = (f"func.func @f(%q: {t}, %k: {t}, %v: {t}, %j: index) -> {t} {{\n"
               f"  %o = linea.linear_attention %q, %k, %v mask = prefix(%j) : {t}, {t}, {t} -> {t}\n"
               f"  return %o : {t}\n}}\n")
    q, k, v = (RNG.standard_normal((H, L, D)).astype(np.float32) for _ in range(3))
    args = [q, k, v, L // 2]
    rounds = [(linea_ms(program, args, repeat),
               linea_ms(program, args, repeat, optimize="linea-optimize{runtime-checks=0}"))
              for _ in range(3)]
    table.add(f"run-time checks on, dynamic prefix(L/2), L={L}",
              float(np.median([on for on, _ in rounds])),
              float(np.median([off for _, off in rounds])),
              "the same, runtime-checks=0", "ratio ~ 1: the checks cost noise (alternating rounds)")


def projection_program(L, D, H, grouped):
    """`x @ W` over [L, D] x [D, D]: as linalg.matmul, or (grouped) as the
    generic the raise leaves where the model views the result as H heads,
    `(m, k) x (k, h, d) -> (m, h, d)`."""
    x, e = ttype((L, D)), D // H
    if not grouped:
        w, c = ttype((D, D)), ttype((L, D))
        body = f"  %r = linalg.matmul ins(%x, %w : {x}, {w}) outs(%f : {c}) -> {c}\n"
    else:
        w, c = ttype((D, H, e)), ttype((L, H, e))
        body = ("  %r = linalg.generic {indexing_maps = [affine_map<(m, h, d, k) -> (m, k)>, "
                "affine_map<(m, h, d, k) -> (k, h, d)>, affine_map<(m, h, d, k) -> (m, h, d)>], "
                'iterator_types = ["parallel", "parallel", "parallel", "reduction"]}\n'
                f"      ins(%x, %w : {x}, {w}) outs(%f : {c}) {{\n"
                "  ^bb0(%a: f32, %b: f32, %o: f32):\n"
                "    %p = arith.mulf %a, %b : f32\n    %s = arith.addf %o, %p : f32\n"
                f"    linalg.yield %s : f32\n  }} -> {c}\n")
    return (f"func.func @f(%x: {x}, %w: {w}) -> {c} {{\n  %zero = arith.constant 0.0 : f32\n"
            f"  %e = tensor.empty() : {c}\n"
            f"  %f = linalg.fill ins(%zero : f32) outs(%e : {c}) -> {c}\n{body}"
            f"  return %r : {c}\n}}\n")


def bench_grouped_projection(table, repeat, L=4096, D=256, H=4):
    """Issue 59's projection viewed as heads: the contraction over grouped
    dims against the same product as linalg.matmul (the kernels take both
    once linea-collapse-contraction-groups merges the heads)."""
    x = RNG.standard_normal((L, D)).astype(np.float32)
    w = RNG.standard_normal((D, D)).astype(np.float32)
    for threads in (1, 2):
        grouped = linea_ms(projection_program(L, D, H, True), [x, w.reshape(D, H, D // H)],
                           repeat, threads=threads)
        plain = linea_ms(projection_program(L, D, H, False), [x, w], repeat, threads=threads)
        table.add(with_threads(f"projection viewed as {H} heads, [{L}, {D}] x [{D}, {H}, "
                               f"{D // H}]", threads),
                  grouped, plain, "the same product as linalg.matmul",
                  "issue 59: within 1.2x")


def bench_call_overhead(table, repeat):
    """A tiny program (presum over 4 x 8): the cost of a call from Python,
    in-process (linea.compile) against a linea-run subprocess (linea.run)."""
    from linea import compile as linea_compile
    t = "tensor<4x8xf32>"
    program = (f"func.func @f(%x: {t}) -> {t} {{\n  %y = linea.presum %x : {t}\n"
               f"  return %y : {t}\n}}\n")
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    kernel = linea_compile(program)
    calls = 1000
    in_process = median_ms(lambda: [kernel(x) for _ in range(calls)], repeat) / calls
    subprocess_ms = median_ms(lambda: linea_run(program, [x]), repeat)
    table.add("call overhead, presum [4, 8]", in_process, subprocess_ms,
              "linea.run (linea-run subprocess)",
              f"linea.compile kernel: {in_process * 1e3:.0f} us per call")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--results", help="also write the tables to this Markdown file")
    opts = parser.parse_args()
    L = 2048 if opts.quick else 16384
    fold_lengths = [4096, 16384] if opts.quick else [4096, 16384, 65536, 262144]

    from linea import calibrate
    calibrated = pathlib.Path(tempfile.mkdtemp()) / "cpu.json"
    calibrate.main(["--quick" if opts.quick else "--repeat=5", "-o", str(calibrated)])
    rate = sgemm_rate(opts.repeat)
    table = Table()
    bench_presum(table, L, opts.repeat)
    for D in (64, 128):
        bench_linear(table, L, D, opts.repeat, rate, calibrated)
    bench_quadratic(table, opts.repeat)
    bench_gated(table, L, opts.repeat)
    bench_chunk_parallel(table, L, opts.repeat)
    bench_backward(table, L, opts.repeat)
    bench_runtime_checks(table, L, opts.repeat)
    bench_grouped_projection(table, opts.repeat)
    bench_call_overhead(table, opts.repeat)
    fold = bench_fold_memory(fold_lengths)

    text = (f"Measured {datetime.date.today()} on {machine()}.\n"
            f"One thread each unless a row says otherwise (torch's OpenBLAS pinned too: "
            f"{'yes' if OPENBLAS is not None else 'no OpenBLAS found'}); "
            f"sgemm ceiling rate {rate / 1e9:.1f} GFLOP/s (torch.mm 1024^3, one thread); "
            f"medians of {opts.repeat} runs.\n\n"
            f"{table.render()}\n\nFold (folded_attention, D=64, l=64, 4 heads) peak memory, "
            f"forward and backward:\n\n"
            f"{fold}\n")
    print(text)
    if opts.results:
        pathlib.Path(opts.results).write_text(text)


if __name__ == "__main__":
    main()
