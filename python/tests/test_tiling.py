"""Linea's ops tiled by MLIR's own machinery: a transform script
(`transform.structured.tile_using_forall`, through each op's
TilingInterface) tiles the batch dims and the value columns, then
linea-optimize and the CPU path run the tiles; the results must match the
float64 oracle as the untiled op's do. Partial tiles (odd sizes, tile 2)
and dynamic sizes included."""

import subprocess

import pytest

from linea import run
from linea.runner import build_dir

import cases
import programs

TILED_OPS = ("presum", "linear_attention", "gated_linear_attention", "attention")

SCRIPT = """module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %ops = transform.structured.match ops{{["linea.{op}"]}} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %ops tile_sizes [{sizes}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }}
}}
"""


def domain_rank(spec):
    """The iteration domain: every presum dim but the scanned one; the batch
    dims and the value columns of the attention ops."""
    if spec["op"] == "presum":
        return len(spec["shape"]) - 1
    return len(spec["batch"]) + 1


def tilings(spec):
    """Tile sizes: the first domain dim by 2 (partial tiles where it is odd)
    and every dim by 1. Feature dims stay static, so value columns tile only
    by a divisor (1); presum tiles its feature dim by 2 as well."""
    rank = domain_rank(spec)
    if rank == 0:
        return []
    ones = [1] * rank
    if spec["op"] == "presum":
        return [[2], ones[:-1] + [2]] if rank >= 2 else [[2]]
    return [[2], ones] if rank >= 2 else [ones]


RUNS = [(spec, sizes)
        for spec in cases.edge_cases() + cases.random_cases(cases.SEED + 3)[::5]
        if spec["op"] in TILED_OPS
        for sizes in tilings(spec)]


def assert_tiles(program, script):
    """The script really tiles: the op ends up inside an scf.forall."""
    tiled = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-",
         f"--transform-preload-library=transform-library-paths={script}",
         "--transform-interpreter"],
        input=program, capture_output=True, text=True, check=True).stdout
    forall = tiled.find("scf.forall")
    assert forall != -1 and tiled.find("linea.", forall) != -1, tiled


@pytest.mark.parametrize("index", range(len(RUNS)),
                         ids=[f"{i}-{s}-{cases.case_id(c)}" for i, (c, s) in enumerate(RUNS)])
def test_tiled_against_oracle(index, tmp_path):
    spec, sizes = RUNS[index]
    script = tmp_path / "tile.mlir"
    script.write_text(SCRIPT.format(op=spec["op"], sizes=", ".join(map(str, sizes))))
    pipeline = (f"transform-preload-library{{transform-library-paths={script}}},"
                "transform-interpreter,linea-optimize")
    program, inputs, expected = programs.build(spec, seed=cases.SEED * 104729 + index)
    assert_tiles(program, script)
    got = run(program, inputs, pipeline=pipeline)
    programs.assert_matches(got, expected)


def test_tiling_runs_cover_every_op():
    assert {spec["op"] for spec, _ in RUNS} == set(TILED_OPS)
    assert len(RUNS) >= 40
