"""Every shipped example, through the GPU algorithm executed on the CPU.

linea-gpu-mapped-to-cpu is linea-lower-to-nvvm up to the block/thread
mapping (sequence blocks, per-op kernels, blocked scans), run with the
parallel loops in order: the GPU kernels' algorithm, checked against the
float64 oracle on the examples' own shapes (dynamic dims set to 3).
"""
import pathlib

import numpy as np
import pytest

from linea import reference as ref
from linea import run
import programs

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def prefixlm(rng):
    q, k, v = (rng.standard_normal((2, 4, 384, 32)).astype(np.float32) for _ in range(3))
    expected = ref.linear_attention(q, k, v, mask="prefix", prefix_length=96,
                                    feature_map="elu_plus_one", normalize=True)[0]
    return [q, k, v], [expected]


def gated(rng):
    q, k, g = (rng.standard_normal((3, 2, 160, 16)).astype(np.float32) for _ in range(3))
    g = (-rng.uniform(0.0, 1.0, (3, 2, 160, 16)) ** 4 * 20.0).astype(np.float32)
    v = rng.standard_normal((3, 2, 160, 24)).astype(np.float32)
    s0 = rng.standard_normal((3, 2, 16, 24)).astype(np.float32)
    j = 40
    o, s = ref.gated_linear_attention(q, k, v, g, mask="prefix", prefix_length=j,
                                      scale=0.25, initial_state=s0)
    return [q, k, v, g, s0, j], [o, s]


def causal(rng):
    q, k, v = (rng.standard_normal((4, 1000, 32)).astype(np.float32) for _ in range(3))
    s0 = rng.standard_normal((4, 32, 32)).astype(np.float32)
    o, s = ref.linear_attention(q, k, v, mask="causal", scale=0.125, initial_state=s0)
    return [q, k, v, s0], [o, s]


def folded(rng):
    x = rng.standard_normal((2, 256, 32)).astype(np.float32)
    m0 = rng.standard_normal((2, 16, 32)).astype(np.float32)
    ws = [(rng.standard_normal((32, 32)) / np.sqrt(32)).astype(np.float32) for _ in range(4)]
    y, m = ref.folded_attention(x, m0, *ws, segment_length=16, num_heads=4)
    return [x, m0, *ws], [y, m]


@pytest.mark.parametrize("name, make", [("prefixlm", prefixlm), ("gated", gated),
                                        ("causal", causal), ("folded", folded)])
def test_example_gpu_algorithm_on_cpu(name, make):
    args, expected = make(np.random.default_rng(5))
    program = (EXAMPLES / f"{name}.mlir").read_text()
    got = run(program, args, pipeline="linea-gpu-mapped-to-cpu")
    programs.assert_matches(got, expected)
