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
