"""A misspelt pass option is one line naming the right spelling and the valid
options, exit code 1, from every tool that takes a pipeline: linea-opt
(`--NAME=OPTIONS` and `--pass-pipeline`), linea-run and linea-compile
(`--pipeline`, and linea-compile's `--options` for the CUDA pipeline). Every
pass and pipeline of Linea's answers so; right spellings still run.
"""
import subprocess

import numpy as np
import pytest

from linea.runner import build_dir
from test_docs import listed_passes

PROGRAM = """func.func @main(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %y = linea.presum %x : tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
"""


def tool(name):
    return str(build_dir() / "bin" / name)


def one_line_error(command):
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert len(lines) == 1, lines
    return lines[0]


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "presum.mlir"
    path.write_text(PROGRAM)
    return str(path)


def test_every_linea_pass_names_its_options(program):
    passes = listed_passes()
    assert len(passes) > 20
    for name in passes:
        line = one_line_error([tool("linea-opt"), program, f"--{name}=zz-top=1"])
        assert line.startswith(f"linea-opt: error: '{name}' has no option 'zz-top'"), line
        assert "(its options: " in line or "(it takes none)" in line, line


@pytest.mark.parametrize("arguments,message", [
    (["--linea-optimize=chunk_size=64"],
     "'linea-optimize' has no option 'chunk_size'; did you mean 'chunk-size'? (its options: "
     "chip, chunk-size, explain, form, mark-minimal-traffic, runtime-checks, target, "
     "target-description)"),
    (["--pass-pipeline=builtin.module(func.func(linea-raise),linea-lower-to-cpu{vectorise=0})"],
     "'linea-lower-to-cpu' has no option 'vectorise'; did you mean 'vectorize'?"),
    (["--pass-pipeline", "builtin.module(linea_optimize)"],
     "'linea_optimize' is not a registered pass or pipeline; did you mean 'linea-optimize'?"),
    (["--linea-select-forms=target-description={a b} fomr=auto"],
     "'linea-select-forms' has no option 'fomr'; did you mean 'form'?"),
])
def test_linea_opt(program, arguments, message):
    line = one_line_error([tool("linea-opt"), program] + arguments)
    assert line.startswith("linea-opt: error: " + message), line


def test_linea_run_and_compile(program, tmp_path):
    bad = "linea-optimize{chunk_size=64}"
    for name, extra in (("linea-run", []), ("linea-compile", ["-o", str(tmp_path / "k.so")])):
        line = one_line_error([tool(name), program, "--pipeline", bad] + extra)
        assert line.startswith(f"{name}: error: bad --pipeline: 'linea-optimize' has no option "
                               "'chunk_size'; did you mean 'chunk-size'?"), line
    line = one_line_error([tool("linea-compile"), program, "--target", "cuda",
                           "--options", "precison=f16", "-o", str(tmp_path / "k.so")])
    assert line.startswith("linea-compile: error: bad --options: 'linea-lower-to-nvvm' has no "
                           "option 'precison'; did you mean 'precision'?"), line


def test_right_spellings_run(program, tmp_path):
    for arguments in (["--linea-optimize=chunk-size=4 explain=0"],
                      ["--pass-pipeline=builtin.module(linea-optimize{chunk-size=4},"
                       "linea-lower-to-cpu{vectorize=0})"],
                      ["--canonicalize=disable-patterns=nothing"]):
        result = subprocess.run([tool("linea-opt"), program] + arguments, capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 0, (arguments, result.stderr)
    x = tmp_path / "x.npy"
    np.save(x, np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))
    result = subprocess.run([tool("linea-run"), program, "--pipeline",
                             "linea-optimize{chunk-size=4}", "--arg", str(x)],
                            capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # No --output-dir: a summary line, and no result file in the working directory.
    assert result.stdout.startswith("result0: shape 8x4, sum "), result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["presum.mlir", "x.npy"]
