"""Runs a Linea program through `linea-run` and returns its results as numpy arrays.

The tools come from $LINEA_BUILD_DIR, an installed package's native part, or
build/ beside this package's repository checkout (`build_dir`).
"""

import os
import pathlib
import subprocess
import tempfile

import numpy as np


class LineaError(RuntimeError):
    """A Linea tool or kernel rejected the program or its inputs; `stderr`
    (also the message) says why."""

    def __init__(self, returncode, stderr):
        super().__init__(stderr.strip() or f"linea-run exited with {returncode}")
        self.returncode = returncode
        self.stderr = stderr


def build_dir():
    """Where Linea's tools are: $LINEA_BUILD_DIR, else the native part of an
    installed package (`pip install .` puts bin/ and lib/ in linea/_native),
    else build/ beside this package's repository checkout."""
    env = os.environ.get("LINEA_BUILD_DIR")
    if env:
        return pathlib.Path(env)
    native = pathlib.Path(__file__).resolve().parent / "_native"
    if (native / "bin").is_dir():
        return native
    return pathlib.Path(__file__).resolve().parents[2] / "build"


def linea_run_path():
    return build_dir() / "bin" / "linea-run"


def mpirun_command(ranks):
    """`mpirun -np ranks` on this machine: more ranks than cores allowed
    (--oversubscribe), and as root where the caller is root (CI)."""
    cmd = ["mpirun", "-np", str(ranks), "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def run(program, args, entry=None, pipeline=None, no_optimize=False, repeat=None,
        reuse_memory=False, ranks=None, stats=False, raising=True):
    """Runs `program` (MLIR text) on `args` (numpy arrays and ints).

    Returns the list of results (float32 arrays); with `repeat`, returns
    (results, median milliseconds). `reuse_memory`: the buffers one run
    frees serve the next (linea-run --reuse-memory), so the timings leave
    out the page faults of fresh result buffers.

    `raising=False` leaves model IR as written (linea-run --no-raise):
    by default linea-raise turns the sequence-mixing layers it recognizes
    exactly into Linea ops first.

    `ranks=P` runs the sequence-parallel program on P MPI processes
    (`mpirun -np P linea-run --sequence-parallel`): every rank gets the same
    full inputs and keeps its rows; the results are the full arrays, as one
    process would compute them. With `stats`, returns (results, bytes sent
    by each rank's program, a list indexed by rank).
    """
    with tempfile.TemporaryDirectory(prefix="linea-") as tmp:
        tmp = pathlib.Path(tmp)
        source = tmp / "program.mlir"
        source.write_text(program)
        cmd = [str(linea_run_path()), str(source), "--output-dir", str(tmp / "out")]
        if ranks:
            cmd = mpirun_command(ranks) + cmd + ["--sequence-parallel"]
            if stats:
                cmd.append("--stats")
        if entry:
            cmd += ["--entry", entry]
        if pipeline:
            cmd += ["--pipeline", pipeline]
        if no_optimize:
            cmd += ["--no-optimize"]
        if not raising:
            cmd += ["--no-raise"]
        if repeat:
            cmd += ["--repeat", str(repeat)]
        if reuse_memory:
            cmd += ["--reuse-memory"]
        for k, arg in enumerate(args):
            if isinstance(arg, np.ndarray):
                path = tmp / f"arg{k}.npy"
                # float16 stays float16 (an f16 argument's exact bits),
                # integers stay integers (token ids: int32, or int64);
                # anything else goes as float32 (bf16 is rounded from it).
                if arg.dtype == np.float16 or arg.dtype == np.int32:
                    dtype = arg.dtype
                elif np.issubdtype(arg.dtype, np.integer):
                    dtype = np.int64
                else:
                    dtype = np.float32
                np.save(path, np.ascontiguousarray(arg, dtype=dtype))
                cmd += ["--arg", str(path)]
            else:
                cmd += ["--arg", str(int(arg))]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise LineaError(done.returncode, done.stderr)
        results = [np.load(p) for p in sorted((tmp / "out").glob("result*.npy"),
                                              key=lambda p: int(p.stem[6:]))]
        if repeat:
            median = float(done.stdout.split()[1])
            return results, median
        if ranks and stats:
            sent = [int(line.split()[3]) for line in done.stdout.splitlines()
                    if line.startswith("rank ")]
            return results, sent
        return results
