"""linea-opt and linea-run never crash on malformed input: every truncation
of the dialect's round-trip test and of the examples, and a set of
hand-mangled ops, end with exit code 0 or 1 and no stack dump."""

import pathlib
import subprocess

import pytest

from linea.runner import build_dir

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "test/Dialect/ops.mlir"] + sorted((ROOT / "examples").glob("*.mlir"))


def linea_opt(text, *flags):
    return subprocess.run([str(build_dir() / "bin/linea-opt"), "-", *flags], input=text,
                          capture_output=True, text=True, timeout=60)


def assert_clean_exit(done):
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert "Stack dump" not in done.stderr
    assert "Assertion" not in done.stderr


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_every_truncation(source):
    text = source.read_text()
    for cut in range(0, len(text), max(1, len(text) // 120)):
        assert_clean_exit(linea_opt(text[:cut]))


MANGLED = [
    # wrong types
    "%0 = linea.presum %x : tensor<4x8xi32>",
    "%0 = linea.presum %x : memref<4x8xf32>",
    "%0 = linea.attention %x, %x, %x mask = causal : tensor<4x8xf32>, tensor<4x8xf32>, "
    "tensor<4x8xf32> -> tensor<4xf32>",
    # unknown keywords and enum values (a discardable attribute in the
    # attr-dict, `{frobnicate = 3}`, is legal MLIR and is kept)
    "%0 = linea.presum %x frobnicate : tensor<4x8xf32>",
    "%0 = linea.linear_attention %x, %x, %x mask = diagonal : tensor<4x8xf32>, "
    "tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>",
    "%0 = linea.linear_attention %x, %x, %x mask = prefix(x) : tensor<4x8xf32>, "
    "tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>",
    "%0 = linea.linear_attention %x, %x, %x mask = prefix(99999999999999999999) : "
    "tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>",
    '%0 = "linea.linear_attention"(%x, %x, %x) <{mask = 7 : i32, operandSegmentSizes = '
    "array<i32: 1, 1, 1, 0, 0>}> : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) "
    "-> tensor<4x8xf32>",
    '%0 = "linea.linear_attention"(%x, %x, %x) <{mask = 1 : i32}> : (tensor<4x8xf32>, '
    "tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>",
    '%0:2 = "linea.fold"(%x, %x) <{segment_length = 2 : i64}> ({}) : (tensor<4x8xf32>, '
    "tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)",
    '%0:2 = "linea.fold"(%x, %x) <{segment_length = 2 : i64}> ({^bb0: "linea.yield"(%x) : '
    "(tensor<4x8xf32>) -> ()}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, "
    "tensor<4x8xf32>)",
    '%0:2 = "linea.folded_attention"(%x, %x, %x, %x, %x, %x) <{segment_length = 0 : i64, '
    "num_heads = 0 : i64}> : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, "
    "tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)",
]


@pytest.mark.parametrize("body", MANGLED)
def test_mangled_op(body):
    text = f"func.func @f(%x: tensor<4x8xf32>) {{\n  {body}\n  return\n}}\n"
    for flags in ([], ["--linea-lower-to-cpu"]):
        done = linea_opt(text, *flags)
        assert_clean_exit(done)
        assert done.returncode == 1
