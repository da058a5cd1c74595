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
            f"each{shape}; median of {repeat} calls after a warm one at L <= 4096, one call "
            f"above; memory cap {MEMORY_CAP >> 30} GiB per run, {TIME_LIMIT} s limit.\n\n")


def iree_module(mlir, vmfb):
    """The linalg file compiled by IREE for this CPU (llvm-cpu) and loaded for
    the local-sync driver: its `main` runs on one thread."""
    import iree.runtime as ireert
    subprocess.run([str(pathlib.Path(sys.executable).parent / "iree-compile"), mlir,
                    "--iree-hal-target-device=local",
                    "--iree-hal-local-target-device-backends=llvm-cpu",
                    "--iree-llvmcpu-target-cpu=host", "-o", str(vmfb)], check=True)
    return ireert.load_vm_flatbuffer_file(str(vmfb), driver="local-sync")


def write_results(path, title, text, table, rerun=None):
    """The results (`text`: the conditions line and `table`) as the Markdown
    file `path` headed `title`; with `rerun` (the layer titles run now) and
    an existing file, only those layers' rows are replaced, in place."""
    path = pathlib.Path(path)
    if not (rerun and path.exists()):
        path.write_text(f"# {title}\n\n" + text)
        return
    lines = path.read_text().splitlines()
    is_row = [line.startswith("| ") and line.split(" | ")[0][2:] in rerun for line in lines]
    at = is_row.index(True) if any(is_row) else len(lines)
    kept = [line for line, row in zip(lines, is_row) if not row]
    path.write_text("\n".join(kept[:at] + table[2:] + kept[at:]) + "\n")
