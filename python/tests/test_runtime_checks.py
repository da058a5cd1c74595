"""Sizes the verifier cannot see are checked at run time: operands that
disagree, a prefix length outside [0, L], a fold whose L is not a multiple
of segment_length, each message showing the sizes as the verifier would. Each raises LineaError with linea-run's one-line message,
through the optimizing pipeline and the reference lowering alike, and never
returns numbers; with the checks off the pipeline does not assert."""

import pathlib

import numpy as np
import pytest

from linea import LineaError, run

ATTENTION = """func.func @main(%q: tensor<?x?x8xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x4xf32>,
                %j: index) -> tensor<?x?x4xf32> {
  %o = linea.linear_attention %q, %k, %v mask = prefix(%j)
      : tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x4xf32> -> tensor<?x?x4xf32>
  return %o : tensor<?x?x4xf32>
}
"""

GATED = """func.func @main(%q: tensor<?x8xf32>, %v: tensor<?x4xf32>, %g: tensor<?xf32>)
    -> tensor<?x4xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = causal
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?xf32> -> tensor<?x4xf32>
  return %o : tensor<?x4xf32>
}
"""

SOFTMAX = """func.func @main(%q: tensor<?x5x8xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x4xf32>)
    -> tensor<?x5x4xf32> {
  %o = linea.attention %q, %k, %v mask = none
      : tensor<?x5x8xf32>, tensor<?x?x8xf32>, tensor<?x?x4xf32> -> tensor<?x5x4xf32>
  return %o : tensor<?x5x4xf32>
}
"""

FOLD = """func.func @main(%x: tensor<2x?x8xf32>, %m: tensor<2x?x8xf32>) -> tensor<2x?x8xf32> {
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<2x?x8xf32>, tensor<2x?x8xf32> {
  ^bb0(%w: tensor<2x8x8xf32>):
    linea.yield %w : tensor<2x8x8xf32>
  }
  return %y : tensor<2x?x8xf32>
}
"""

DECAYED = """func.func @main(%h: tensor<?x?x4xf32>, %a: tensor<?x?xf32>) -> tensor<?x?x4xf32> {
  %y = linea.presum %h decay(%a : tensor<?x?xf32>) dim = 1 : tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}
"""


def arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


BAD = [
    ("key-length", ATTENTION, arrays((2, 16, 8), (2, 17, 8), (2, 16, 4)) + [4],
     "'key' sequence length 17 does not match 'query' sequence length 16"),
    ("batch", ATTENTION, arrays((2, 16, 8), (3, 16, 8), (2, 16, 4)) + [4],
     "'key' batch dim 0 is 3 but 'query' batch dim 0 is 2"),
    ("huge-qk-tiny-v", ATTENTION, arrays((1, 200000, 8), (1, 200000, 8), (1, 1, 4)) + [0],
     "'value' sequence length 1 does not match 'query' sequence length 200000"),
    ("prefix-past-L", ATTENTION, arrays((2, 64, 8), (2, 64, 8), (2, 64, 4)) + [100],
     "prefix length 100 is outside [0, L] of 'query' (L = 64)"),
    ("prefix-negative", ATTENTION, arrays((2, 64, 8), (2, 64, 8), (2, 64, 4)) + [-3],
     "prefix length -3 is outside [0, L] of 'query' (L = 64)"),
    ("gate-length", GATED, arrays((9, 8), (9, 4), (8,)),
     "'gate' sequence length 8 does not match 'query' sequence length 9"),
    ("softmax-value", SOFTMAX, arrays((2, 5, 8), (2, 7, 8), (2, 6, 4)),
     "'value' sequence length 6 does not match 'key' sequence length 7"),
    ("softmax-batch", SOFTMAX, arrays((2, 5, 8), (1, 7, 8), (1, 7, 4)),
     "'key' batch dim 0 is 1 but 'query' batch dim 0 is 2"),
    ("decay-steps", DECAYED, arrays((2, 9, 4), (2, 8)),
     "'decay' dim 1 8 does not match 'input' dim 1 9"),
    ("decay-batch", DECAYED, arrays((2, 9, 4), (3, 9)),
     "'decay' dim 0 3 does not match 'input' dim 0 2"),
    ("fold-multiple", FOLD, arrays((2, 10, 8), (2, 4, 8)),
     "'input' sequence length 10 is not a multiple of segment_length 4"),
    ("fold-memory", FOLD, arrays((2, 12, 8), (2, 1, 8)),
     "'memory' sequence length 1 does not match segment_length 4"),
]


@pytest.mark.parametrize("no_optimize", [False, True], ids=["optimized", "reference"])
@pytest.mark.parametrize("name,program,args,message", BAD, ids=[b[0] for b in BAD])
def test_bad_sizes_raise(name, program, args, message, no_optimize):
    with pytest.raises(LineaError) as failure:
        run(program, args, no_optimize=no_optimize)
    assert failure.value.returncode == 1
    lines = failure.value.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "run-time check failed" in lines[0] and message in lines[0], lines[0]


def test_agreeing_sizes_run():
    q, k, v = arrays((2, 16, 8), (2, 16, 8), (2, 16, 4))
    for j in (0, 7, 16):
        (o,) = run(ATTENTION, [q, k, v, j])
        assert o.shape == (2, 16, 4) and np.all(np.isfinite(o))


def test_checks_can_be_turned_off():
    q, k, v = arrays((2, 16, 8), (2, 16, 8), (2, 16, 4))
    (o,) = run(ATTENTION, [q, k, v, 4], pipeline="linea-optimize{runtime-checks=0}")
    assert o.shape == (2, 16, 4)


# Token ids gather rows of a table, as torch-mlir writes torch.nn.Embedding
# (its body asserts each id's range): linea.run passes integer arrays as
# integers, on the CPU and through the GPU form run on the CPU (the asserts
# inside the kernel).
EMBEDDING = (pathlib.Path(__file__).resolve().parents[2] / "test" / "linea-run" / "Inputs"
             / "embedding.mlir").read_text()
GPU_MAPPED = "linea-gpu-mapped-to-cpu{chip=sm_90a}"


@pytest.mark.parametrize("pipeline", [None, GPU_MAPPED], ids=["cpu", "gpu-mapped"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_token_ids_gather_rows(pipeline, dtype):
    table = np.arange(15, dtype=np.float32).reshape(5, 3) + 0.5
    ids = np.array([4, 0, 2, 2, 1, 3, 4], dtype)
    (rows,) = run(EMBEDDING, [ids, table], pipeline=pipeline)
    np.testing.assert_array_equal(rows, table[ids])


@pytest.mark.parametrize("pipeline", [None, GPU_MAPPED], ids=["cpu", "gpu-mapped"])
def test_token_id_past_the_table_is_an_error(pipeline):
    table = np.ones((5, 3), np.float32)
    with pytest.raises(LineaError, match="index must be smaller than dim size"):
        run(EMBEDDING, [np.array([1, 5], np.int64), table], pipeline=pipeline)
