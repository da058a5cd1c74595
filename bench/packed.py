#!/usr/bin/python3
"""Packed against padded sequences on the CPU: 64 documents of long-tailed
lengths (mean about 512, at most 8192), once packed into one sequence with
offsets and once padded to the longest document, through `linea.presum`,
causal `linea.linear_attention` and causal `linea.gated_linear_attention`
(one head; the gate per token).

    /usr/bin/python3 bench/packed.py [--repeat 7] [--width 64] [--threads 1]
                                     [--ops presum,linear,gated]
    /usr/bin/python3 bench/packed.py --gpu-report [--width 64] [--ops ...]

Both kernels of each op come from `linea.compile` and are timed in this
process (a median of calls after a warm one). The padded program does the
padding's work too: the packed one should be faster by about the padding
ratio (padded rows / real rows), which the table prints next to the
measured ratio; peak memory per layout comes from a process of its own.
Results: bench/PACKED.md (rows of this run replace the file).

`--gpu-report` runs nothing: it lowers both programs of each op for sm_90a
(`linea-lower-to-nvvm ... report=1`) and prints, from the kernel report,
the launches, whether any sits in a host loop, and the estimated FLOP and
bytes where the report can size them (not for kernels with dynamic bounds,
which the packed programs' segments have).
"""

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))

DOCUMENTS, LONGEST, MEAN = 64, 8192, 512


def document_lengths(rng):
    """Long-tailed lengths: log-normal, scaled to a mean of about MEAN, clipped
    to [1, LONGEST], the longest document LONGEST (so the padding is to 8192)."""
    import numpy as np
    lengths = rng.lognormal(mean=0.0, sigma=1.4, size=DOCUMENTS)
    lengths = np.clip(np.round(lengths / lengths.mean() * MEAN), 1, LONGEST).astype(int)
    lengths[np.argmax(lengths)] = LONGEST
    return lengths


def programs(op, width):
    """(packed, padded) sources of `op` over rows of `width` features."""
    x = f"tensor<?x{width}xf32>"
    padded = f"tensor<{DOCUMENTS}x{LONGEST}x{width}xf32>"
    if op == "presum":
        return (f"func.func @main(%x: {x}, %o: tensor<?xindex>) -> {x} {{\n"
                f"  %y = linea.presum %x offsets(%o) : {x}, tensor<?xindex> -> {x}\n"
                f"  return %y : {x}\n}}\n",
                f"func.func @main(%x: {padded}) -> {padded} {{\n"
                f"  %y = linea.presum %x : {padded}\n  return %y : {padded}\n}}\n")
    gate, gate_padded = "tensor<?xf32>", f"tensor<{DOCUMENTS}x{LONGEST}xf32>"
    def source(t, g, offsets):
        name = "gated_linear_attention" if op == "gated" else "linear_attention"
        operands = "%x, %x, %x" + (", %g" if op == "gated" else "")
        args = [f"%x: {t}"] + ([f"%g: {g}"] if op == "gated" else [])
        types = [t, t, t] + ([g] if op == "gated" else [])
        packing = ""
        if offsets:
            args.append("%o: tensor<?xindex>")
            types.append("tensor<?xindex>")
            packing = " offsets(%o)"
        return (f"func.func @main({', '.join(args)}) -> {t} {{\n"
                f"  %y = linea.{name} {operands}{packing} mask = causal scale = 0.125\n"
                f"      : {', '.join(types)} -> {t}\n  return %y : {t}\n}}\n")
    return source(x, gate, True), source(padded, gate_padded, False)


def inputs(op, x, offsets, rng):
    """(packed, padded) arguments: the documents, their gates, the offsets."""
    import numpy as np
    width = x.shape[-1]
    def pad(values):
        out = np.zeros((DOCUMENTS, LONGEST) + values.shape[1:], np.float32)
        for n, (start, end) in enumerate(zip(offsets, offsets[1:])):
            out[n, :end - start] = values[start:end]
        return out
    if op == "presum":
        return [x, offsets], [pad(x)]
    # Attention rows of unit size: q = k = v, scaled by 1/sqrt(width).
    rows = x / np.sqrt(width)
    if op == "linear":
        return [rows, offsets], [pad(rows)]
    gate = (-rng.random(len(x)) * 0.5).astype(np.float32)
    return [rows, gate, offsets], [pad(rows), pad(gate)]


def peak_worker(op, layout, width):
    """Run in a process of its own (`--peak OP LAYOUT`): builds one layout's
    inputs, calls its kernel once, prints the call's time as JSON; the
    parent reads the process's peak RSS. Layout `none` only imports."""
    import json
    import time
    import numpy as np
    import linea
    if layout != "none":
        rng = np.random.default_rng(0)
        lengths = document_lengths(rng)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        x = rng.standard_normal((int(offsets[-1]), width)).astype(np.float32)
        packed_args, padded_args = inputs(op, x, offsets, rng)
        args = packed_args if layout == "packed" else padded_args
        del packed_args, padded_args, x  # (only this layout's inputs stay)
        sources = dict(zip(("packed", "padded"), programs(op, width)))
        kernel = linea.compile(sources[layout])
        start = time.perf_counter()
        kernel(*args)
        print(json.dumps({"ms": (time.perf_counter() - start) * 1e3}))
        return
    print(json.dumps({"ms": 0.0}))


def peak_mib(op, layout, width, threads):
    """The peak RSS (MiB) of a process running one layout's kernel once."""
    from measure import measure, thread_env
    _, peak, status = measure([sys.executable, __file__, "--peak", op, layout,
                               "--width", str(width)], env=thread_env(threads))
    return peak if status == "ok" else None


def measure(op, width, repeat, rng, lengths, threads):
    """One op's table rows."""
    import numpy as np
    import linea
    from measure import median_ms
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    rows = int(offsets[-1])
    x = rng.standard_normal((rows, width)).astype(np.float32)
    packed_args, padded_args = inputs(op, x, offsets, rng)
    packed_source, padded_source = programs(op, width)
    packed_kernel, padded_kernel = linea.compile(packed_source), linea.compile(padded_source)
    got, want = packed_kernel(*packed_args), padded_kernel(*padded_args)
    worst = max(float(np.max(np.abs(got[start:end] - want[n, :end - start]), initial=0.0))
                for n, (start, end) in enumerate(zip(offsets, offsets[1:])))
    packed_ms = median_ms(lambda: packed_kernel(*packed_args), repeat)
    padded_ms = median_ms(lambda: padded_kernel(*padded_args), repeat)
    ratio = DOCUMENTS * LONGEST / rows
    mib = lambda arrays: sum(a.nbytes for a in arrays) / 2**20
    base = peak_mib(op, "none", width, threads)
    peaks = {layout: peak_mib(op, layout, width, threads) for layout in ("packed", "padded")}
    above = {layout: "" if peak is None or base is None else f"{peak - base:,.0f}"
             for layout, peak in peaks.items()}
    name = {"presum": "`presum`", "linear": "causal `linear_attention`",
            "gated": "causal `gated_linear_attention`"}[op]
    return [
        f"| {name} | packed (offsets) | {rows:,} | {mib(packed_args):,.1f} | {packed_ms:,.2f} | "
        f"{above['packed']} | |",
        f"| | padded to {LONGEST} | {DOCUMENTS * LONGEST:,} | {mib(padded_args):,.1f} | "
        f"{padded_ms:,.2f} | {above['padded']} | |",
        f"| | padded / packed | {ratio:.2f} (padding ratio) | | **{padded_ms / packed_ms:.2f}** | "
        f"| max abs. difference {worst:.1e} |",
    ]


GPU_HEADING = "## GPU: the kernel report (not timed)"


def split_sections(path):
    """The results file's CPU part and its GPU report section (either may be
    empty), so that each mode rewrites only its own."""
    text = path.read_text() if path.exists() else ""
    at = text.find(GPU_HEADING)
    if at < 0:
        return text, ""
    return text[:at].rstrip("\n") + "\n", text[at:]


def gpu_report(ops, width):
    """Markdown rows of the kernel report for each op's two programs."""
    import re
    import subprocess
    from linea.runner import build_dir
    rows = ["| op | layout | launches | in a host loop | report's FLOP | report's bytes |",
            "| --- | --- | ---: | --- | ---: | ---: |"]
    for op in ops:
        for layout, source in zip(("packed (offsets)", f"padded to {LONGEST}"),
                                  programs(op, width)):
            done = subprocess.run(
                [str(build_dir() / "bin" / "linea-opt"), "-",
                 "--linea-lower-to-nvvm=chip=sm_90a format=isa report=1"],
                input=source, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"{op} {layout}: {done.stderr[-2000:]}")
            total = re.search(r"op total: \d+ launches, ([0-9.e+]+) FLOP, ([0-9.e+]+) B",
                              done.stderr)
            flop, moved = (total.groups() if total else ("no static estimate",) * 2)
            loop = "yes" if "host loop" in done.stderr else "no"
            rows.append(f"| {op} | {layout} | {done.stdout.count('gpu.launch_func')} | {loop} | "
                        f"{flop} | {moved} |")
    return "\n".join(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ops", default="presum,linear,gated")
    parser.add_argument("--output", default=str(ROOT / "bench" / "PACKED.md"))
    parser.add_argument("--peak", nargs=2, metavar=("OP", "LAYOUT"), help=argparse.SUPPRESS)
    parser.add_argument("--gpu-report", action="store_true",
                        help="print the sm_90a kernel report's launches and traffic instead")
    args = parser.parse_args()
    output = pathlib.Path(args.output)
    cpu_part, gpu_part = split_sections(output)
    if args.gpu_report:
        gpu_part = (f"{GPU_HEADING}\n\n`/usr/bin/python3 bench/packed.py --gpu-report --width "
                    f"{args.width} --ops {args.ops}`: the same programs lowered for sm_90a "
                    f"(`linea-lower-to-nvvm=\"chip=sm_90a format=isa report=1\"`), nothing run. "
                    f"The report sizes only kernels with static bounds, so the packed programs "
                    f"(dynamic segments) have launches and no estimate.\n\n"
                    + gpu_report(args.ops.split(","), args.width) + "\n")
        output.write_text(cpu_part + ("\n" + gpu_part if cpu_part else gpu_part))
        print(gpu_part)
        return
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    if args.peak:
        return peak_worker(*args.peak, args.width)
    import numpy as np

    rng = np.random.default_rng(0)
    lengths = document_lengths(rng)
    table = ["| op | layout | rows | input MiB | ms | peak MiB above import | |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for op in args.ops.split(","):
        table += measure(op, args.width, args.repeat, rng, lengths, args.threads)
    text = (f"# Packed against padded sequences (CPU)\n\n`/usr/bin/python3 bench/packed.py "
            f"--repeat {args.repeat} --width {args.width} --threads {args.threads} "
            f"--ops {args.ops}`: {DOCUMENTS} documents of long-tailed lengths (mean "
            f"{lengths.mean():.0f}, longest {lengths.max()}, shortest {lengths.min()}), "
            f"width {args.width} (attention: q = k = v, one head, Dk = Dv = width), "
            f"{args.threads} thread(s), {os.cpu_count()} cores; median of {args.repeat} calls "
            f"after a warm one. Peak memory: the peak RSS of a process that builds one "
            f"layout's inputs and calls its (cached) kernel once, less that of a process that "
            f"only imports linea and numpy (/usr/bin/time).\n\n" + "\n".join(table) + "\n")
    output.write_text(text + ("\n" + gpu_part if gpu_part else ""))
    print(text)


if __name__ == "__main__":
    main()
