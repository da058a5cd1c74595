"""Measures, on this machine, the rates Linea's cost model weighs CPU forms
with, and writes them as a target description:

    /usr/bin/python3 -m linea.calibrate -o cpu.json
    linea-opt in.mlir --linea-optimize=target-description=cpu.json ...

Every number is a median time of Linea's own compiled code on one thread
(as the cost model counts), through `linea-run --reuse-memory`:

- matrixFlopsPerSecond: the one-shot form (two contractions) over a long
  sequence;
- bytesPerSecond: the presum, one read and one write of every element;
- contractionTile and secondsPerIteration: the chunked form at each chunk
  size, fitted (least squares) to the model's
  time(C) = flops(C) / rate * (1 + tile / C) + steps(C) * secondsPerIteration.
"""

import argparse
import datetime
import json
import math
import platform
import sys

import numpy as np

from .runner import run

CHUNKS = (16, 32, 64, 128, 256)


def _tensor(shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def _attention(shape, mask):
    t = _tensor(shape)
    return (f"func.func @f(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
            f"  %o = linea.linear_attention %q, %k, %v mask = {mask} : {t}, {t}, {t} -> {t}\n"
            f"  return %o : {t}\n}}\n")


def _presum(shape):
    t = _tensor(shape)
    return f"func.func @f(%x: {t}) -> {t} {{\n  %y = linea.presum %x : {t}\n  return %y : {t}\n}}\n"


def _seconds(program, args, repeat, optimize="linea-optimize"):
    pipeline = f"{optimize},linea-lower-to-cpu{{threads=1}}"
    _, ms = run(program, args, pipeline=pipeline, repeat=repeat, reuse_memory=True)
    return ms * 1e-3


def _fit_chunks(times, rate, heads, length, dim):
    """contractionTile and secondsPerIteration from the chunked timings."""
    rows, rhs = [], []
    for chunk, seconds in times.items():
        steps = math.ceil(length / chunk)
        flops = heads * steps * (2 * chunk * chunk * 2 * dim + 4 * chunk * dim * dim)
        rows.append([flops / (rate * chunk), steps])
        rhs.append(seconds - flops / rate)
    (tile, per_step), *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
    # The fit may land below zero where the overheads are lost in noise.
    return max(float(tile), 1.0), max(float(per_step), 1e-8)


def measure(quick=False, repeat=5):
    """The target description of this machine's CPU, as a dict."""
    heads, length, dim = (2, 1024, 32) if quick else (8, 4096, 64)
    chunks = (16, 64) if quick else CHUNKS
    rng = np.random.default_rng(0)
    shape = (heads, length, dim)
    q, k, v = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))

    oneshot = _seconds(_attention(shape, "none"), [q, k, v], repeat)
    rate = 4 * heads * length * dim * dim / oneshot
    presum = _seconds(_presum(shape), [q], repeat)
    bandwidth = 8 * q.size / presum
    causal = _attention(shape, "causal")
    times = {c: _seconds(causal, [q, k, v], repeat,
                         optimize=f"linea-optimize{{form=chunked chunk-size={c}}}")
             for c in chunks}
    tile, per_step = _fit_chunks(times, rate, heads, length, dim)
    return {
        "target": "cpu",
        "matrixFlopsPerSecond": rate,
        "bytesPerSecond": bandwidth,
        "contractionTile": tile,
        "secondsPerIteration": per_step,
        "measured": {
            "date": datetime.date.today().isoformat(),
            "machine": platform.processor() or platform.machine(),
            "shape": list(shape),
            "oneshot_seconds": oneshot,
            "presum_seconds": presum,
            "chunked_seconds": {str(c): t for c, t in times.items()},
        },
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m linea.calibrate",
        description="Measure the CPU rates of Linea's cost model on this machine.")
    parser.add_argument("-o", "--output", help="write the description here (default: stdout)")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement")
    opts = parser.parse_args(argv)
    if opts.repeat < 1:
        parser.error("--repeat must be positive")
    text = json.dumps(measure(quick=opts.quick, repeat=opts.repeat), indent=2) + "\n"
    if opts.output:
        with open(opts.output, "w") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
