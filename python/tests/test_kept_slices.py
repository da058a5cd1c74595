"""linea-compute-kept-slices: a producer computes only what a slice of its
result keeps. Each program slices a result (rows of an attention, columns,
batch entries; rows of a generic that reads linalg.index) and runs through
linea-run's pipeline, which moves the slice above the producer; the result
must match the float64 oracle of the whole computation, sliced. The pass is
checked to have fired on each (else the test would compare the unchanged
program)."""

import subprocess

import numpy as np
import pytest

from linea import reference, run
from linea.runner import build_dir

import programs

RNG_SEED = 20261127


def opt(program, passes):
    done = subprocess.run([str(build_dir() / "bin" / "linea-opt"), "-", passes],
                          input=program, capture_output=True, text=True, check=True)
    return done.stdout


def attention_program(shape_q, shape_k, dv, mask, offsets, sizes, dynamic):
    """`linea.attention` then `tensor.extract_slice` [offsets][sizes] of its
    [B, Lq, Dv] result. With `dynamic`, the lengths are `?` and the slice's
    row offset and count are index arguments."""
    (b, lq, dk), lk = shape_q, shape_k[1]
    length = lambda n: "?" if dynamic else str(n)  # noqa: E731
    tq, tk = f"tensor<{b}x{length(lq)}x{dk}xf32>", f"tensor<{b}x{length(lk)}x{dk}xf32>"
    tv, to = f"tensor<{b}x{length(lk)}x{dv}xf32>", f"tensor<{b}x{length(lq)}x{dv}xf32>"
    rows = "?" if dynamic else str(sizes[1])
    tr = f"tensor<{sizes[0]}x{rows}x{sizes[2]}xf32>"
    if dynamic:
        args, first, count = ", %first: index, %count: index", "%first", "%count"
    else:
        args, first, count = "", str(offsets[1]), str(sizes[1])
    return f"""func.func @main(%q: {tq}, %k: {tk}, %v: {tv}{args}) -> {tr} {{
  %a = linea.attention %q, %k, %v mask = {mask} : {tq}, {tk}, {tv} -> {to}
  %r = tensor.extract_slice %a[{offsets[0]}, {first}, {offsets[2]}] [{sizes[0]}, {count}, {sizes[2]}] [1, 1, 1] : {to} to {tr}
  return %r : {tr}
}}
"""


# (Lq, Lk, mask, slice offsets [B, rows, Dv], slice sizes): the fold's case
# (the last half of the rows), the first rows, a prime length, Lq != Lk both
# ways (rows that see no key at all), one row, value columns and batch.
ATTENTION_CASES = [
    (128, 128, "causal", (0, 64, 0), (2, 64, 6)),
    (128, 128, "causal", (0, 0, 0), (2, 64, 6)),
    (13, 13, "causal", (0, 5, 0), (2, 7, 6)),
    (7, 3, "causal", (0, 0, 0), (2, 3, 6)),
    (7, 3, "causal", (0, 4, 0), (2, 3, 6)),
    (4, 9, "causal", (0, 1, 0), (2, 2, 6)),
    (1, 1, "causal", (1, 0, 0), (1, 1, 6)),
    (13, 13, "none", (0, 3, 2), (2, 9, 3)),
    (13, 5, "none", (1, 12, 0), (1, 1, 6)),
]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("case", ATTENTION_CASES,
                         ids=[f"{c[2]}-Lq{c[0]}-Lk{c[1]}-at{c[3]}-{c[4]}" for c in ATTENTION_CASES])
def test_attention_rows(case, dynamic):
    lq, lk, mask, offsets, sizes = case
    rng = np.random.default_rng(RNG_SEED + lq * 31 + lk)
    q = rng.standard_normal((2, lq, 8)).astype(np.float32)
    k = rng.standard_normal((2, lk, 8)).astype(np.float32)
    v = rng.standard_normal((2, lk, 6)).astype(np.float32)
    program = attention_program(q.shape, k.shape, 6, mask, offsets, sizes, dynamic)
    # The slice moved: the attention itself has the slice's shape, or, where
    # its rows statically see no key, it is gone (zeros).
    lines = [x for x in opt(program, "--linea-compute-kept-slices").splitlines()
             if "linea.attention" in x]
    if mask == "causal" and not dynamic and offsets[1] + sizes[1] + lk - lq <= 0:
        assert lines == []
    else:
        rows = "?" if dynamic else sizes[1]
        assert lines[0].endswith(f"-> tensor<{sizes[0]}x{rows}x{sizes[2]}xf32>"), lines
    args = [q, k, v] + ([offsets[1], sizes[1]] if dynamic else [])
    (got,) = run(program, args)
    whole = reference.attention(q, k, v, mask=mask)
    want = whole[tuple(slice(o, o + s) for o, s in zip(offsets, sizes))]
    programs.assert_matches([got], [want])


# A generic that reads its own indices: out[i, j] = x[i, j] * (i + 1) - j,
# rows [3, 10) kept. The tiled generic must see the rows' global indices.
INDEXED = """#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<16x5xf32>) -> tensor<7x5xf32> {
  %e = tensor.empty() : tensor<16x5xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x5xf32>) outs(%e : tensor<16x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i1 = arith.addi %i, %c1 : index
    %ii = arith.index_cast %i1 : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %m = arith.mulf %in, %fi : f32
    %r = arith.subf %m, %fj : f32
    linalg.yield %r : f32
  } -> tensor<16x5xf32>
  %s = tensor.extract_slice %y[3, 0] [7, 5] [1, 1] : tensor<16x5xf32> to tensor<7x5xf32>
  return %s : tensor<7x5xf32>
}
""".replace("  %e = tensor.empty()", "  %c1 = arith.constant 1 : index\n  %e = tensor.empty()")


def test_indexed_generic_rows():
    x = np.random.default_rng(RNG_SEED).standard_normal((16, 5)).astype(np.float32)
    sliced = opt(INDEXED, "--linea-compute-kept-slices")
    assert "tensor<7x5xf32>) outs" in sliced, sliced  # the generic runs on 7 rows
    (got,) = run(INDEXED, [x])
    i, j = np.meshgrid(np.arange(16), np.arange(5), indexing="ij")
    want = (x.astype(np.float64) * (i + 1) - j)[3:10]
    programs.assert_matches([got], [want])
