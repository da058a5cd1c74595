"""A small seeded fuzz of what users get wrong: integer pass and pipeline
options at 0, 1, -1 and 2^63-1, and shapes and size attributes mutated to
0, ? and huge values, through every pipeline (the NVVM one to PTX). Every
run must end in exit code 0 or 1 with no crash, and a failed run writes no
output file."""

import random
import re
import subprocess

import pytest

from linea.runner import build_dir

SEED = 20261123
VALUES = ["0", "1", "-1", "9223372036854775807"]

PROGRAM = """func.func @f(%q: tensor<2x64x16xf32>, %g: tensor<2x64xf32>, %x: tensor<2x64x16xf32>,
             %m: tensor<2x8x16xf32>, %j: index)
    -> (tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>) {
  %a = linea.linear_attention %q, %q, %q mask = prefix(%j) : tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
  %b = linea.gated_linear_attention %q, %q, %q, %g mask = causal : tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64xf32> -> tensor<2x64x16xf32>
  %c = linea.presum %x exclusive : tensor<2x64x16xf32>
  %y, %mem = linea.fold %x, %m segment_length = 8 : tensor<2x64x16xf32>, tensor<2x8x16xf32> {
  ^bb0(%w: tensor<2x16x16xf32>):
    %r = linea.attention %w, %w, %w mask = causal : tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<2x16x16xf32> -> tensor<2x16x16xf32>
    linea.yield %r : tensor<2x16x16xf32>
  }
  return %a, %b, %c, %y : tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>
}
"""

# Every integer option of Linea's passes and pipelines.
OPTIONS = [
    ("linea-causal-to-chunked", "chunk-size"), ("linea-presum-to-scan", "block-size"),
    ("linea-tile-attention", "tile-size"), ("linea-select-forms", "chunk-size"),
    ("linea-distribute-sequences", "value-tile"), ("linea-optimize", "chunk-size"),
    ("linea-gpu-mapped-to-cpu", "block-size"), ("linea-gpu-mapped-to-cpu", "chunk-size"),
    ("linea-lower-to-nvvm", "block-size"), ("linea-lower-to-nvvm", "chunk-size"),
]
PIPELINES = ["linea-optimize", "linea-optimize{target=gpu}", "linea-lower-to-cpu",
             "linea-gpu-mapped-to-cpu", "linea-lower-to-nvvm{format=isa}",
             "linea-gpu-mapped-to-cpu{precision=bf16}",
             "linea-lower-to-nvvm{format=isa precision=bf16}"]


def linea_opt(text, flag, out):
    return subprocess.run([str(build_dir() / "bin/linea-opt"), "-", flag, "-o", str(out)],
                          input=text, capture_output=True, text=True, timeout=300)


def assert_clean(done, out):
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert "Stack dump" not in done.stderr and "Assertion" not in done.stderr
    if done.returncode == 1:
        assert not out.exists(), "a failed run wrote its output"


def option_runs():
    for pass_name, option in OPTIONS:
        for value in VALUES:
            extra = " format=isa" if pass_name == "linea-lower-to-nvvm" else ""
            yield f"--pass-pipeline=builtin.module({pass_name}{{{option}={value}{extra}}})"


@pytest.mark.parametrize("flag", list(option_runs()))
def test_option_values(flag, tmp_path):
    out = tmp_path / "out.mlir"
    assert_clean(linea_opt(PROGRAM, flag, out), out)


def mutations(count=24):
    """The program with one size (L = 64, D = 16, the batch 2, the segment
    length 8) replaced everywhere it appears by 0, ?, 1, 3 or 2^63-1."""
    r = random.Random(SEED)
    for _ in range(count):
        size = r.choice(["64", "16", "8", "2"])
        value = r.choice(["0", "?", "1", "3", "9223372036854775807"])
        text = re.sub(rf"(?<=[<x]){size}(?=[x>])", value, PROGRAM)
        if size == "8":
            text = text.replace("segment_length = 8", f"segment_length = {value}")
        yield text, r.choice(PIPELINES)


MUTATED = list(mutations())


@pytest.mark.parametrize("index", range(len(MUTATED)))
def test_mutated_sizes(index, tmp_path):
    text, pipeline = MUTATED[index]
    out = tmp_path / "out.mlir"
    assert_clean(linea_opt(text, f"--pass-pipeline=builtin.module({pipeline})", out), out)
