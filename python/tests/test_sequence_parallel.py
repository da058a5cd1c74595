"""Sequence parallelism over MPI (linea-sequence-parallel, issue 13).

Every program runs once in one process and under `mpirun -np P linea-run
--sequence-parallel`: the P-rank results must equal the one-process ones
within 1e-5 and the float64 oracle within SPEC's 1e-4, and the bytes each
rank's program sends must not grow with L.
"""

import functools
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import linea
from linea import reference as ref
from linea.runner import build_dir, mpirun_command

import programs
import test_examples
import test_packed

pytestmark = pytest.mark.skipif(
    shutil.which("mpirun") is None
    or not (build_dir() / "lib" / "libLineaMpiRuntime.so").exists(),
    reason="needs OpenMPI (mpirun) and Linea's MPI runtime library")

SAME_AS_ONE_PROCESS = 1e-5

LA = dict(op="linear_attention", batch=[2], dk=4, dv=3)
GA = dict(op="gated_linear_attention", batch=[2], dk=4, dv=3)

# (case, rank counts). L = 37 over 4 ranks: 9, 9, 9, 10 rows (L % P != 0).
CASES = [
    (dict(LA, L=37, mask="causal", init=True, final=True), [1, 2, 3, 4]),
    (dict(LA, batch=[2, 3], L=29, mask="causal", init=True, final=True,
          dyn_batch=True, dyn_L=True), [3]),
    (dict(LA, L=1, mask="causal", final=True), [2]),
    (dict(LA, L=3, mask="causal", final=True), [4]),  # P > L: empty ranks
    (dict(GA, L=257, mask="causal", init=True, final=True), [1, 2, 3, 4]),
    (dict(GA, L=61, mask="causal", scalar_gate=True, final=True), [2, 3]),
    (dict(GA, batch=[], L=41, mask="causal", final=True, dyn_L=True), [3]),
    # prefix: inside rank 0, spanning ranks, 0 and L, static and dynamic
    (dict(LA, L=37, mask="prefix", prefix=5, final=True), [2, 4]),
    (dict(LA, L=37, mask="prefix", prefix=30, final=True, init=True), [2, 3, 4]),
    (dict(LA, L=37, mask="prefix", prefix=0, dyn_prefix=True, final=True), [3]),
    (dict(LA, L=37, mask="prefix", prefix=37, dyn_prefix=True, final=True), [3]),
    (dict(LA, L=41, mask="prefix", prefix=20, dyn_prefix=True, dyn_L=True,
          final=True), [1, 2, 3, 4]),
    (dict(LA, L=31, mask="prefix", prefix=17, feature_map="relu", scale=0.125,
          normalize=True), [3]),
    (dict(GA, L=41, mask="prefix", prefix=20, init=True, final=True), [1, 2, 3, 4]),
    (dict(GA, L=41, mask="prefix", prefix=1, scalar_gate=True, init=True), [3]),
    (dict(GA, L=41, mask="prefix", prefix=33, dyn_prefix=True, final=True), [4]),
    # bidirectional
    (dict(LA, L=31, mask="none", feature_map="elu_plus_one", normalize=True), [2, 3]),
    (dict(LA, L=31, mask="none", init=True, final=True), [1, 2, 4]),
    (dict(GA, L=31, mask="none", init=True, final=True), [3]),
    # presum, every flavour
    (dict(op="presum", shape=[2, 37, 4]), [1, 3]),
    (dict(op="presum", shape=[2, 37, 4], exclusive=True), [2, 4]),
    (dict(op="presum", shape=[2, 37, 4], reverse=True), [3]),
    (dict(op="presum", shape=[2, 37, 4], exclusive=True, reverse=True), [2, 3, 4]),
    (dict(op="presum", shape=[13, 5], dim=0, exclusive=True, dynamic=[0]), [3]),
    # more ranks than rows, with a prefix, a gate and a normalizer
    (dict(GA, L=2, mask="prefix", prefix=1, init=True, final=True), [4]),
    (dict(LA, L=2, mask="prefix", prefix=1, dyn_prefix=True, normalize=True), [4]),
    (dict(GA, L=3, mask="causal", scalar_gate=True, final=True), [5]),
    (dict(GA, batch=[2, 3], L=19, mask="prefix", prefix=7, dyn_prefix=True, dyn_L=True,
          dyn_batch=True, init=True, final=True), [3]),
]


def case_id(spec):
    return "-".join(f"{k}={v}" for k, v in spec.items() if k not in ("dk", "dv"))


@functools.lru_cache(maxsize=None)
def one_process(index):
    spec = CASES[index][0]
    program, inputs, want = programs.build(spec, seed=13 + index)
    return program, inputs, want, linea.run(program, inputs)


PARAMS = [pytest.param(i, p, id=f"{case_id(spec)}-np{p}")
          for i, (spec, ranks) in enumerate(CASES) for p in ranks]


@pytest.mark.parametrize("index,ranks", PARAMS)
def test_same_as_one_process(index, ranks):
    program, inputs, want, single = one_process(index)
    got = linea.run(program, inputs, ranks=ranks)
    programs.assert_matches(got, want)
    for k, (g, s) in enumerate(zip(got, single)):
        err = ref.rel_l2(g, s)
        assert err <= SAME_AS_ONE_PROCESS, f"result {k}: {err:.3g} from one process"


CAUSAL = """
func.func @main(%q: tensor<2x{L}x8xf32>, %k: tensor<2x{L}x8xf32>,
                %v: tensor<2x{L}x4xf32>, %g: tensor<2x{L}x8xf32>)
    -> (tensor<2x{L}x4xf32>, tensor<2x{L}x4xf32>, tensor<2x8x4xf32>) {{
  %o = linea.linear_attention %q, %k, %v mask = prefix({j}) :
      tensor<2x{L}x8xf32>, tensor<2x{L}x8xf32>, tensor<2x{L}x4xf32> -> tensor<2x{L}x4xf32>
  %p, %s = linea.gated_linear_attention %q, %k, %v, %g mask = causal :
      tensor<2x{L}x8xf32>, tensor<2x{L}x8xf32>, tensor<2x{L}x4xf32>, tensor<2x{L}x8xf32>
      -> tensor<2x{L}x4xf32>, tensor<2x8x4xf32>
  return %o, %p, %s : tensor<2x{L}x4xf32>, tensor<2x{L}x4xf32>, tensor<2x8x4xf32>
}}
"""


def test_bytes_sent_do_not_depend_on_length():
    rng = np.random.default_rng(5)
    sent = {}
    for L in (64, 640):
        inputs = [rng.standard_normal((2, L, d)) for d in (8, 8, 4)]
        inputs.append(programs.gate_values(rng, (2, L, 8)))
        program = CAUSAL.format(L=L, j=L // 2)
        _, sent[L] = linea.run(program, inputs, ranks=3, stats=True)
    assert len(sent[64]) == 3 and all(b > 0 for b in sent[64])
    assert sent[64] == sent[640]
    # Row counts (8 bytes), the prefix op's two states and the gated op's
    # state with its log-decays, per batch: O(P Dk Dv), no rows.
    state = 2 * 8 * 4 * 4
    assert sent[64][0] == 8 + 2 * state + state + 2 * 8 * 4


# Packed segments across ranks: segments that span ranks, ranks holding many
# segments, empty segments and ranks with no rows, states in and out.
PACKED_ATTENTION = [
    (dict(op="linear", kind="random", batch=[2], length=37, mask="causal", init=True,
          final=True), [2, 3]),
    (dict(op="linear", kind="long_short", batch=[], length=41, mask="none", init=True,
          final=True), [3]),
    (dict(op="linear", kind="random", batch=[2], length=29, mask="none", normalize=True,
          feature_map="elu_plus_one"), [2]),
    (dict(op="gated", kind="empty", batch=[2, 3], length=61, mask="causal", init=True,
          final=True, gate_rank=4), [4]),
    (dict(op="gated", kind="ones", batch=[2], length=3, mask="causal", final=True,
          gate_rank=2), [4]),
    # Initial states with ranks that hold no rows and empty segments at the
    # ends: each segment's initial state enters on exactly one rank.
    (dict(op="linear", kind="empty", batch=[2], length=3, mask="causal", init=True,
          final=True), [5]),
    (dict(op="linear", kind="empty", batch=[], length=13, mask="none", init=True,
          final=True), [4]),
    (dict(op="gated", kind="one", batch=[2], length=9, mask="causal", init=True, final=True,
          gate_rank=3), [3]),
    # Per-segment prefixes (0, the whole segment, one between, in turn) and
    # gated bidirectional segments: each segment's prefix state is folded
    # over every rank's prefix rows.
    (dict(op="linear", kind="random", batch=[2], length=37, mask="prefix", init=True,
          final=True), [2, 3]),
    (dict(op="gated", kind="long_short", batch=[], length=41, mask="prefix", init=True,
          final=True, gate_rank=2), [3]),
    (dict(op="linear", kind="empty", batch=[2], length=29, mask="prefix", normalize=True,
          feature_map="elu_plus_one"), [2]),
    (dict(op="gated", kind="empty", batch=[2], length=33, mask="none", init=True,
          final=True, gate_rank=3), [2, 4]),
    (dict(op="gated", kind="ones", batch=[2], length=3, mask="prefix", final=True,
          gate_rank=2), [4]),
]


def packed_attention_case(spec, seed):
    case = {**dict(dk=4, dv=3, dynamic=True, offsets_type="i64", init=False, final=False,
                   gate_rank=0, feature_map=None, normalize=False, no_optimize=False), **spec}
    rng = np.random.default_rng(seed)
    inputs, oracle = test_packed.attention_inputs(case, rng)
    program = test_packed.attention_program(
        case["op"], case["batch"], case["length"], case["dk"], case["dv"], case["dynamic"],
        case["offsets_type"], case["mask"], case["init"], case["final"], case["gate_rank"],
        case["feature_map"], case["normalize"])
    if case["op"] == "gated":
        want = ref.gated_linear_attention(*inputs[:4], **oracle)
    else:
        want = ref.linear_attention(*inputs[:3], **oracle)
    return program, inputs, want[:2 if case["final"] else 1]


PACKED_PARAMS = [pytest.param(i, p, id=f"{case_id(spec)}-np{p}")
                 for i, (spec, ranks) in enumerate(PACKED_ATTENTION) for p in ranks]


@pytest.mark.parametrize("index,ranks", PACKED_PARAMS)
def test_packed_attention_across_ranks(index, ranks):
    program, inputs, want = packed_attention_case(PACKED_ATTENTION[index][0], seed=70 + index)
    single = linea.run(program, inputs)
    got = linea.run(program, inputs, ranks=ranks)
    assert len(got) == len(want)
    for g, w, s in zip(got, want, single):
        assert ref.rel_l2(g, w) <= 1e-4
        assert ref.rel_l2(g, s) <= SAME_AS_ONE_PROCESS


def test_packed_bytes_sent_do_not_depend_on_length():
    """Packed: row counts and each segment's state (N x Dk x Dv), whatever L."""
    sent = {}
    for L in (40, 400):
        program = test_packed.attention_program("linear", [2], L, 4, 3, True, "i64", "causal",
                                                False, True)
        rng = np.random.default_rng(L)
        q, k = (rng.standard_normal((2, L, 4)).astype(np.float32) for _ in range(2))
        v = rng.standard_normal((2, L, 3)).astype(np.float32)
        offsets = test_packed.offsets_of([L // 4, L // 2, L - L // 4 - L // 2])
        _, sent[L] = linea.run(program, [q, k, v, offsets], ranks=3, stats=True)
    assert sent[40] == sent[400]
    segments, state = 3, 2 * 4 * 3 * 4
    assert sent[40][0] == 8 + segments * state


@pytest.mark.parametrize("exclusive,reverse,ranks", [(False, False, 3), (True, True, 2),
                                                      (True, False, 4), (False, True, 5)])
def test_packed_presum_across_ranks(exclusive, reverse, ranks):
    rng = np.random.default_rng(ranks)
    x = rng.standard_normal((2, 23, 3)).astype(np.float32)
    offsets = test_packed.offsets_of([5, 0, 9, 1, 1, 7, 0])
    program = test_packed.presum_program([2, 23, 3], [1], "index", exclusive, reverse, 0)
    got = linea.run(program, [x, offsets], ranks=ranks)[0]
    want = ref.presum(x.astype(np.float64), exclusive=exclusive, reverse=reverse,
                      offsets=offsets)
    assert ref.rel_l2(got, want) <= 1e-5


def test_packed_prefix_past_its_segment_stops_every_rank():
    program, inputs, _ = packed_attention_case(
        dict(op="linear", kind="random", batch=[2], length=17, mask="prefix"), seed=1)
    offsets = inputs[3]
    js = np.zeros(len(offsets) - 1, np.int64)
    js[-1] = offsets[-1] - offsets[-2] + 1
    inputs[4] = js
    with pytest.raises(linea.LineaError,
                       match=rf"prefix length {js[-1]} of segment {len(js) - 1} is outside "
                             rf"\[0, {js[-1] - 1}\], the segment's length"):
        linea.run(program, inputs, ranks=2)


def test_packed_offsets_past_the_rows_stop_every_rank():
    program, inputs, _ = packed_attention_case(
        dict(op="linear", kind="random", batch=[2], length=17, mask="causal"), seed=2)
    inputs[3] = np.array([0, 5, 20])
    with pytest.raises(linea.LineaError, match=r"'offsets' end at 20, but L \(all ranks' "
                                               r"rows\) is 17"):
        linea.run(program, inputs, ranks=2)


# Softmax attention: the ranks all-gather the keys and values, each attends
# its query rows to the keys they see. (mask, batch, Lq, Lk, dynamic, scale,
# presum before it, rank counts); Lq != Lk aligns causal queries with the
# last keys; L = 3 over 4 ranks leaves one rank without rows.
SOFTMAX = [
    ("causal", [2], 37, 37, False, None, True, [2, 3, 4]),
    ("none", [2, 3], 31, 31, True, 0.3, False, [3]),
    ("causal", [], 3, 3, True, None, False, [4]),
    ("causal", [2], 20, 33, True, None, False, [3]),
    ("causal", [2], 29, 11, True, None, False, [2]),  # early queries see no key
    ("none", [2], 20, 33, False, None, False, [4]),
]


def softmax_across_ranks_program(mask, batch, lq, lk, dynamic, scale, presum):
    lead = "".join(f"{b}x" for b in batch)
    qs, ks = ("?", "?") if dynamic else (lq, lk)
    qt, kt, vt, ot = (f"tensor<{lead}{qs}x4xf32>", f"tensor<{lead}{ks}x4xf32>",
                      f"tensor<{lead}{ks}x3xf32>", f"tensor<{lead}{qs}x3xf32>")
    scale_text = f" scale = {scale}" if scale else ""
    body = f"  %y = linea.presum %q : {qt}\n" if presum else ""
    query = "%y" if presum else "%q"
    return (f"func.func @main(%q: {qt}, %k: {kt}, %v: {vt}) -> {ot} {{\n{body}"
            f"  %o = linea.attention {query}, %k, %v mask = {mask}{scale_text} :\n"
            f"      {qt}, {kt}, {vt} -> {ot}\n  return %o : {ot}\n}}\n")


@pytest.mark.parametrize("mask, batch, lq, lk, dynamic, scale, presum, ranks", [
    pytest.param(*case[:-1], p, id=f"{case[0]}-batch={case[1]}-Lq={case[2]}-Lk={case[3]}-np{p}")
    for case in SOFTMAX for p in case[-1]])
def test_softmax_attention_across_ranks(mask, batch, lq, lk, dynamic, scale, presum, ranks):
    rng = np.random.default_rng(lq * 100 + lk)
    q = rng.standard_normal(batch + [lq, 4]).astype(np.float32)
    k = rng.standard_normal(batch + [lk, 4]).astype(np.float32)
    v = rng.standard_normal(batch + [lk, 3]).astype(np.float32)
    program = softmax_across_ranks_program(mask, batch, lq, lk, dynamic, scale, presum)
    got = linea.run(program, [q, k, v], ranks=ranks)[0]
    queries = np.cumsum(q.astype(np.float64), axis=-2) if presum else q
    want = ref.attention(queries, k, v, mask, scale)
    assert ref.rel_l2(got, want) <= 1e-4
    assert ref.rel_l2(got, linea.run(program, [q, k, v])[0]) <= SAME_AS_ONE_PROCESS


# Packed softmax attention: a segment's query rows here see its keys on every
# rank (up to their own last row, causal).
PACKED_SOFTMAX = [
    (dict(kind="random", batch=[2], length=37, mask="causal"), [2, 3]),
    (dict(kind="empty", batch=[2, 3], length=41, mask="none", scale=0.25), [3]),
    (dict(kind="ones", batch=[2], length=5, mask="causal"), [4]),
    (dict(kind="long_short", batch=[], length=67, mask="causal", offsets_type="i32"), [4]),
    (dict(kind="one", batch=[2], length=23, mask="none", dynamic=False), [2]),
]


@pytest.mark.parametrize("index, ranks", [
    pytest.param(i, p, id=f"{case_id(spec)}-np{p}")
    for i, (spec, ranks) in enumerate(PACKED_SOFTMAX) for p in ranks])
def test_packed_softmax_attention_across_ranks(index, ranks):
    case = {**dict(d=4, dv=3, dynamic=True, offsets_type="i64", scale=None),
            **PACKED_SOFTMAX[index][0]}
    rng = np.random.default_rng(90 + index)
    batch, length = case["batch"], case["length"]
    offsets = test_packed.offsets_of(test_packed.lengths_of(case["kind"], length, rng))
    q, k = (rng.standard_normal(batch + [length, case["d"]]).astype(np.float32)
            for _ in range(2))
    v = rng.standard_normal(batch + [length, case["dv"]]).astype(np.float32)
    program = test_packed.softmax_program(batch, length, case["d"], case["dv"],
                                          case["dynamic"], case["offsets_type"], case["mask"],
                                          case["scale"])
    o = offsets.astype(np.int32 if case["offsets_type"] == "i32" else np.int64)
    got = linea.run(program, [q, k, v, o], ranks=ranks)[0]
    want = ref.attention(q, k, v, case["mask"], case["scale"], offsets=offsets)
    assert ref.rel_l2(got, want) <= 1e-4
    assert ref.rel_l2(got, linea.run(program, [q, k, v, o])[0]) <= SAME_AS_ONE_PROCESS


def test_packed_softmax_offsets_past_the_rows_stop_every_rank():
    program = test_packed.softmax_program([2], 17, 4, 3, True, "index", "causal")
    x = np.ones((2, 17, 4), np.float32)
    with pytest.raises(linea.LineaError, match=r"'offsets' end at 20, but L \(all ranks' "
                                               r"rows\) is 17"):
        linea.run(program, [x, x, x[..., :3], np.array([0, 5, 20])], ranks=2)


def test_packed_softmax_keys_unlike_the_queries_stop_every_rank():
    program = test_packed.softmax_program([2], 17, 4, 3, True, "index", "causal")
    q = np.ones((2, 17, 4), np.float32)
    k, v = np.ones((2, 15, 4), np.float32), np.ones((2, 15, 3), np.float32)
    with pytest.raises(linea.LineaError, match=r"packed keys need as many rows as the "
                                               r"queries, got 15 and 17 \(all ranks' rows\)"):
        linea.run(program, [q, k, v, np.array([0, 5, 17])], ranks=2)


def test_folded_attention_is_refused():
    program = """
func.func @main(%x: tensor<16x8xf32>, %m: tensor<4x8xf32>) -> tensor<16x8xf32> {
  %y = linea.presum %x : tensor<16x8xf32>
  %o, %mem = linea.fold %y, %m segment_length = 4 : tensor<16x8xf32>, tensor<4x8xf32> {
  ^bb0(%w: tensor<8x8xf32>):
    %r = linea.attention %w, %w, %w mask = causal
        : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    linea.yield %r : tensor<8x8xf32>
  }
  return %o : tensor<16x8xf32>
}
"""
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((16, 8)), rng.standard_normal((4, 8))]
    with pytest.raises(linea.LineaError, match="cannot run sequence-parallel"):
        linea.run(program, inputs, ranks=2)


def test_prefix_past_the_sequence_stops_every_rank():
    spec = dict(LA, L=37, mask="prefix", prefix=5, dyn_prefix=True)
    program, inputs, _ = programs.build(spec, seed=3)
    inputs[-1] = 38
    with pytest.raises(linea.LineaError, match=r"prefix length 38 is outside \[0, L\] of "
                                               r"'query' \(L = 37, all ranks' rows\)"):
        linea.run(program, inputs, ranks=2)


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_python_kernel_with_mpi4py(ranks, tmp_path):
    """linea.compile(..., comm=MPI.COMM_WORLD) under mpirun (the script
    checks rank 0's full results against the oracle and one process)."""
    pytest.importorskip("mpi4py")
    here = pathlib.Path(__file__).resolve().parent
    env = dict(os.environ, LINEA_CACHE_DIR=str(tmp_path / "cache"),
               LINEA_BUILD_DIR=str(build_dir().resolve()),
               PYTHONPATH=os.pathsep.join([str(here.parent), str(here)]))
    done = subprocess.run(
        mpirun_command(ranks) + [sys.executable, str(here / "mpi_kernel_script.py")],
        capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["ok", str(ranks)]


@functools.lru_cache(maxsize=None)
def example(name):
    make = getattr(test_examples, name)
    args, expected = make(np.random.default_rng(11))
    program = (test_examples.EXAMPLES / f"{name}.mlir").read_text()
    return program, args, expected, linea.run(program, args)


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
@pytest.mark.parametrize("name", ["causal", "gated", "prefixlm"])
def test_shipped_layers_across_ranks(name, ranks):
    """The issue's bar: a causal, a gated and a PrefixLM layer (the shipped
    examples) give the one-process answers under mpirun -np 1..4."""
    program, args, expected, single = example(name)
    got = linea.run(program, args, ranks=ranks)
    programs.assert_matches(got, expected)
    for g, s in zip(got, single):
        assert ref.rel_l2(g, s) <= SAME_AS_ONE_PROCESS


LAYER = """
func.func @layer(%x: tensor<40x16xf32>, %wq: tensor<16x8xf32>, %wk: tensor<16x8xf32>,
                 %wv: tensor<16x16xf32>, %g: tensor<40xf32>)
    -> (tensor<40x16xf32>, tensor<40x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<40x8xf32>
  %f8 = linalg.fill ins(%c0 : f32) outs(%e8 : tensor<40x8xf32>) -> tensor<40x8xf32>
  %e16 = tensor.empty() : tensor<40x16xf32>
  %f16 = linalg.fill ins(%c0 : f32) outs(%e16 : tensor<40x16xf32>) -> tensor<40x16xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<40x16xf32>, tensor<16x8xf32>)
      outs(%f8 : tensor<40x8xf32>) -> tensor<40x8xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<40x16xf32>, tensor<16x8xf32>)
      outs(%f8 : tensor<40x8xf32>) -> tensor<40x8xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<40x16xf32>, tensor<16x16xf32>)
      outs(%f16 : tensor<40x16xf32>) -> tensor<40x16xf32>
  %o = linea.linear_attention %q, %k, %v mask = prefix(13) feature_map = elu_plus_one normalize
      : tensor<40x8xf32>, tensor<40x8xf32>, tensor<40x16xf32> -> tensor<40x16xf32>
  %p = linea.gated_linear_attention %q, %k, %v, %g mask = causal
      : tensor<40x8xf32>, tensor<40x8xf32>, tensor<40x16xf32>, tensor<40xf32> -> tensor<40x16xf32>
  %y = arith.addf %o, %x : tensor<40x16xf32>
  %z = math.tanh %p : tensor<40x16xf32>
  return %y, %z : tensor<40x16xf32>, tensor<40x16xf32>
}
"""


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_layer_with_projections(ranks):
    """Projections (x W), a residual add and an elementwise map around the
    Linea ops: traced back to the input rows, split with them; the weights
    stay replicated."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((40, 16))
    wq, wk = (rng.standard_normal((16, 8)) / 4 for _ in range(2))
    wv = rng.standard_normal((16, 16)) / 4
    g = programs.gate_values(rng, (40,))
    q, k, v = x @ wq, x @ wk, x @ wv
    o, _ = ref.linear_attention(q, k, v, mask="prefix", prefix_length=13,
                                feature_map="elu_plus_one", normalize=True)
    p, _ = ref.gated_linear_attention(q, k, v, g, mask="causal")
    args = [a.astype(np.float32) for a in (x, wq, wk, wv, g)]
    got, sent = linea.run(LAYER, args, ranks=ranks, stats=True)
    programs.assert_matches(got, [o + x, np.tanh(p)])
    for g_, s in zip(got, linea.run(LAYER, args)):
        assert ref.rel_l2(g_, s) <= SAME_AS_ONE_PROCESS
    assert all(b > 0 for b in sent)
