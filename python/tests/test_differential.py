"""The CPU reference lowering (linea-run --no-optimize) and the default
pipeline against the float64 oracle, on seeded random programs."""

import pytest

from linea import run

import cases
import programs


CASES = cases.all_cases()


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[f"{i}-{cases.case_id(c)}" for i, c in enumerate(CASES)])
def test_against_oracle(index):
    spec = CASES[index]
    program, inputs, expected = programs.build(spec, seed=cases.SEED * 100003 + index)
    # Alternate the two pipelines so each sees every kind of case.
    got = run(program, inputs, no_optimize=index % 2 == 0)
    programs.assert_matches(got, expected)

def test_enough_cases():
    # The issue asks for at least 200 cases per run.
    assert len(CASES) >= 200


# Long gated sequences (g = -20 u^3, scalar and per-key gates): the
# reference lowering sums every decay over its own steps (the recurrence
# itself), so it meets the tolerance at any L, as the optimized forms do.
LONG_GATED = [dict(op="gated_linear_attention", batch=[], L=L, dk=8, dv=8, mask=mask,
                   scalar_gate=scalar, final=True, **({"prefix": L // 3} if mask == "prefix" else {}))
              for L in (4096, 16384) for scalar in (True, False)
              for mask in ("causal", "prefix")]


@pytest.mark.parametrize("no_optimize", [True, False], ids=["reference", "optimized"])
@pytest.mark.parametrize("index", range(len(LONG_GATED)),
                         ids=[cases.case_id(c) for c in LONG_GATED])
def test_long_gated_against_oracle(index, no_optimize):
    program, inputs, expected = programs.build(LONG_GATED[index], seed=4096 + index)
    programs.assert_matches(run(program, inputs, no_optimize=no_optimize), expected)


# SPEC's range (L up to 16384) on every other op too: ungated linear
# attention in each mask and with the normalizer, the presum plain, reversed
# exclusive and decayed, and softmax attention over many 64-key tiles (its
# oracle is quadratic: 4099 keys, a prime, L % 64 != 0).
LONG = [
    dict(op="linear_attention", batch=[], L=16384, dk=8, dv=8, mask="causal", final=True),
    dict(op="linear_attention", batch=[], L=16384, dk=8, dv=8, mask="prefix", prefix=5461,
         dyn_prefix=True, dyn_L=True),
    dict(op="linear_attention", batch=[], L=16384, dk=8, dv=8, mask="none",
         feature_map="elu_plus_one", normalize=True),
    dict(op="presum", shape=[2, 16384, 4]),
    dict(op="presum", shape=[16384, 3], exclusive=True, reverse=True, dynamic=[0]),
    dict(op="presum", shape=[2, 16384, 4], dim=1, decay_rank=3),
    dict(op="attention", batch=[], Lq=4099, Lk=4099, dk=8, dv=8, mask="causal"),
    dict(op="attention", batch=[2], Lq=7, Lk=4099, dk=8, dv=4, mask="none", dyn_L=True),
]


@pytest.mark.parametrize("no_optimize", [True, False], ids=["reference", "optimized"])
@pytest.mark.parametrize("index", range(len(LONG)), ids=[cases.case_id(c) for c in LONG])
def test_long_against_oracle(index, no_optimize):
    program, inputs, expected = programs.build(LONG[index], seed=16384 + index)
    programs.assert_matches(run(program, inputs, no_optimize=no_optimize), expected)
