#!/usr/bin/python3
"""Compile time against program size: a model of N Linea ops (a residual
stack cycling through causal, PrefixLM and gated linear attention and
presum, static shapes) at N = 25, 50, 100, 200, through
- linea-opt --linea-optimize --linea-lower-to-cpu: MLIR only, the model as
  one function (what a pipeline without outlining does);
- the same after --linea-outline-ops (each op in a function; equal ops share);
- linea-compile: outlining, MLIR, LLVM -O3 and the link: a loadable library.

    /usr/bin/python3 bench/compile_time.py [--sizes 25,50] [--repeat 1]
        [--timing N]   # print -mlir-timing's top passes for N ops

Prints a Markdown table: seconds per program, milliseconds per op, and the
growth exponent of linea-compile's time between consecutive sizes (1.0 =
linear).
"""

import argparse
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("LINEA_BUILD_DIR", ROOT / "build")).resolve()

SEQ = "tensor<4x256x64xf32>"
GATE = "tensor<4x256xf32>"


def layer(k, x):
    """Op k of the stack reading %x{...}: one of four layer kinds, then a
    residual add, so every op's result is used."""
    kind = k % 4
    t = SEQ
    if kind == 0:
        op = f"linea.linear_attention {x}, {x}, {x} mask = causal : {t}, {t}, {t} -> {t}"
    elif kind == 1:
        op = f"linea.linear_attention {x}, {x}, {x} mask = prefix(64) : {t}, {t}, {t} -> {t}"
    elif kind == 2:
        op = f"linea.presum {x} : {t}"
    else:
        op = (f"linea.gated_linear_attention {x}, {x}, {x}, %g mask = causal"
              f" : {t}, {t}, {t}, {GATE} -> {t}")
    return (f"  %y{k} = {op}\n"
            f"  %x{k + 1} = arith.addf {x}, %y{k} : {t}\n")


def program(n_ops):
    body = "".join(layer(k, f"%x{k}") for k in range(n_ops))
    return (f"func.func @model(%x0: {SEQ}, %g: {GATE}) -> {SEQ} {{\n{body}"
            f"  return %x{n_ops} : {SEQ}\n}}\n")


def seconds(cmd, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="25,50,100,200")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timing", type=int, help="print -mlir-timing for N ops")
    opts = parser.parse_args()
    opt = str(BUILD / "bin" / "linea-opt")
    compiler = str(BUILD / "bin" / "linea-compile")
    with tempfile.TemporaryDirectory() as tmp:
        if opts.timing:
            path = pathlib.Path(tmp) / "model.mlir"
            path.write_text(program(opts.timing))
            done = subprocess.run([opt, str(path), "--linea-outline-ops", "--linea-optimize",
                                   "--linea-lower-to-cpu", "-o", "/dev/null", "-mlir-timing"],
                                  capture_output=True, text=True)
            print(done.stderr)
            return
        rows = ["| ops | linea-opt, one function s | linea-opt, outlined s | linea-compile s "
                "| linea-compile ms per op | growth |",
                "| ---: | ---: | ---: | ---: | ---: | ---: |"]
        previous = None
        for n in [int(s) for s in opts.sizes.split(",")]:
            path = pathlib.Path(tmp) / f"model{n}.mlir"
            path.write_text(program(n))
            opt_s = seconds([opt, str(path), "--linea-optimize", "--linea-lower-to-cpu",
                             "-o", "/dev/null"], opts.repeat)
            outlined_s = seconds([opt, str(path), "--linea-outline-ops", "--linea-optimize",
                                  "--linea-lower-to-cpu", "-o", "/dev/null"], opts.repeat)
            lib_s = seconds([compiler, str(path), "-o", f"{tmp}/libmodel{n}.so"], opts.repeat)
            growth = "" if previous is None else \
                f"{math.log(lib_s / previous[1]) / math.log(n / previous[0]):.2f}"
            rows.append(f"| {n} | {opt_s:.2f} | {outlined_s:.2f} | {lib_s:.2f} "
                        f"| {lib_s / n * 1e3:.0f} | {growth} |")
            print(rows[-1], flush=True)
            previous = (n, lib_s)
        print("\n".join(rows))


if __name__ == "__main__":
    main()
