"""The gated chunked form's ways to compute a chunk's decayed scores.

linea-causal-to-chunked folds the decays into the operands (one masked
contraction of q exp(b) and k exp(-b)) where a chunk's |b| stays within 30,
and takes the safe form elsewhere: in a static chunk of 32 rows or more,
16 x 16 diagonal blocks exact and the rows below each block column one
contraction decayed against the column's last row; in a smaller or dynamic
one the exact per-pair exponent. GPU kernels take the safe form only. Mild
gates, steep ones (down to -20 a step) and a sequence whose gates change
from one to the other (mixing the forms chunk by chunk), on the CPU at chunk
16 (exact), 48 (three sub-blocks) and the optimizer's choice, and through
the GPU-mapped IR at chunk 32: each against the float64 oracle.
"""

import numpy as np
import pytest

import linea
from linea import reference as ref

import programs


def gated_program(batch, L, dk, dv, scalar, dynamic):
    lt = "?" if dynamic else str(L)
    b = "x".join(str(x) for x in batch)
    tq = f"tensor<{b}x{lt}x{dk}xf32>"
    tv = f"tensor<{b}x{lt}x{dv}xf32>"
    tg = f"tensor<{b}x{lt}xf32>" if scalar else tq
    ts = f"tensor<{b}x{dk}x{dv}xf32>"
    return (f"func.func @main(%q: {tq}, %k: {tq}, %v: {tv}, %g: {tg}) -> ({tv}, {ts}) {{\n"
            f"  %o, %s = linea.gated_linear_attention %q, %k, %v, %g mask = causal : "
            f"{tq}, {tq}, {tv}, {tg} -> {tv}, {ts}\n"
            f"  return %o, %s : {tv}, {ts}\n}}\n")


def gates(rng, shape, kind):
    if kind == "mild":
        return -0.05 * rng.uniform(0.0, 1.0, shape)
    if kind == "steep":
        return -20.0 * rng.uniform(0.5, 1.0, shape)
    # mild for the first half of the sequence, steep after
    g = -0.05 * rng.uniform(0.0, 1.0, shape)
    L = shape[1]
    g[:, L // 2:] = -20.0 * rng.uniform(0.5, 1.0, g[:, L // 2:].shape)
    return g


@pytest.mark.parametrize("kind", ["mild", "steep", "mixed"])
@pytest.mark.parametrize("scalar,dynamic,L", [(False, False, 1000), (True, True, 517),
                                              (False, True, 129)])
@pytest.mark.parametrize("pipeline", [None, "linea-optimize{form=chunked chunk-size=16}",
                                      "linea-optimize{form=chunked chunk-size=48}",
                                      "linea-gpu-mapped-to-cpu{form=chunked chunk-size=32}"])
def test_decayed_scores_both_ways(kind, scalar, dynamic, L, pipeline):
    rng = np.random.default_rng(L)
    batch, dk, dv = [3], 8, 5
    q, k = (rng.standard_normal(batch + [L, dk]) for _ in range(2))
    v = rng.standard_normal(batch + [L, dv])
    g = gates(rng, batch + [L] if scalar else batch + [L, dk], kind)
    want = list(ref.gated_linear_attention(q, k, v, g, mask="causal"))
    got = linea.run(gated_program(batch, L, dk, dv, scalar, dynamic), [q, k, v, g],
                    pipeline=pipeline)
    programs.assert_matches(got, want)
