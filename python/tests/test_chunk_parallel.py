"""The chunk-parallel form (linea-causal-to-chunk-parallel) against the
float64 oracle: every causal and PrefixLM case of the differential suites
with the form forced at two chunk sizes, on the CPU and through the GPU
mapping run on the CPU; long sequences with gates down to -20; and the
states it passes along the chunk axis (a decayed presum) through the
optimizer."""

import subprocess

import numpy as np
import pytest

import linea
from linea import reference as ref
from linea.runner import build_dir

import cases
import programs

FORCED = {
    "cpu-16": "linea-optimize{form=chunk_parallel chunk-size=16}",
    "cpu-64": "linea-optimize{form=chunk_parallel chunk-size=64}",
    "gpu-mapped-16": "linea-gpu-mapped-to-cpu{form=chunk_parallel chunk-size=16}",
}


def causal_cases():
    """Cases with a causal region (causal, or a prefix whose suffix is one)."""
    every = cases.edge_cases() + cases.random_cases(cases.SEED + 7)
    return [spec for spec in every
            if spec["op"] in ("linear_attention", "gated_linear_attention")
            and spec.get("mask") in ("causal", "prefix")]


CASES = causal_cases()
RUNS = [(spec, name) for i, spec in enumerate(CASES) for name in FORCED
        # every case on the CPU at chunk 16; a third of them at the others
        if name == "cpu-16" or i % 3 == 0]


@pytest.mark.parametrize("index", range(len(RUNS)),
                         ids=[f"{i}-{n}-{cases.case_id(c)}" for i, (c, n) in enumerate(RUNS)])
def test_forced_against_oracle(index):
    spec, name = RUNS[index]
    program, inputs, expected = programs.build(spec, seed=cases.SEED * 7919 + index)
    programs.assert_matches(linea.run(program, inputs, pipeline=FORCED[name]), expected)


def test_cases_cover_the_edges():
    """L = 1, L % C != 0, prime L, dynamic L, leading dims, prefix 0 and L,
    gates, initial and final states: each at least once."""
    assert len(CASES) >= 60
    assert any(s.get("L") == 1 for s in CASES)
    assert any(s.get("L", 0) % 16 and s.get("L", 0) > 16 for s in CASES)
    assert any(s.get("dyn_L") for s in CASES)
    assert any(len(s.get("batch", [])) >= 2 for s in CASES)
    assert any(s.get("mask") == "prefix" and s.get("prefix") == 0 for s in CASES)
    assert any(s["op"] == "gated_linear_attention" and s.get("scalar_gate") for s in CASES)
    assert any(s["op"] == "gated_linear_attention" and not s.get("scalar_gate") for s in CASES)
    assert any(s.get("init") for s in CASES) and any(s.get("final") for s in CASES)


LONG = [dict(op=op, batch=[2], L=L, dk=8, dv=8, mask="causal", final=True, init=True,
             **({"scalar_gate": scalar} if op == "gated_linear_attention" else {}))
        for L in (4099, 16384)
        for op, scalar in (("linear_attention", False), ("gated_linear_attention", True),
                           ("gated_linear_attention", False))]


@pytest.mark.parametrize("index", range(len(LONG)), ids=[cases.case_id(c) for c in LONG])
def test_long_against_oracle(index):
    program, inputs, expected = programs.build(LONG[index], seed=16384 + index)
    got = linea.run(program, inputs, pipeline=FORCED["cpu-64"])
    programs.assert_matches(got, expected)


def gated_program(L, dk, dv):
    tq, tv, tg, ts = (f"tensor<2x{L}x{dk}xf32>", f"tensor<2x{L}x{dv}xf32>",
                      f"tensor<2x{L}x{dk}xf32>", f"tensor<2x{dk}x{dv}xf32>")
    return (f"func.func @main(%q: {tq}, %k: {tq}, %v: {tv}, %g: {tg}) -> ({tv}, {ts}) {{\n"
            f"  %o, %s = linea.gated_linear_attention %q, %k, %v, %g mask = causal : "
            f"{tq}, {tq}, {tv}, {tg} -> {tv}, {ts}\n"
            f"  return %o, %s : {tv}, {ts}\n}}\n")


@pytest.mark.parametrize("kind", ["mild", "steep", "mixed"])
@pytest.mark.parametrize("pipeline", ["cpu-16", "cpu-64", "gpu-mapped-32"])
def test_gates_mild_steep_and_mixed(kind, pipeline):
    """Mild gates factor the intra-chunk scores; any steep chunk takes every
    chunk's safe form (exact at 16, sub-blocked at 32 and 64, and always on
    the GPU); the chunk-axis scan decays states by whole chunks (-20 x 64
    per chunk at the steepest)."""
    rng = np.random.default_rng(3)
    L, dk, dv = 515, 8, 5
    q, k = (rng.standard_normal((2, L, dk)) for _ in range(2))
    v = rng.standard_normal((2, L, dv))
    g = -0.05 * rng.uniform(0, 1, (2, L, dk))
    if kind != "mild":
        start = 0 if kind == "steep" else L // 2
        g[:, start:] = -20.0 * rng.uniform(0.5, 1.0, g[:, start:].shape)
    want = list(ref.gated_linear_attention(q, k, v, g, mask="causal"))
    forced = FORCED.get(pipeline, "linea-gpu-mapped-to-cpu{form=chunk_parallel chunk-size=32}")
    got = linea.run(gated_program(L, dk, dv), [q, k, v, g], pipeline=forced)
    programs.assert_matches(got, want)


def test_form_is_the_chunk_parallel_one():
    """The forced pipeline really takes the form: no chunk loop, and the
    chunk states ([S0; H], N + 1 = 8 of them for L = 100 in chunks of 16)
    pass through one decayed presum along the chunk axis."""
    forms = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-",
         "--linea-optimize=form=chunk_parallel chunk-size=16"],
        input=gated_program(100, 4, 4), capture_output=True, text=True, check=True).stdout
    assert "scf.for" not in forms, forms
    assert "decay(" in forms and "dim = 1 form = scan : tensor<2x8x4x4xf32>" in forms, forms


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
@pytest.mark.parametrize("chunk", [32, 64])
def test_half_operands_read_as_stored(gated, chunk):
    """f16 operands through the GPU mapping (linea-read-as-stored: the decays
    and the chunk blocks' copies read the 16-bit buffers, widening in
    registers) against the oracle on the same rounded inputs; the result is
    rounded to f16 once, so a few of its ulps."""
    rng = np.random.default_rng(chunk + gated)
    L, dk, dv = 203, 16, 8
    q, k = (rng.standard_normal((2, L, dk)).astype(np.float16) for _ in range(2))
    v = rng.standard_normal((2, L, dv)).astype(np.float16)
    inputs = [q, k, v]
    if gated:
        inputs.append((-20.0 * rng.uniform(0, 1, (2, L, dk)) ** 4).astype(np.float16))
    wide = [x.astype(np.float64) for x in inputs]
    want = (ref.gated_linear_attention(*wide, mask="causal") if gated
            else ref.linear_attention(*wide, mask="causal"))[0]
    pipeline = f"linea-gpu-mapped-to-cpu{{form=chunk_parallel chunk-size={chunk}}}"
    got = linea.run(programs.sixteen_bit_program([2], L, dk, dv, gated, "causal"), [x.astype(np.float32) for x in inputs],
                    pipeline=pipeline)
    got = got[0] if isinstance(got, (list, tuple)) else got
    assert ref.rel_l2(np.asarray(got, np.float64), want) <= 2e-3


@pytest.mark.parametrize("kind", ["mild", "steep"])
def test_gated_grids_where_no_chunk_block_fits(kind):
    """With 48 KiB of shared memory (chip=sm_70) a gated chunk of 64 rows
    at D = 64 does not fit one block: the rows are grids over every chunk
    (the 16-row query blocks a batch dim, each exact diagonal block a block
    of its own), checked against the oracle."""
    rng = np.random.default_rng(11)
    L, dk, dv = 203, 64, 64
    q, k = (rng.standard_normal((2, L, dk)) for _ in range(2))
    v = rng.standard_normal((2, L, dv))
    g = -0.05 * rng.uniform(0, 1, (2, L, dk))
    if kind == "steep":
        g = -20.0 * rng.uniform(0.5, 1.0, g.shape)
    want = list(ref.gated_linear_attention(q, k, v, g, mask="causal"))
    pipeline = "linea-gpu-mapped-to-cpu{chip=sm_70 form=chunk_parallel chunk-size=64}"
    got = linea.run(gated_program(L, dk, dv), [q, k, v, g], pipeline=pipeline)
    programs.assert_matches(got, want)
    forms = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-",
         "--linea-optimize=target=gpu chip=sm_70 form=chunk_parallel chunk-size=64"],
        input=gated_program(L, dk, dv), capture_output=True, text=True, check=True).stdout
    assert "tensor<2x4x4x16x64xf32>" in forms, forms  # keys decayed per query block
