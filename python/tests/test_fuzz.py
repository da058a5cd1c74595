"""A small seeded fuzz of what users get wrong, checked for robustness and,
wherever a run is accepted, for correctness.

Integer pass and pipeline options at 0, 1, -1 and 2^63-1, and programs
mutated structurally (sizes, dynamic dims, prefix lengths, segment lengths:
most mutants stay valid, so they reach the pipelines; a few are out of
range, so the verifier must refuse them), through every pipeline (the NVVM
one to PTX). Every run must end in exit code 0 or 1 with no crash, and a
failed run writes no output file. Every accepted run is then executed on
the CPU (the NVVM pipelines through their emulation,
linea-gpu-mapped-to-cpu, with the same options) and compared with the
float64 oracle."""

import random
import re
import subprocess

import numpy as np
import pytest

import linea
from linea import reference as ref
from linea.runner import build_dir

SEED = 20261126
VALUES = ["0", "1", "-1", "9223372036854775807"]
HUGE = "9223372036854775807"


def program(B=2, L=64, D=16, l=8, dyn_B=False, dyn_L=False):
    """Every op once: linear attention with a run-time prefix, gated linear
    attention with a scalar gate, an exclusive presum and a fold whose body
    is causal softmax attention over its window of 2 l rows."""
    b, n = ("?" if dyn_B else B), ("?" if dyn_L else L)
    seq = f"tensor<{b}x{n}x{D}xf32>"
    gate = f"tensor<{b}x{n}xf32>"
    mem = f"tensor<{b}x{l}x{D}xf32>"
    win = f"tensor<{b}x{2 * l}x{D}xf32>" if l != HUGE else f"tensor<{b}x?x{D}xf32>"
    return f"""func.func @f(%q: {seq}, %g: {gate}, %x: {seq}, %m: {mem}, %j: index)
    -> ({seq}, {seq}, {seq}, {seq}) {{
  %a = linea.linear_attention %q, %q, %q mask = prefix(%j) : {seq}, {seq}, {seq} -> {seq}
  %b = linea.gated_linear_attention %q, %q, %q, %g mask = causal : {seq}, {seq}, {seq}, {gate} -> {seq}
  %c = linea.presum %x exclusive : {seq}
  %y, %mem = linea.fold %x, %m segment_length = {l} : {seq}, {mem} {{
  ^bb0(%w: {win}):
    %r = linea.attention %w, %w, %w mask = causal : {win}, {win}, {win} -> {win}
    linea.yield %r : {win}
  }}
  return %a, %b, %c, %y : {seq}, {seq}, {seq}, {seq}
}}
"""


def oracle(B, L, D, l, j, seed):
    """Inputs for program() (gates down to -20) and its float64 results."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((B, L, D))
    g = -20.0 * rng.uniform(0.0, 1.0, (B, L)) ** 3
    x = rng.standard_normal((B, L, D))
    m = rng.standard_normal((B, l, D))
    a, _ = ref.linear_attention(q, q, q, mask="prefix", prefix_length=j)
    b, _ = ref.gated_linear_attention(q, q, q, g, mask="causal")
    c = ref.presum(x, exclusive=True)
    y, _ = ref.fold(x, m, l, lambda w: ref.attention(w, w, w, mask="causal"))
    return [q, g, x, m, j], [a, b, c, y]


# Every integer option of Linea's passes and pipelines (a GPU pass after the
# pass that records its target).
OPTIONS = [
    ("linea-causal-to-chunked", "chunk-size"), ("linea-presum-to-scan", "block-size"),
    ("linea-tile-attention", "tile-size"), ("linea-select-forms", "chunk-size"),
    ("linea-plan-target{target=gpu},linea-distribute-sequences", "value-tile"), ("linea-optimize", "chunk-size"),
    ("linea-gpu-mapped-to-cpu", "block-size"), ("linea-gpu-mapped-to-cpu", "chunk-size"),
    ("linea-lower-to-nvvm", "block-size"), ("linea-lower-to-nvvm", "chunk-size"),
]
PIPELINES = ["linea-optimize", "linea-optimize{target=gpu}", "linea-lower-to-cpu",
             "linea-gpu-mapped-to-cpu", "linea-lower-to-nvvm{format=isa}",
             "linea-gpu-mapped-to-cpu{precision=bf16}",
             "linea-lower-to-nvvm{format=isa precision=bf16}"]


def executable(pipeline):
    """What linea-run executes for a pipeline linea-opt accepted: the NVVM
    pipeline's CPU emulation with the same options (GPU-planned forms too);
    None for the default pipeline (linea-lower-to-cpu)."""
    if pipeline == "linea-lower-to-cpu":
        return None
    if pipeline == "linea-optimize{target=gpu}":
        return "linea-gpu-mapped-to-cpu"
    match = re.fullmatch(r"linea-lower-to-nvvm\{(.*)\}", pipeline)
    if match:
        options = " ".join(o for o in match.group(1).split() if not o.startswith("format="))
        return f"linea-gpu-mapped-to-cpu{{{options}}}" if options else "linea-gpu-mapped-to-cpu"
    return pipeline


def tolerance(pipeline):
    """SPEC's 1e-4 for f32; bf16 tensor-core operands round each product's
    inputs (test_gpu_emulation's bound)."""
    return 1e-2 if pipeline and "bf16" in pipeline else 1e-4


def linea_opt(text, flag, out):
    return subprocess.run([str(build_dir() / "bin/linea-opt"), "-", flag, "-o", str(out)],
                          input=text, capture_output=True, text=True, timeout=300)


def assert_clean(done, out):
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert "Stack dump" not in done.stderr and "Assertion" not in done.stderr
    if done.returncode == 1:
        assert not out.exists(), "a failed run wrote its output"
        assert done.stderr.strip(), "exit code 1 with no diagnostic"


def assert_computes_right(text, pipeline, inputs, want):
    got = linea.run(text, inputs, pipeline=executable(pipeline))
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"result {k}: {g.shape} vs {w.shape}"
        err = ref.rel_l2(np.asarray(g, np.float64), w)
        assert err <= tolerance(pipeline), f"{pipeline}: result {k}: rel. L2 error {err:.3g}"


# ---------------------------------------------------------------------------
# odd option values
# ---------------------------------------------------------------------------
def option_runs():
    for pass_name, option in OPTIONS:
        for value in VALUES:
            extra = " format=isa" if pass_name == "linea-lower-to-nvvm" else ""
            yield f"{pass_name}{{{option}={value}{extra}}}"


@pytest.mark.parametrize("pipeline", list(option_runs()))
def test_option_values(pipeline, tmp_path):
    """Refused with one clean error, or accepted and right."""
    out = tmp_path / "out.mlir"
    text = program()
    done = linea_opt(text, f"--pass-pipeline=builtin.module({pipeline})", out)
    assert_clean(done, out)
    if done.returncode == 0:
        inputs, want = oracle(2, 64, 16, 8, j=37, seed=1)
        assert_computes_right(text, pipeline, inputs, want)


# ---------------------------------------------------------------------------
# structural mutants
# ---------------------------------------------------------------------------
def mutant(r):
    """The program with one to three of its parameters changed, the
    segment length kept a divisor of L unless the mutant is meant to be
    invalid (1 in 6: a size of 2^63-1 or a segment length of 0, which the
    parser or the verifier refuses)."""
    params = dict(B=2, L=64, D=16, l=8, dyn_B=False, dyn_L=False)
    for _ in range(r.randint(1, 3)):
        which = r.choice(["B", "L", "D", "l", "dyn"])
        if which == "B":
            params["B"] = r.choice([1, 3])
        elif which == "L":
            params["L"] = r.choice([1, 3, 17, 61, 96, 97])
        elif which == "D":
            params["D"] = r.choice([1, 3, 5, 32])
        elif which == "l":
            params["l"] = r.choice([1, 2, 4, 16, 32])
        else:
            params[r.choice(["dyn_B", "dyn_L"])] = True
    if params["L"] % params["l"]:
        params["l"] = r.choice([1, params["L"]])
    if r.random() < 1 / 6:
        if r.random() < 0.25:
            params["l"] = 0
        else:
            params[r.choice(["L", "D", "l"])] = HUGE
    j = r.choice([0, 1, params["L"], r.randint(0, params["L"])]) \
        if isinstance(params["L"], int) else 0
    return params, j


def mutants(count=24):
    """`count` distinct (program, pipeline) pairs."""
    r = random.Random(SEED)
    seen, found = set(), []
    while len(found) < count:
        params, j = mutant(r)
        pipeline = r.choice(PIPELINES)
        key = (tuple(sorted(params.items())), j, pipeline)
        if key not in seen:
            seen.add(key)
            found.append((params, j, pipeline))
    return found


MUTANTS = mutants()


def valid(params):
    return params["l"] != 0 and HUGE not in (params["L"], params["D"], params["l"])


def test_most_mutants_reach_the_pipelines():
    """A fuzz whose mutants the parser or verifier refuse tests only them."""
    reaching = sum(valid(params) for params, _, _ in MUTANTS)
    assert reaching >= 0.75 * len(MUTANTS), f"{reaching} of {len(MUTANTS)}"


@pytest.mark.parametrize("index", range(len(MUTANTS)))
def test_mutants(index, tmp_path):
    params, j, pipeline = MUTANTS[index]
    text = program(**params)
    out = tmp_path / "out.mlir"
    done = linea_opt(text, f"--pass-pipeline=builtin.module({pipeline})", out)
    assert_clean(done, out)
    if not valid(params):
        assert done.returncode == 1, f"{params}: an out-of-range size was accepted"
        return
    assert done.returncode == 0, done.stderr[-2000:]
    inputs, want = oracle(params["B"], params["L"], params["D"], params["l"], j,
                          seed=index)
    assert_computes_right(text, pipeline, inputs, want)
