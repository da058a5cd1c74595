"""Contraction epilogues on the GPU (linea-contractions-to-mma): the
elementwise op right after a projection (its bias, its activation, a
residual add) is applied by the projection's grid to each element as it
stores it, no kernel of its own. Run on the CPU by linea-gpu-mapped-to-cpu
against numpy in float64: on tensor cores (wgmma, bf16 operands) and on
the CUDA cores (FMA, f32), over a dynamic number of rows (1, a partial last
tile, several tiles)."""

import numpy as np
import pytest

from linea import run
from linea.reference import rel_l2
from programs import (batched_projection_epilogue_program, bf16, kernel_names,
                      projection_epilogue, projection_epilogue_program)


def test_one_launch():
    """The projection and its bias, GELU and residual add are one kernel."""
    text = projection_epilogue_program(128, 256)
    for precision in ("bf16", "f32"):
        assert kernel_names(text, f"chip=sm_90a format=isa precision={precision}") == \
            ["linea_matmul"], precision


@pytest.mark.parametrize("precision, tolerance", [("bf16", 1e-5), ("f32", 1e-5)])
@pytest.mark.parametrize("rows", [1, 100, 300])
def test_bias_gelu_residual(precision, tolerance, rows):
    rng = np.random.default_rng(rows)
    # Operands bf16-exact: the tensor cores' rounding is then none.
    x, w = bf16(rng.standard_normal((rows, 128))), bf16(rng.standard_normal((256, 128)) / 8)
    b, r = rng.standard_normal(256).astype(np.float32), rng.standard_normal((rows, 256))
    r = r.astype(np.float32)
    (got,) = run(projection_epilogue_program(128, 256), [x, w, b, r],
                 pipeline=f"linea-gpu-mapped-to-cpu{{chip=sm_90a precision={precision}}}")
    assert rel_l2(got, projection_epilogue(x, w, b, r)) <= tolerance


def test_batched_one_launch():
    """A Linear over [B, L, k], B and L dynamic, as torch-mlir writes it (the
    zeros, bias, GELU and residual over [B, L, n] around a contraction on
    [B L, k]): still one kernel (linea-epilogues-in-contraction-shape)."""
    assert kernel_names(batched_projection_epilogue_program(128, 256),
                        "chip=sm_90a format=isa precision=bf16") == ["linea_matmul"]


@pytest.mark.parametrize("batch, length", [(1, 7), (3, 64), (2, 131)])
def test_batched_bias_gelu_residual(batch, length):
    rng = np.random.default_rng(batch * length)
    x = bf16(rng.standard_normal((batch, length, 128)))
    w = bf16(rng.standard_normal((256, 128)) / 8)
    b = rng.standard_normal(256).astype(np.float32)
    r = rng.standard_normal((batch, length, 256)).astype(np.float32)
    (got,) = run(batched_projection_epilogue_program(128, 256), [x, w, b, r],
                 pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a precision=bf16}")
    want = projection_epilogue(x.reshape(-1, 128), w, b, r.reshape(-1, 256))
    assert got.shape == r.shape
    assert rel_l2(got.reshape(-1, 256), want) <= 1e-5
