"""NaN in, NaN out: one NaN in a key row reaches exactly the output rows
that see that key (causal: the rows at and after it), through every
pipeline; it is never masked into zeros, and rows before it stay exact."""

import numpy as np
import pytest

from linea import reference as ref
from linea import run

import programs

SOFTMAX = """func.func @main(%q: tensor<2x6x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x3xf32>)
    -> tensor<2x6x3xf32> {
  %o = linea.attention %q, %k, %v mask = causal
      : tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x3xf32> -> tensor<2x6x3xf32>
  return %o : tensor<2x6x3xf32>
}
"""

LINEAR = """func.func @main(%q: tensor<2x6x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x3xf32>)
    -> tensor<2x6x3xf32> {
  %o = linea.linear_attention %q, %k, %v mask = causal
      : tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x3xf32> -> tensor<2x6x3xf32>
  return %o : tensor<2x6x3xf32>
}
"""

PIPELINES = [dict(), dict(no_optimize=True), dict(pipeline="linea-optimize{target=gpu}"),
             dict(pipeline="linea-tile-attention{tile-size=2}"),
             dict(pipeline="linea-gpu-mapped-to-cpu{block-size=7}")]


@pytest.mark.parametrize("kwargs", PIPELINES, ids=lambda k: str(k) or "default")
@pytest.mark.parametrize("program,oracle", [(SOFTMAX, "attention"), (LINEAR, "linear")],
                         ids=["softmax", "linear"])
def test_nan_key_reaches_exactly_the_rows_that_see_it(program, oracle, kwargs):
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal(s).astype(np.float32)
               for s in ((2, 6, 4), (2, 6, 4), (2, 6, 3)))
    k[1, 2, 1] = np.nan
    (o,) = run(program, [q, k, v], **kwargs)
    assert np.all(np.isnan(o[1, 2:])), o[1]
    clean = [o[0], o[1, :2]]
    if oracle == "attention":
        want = ref.attention(q, k, v, mask="causal")
    else:
        want, _ = ref.linear_attention(q, k, v, mask="causal")
    programs.assert_matches(clean, [want[0], want[1, :2]])
