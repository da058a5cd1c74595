#!/usr/bin/python3
"""Sequence parallelism over MPI: time at 1 and 2 ranks on this machine, and
the communication per layer extrapolated to 8, 64 and 512 ranks.

    /usr/bin/python3 bench/sequence_parallel.py [--length 16384] [--repeat 3]

Part 1 (measured): causal, gated (per-dim gate) and PrefixLM (j = L/2)
linear attention, and causal linear attention over 16 packed documents of
seeded random lengths (`offsets`), 16 heads, D = 64, through `linea-run --repeat N
--reuse-memory`: one process on one thread and on every core, and
`mpirun -np 2 ... --sequence-parallel` with one thread per rank (the ranks
share this machine's cores). Medians of rank 0's calls, in ms.

Part 2: bytes each rank's program sends per layer, measured with
`--stats` (16 heads, D = 128, a small L: the count does not depend on L),
next to what it receives from an all-gather ((P - 1) records) and what ring
attention moves per rank (the K and V blocks of the other P - 1 ranks:
(P - 1) / P * L * 2 * D * heads bf16 values). Only part 2's first column is
measured; the others are formulas applied to it.
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("LINEA_BUILD_DIR", ROOT / "build")).resolve()
sys.path.insert(0, str(ROOT / "python"))
from linea.runner import mpirun_command  # noqa: E402

HEADS = 16
DOCUMENTS = 16


def program(kind, length, dim):
    t = f"tensor<{HEADS}x{length}x{dim}xf32>"
    s = f"tensor<{HEADS}x{dim}x{dim}xf32>"
    if kind == "causal":
        body = (f"%o, %s = linea.linear_attention %q, %k, %v mask = causal : {t}, {t}, {t} "
                f"-> {t}, {s}")
    elif kind == "gated":
        body = (f"%o, %s = linea.gated_linear_attention %q, %k, %v, %g mask = causal : "
                f"{t}, {t}, {t}, {t} -> {t}, {s}")
    elif kind == "packed":
        s = f"tensor<{DOCUMENTS}x{HEADS}x{dim}x{dim}xf32>"
        body = (f"%o, %s = linea.linear_attention %q, %k, %v offsets(%offsets) mask = causal : "
                f"{t}, {t}, {t}, tensor<{DOCUMENTS + 1}xi64> -> {t}, {s}")
    else:
        body = (f"%o, %s = linea.linear_attention %q, %k, %v mask = prefix({length // 2}) : "
                f"{t}, {t}, {t} -> {t}, {s}")
    offsets = (f", %offsets: tensor<{DOCUMENTS + 1}xi64>" if kind == "packed" else "")
    return (f"func.func @layer(%q: {t}, %k: {t}, %v: {t}, %g: {t}{offsets}) -> ({t}, {s}) {{\n"
            f"  {body}\n  return %o, %s : {t}, {s}\n}}\n")


def inputs(tmp, length, dim, packed=False):
    rng = np.random.default_rng(0)
    paths = []
    if packed:  # DOCUMENTS seeded lengths, at least one row each
        cuts = np.sort(rng.choice(np.arange(1, length), DOCUMENTS - 1, replace=False))
        offsets = np.concatenate([[0], cuts, [length]]).astype(np.int64)
    for name in "qkvg":
        x = rng.standard_normal((HEADS, length, dim)).astype(np.float32)
        if name == "g":
            x = (-20.0 * rng.uniform(0, 1, x.shape) ** 3).astype(np.float32)
        path = tmp / f"{name}.npy"
        np.save(path, x)
        paths += ["--arg", str(path)]
    if packed:
        np.save(tmp / "offsets.npy", offsets)
        paths += ["--arg", str(tmp / "offsets.npy")]
    return paths


def run(cmd, env=None):
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    return done.stdout


def median_ms(stdout):
    return float(re.search(r"median ([0-9.]+) ms", stdout).group(1))


def timings(kind, length, repeat, tmp):
    source = tmp / f"{kind}.mlir"
    source.write_text(program(kind, length, 64))
    base = [str(BUILD / "bin" / "linea-run"), str(source),
            *inputs(tmp, length, 64, packed=kind == "packed"),
            "--output-dir", str(tmp / "out"), "--repeat", str(repeat), "--reuse-memory"]
    one_thread = dict(os.environ, OMP_NUM_THREADS="1")
    rows = {
        "1 process, 1 thread": median_ms(run(base, one_thread)),
        "1 process, every core": median_ms(run(base)),
        "2 ranks x 1 thread": median_ms(run(
            mpirun_command(2) + ["-x", "OMP_NUM_THREADS=1"] + base + ["--sequence-parallel"])),
    }
    return rows


def bytes_per_rank(kind, tmp):
    source = tmp / f"{kind}-stats.mlir"
    source.write_text(program(kind, 64, 128))
    out = run(mpirun_command(2) + [str(BUILD / "bin" / "linea-run"), str(source),
                                   *inputs(tmp, 64, 128), "--output-dir", str(tmp / "s"),
                                   "--sequence-parallel", "--stats"])
    sent = [int(m) for m in re.findall(r"rank \d+ sent (\d+) bytes", out)]
    assert len(set(sent)) == 1, sent
    return sent[0]


def human(n):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n:.0f} B"
        n /= 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=16384)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("causal", "gated", "prefix", "packed"),
                        help="part 1 for this layer only, no part 2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="linea-sp-") as tmp:
        tmp = pathlib.Path(tmp)
        print(f"### Time, {HEADS} heads, L = {args.length}, D = 64 (ms, median of "
              f"{args.repeat})\n")
        print("| layer | 1 process, 1 thread | 1 process, every core | 2 ranks x 1 thread "
              "| 2 ranks vs 1 thread |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for kind in [args.only] if args.only else ("causal", "gated", "prefix", "packed"):
            t = timings(kind, args.length, args.repeat, tmp)
            one, every, two = t.values()
            print(f"| {kind} | {one:.1f} | {every:.1f} | {two:.1f} | {one / two:.2f}x |")
            sys.stdout.flush()
        if args.only:
            return

        print(f"\n### Communication per layer and rank, {HEADS} heads, D = 128\n")
        print("| layer | sent (measured) | P | received, all-gather | ring attention, "
              "L = 1M | ring attention, L = 16M |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for kind in ("causal", "gated", "prefix"):
            sent = bytes_per_rank(kind, tmp)
            for ranks in (8, 64, 512):
                ring = [(ranks - 1) / ranks * length * 2 * 128 * HEADS * 2
                        for length in (2**20, 2**24)]
                print(f"| {kind} | {human(sent)} | {ranks} | {human((ranks - 1) * sent)} | "
                      f"{human(ring[0])} | {human(ring[1])} |")


if __name__ == "__main__":
    main()
