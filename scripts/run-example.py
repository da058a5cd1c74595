#!/usr/bin/python3
"""Runs an example with linea-run on seeded random inputs.

Tensor arguments get standard normal values, except arguments named %g*
(gates), which get log-decays in [-20, 0) as SPEC allows, and %w* (weights),
scaled by 1/sqrt(fan-in); `?` dims become 3.
Scalar arguments come from the file's `// linea-example: name=value` line.

`--ranks P` also runs the example split across P MPI processes
(`mpirun -np P linea-run --sequence-parallel --stats`) and prints, per
result, its relative difference from the one-process run, and the bytes
each rank's program sent.
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

ARG = re.compile(r"%(\w+)\s*:\s*(tensor<([^>]*)>|index|i64|i32)")


def signature(text):
    header = text[text.index("func.func"):text.index("{")]
    return ARG.findall(header[:header.index("->")] if "->" in header else header)


def mpirun(ranks):
    cmd = ["mpirun", "-np", str(ranks), "--oversubscribe"]
    return cmd + (["--allow-run-as-root"] if os.geteuid() == 0 else [])


def main():
    argv = sys.argv[1:]
    ranks = None
    if len(argv) == 3 and argv[1] == "--ranks" and argv[2].isdigit() and int(argv[2]) > 0:
        ranks = int(argv[2])
        argv = argv[:1]
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print("usage: run-example.py EXAMPLE.mlir [--ranks P]  (e.g. examples/prefixlm.mlir)",
              file=sys.stderr)
        sys.exit(0 if argv[:1] in (["-h"], ["--help"]) else 2)
    source = pathlib.Path(argv[0])
    if not source.is_file():
        sys.exit(f"run-example.py: error: no such file '{source}'")
    linea_run = pathlib.Path(__file__).resolve().parent.parent / "build/bin/linea-run"
    text = source.read_text()
    scalars = dict(re.findall(r"(\w+)=(\S+)", "".join(
        re.findall(r"// linea-example:(.*)", text))))
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        for name, kind, dims in signature(text):
            if not kind.startswith("tensor"):
                args.append(scalars[name])
                continue
            shape = [3 if d == "?" else int(d) for d in dims.split("x")[:-1]]
            if name.startswith("g"):
                data = -rng.uniform(0.0, 1.0, shape) ** 4 * 20.0
            elif name.startswith("w"):
                data = rng.standard_normal(shape) / np.sqrt(shape[0])
            else:
                data = rng.standard_normal(shape)
            path = f"{tmp}/{name}.npy"
            np.save(path, data.astype(np.float32))
            args.append(path)
        cmd = [str(linea_run), str(source), "--output-dir", tmp, "--repeat", "5"]
        for a in args:
            cmd += ["--arg", a]
        subprocess.run(cmd, check=True)
        if ranks:
            split = cmd[:cmd.index("--output-dir") + 1] + [f"{tmp}/ranks"] + \
                cmd[cmd.index("--output-dir") + 2:]
            subprocess.run(mpirun(ranks) + split + ["--sequence-parallel", "--stats"],
                           check=True)
        for result in sorted(pathlib.Path(tmp).glob("result*.npy")):
            y = np.load(result).astype(np.float64)
            line = (f"{result.stem}: shape {y.shape}, sum {y.sum():.6f}, "
                    f"l2 {np.linalg.norm(y):.6f}")
            if ranks:
                z = np.load(f"{tmp}/ranks/{result.name}").astype(np.float64)
                diff = np.linalg.norm(z - y) / max(np.linalg.norm(y), 1e-30)
                line += f", {ranks} ranks: rel. difference {diff:.2e}"
            print(line)


if __name__ == "__main__":
    main()
