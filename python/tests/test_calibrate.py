"""`python3 -m linea.calibrate` measures the CPU rates of the cost model on
this machine and writes a target description; linea-optimize reads it
(target-description=) and the forms it then chooses compute the same
results. A bad description is a one-line error."""

import json
import math

import pytest

from linea import LineaError, run
from linea import calibrate

import programs

CAUSAL = dict(op="linear_attention", batch=[2], L=131, dk=8, dv=8, mask="causal", final=True)
RATES = ("matrixFlopsPerSecond", "bytesPerSecond", "contractionTile", "secondsPerIteration")


def test_quick_calibration_drives_the_cost_model(tmp_path):
    path = tmp_path / "cpu.json"
    assert calibrate.main(["--quick", "--repeat", "3", "-o", str(path)]) == 0
    description = json.loads(path.read_text())
    assert description["target"] == "cpu"
    for key in RATES:
        assert math.isfinite(description[key]) and description[key] > 0, key
    # A contraction rate and a bandwidth a CPU core can have.
    assert 1e8 < description["matrixFlopsPerSecond"] < 1e13
    assert 1e8 < description["bytesPerSecond"] < 1e12
    program, inputs, expected = programs.build(CAUSAL, seed=15)
    got = run(program, inputs, pipeline=f"linea-optimize{{target-description={path}}}")
    programs.assert_matches(got, expected)


@pytest.mark.parametrize("text, message", [
    ('{"target": "cpu", "bytesPerSecond": 0}', "bytesPerSecond must be a positive number"),
    ('{"target": "gpu"}', "describes target 'gpu', not 'cpu'"),
    ('{"target": "cpu", "parallelUnits": 1.5}', "parallelUnits must be an integer >= 1"),
    ('{"target": "cpu", "valueTile": -1}', "valueTile must be an integer >= 0"),
    ('[1, 2]', "not a JSON object"),
])
def test_bad_description_is_one_line_error(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    program, inputs, _ = programs.build(CAUSAL, seed=15)
    with pytest.raises(LineaError, match=message):
        run(program, inputs, pipeline=f"linea-optimize{{target-description={path}}}")
