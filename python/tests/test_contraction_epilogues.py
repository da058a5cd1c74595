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
from programs import kernel_names, projection_epilogue, projection_epilogue_program


def bf16(x):
    """`x` rounded to bf16 (nearest even), as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


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
