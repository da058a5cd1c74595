#!/usr/bin/env python3
"""Linea's CUDA kernels timed next to torch and, where its package is
importable, flash-linear-attention (fla), on fla's three benchmark shapes
(B, T, H, D): causal linear attention and chunked gated linear attention
with a per-key-dim gate; then the other rows of the GPU issue's table
(EXTRA): a scalar gate per head and token (fla's `chunk_simple_gla`),
PrefixLM with a prefix of T/2 (fla's causal op beside it: fla has no
PrefixLM) and 64 packed documents (fla's `cu_seqlens`), bf16 only; then
causal softmax attention (SOFTMAX, the softmax issue's shapes) against torch's
SDPA and fla's `parallel_attn`, with TFLOP/s, and packed (PACKED_SOFTMAX: 64
documents, fla's `parallel_attn` with `cu_seqlens`).

    python3 bench/gpu.py --build-only        # here: compile into $LINEA_CACHE_DIR
    python3 bench/gpu.py [--results FILE]    # on a GPU machine (the kit's run.sh)

Linea's kernels take [B, H, T, D] tensors: bf16 in and out (a bf16 program,
its contractions on bf16 tensor cores by default, `precision=auto`), or f32
on the CUDA cores; torch's peer is a chunked
form written here with batched matmuls in bf16 (chunk 64); fla's kernels take
[B, T, H, D] bf16. Every row is checked against torch's float32 form before
it is timed (rel. L2 error in the table). Times are medians of CUDA-event
timings, measured in one run; read the ratios.
"""

import argparse
import datetime
import os
import pathlib
import platform
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
for path in (ROOT / "python", ROOT.parent / "python"):
    if (path / "linea").is_dir():
        sys.path.insert(0, str(path))
import linea  # noqa: E402

CHIP = os.environ.get("LINEA_GPU_CHIP", "sm_90a")
SHAPES = [(1, 8192, 96, 128), (2, 16384, 16, 128), (8, 1024, 8, 64)]  # fla's (B, T, H, D)
QUICK_SHAPES = [(2, 1024, 4, 64)]
CHUNK = 64


def linear_program(B, T, H, D, gated, element="f32"):
    t = f"tensor<{B}x{H}x{T}x{D}x{element}>"
    if not gated:
        return (f"func.func @main(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
                f"  %o = linea.linear_attention %q, %k, %v mask = causal : {t}, {t}, {t} -> {t}\n"
                f"  return %o : {t}\n}}\n")
    return (f"func.func @main(%q: {t}, %k: {t}, %v: {t}, %g: {t}) -> {t} {{\n"
            f"  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal"
            f" : {t}, {t}, {t}, {t} -> {t}\n"
            f"  return %o : {t}\n}}\n")


def linea_variants():
    """name: (the program's element type, options): the cost model's choice
    for a bf16 program (bf16 tensors in and out, tensor cores by default)
    and an f32 one, and the chunk-parallel form forced in bf16 (the form
    the estimates favour on the long shapes)."""
    return {"Linea bf16": ("bf16", {}), "Linea f32": ("f32", {}),
            "Linea bf16, chunk-parallel": ("bf16", {"form": "chunk_parallel"})}


# The other rows of the GPU issue's table: (row, (B, T, H, D)), bf16.
EXTRA = [("scalar gate", (2, 16384, 16, 128)), ("scalar gate", (8, 2048, 8, 64)),
         ("PrefixLM, prefix T/2", (2, 16384, 16, 128)),
         ("packed, 64 documents", (1, 32768, 16, 128))]
DOCUMENTS = 64

# Causal softmax attention: (B, H, T, D), bf16 (and f32 with precision=bf16).
SOFTMAX = [(2, 16, 4096, 128), (1, 16, 16384, 128), (2, 16, 4096, 64)]
# Packed causal softmax attention, DOCUMENTS documents: (H, T, D), bf16.
PACKED_SOFTMAX = (16, 32768, 128)


def softmax_program(B, H, T, D, element):
    t = f"tensor<{B}x{H}x{T}x{D}x{element}>"
    return (f"func.func @main(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
            f"  %o = linea.attention %q, %k, %v mask = causal : {t}, {t}, {t} -> {t}\n"
            f"  return %o : {t}\n}}\n")


def softmax_variants():
    """name: (the program's element type, options): bf16 tensors (the
    flash-attention kernel), f32 tensors rounded to bf16 on tensor cores."""
    return {"Linea bf16": ("bf16", {}),
            "Linea f32, precision=bf16": ("f32", {"precision": "bf16"})}


def packed_softmax_program(H, D):
    """DOCUMENTS documents packed along a dynamic T ([H, T, D] bf16), their
    bounds as offsets: one flash launch over every document."""
    t = f"tensor<{H}x?x{D}xbf16>"
    return (f"func.func @main(%q: {t}, %k: {t}, %v: {t}, %o: tensor<?xindex>) -> {t} {{\n"
            f"  %y = linea.attention %q, %k, %v offsets(%o) mask = causal"
            f" : {t}, {t}, {t}, tensor<?xindex> -> {t}\n  return %y : {t}\n}}\n")


def extra_program(row, B, T, H, D):
    """The bf16 program of an EXTRA row: [B, H, T, D] tensors (a scalar
    gate [B, H, T]); the packed row's T is dynamic, its documents given by
    offsets."""
    t = f"tensor<{B}x{H}x{T}x{D}xbf16>"
    if row == "scalar gate":
        g = f"tensor<{B}x{H}x{T}xbf16>"
        return (f"func.func @main(%q: {t}, %k: {t}, %v: {t}, %g: {g}) -> {t} {{\n"
                f"  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal"
                f" : {t}, {t}, {t}, {g} -> {t}\n  return %o : {t}\n}}\n")
    if row.startswith("PrefixLM"):
        return (f"func.func @main(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
                f"  %o = linea.linear_attention %q, %k, %v mask = prefix({T // 2})"
                f" : {t}, {t}, {t} -> {t}\n  return %o : {t}\n}}\n")
    t = f"tensor<{H}x?x{D}xbf16>"
    return (f"func.func @main(%q: {t}, %k: {t}, %v: {t}, %o: tensor<?xindex>) -> {t} {{\n"
            f"  %y = linea.linear_attention %q, %k, %v offsets(%o) mask = causal"
            f" : {t}, {t}, {t}, tensor<?xindex> -> {t}\n  return %y : {t}\n}}\n")


def build_all(shapes, extra=True):
    for shape in shapes:
        for gated in (False, True):
            for name, (element, options) in linea_variants().items():
                start = time.perf_counter()
                linea.compile_library(linear_program(*shape, gated, element), target="cuda",
                                      chip=CHIP, **options)
                print(f"compiled {name} {'GLA' if gated else 'LA'} {shape} "
                      f"in {time.perf_counter() - start:.1f} s", flush=True)
    for row, shape in EXTRA if extra else []:
        start = time.perf_counter()
        linea.compile_library(extra_program(row, *shape), target="cuda", chip=CHIP)
        print(f"compiled Linea bf16 {row} {shape} in {time.perf_counter() - start:.1f} s",
              flush=True)
    for shape in SOFTMAX if extra else []:
        for name, (element, options) in softmax_variants().items():
            start = time.perf_counter()
            linea.compile_library(softmax_program(*shape, element), target="cuda", chip=CHIP,
                                  **options)
            print(f"compiled {name} softmax {shape} in {time.perf_counter() - start:.1f} s",
                  flush=True)
    if extra:
        H, _, D = PACKED_SOFTMAX
        linea.compile_library(packed_softmax_program(H, D), target="cuda", chip=CHIP)
        print(f"compiled Linea bf16 packed softmax {PACKED_SOFTMAX}", flush=True)


# ---------------------------------------------------------------------------
# Peers: torch chunked forms ([B, H, T, D]) and fla ([B, T, H, D]).
# ---------------------------------------------------------------------------
def torch_chunked_la(torch, q, k, v):
    B, H, T, D = q.shape
    n = T // CHUNK
    qc, kc, vc = (x.reshape(B, H, n, CHUNK, -1) for x in (q, k, v))
    mask = torch.ones(CHUNK, CHUNK, dtype=torch.bool, device=q.device).tril()
    local = (qc @ kc.transpose(-1, -2)).masked_fill(~mask, 0) @ vc
    states = kc.transpose(-1, -2) @ vc
    before = torch.cumsum(states.float(), dim=2) - states.float()
    return (local.float() + (qc.float() @ before)).reshape(B, H, T, -1)


def torch_chunked_gla(torch, q, k, v, g):
    B, H, T, D = q.shape
    n = T // CHUNK
    qc, kc, vc, gc = (x.reshape(B, H, n, CHUNK, -1) for x in (q, k, v, g))
    G = torch.cumsum(gc.float(), dim=3)  # decays from the chunk start
    last = G[:, :, :, -1:, :]
    qd = (qc.float() * torch.exp(G)).to(q.dtype)
    kd = (kc.float() * torch.exp(-G)).to(q.dtype)  # fine for fla's small gates
    mask = torch.ones(CHUNK, CHUNK, dtype=torch.bool, device=q.device).tril()
    local = ((qd @ kd.transpose(-1, -2)).masked_fill(~mask, 0) @ vc).float()
    kend = (kc.float() * torch.exp(last - G)).to(q.dtype)
    states = (kend.transpose(-1, -2) @ vc).float()  # [B, H, n, D, Dv]
    decay = torch.exp(last[:, :, :, 0, :]).unsqueeze(-1)  # [B, H, n, D, 1]
    S = torch.zeros_like(states[:, :, 0])
    out = torch.empty_like(local)
    for c in range(n):
        out[:, :, c] = local[:, :, c] + qd[:, :, c].float() @ S
        S = decay[:, :, c] * S + states[:, :, c]
    return out.reshape(B, H, T, -1)


def fla_op(module, name):
    """fla's `name` from `fla.ops.<module>`, or None (printed why) where fla
    cannot be imported."""
    try:
        import importlib
        return getattr(importlib.import_module(f"fla.ops.{module}"), name)
    except Exception as error:  # noqa: BLE001 - any import failure means no fla
        print(f"fla's {name} not available: {type(error).__name__}: {error}")
        return None


def fla_ops():
    ops = fla_op("linear_attn", "chunk_linear_attn"), fla_op("gla", "chunk_gla")
    return None if None in ops else ops


def fla_la(chunk_linear_attn, q, k, v):
    try:
        out = chunk_linear_attn(q, k, v, scale=1.0, normalize=False)
    except TypeError:
        out = chunk_linear_attn(q, k, v, scale=1.0)
    return out[0] if isinstance(out, tuple) else out


def fla_gla(chunk_gla, q, k, v, g):
    out = chunk_gla(q, k, v, g, scale=1.0)
    return out[0] if isinstance(out, tuple) else out


def median_ms(torch, fn, repeat):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def kernel_profile(torch, call):
    """The CUDA kernels of one call, by time: (name, launches, total ms)."""
    from torch.profiler import ProfilerActivity, profile
    call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as trace:
        call()
        torch.cuda.synchronize()
    kernels = {}
    for event in trace.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            count, total = kernels.get(event.name, (0, 0.0))
            kernels[event.name] = (count + 1, total + event.device_time_total / 1000)
    return sorted(((name, count, ms) for name, (count, ms) in kernels.items()),
                  key=lambda row: -row[2])


def rows_of_each(names, command_for, timeout):
    """The table rows of each name, each from a process of its own (a crash
    or a hang costs that name's rows only, and is a row saying so): the
    process prints its rows as JSON lines `ROW [...]`, which are returned,
    and anything else, which is echoed."""
    import json
    import signal
    import subprocess
    rows = []
    for name in names:
        try:
            done = subprocess.run(command_for(name), capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            rows.append([name, "", f"timed out after {timeout} s"])
            print(tuple(rows[-1]), flush=True)
            continue
        ran = [json.loads(line[4:]) for line in done.stdout.splitlines()
               if line.startswith("ROW ")]
        print("\n".join(line for line in done.stdout.splitlines()
                        if not line.startswith("ROW ")), flush=True)
        if done.returncode != 0:
            why = (f"crashed ({signal.Signals(-done.returncode).name})" if done.returncode < 0
                   else f"exit code {done.returncode}")
            print(done.stderr[-3000:], flush=True)
            ran.append([name, "", f"{why} after {len(ran)} rows"])
        for row in ran:
            print(tuple(row), flush=True)
        rows += ran
    return rows


def rel_l2(torch, got, want):
    got, want = got.double(), want.double()
    return float(torch.linalg.norm(got - want) / torch.linalg.norm(want))


def bench(shapes, repeat, profile=False):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    fla = fla_ops()
    rows = []
    for shape in shapes:
        B, T, H, D = shape
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, T, D, device="cuda", generator=gen) / D ** 0.5
                   for _ in range(3))
        g = torch.nn.functional.logsigmoid(
            torch.randn(B, H, T, D, device="cuda", generator=gen)) / 16
        for gated in (False, True):
            op = "chunk GLA (per-dim gate)" if gated else "causal linear attention"
            args = (q, k, v, g) if gated else (q, k, v)
            want = (torch_chunked_gla if gated else torch_chunked_la)(torch, *args)
            bf = [a.bfloat16() for a in args]
            timed = []
            for name, (element, options) in linea_variants().items():
                try:
                    kernel = linea.compile(linear_program(*shape, gated, element),
                                           target="cuda", chip=CHIP, **options)
                    ours = bf if element == "bf16" else args
                    err = rel_l2(torch, kernel(*ours), want)
                    ms = median_ms(torch, lambda: kernel(*ours), repeat)
                    timed.append((name, ms, err))
                    if profile:
                        for kname, count, kms in kernel_profile(torch, lambda: kernel(*ours))[:6]:
                            print(f"  {name}: kernel {kms:8.3f} ms {count:5d} launches "
                                  f"{kname[:80]}", flush=True)
                except Exception as error:  # noqa: BLE001 - a failing row is a result
                    timed.append((name, None, f"{type(error).__name__}: {error}"[:200]))
            torch_fn = (torch_chunked_gla if gated else torch_chunked_la)
            timed.append(("torch chunked bf16", median_ms(torch, lambda: torch_fn(torch, *bf),
                                                          repeat),
                          rel_l2(torch, torch_fn(torch, *bf), want)))
            if fla is not None:
                fn = fla[1] if gated else fla[0]
                thd = [a.transpose(1, 2).contiguous() for a in bf]
                call = (lambda: fla_gla(fn, *thd)) if gated else (lambda: fla_la(fn, *thd))
                try:
                    err = rel_l2(torch, call().transpose(1, 2), want)
                    timed.append(("fla bf16", median_ms(torch, call, repeat), err))
                except Exception as error:  # noqa: BLE001
                    timed.append(("fla bf16", None, f"{type(error).__name__}: {error}"[:200]))
            best_peer = min((ms for name, ms, _ in timed
                             if ms is not None and not name.startswith("Linea")), default=None)
            for name, ms, err in timed:
                ratio = f"{ms / best_peer:.2f}" if ms is not None and best_peer else ""
                rows.append(f"| {op} | {shape} | {name} | "
                            f"{'' if ms is None else f'{ms:.3f}'} | {ratio} | "
                            f"{err if isinstance(err, str) else f'{err:.2e}'} |")
                print(rows[-1], flush=True)
    return rows


def document_offsets(T, generator_seed=0):
    """64 document boundaries over T tokens: lengths from 1 up, seeded."""
    import random
    rng = random.Random(generator_seed)
    cuts = sorted(rng.sample(range(1, T), DOCUMENTS - 1))
    return [0] + cuts + [T]


def torch_causal_f32(torch, q, k, v):
    """Causal linear attention of [B, H, T, D] in float32 for any T (the
    chunked form on T padded to the chunk)."""
    T = q.shape[2]
    pad = (-T) % CHUNK
    padded = [torch.nn.functional.pad(x.float(), (0, 0, 0, pad)) for x in (q, k, v)]
    return torch_chunked_la(torch, *padded)[:, :, :T]


def extra_inputs(torch, row, B, T, H, D):
    """(Linea's bf16 arguments, fla's call or None, the float32 reference)."""
    gen = torch.Generator(device="cuda").manual_seed(1)
    q, k, v = (torch.randn(B, H, T, D, device="cuda", generator=gen) / D ** 0.5
               for _ in range(3))
    bf = [x.bfloat16() for x in (q, k, v)]
    thd = [x.transpose(1, 2).contiguous() for x in bf]
    simple_gla = fla_op("simple_gla", "chunk_simple_gla")
    if row == "scalar gate":
        g = torch.nn.functional.logsigmoid(torch.randn(B, H, T, device="cuda", generator=gen)) / 16
        g = g.bfloat16()
        want = torch_chunked_gla(torch, q, k, v, g.float()[..., None].expand(B, H, T, D))
        fla = None
        if simple_gla is not None:
            gt = g.transpose(1, 2).contiguous()
            fla = lambda: simple_gla(*thd, g=gt, scale=1.0)[0].transpose(1, 2)  # noqa: E731
        return bf + [g], fla, want
    if row.startswith("PrefixLM"):
        j = T // 2
        causal = torch_causal_f32(torch, q, k, v)
        state = k[:, :, :j].transpose(-1, -2).float() @ v[:, :, :j].float()
        want = torch.cat([q[:, :, :j].float() @ state, causal[:, :, j:]], dim=2)
        fla = None
        if simple_gla is not None:
            fla = lambda: simple_gla(*thd, scale=1.0)[0].transpose(1, 2)  # noqa: E731
        return bf, fla, want
    offsets = document_offsets(T)
    want = torch.cat([torch_causal_f32(torch, *(x[:, :, a:b] for x in (q, k, v)))
                      for a, b in zip(offsets, offsets[1:])], dim=2)
    o = torch.tensor(offsets, dtype=torch.int64, device="cuda")
    fla = None
    if simple_gla is not None:
        fla = lambda: simple_gla(*thd, scale=1.0, cu_seqlens=o)[0].transpose(1, 2)  # noqa: E731
    return [x[0] for x in bf] + [o], fla, want[0]


def bench_extra(repeat):
    """The EXTRA rows: Linea's bf16 program against fla, each checked
    against float32 first."""
    import torch
    rows = []
    for row, shape in EXTRA:
        args, fla, want = extra_inputs(torch, row, *shape)
        timed = []
        try:
            kernel = linea.compile(extra_program(row, *shape), target="cuda", chip=CHIP)
            out = kernel(*args)
            timed.append(("Linea bf16", median_ms(torch, lambda: kernel(*args), repeat),
                          rel_l2(torch, out, want)))
        except Exception as error:  # noqa: BLE001 - a failing row is a result
            timed.append(("Linea bf16", None, f"{type(error).__name__}: {error}"[:200]))
        if fla is not None:
            peer = "fla bf16 (causal)" if row.startswith("PrefixLM") else "fla bf16"
            try:
                err = rel_l2(torch, fla().reshape(want.shape), want)
                timed.append((peer, median_ms(torch, fla, repeat),
                              "causal, not PrefixLM" if row.startswith("PrefixLM") else err))
            except Exception as error:  # noqa: BLE001
                timed.append((peer, None, f"{type(error).__name__}: {error}"[:200]))
        best_peer = min((ms for name, ms, _ in timed
                         if ms is not None and not name.startswith("Linea")), default=None)
        for name, ms, err in timed:
            ratio = f"{ms / best_peer:.2f}" if ms is not None and best_peer else ""
            rows.append(f"| {row} | {shape} | {name} | {'' if ms is None else f'{ms:.3f}'} | "
                        f"{ratio} | {err if isinstance(err, str) else f'{err:.2e}'} |")
            print(rows[-1], flush=True)
    return rows


def bench_softmax(repeat):
    """Causal softmax attention: Linea against torch's SDPA (bf16) and fla's
    parallel_attn, each checked against torch's float32 SDPA first; TFLOP/s
    counts the causal half of both products (2 B H T^2 D)."""
    import torch
    rows = []
    parallel_attn = fla_op("attn", "parallel_attn")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for shape in SOFTMAX:
        B, H, T, D = shape
        gen = torch.Generator(device="cuda").manual_seed(2)
        q, k, v = (torch.randn(B, H, T, D, device="cuda", generator=gen) for _ in range(3))
        bf = [x.bfloat16() for x in (q, k, v)]
        want = sdpa(*(x.float() for x in bf), is_causal=True)
        flops = 2 * B * H * T * T * D
        timed = []
        for name, (element, options) in softmax_variants().items():
            args = bf if element == "bf16" else [x.float() for x in bf]
            try:
                kernel = linea.compile(softmax_program(*shape, element), target="cuda",
                                       chip=CHIP, **options)
                err = rel_l2(torch, kernel(*args), want)
                timed.append((name, median_ms(torch, lambda: kernel(*args), repeat), err))
            except Exception as error:  # noqa: BLE001 - a failing row is a result
                timed.append((name, None, f"{type(error).__name__}: {error}"[:200]))
        timed.append(("torch SDPA bf16",
                      median_ms(torch, lambda: sdpa(*bf, is_causal=True), repeat),
                      rel_l2(torch, sdpa(*bf, is_causal=True), want)))
        if parallel_attn is not None:
            thd = [x.transpose(1, 2).contiguous() for x in bf]
            call = lambda: parallel_attn(*thd, scale=D ** -0.5)  # noqa: E731
            try:
                out = call()
                out = out[0] if isinstance(out, tuple) else out
                timed.append(("fla parallel_attn bf16", median_ms(torch, call, repeat),
                              rel_l2(torch, out.transpose(1, 2), want)))
            except Exception as error:  # noqa: BLE001
                timed.append(("fla parallel_attn bf16", None,
                              f"{type(error).__name__}: {error}"[:200]))
        rows += softmax_rows("causal softmax attention", f"(B, H, T, D) = {shape}", timed,
                             flops)
    return rows


def softmax_rows(op, shape, timed, flops):
    """The table rows of one softmax shape's (name, ms, error) timings: the
    ratio to the best peer, and TFLOP/s for `flops`."""
    best_peer = min((ms for name, ms, _ in timed
                     if ms is not None and not name.startswith("Linea")), default=None)
    rows = []
    for name, ms, err in timed:
        ratio = f"{ms / best_peer:.2f}" if ms is not None and best_peer else ""
        speed = "" if ms is None else f", {flops / ms / 1e9:.0f} TFLOP/s"
        rows.append(f"| {op}{speed} | {shape} | {name} | {'' if ms is None else f'{ms:.3f}'} | "
                    f"{ratio} | {err if isinstance(err, str) else f'{err:.2e}'} |")
        print(rows[-1], flush=True)
    return rows


def bench_packed_softmax(repeat):
    """Packed causal softmax attention (DOCUMENTS documents of T tokens):
    Linea's one launch against fla's parallel_attn with cu_seqlens and torch
    SDPA called once per document, each checked against float32 SDPA per
    document first; TFLOP/s counts each document's causal half."""
    import torch
    H, T, D = PACKED_SOFTMAX
    offsets = document_offsets(T, generator_seed=1)
    spans = list(zip(offsets, offsets[1:]))
    gen = torch.Generator(device="cuda").manual_seed(3)
    bf = [torch.randn(H, T, D, device="cuda", generator=gen).bfloat16() for _ in range(3)]
    sdpa = torch.nn.functional.scaled_dot_product_attention
    want = torch.cat([sdpa(*(x[:, a:b].float() for x in bf), is_causal=True)
                      for a, b in spans], dim=1)
    flops = sum(2 * H * (b - a) ** 2 * D for a, b in spans)
    o = torch.tensor(offsets, dtype=torch.int64, device="cuda")
    timed = []
    try:
        kernel = linea.compile(packed_softmax_program(H, D), target="cuda", chip=CHIP)
        err = rel_l2(torch, kernel(*bf, o), want)
        timed.append(("Linea bf16", median_ms(torch, lambda: kernel(*bf, o), repeat), err))
    except Exception as error:  # noqa: BLE001 - a failing row is a result
        timed.append(("Linea bf16", None, f"{type(error).__name__}: {error}"[:200]))

    def per_document():
        return torch.cat([sdpa(*(x[:, a:b] for x in bf), is_causal=True) for a, b in spans],
                         dim=1)
    timed.append(("torch SDPA bf16, a call per document", median_ms(torch, per_document, repeat),
                  rel_l2(torch, per_document(), want)))
    parallel_attn = fla_op("attn", "parallel_attn")
    if parallel_attn is not None:
        thd = [x.transpose(0, 1)[None].contiguous() for x in bf]
        call = lambda: parallel_attn(*thd, scale=D ** -0.5, cu_seqlens=o)  # noqa: E731
        try:
            out = call()
            out = out[0] if isinstance(out, tuple) else out
            timed.append(("fla parallel_attn bf16 (cu_seqlens)", median_ms(torch, call, repeat),
                          rel_l2(torch, out[0].transpose(0, 1), want)))
        except Exception as error:  # noqa: BLE001
            timed.append(("fla parallel_attn bf16 (cu_seqlens)", None,
                          f"{type(error).__name__}: {error}"[:200]))
    return softmax_rows(f"packed causal softmax attention, {DOCUMENTS} documents",
                        f"(H, T, D) = {PACKED_SOFTMAX}", timed, flops)


def one_call_each(shapes):
    """Each bf16 variant of each op called once on `shapes`, for Nsight
    Compute to read its kernels (`ncu -k regex:linea_`; the kernels are
    named after their stage)."""
    import torch
    for shape in shapes:
        B, T, H, D = shape
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v, g = (torch.randn(B, H, T, D, device="cuda", generator=gen) / D ** 0.5
                      for _ in range(4))
        g = torch.nn.functional.logsigmoid(g) / 16
        for gated in (False, True):
            args = [a.bfloat16() for a in ((q, k, v, g) if gated else (q, k, v))]
            for name, (element, options) in linea_variants().items():
                if element != "bf16":
                    continue
                kernel = linea.compile(linear_program(*shape, gated, element), target="cuda",
                                       chip=CHIP, **options)
                kernel(*args)
                torch.cuda.synchronize()
                print(f"called {name} {'GLA' if gated else 'LA'} {shape}", flush=True)
    B, H, T, D = SOFTMAX[0]
    q = torch.randn(B, H, T, D, device="cuda").bfloat16()
    kernel = linea.compile(softmax_program(B, H, T, D, "bf16"), target="cuda", chip=CHIP)
    kernel(q, q, q)
    torch.cuda.synchronize()
    print(f"called Linea bf16 softmax {SOFTMAX[0]}", flush=True)
    H, T, D = PACKED_SOFTMAX
    q = torch.randn(H, T, D, device="cuda").bfloat16()
    o = torch.tensor(document_offsets(T, generator_seed=1), dtype=torch.int64, device="cuda")
    linea.compile(packed_softmax_program(H, D), target="cuda", chip=CHIP)(q, q, q, o)
    torch.cuda.synchronize()
    print(f"called Linea bf16 packed softmax {PACKED_SOFTMAX}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-only", action="store_true",
                        help="compile Linea's kernels into the cache and stop")
    parser.add_argument("--quick", action="store_true", help="one small shape")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--profile", action="store_true",
                        help="also list the CUDA kernels of each Linea variant's call")
    parser.add_argument("--results", help="write the table to this Markdown file")
    parser.add_argument("--one-call", action="store_true",
                        help="call each bf16 variant once on fla's two long shapes and stop "
                             "(for ncu)")
    opts = parser.parse_args()
    shapes = QUICK_SHAPES if opts.quick else SHAPES
    if opts.build_only:
        build_all(shapes, extra=not opts.quick)
        return
    import torch
    if not torch.cuda.is_available():
        sys.exit("bench/gpu.py: no CUDA device here (--build-only compiles the kernels)")
    if opts.one_call:
        one_call_each(shapes[:2])
        return
    rows = bench(shapes, opts.repeat, opts.profile)
    if not opts.quick:
        rows += bench_extra(opts.repeat)
        rows += bench_softmax(opts.repeat)
        rows += bench_packed_softmax(opts.repeat)
    text = (f"Measured {datetime.date.today()} on {torch.cuda.get_device_name()}, "
            f"torch {torch.__version__}, {platform.platform()}; medians of {opts.repeat} "
            f"CUDA-event timings; chip {CHIP}.\n\n"
            "| op | (B, T, H, D) | implementation | ms | vs best peer | rel. L2 vs torch f32 |\n"
            "| --- | --- | --- | ---: | ---: | ---: |\n" + "\n".join(rows) + "\n")
    print(text)
    if opts.results:
        pathlib.Path(opts.results).write_text(text)


if __name__ == "__main__":
    main()
