"""linea-export, the hand-off to another compiler (issue 61): the exported
module computes the op's definition (checked here by lowering it with
linea-run against the float64 oracle, on the edge cases and seeded random
programs), holds nothing of Linea's, and parses with upstream mlir-opt.
IREE on the hand-off is the front-end suite's (test_export_iree.py)."""

import pathlib
import subprocess

import pytest

import linea
from linea import LineaError, run
from linea.runner import build_dir

import cases
import programs

MLIR_OPT = pathlib.Path("/usr/lib/llvm-22/bin/mlir-opt")

# The default hand-off, the GPU's forms, forced chunk sizes that leave
# partial chunks, and the chunked loop (the hand-off's non-default form).
EXPORTS = ["linea-export", "linea-export{target=gpu}", "linea-export{chunk-size=5}",
           "linea-export{form=chunked chunk-size=3}"]
# The presum without a loop, alone (decayed presums stay scans).
MASKED_SUMS = "linea-presum-to-masked-sums"

# The GPU hand-off of gated ops: grids over every chunk, pads before the
# chunk states and gate totals, a scalar gate's decay after its scores; with
# chunks of 32 (16-row blocks at once) and 16 (the exact scores) too.
GATED = [spec for spec in cases.edge_cases() if spec["op"] == "gated_linear_attention"]
GPU_HAND_OFFS = ([(spec, "linea-export{target=gpu}") for spec in GATED]
                 + [(spec, f"linea-export{{target=gpu chunk-size={chunk}}}")
                    for spec in GATED if spec["L"] == 257 for chunk in (16, 32)])

RUNS = ([(spec, "linea-export") for spec in cases.edge_cases()]
        + [(spec, MASKED_SUMS) for spec in cases.edge_cases() if spec["op"] == "presum"]
        + GPU_HAND_OFFS
        + [(spec, EXPORTS[i % len(EXPORTS)])
           for i, spec in enumerate(cases.random_cases(cases.SEED + 3)[::9])])


@pytest.mark.parametrize("index", range(len(RUNS)),
                         ids=[f"{i}-{p}-{cases.case_id(s)}" for i, (s, p) in enumerate(RUNS)])
def test_exported_program_against_oracle(index):
    spec, pipeline = RUNS[index]
    program, inputs, expected = programs.build(spec, seed=cases.SEED * 7919 + index + 61)
    got = run(program, inputs, pipeline=pipeline)
    programs.assert_matches(got, expected)


# One program per op kind, the forms linea-export writes for each.
KINDS = [dict(op="presum", shape=[2, 3, 1000, 4], reverse=True),
         dict(op="linear_attention", batch=[2], dk=4, dv=3, L=97, mask="prefix", prefix=31,
              dyn_prefix=True, final=True),
         dict(op="gated_linear_attention", batch=[2], dk=4, dv=3, L=257, mask="causal",
              init=True, final=True),
         dict(op="attention", batch=[2], Lq=5, Lk=5, dk=4, dv=3, mask="causal"),
         dict(op="folded_attention", batch=[], L=24, l=4, d=8, heads=4, dyn_L=True)]


@pytest.mark.parametrize("spec", KINDS, ids=[s["op"] for s in KINDS])
def test_export_is_upstream_mlir(spec):
    program, _, _ = programs.build(spec, seed=1)
    text = linea.export(program)
    # Only the run-time checks' messages name Linea's ops.
    code = [line for line in text.splitlines() if "cf.assert" not in line]
    assert not [line for line in code if "linea" in line or "tm_tensor" in line], text
    done = subprocess.run([str(MLIR_OPT), "-", "--verify-roundtrip", "-o", "/dev/null"],
                          input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_causal_hand_off_has_no_loop():
    """The default hand-off of a causal layer is the chunk-parallel form
    with its state scan as masked sums: no scf.for at all."""
    program, _, _ = programs.build(dict(op="linear_attention", batch=[2], dk=4, dv=3, L=1000,
                                        mask="causal", final=True), seed=2)
    text = linea.export(program)
    assert "scf.for" not in text and "linalg.generic" in text
    # A forced chunked form keeps its loop over the chunks.
    assert "scf.for" in linea.export(program, form="chunked")


def test_export_errors():
    program, _, _ = programs.build(dict(op="presum", shape=[1, 4]), seed=3)
    with pytest.raises(LineaError, match="unknown target 'tpu'"):
        linea.export(program, target="tpu")
    with pytest.raises(LineaError, match="'linea-export' has no option 'threads'"):
        linea.export(program, threads=2)
    with pytest.raises(LineaError, match="error"):
        linea.export("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %y = linea.presum %x : tensor<8xf32>\n  return %y : tensor<4xf32>\n}\n")


def test_export_from_a_file(tmp_path):
    program, _, _ = programs.build(dict(op="presum", shape=[2, 17, 3], exclusive=True), seed=4)
    path = tmp_path / "presum.mlir"
    path.write_text(program)
    assert linea.export(path) == linea.export(program)
    assert linea.export(str(path)) == linea.export(program)


def test_plugin_runs_the_export_pipeline():
    """Upstream mlir-opt with Linea loaded as a plugin: the same text."""
    program, _, _ = programs.build(dict(op="presum", shape=[2, 17, 3]), seed=5)
    plugin = build_dir() / "lib" / "libLineaPlugin.so"
    if not plugin.exists():
        pytest.skip("no libLineaPlugin.so in this build")
    done = subprocess.run([str(MLIR_OPT), "-", f"--load-dialect-plugin={plugin}",
                           f"--load-pass-plugin={plugin}",
                           "--pass-pipeline=builtin.module(linea-export)"],
                          input=program, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == linea.export(program)
