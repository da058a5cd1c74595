#!/usr/bin/python3
"""Packed against padded sequences on the CPU: 64 documents of long-tailed
lengths (mean about 512, at most 8192) summed by `linea.presum`, once packed
into one sequence with offsets and once padded to the longest document.

    /usr/bin/python3 bench/packed.py [--repeat 7] [--width 64] [--threads 1]

Both kernels come from `linea.compile` and are timed in this process (a
median of calls after a warm one). The padded program does the padding's
work too: the packed one should be faster by about the padding ratio
(padded rows / real rows), which the table prints next to the measured
ratio. Results: bench/PACKED.md (rows of this run replace the file).
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


def programs(width):
    x = f"tensor<?x{width}xf32>"
    padded = f"tensor<{DOCUMENTS}x{LONGEST}x{width}xf32>"
    return (f"func.func @main(%x: {x}, %o: tensor<?xindex>) -> {x} {{\n"
            f"  %y = linea.presum %x offsets(%o) : {x}, tensor<?xindex> -> {x}\n"
            f"  return %y : {x}\n}}\n",
            f"func.func @main(%x: {padded}) -> {padded} {{\n"
            f"  %y = linea.presum %x : {padded}\n  return %y : {padded}\n}}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--output", default=str(ROOT / "bench" / "PACKED.md"))
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import numpy as np
    import linea
    from measure import median_ms

    rng = np.random.default_rng(0)
    lengths = document_lengths(rng)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    rows = int(offsets[-1])
    x = rng.standard_normal((rows, args.width)).astype(np.float32)
    padded = np.zeros((DOCUMENTS, LONGEST, args.width), np.float32)
    for n, (start, end) in enumerate(zip(offsets, offsets[1:])):
        padded[n, :end - start] = x[start:end]

    packed_source, padded_source = programs(args.width)
    packed_kernel, padded_kernel = linea.compile(packed_source), linea.compile(padded_source)
    got, want = packed_kernel(x, offsets), padded_kernel(padded)
    worst = max(float(np.max(np.abs(got[start:end] - want[n, :end - start])))
                for n, (start, end) in enumerate(zip(offsets, offsets[1:])))
    packed_ms = median_ms(lambda: packed_kernel(x, offsets), args.repeat)
    padded_ms = median_ms(lambda: padded_kernel(padded), args.repeat)
    ratio = DOCUMENTS * LONGEST / rows
    table = [
        "| layout | rows | input MiB | ms | |",
        "| --- | ---: | ---: | ---: | --- |",
        f"| packed (offsets) | {rows:,} | {x.nbytes / 2**20:,.1f} | {packed_ms:,.2f} | |",
        f"| padded to {LONGEST} | {DOCUMENTS * LONGEST:,} | {padded.nbytes / 2**20:,.1f} | "
        f"{padded_ms:,.2f} | |",
        f"| padded / packed | {ratio:.2f} (padding ratio) | | {padded_ms / packed_ms:.2f} | "
        f"max abs. difference of the sums {worst:.1e} |",
    ]
    text = (f"# Packed against padded sequences (CPU)\n\n`/usr/bin/python3 bench/packed.py "
            f"--repeat {args.repeat} --width {args.width} --threads {args.threads}`: "
            f"`linea.presum` over {DOCUMENTS} documents of long-tailed lengths (mean "
            f"{lengths.mean():.0f}, longest {lengths.max()}, shortest {lengths.min()}), "
            f"width {args.width}, {args.threads} thread(s), {os.cpu_count()} cores; median of "
            f"{args.repeat} calls after a warm one.\n\n" + "\n".join(table) + "\n")
    pathlib.Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
