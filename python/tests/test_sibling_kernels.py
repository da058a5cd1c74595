"""Sibling kernels on the GPU (linea-map-to-gpu): elementwise ops side by
side that leave each other's buffers alone are one launch, each thread
running one element of one of them. Run on the CPU by
linea-gpu-mapped-to-cpu against numpy in float64, with dynamic sizes that
make the ops' ranges uneven: one element, primes, past a block, and an
empty one."""

import numpy as np
import pytest

from linea import run
from linea.reference import rel_l2
from programs import kernel_names

PIPELINE = "linea-gpu-mapped-to-cpu{chip=sm_90a}"

THREE_OPS = """
#rows = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<?x37xf32>, %y: tensor<?x?xf32>, %z: tensor<7xf32>)
    -> (tensor<?x37xf32>, tensor<?x?xf32>, tensor<7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %r = tensor.dim %x, %c0 : tensor<?x37xf32>
  %e0 = tensor.empty(%r) : tensor<?x37xf32>
  %a = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x37xf32>) outs(%e0 : tensor<?x37xf32>) {
  ^bb0(%v: f32, %out: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  } -> tensor<?x37xf32>
  %m = tensor.dim %y, %c0 : tensor<?x?xf32>
  %n = tensor.dim %y, %c1 : tensor<?x?xf32>
  %e1 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %b = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%e1 : tensor<?x?xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = arith.mulf %v, %v : f32
    %t = arith.addf %s, %one : f32
    linalg.yield %t : f32
  } -> tensor<?x?xf32>
  %e2 = tensor.empty() : tensor<7xf32>
  %c = linalg.generic {indexing_maps = [#one, #one], iterator_types = ["parallel"]}
      ins(%z : tensor<7xf32>) outs(%e2 : tensor<7xf32>) {
  ^bb0(%v: f32, %out: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<7xf32>
  return %a, %b, %c : tensor<?x37xf32>, tensor<?x?xf32>, tensor<7xf32>
}
"""


def test_one_launch():
    """The three ops are one kernel."""
    assert len(kernel_names(THREE_OPS)) == 1


@pytest.mark.parametrize("rows, shape", [(1, (1, 1)), (203, (13, 301)), (0, (5, 3)),
                                         (7, (0, 4))])
def test_three_ops_one_launch(rows, shape):
    rng = np.random.default_rng(rows + shape[0])
    x = rng.standard_normal((rows, 37)).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    z = rng.standard_normal(7).astype(np.float32)
    a, b, c = run(THREE_OPS, [x, y, z], pipeline=PIPELINE)
    assert a.shape == x.shape and b.shape == y.shape
    for got, want in ((a, np.exp(x.astype(np.float64))),
                      (b, y.astype(np.float64) ** 2 + 1), (c, np.tanh(z.astype(np.float64)))):
        if want.size:
            assert rel_l2(got, want) <= 1e-6
