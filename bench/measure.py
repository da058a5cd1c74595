"""What the model benchmarks share: one measured process per run, under a
memory cap and a time limit, timed by the process itself (a median of calls
after a warm one) and measured by /usr/bin/time (peak RSS); a run past the
cap or the limit says so instead of a number."""

import json
import os
import platform
import resource
import signal
import pathlib
import subprocess
import sys
import time

import numpy as np

MEMORY_CAP = 20 << 30
TIME_LIMIT = 600
# The threads of a measured process, for the workers that set their own
# (torch.set_num_threads, IREE's driver).
THREADS_VARIABLE = "LINEA_BENCH_THREADS"


def bench_threads():
    """The threads this worker runs on (the parent's --threads)."""
    return int(os.environ.get(THREADS_VARIABLE, "1"))


def thread_env(threads):
    """The environment of a measured process on `threads` threads: OpenMP's
    (Linea's kernels, torch), OpenBLAS's and the workers' own."""
    return dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                **{THREADS_VARIABLE: str(threads)})


def with_threads(label, threads):
    """An implementation's row label; other than one thread, it says how many."""
    return label if threads == 1 else f"{label}, {threads} threads"


def median_ms(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def measure(cmd, env=None):
    """(milliseconds or None, peak MiB, status) of one measured process."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    timed = ["/usr/bin/time", "-f", "PEAK_KB %M"] + cmd
    # A session of its own: past the limit the whole process group goes
    # (the worker under /usr/bin/time too, or it would run on beside the
    # next measurement, holding its memory).
    process = subprocess.Popen(timed, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, preexec_fn=cap, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None, None, f"over {TIME_LIMIT} s"
    done = subprocess.CompletedProcess(timed, process.returncode, stdout, stderr)
    peak = [int(line.split()[1]) for line in done.stderr.splitlines()
            if line.startswith("PEAK_KB")]
    peak_mib = peak[0] / 1024 if peak else None
    if done.returncode != 0:
        # Past the address-space cap an allocation fails, and code that does
        # not check it dies of the null pointer (signal 11).
        if peak_mib and peak_mib > 0.9 * (MEMORY_CAP >> 20) and "signal" in done.stderr:
            return None, peak_mib, f"out of memory (the {MEMORY_CAP >> 30} GiB cap)"
        tail = done.stderr.strip().splitlines()
        text = "out of memory" if any(s in done.stderr for s in (
            "MemoryError", "bad_alloc", "Cannot allocate", "RESOURCE_EXHAUSTED",
            "out of memory")) else (tail[-2] if len(tail) > 1 else "failed")[:80]
        return None, peak_mib, text
    out = done.stdout.strip().splitlines()
    if out and out[-1].startswith("{"):
        return json.loads(out[-1])["ms"], peak_mib, "ok"
    for line in out:  # linea-run --repeat: "median MS ms"
        parts = line.split()
        if parts and parts[0] == "median":
            return float(parts[1]), peak_mib, "ok"
    return None, peak_mib, "no timing"


def rel_l2(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def iree_label(threads):
    return with_threads("IREE llvm-cpu (local-sync)" if threads == 1
                        else "IREE llvm-cpu (local-task)", threads)


def table_rows(rows):
    """The Markdown table of (layer, L, implementation, ms, peak MiB, status,
    check) rows."""
    table = ["| layer | L | implementation | ms | peak MiB | status | rel. L2 vs torch |",
             "| --- | ---: | --- | ---: | ---: | --- | --- |"]
    for title, L, label, ms, peak, status, check in rows:
        table.append(f"| {title} | {L} | {label} | {'' if ms is None else f'{ms:,.1f}'} | "
                     f"{'' if peak is None else f'{peak:,.0f}'} | {status} | {check} |")
    return table


def conditions(repeat, shape=""):
    """The line under a results table: machine, threads, repeats, limits."""
    return (f"Measured {time.strftime('%Y-%m-%d')} on "
            f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, one thread "
            f"each unless a row says how many{shape}; median of {repeat} calls after a warm "
            f"one at L <= 4096, one call above; memory cap {MEMORY_CAP >> 30} GiB per run, "
            f"{TIME_LIMIT} s limit.\n\n")


def iree_module(mlir, vmfb, threads=1):
    """The linalg file compiled by IREE for this CPU (llvm-cpu) and loaded for
    the local-sync driver (its `main` runs on one thread) or, on more
    threads, local-task (a worker per core)."""
    import iree.runtime as ireert
    # The flags linea's own IREE back end uses (backend="iree").
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
    from linea.iree import compile_flags
    subprocess.run([str(pathlib.Path(sys.executable).parent / "iree-compile"), mlir,
                    *compile_flags("cpu", chip=None), "-o", str(vmfb)], check=True)
    return ireert.load_vm_flatbuffer_file(
        str(vmfb), driver="local-sync" if threads == 1 else "local-task")


def write_results(path, title, text, table, rerun=None):
    """The results (`text`: the conditions line and `table`) as the Markdown
    file `path` headed `title`; with `rerun` (the layer titles run now) and
    an existing file, only the rows run now change: each replaces the row of
    the same layer, length and implementation in place, or follows its
    layer's last row."""
    path = pathlib.Path(path)
    if not (rerun and path.exists()):
        path.write_text(f"# {title}\n\n" + text)
        return
    def key(line):
        """(layer, L, implementation) of a table row; None elsewhere."""
        cells = line.split(" | ")
        if not line.startswith("| ") or len(cells) < 4 or cells[0][2:] in ("layer", "---"):
            return None
        return cells[0][2:], cells[1], cells[2]
    lines = path.read_text().splitlines()
    for row in table[2:]:
        at = [i for i, line in enumerate(lines) if key(line) == key(row)]
        if at:
            lines[at[0]] = row
            continue
        layer = [i for i, line in enumerate(lines) if key(line) and key(line)[0] == key(row)[0]]
        # A new layer goes to the end of the table of its thread count (the
        # implementations of a many-thread table end in "N threads").
        threaded = key(row)[2].endswith(" threads")
        table_rows = [i for i, line in enumerate(lines)
                      if key(line) and key(line)[2].endswith(" threads") == threaded]
        after = layer[-1] if layer else (table_rows[-1] if table_rows else len(lines) - 1)
        lines.insert(after + 1, row)
    path.write_text("\n".join(lines) + "\n")
