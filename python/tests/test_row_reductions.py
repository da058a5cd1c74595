"""Row reductions on the GPU (linea-row-reductions): a LayerNorm, an RMSNorm
or a softmax over the last dim is one launch, lanes of a warp sharing a row
(a strided loop over its columns, then an xor butterfly of shuffles). Run on
the CPU by linea-gpu-mapped-to-cpu, each block's threads an OpenMP team and
each shuffle the emulation library's, against numpy in float64: dynamic
rows (1, a prime, more than a block's), columns a multiple of 32, not one,
and below 32 (fewer lanes a row, more rows a block)."""

import numpy as np
import pytest

from linea import run
from linea.reference import rel_l2
from programs import (kernel_names, layer_norm, layer_norm_program, rms_norm, rms_norm_program, softmax,
                      softmax_program)

PIPELINE = "linea-gpu-mapped-to-cpu{chip=sm_90a}"


def test_one_launch():
    """The LayerNorm's five ops are one kernel, named after what it does;
    so are the softmax's and the RMSNorm's over rows of two dims."""
    assert kernel_names(layer_norm_program(256)) == ["linea_row_reductions"]
    assert kernel_names(softmax_program(6)) == ["linea_row_reductions"]
    assert kernel_names(rms_norm_program(64)) == ["linea_row_reductions"]


@pytest.mark.parametrize("rows", [1, 7, 203])
@pytest.mark.parametrize("columns", [256, 37, 6])
def test_layer_norm(rows, columns):
    rng = np.random.default_rng(rows * 1000 + columns)
    x = 3.0 + rng.standard_normal((rows, columns))
    w, b = rng.standard_normal(columns), rng.standard_normal(columns)
    (got,) = run(layer_norm_program(columns),
                 [a.astype(np.float32) for a in (x, w, b)], pipeline=PIPELINE)
    want = layer_norm(x.astype(np.float32).astype(np.float64), w.astype(np.float32),
                      b.astype(np.float32))
    assert rel_l2(got, want) <= 1e-5


@pytest.mark.parametrize("rows, columns", [(1, 6), (67, 6), (9, 33), (40, 128)])
def test_softmax(rows, columns):
    rng = np.random.default_rng(columns)
    x = (4.0 * rng.standard_normal((rows, columns))).astype(np.float32)
    got, got_max = run(softmax_program(columns), [x], pipeline=PIPELINE)
    assert rel_l2(got, softmax(x)) <= 1e-6
    np.testing.assert_array_equal(got_max, x.max(-1))


@pytest.mark.parametrize("batch, length", [(1, 1), (3, 7), (2, 131)])
def test_rms_norm_rows_of_two_dims(batch, length):
    """Rows of [B, L, 96], both dynamic: each warp's row split into (b, l)."""
    rng = np.random.default_rng(batch * length)
    x, w = rng.standard_normal((batch, length, 96)), rng.standard_normal(96)
    (got,) = run(rms_norm_program(96), [x.astype(np.float32), w.astype(np.float32)],
                 pipeline=PIPELINE)
    want = rms_norm(x.astype(np.float32), w.astype(np.float32))
    assert rel_l2(got, want) <= 1e-5
