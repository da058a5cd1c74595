"""The cost model's GPU sequence blocks against the blocks the GPU pipeline
plans.

On a GPU the chunked form runs each sequence's chunk loop as one block
whose temporaries live in shared memory, where they fit; where they do not,
linea-map-to-gpu leaves the loop on the host, a few launches per chunk (on
an H100 the retnet example made 72,197 launches a call that way). The cost
model decides which chunk sizes fit from its own estimate of a block's
bytes (`sequenceBlockBytes`), before the block exists; the planner
(`planSharedMemory`) counts them afterwards. An estimate below the planner's
count picks a chunk whose loop then runs on the host. Here the estimate,
which `explain=true` prints per candidate, is checked against the planner's
count over sampled shapes, and the end-to-end promise: a chunked form the
cost model chose runs as one block.
"""

import random
import re
import subprocess

import pytest

from linea.runner import build_dir


def program(gated, scalar_gate, feature_map, normalize, dk, dv, length):
    L = "?" if length is None else str(length)
    qt, vt = f"tensor<4x{L}x{dk}xf32>", f"tensor<4x{L}x{dv}xf32>"
    attrs = "" if feature_map == "identity" else f" feature_map = {feature_map}"
    attrs += " normalize" if normalize else ""
    if gated:
        gt = f"tensor<4x{L}xf32>" if scalar_gate else qt
        return (f"func.func @f(%q: {qt}, %k: {qt}, %v: {vt}, %g: {gt}) -> {vt} {{\n"
                f"  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal{attrs}"
                f" : {qt}, {qt}, {vt}, {gt} -> {vt}\n  return %o : {vt}\n}}\n")
    return (f"func.func @f(%q: {qt}, %k: {qt}, %v: {vt}) -> {vt} {{\n"
            f"  %o = linea.linear_attention %q, %k, %v mask = causal{attrs}"
            f" : {qt}, {qt}, {vt} -> {vt}\n  return %o : {vt}\n}}\n")


def linea_opt(source, *args):
    done = subprocess.run([str(build_dir() / "bin" / "linea-opt"), "-", "-o", "/dev/null", *args],
                          input=source, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stderr


def estimated_block(source, chip, chunk):
    """The cost model's bytes for the chunked(`chunk`) candidate's block."""
    text = linea_opt(source, f"--linea-select-forms=target=gpu chip={chip} explain=true")
    found = re.search(rf"chunked\({chunk}\) [^;]*a block of (\d+) B", text)
    assert found, text
    return int(found.group(1))


def planned_block(source, chip, chunk):
    """The planner's bytes for the block of the chunked form at `chunk`,
    which it reports where they exceed the chip's shared memory; None where
    the block fits."""
    text = linea_opt(source, f"--linea-lower-to-nvvm=chip={chip} format=isa form=chunked "
                     f"chunk-size={chunk}")
    assert "cannot run in one block" not in text, text
    found = re.search(r"(\d+) bytes of temporaries exceed", text)
    return int(found.group(1)) if found else None


# (gated, scalar gate, feature map, normalize)
KINDS = [(True, True, "identity", False), (True, False, "identity", False),
         (False, False, "elu_plus_one", True), (False, False, "relu", False),
         (False, False, "identity", False), (False, False, "elu_plus_one", False)]


def sampled_shapes(count, seed):
    rng = random.Random(seed)
    shapes = set()
    while len(shapes) < count:
        dk, dv = rng.choice([(32, 64), (64, 64), (128, 128), (64, 32)])
        shapes.add((*rng.choice(KINDS), dk, dv, rng.choice([None, 4096, 4099])))
    return sorted(shapes, key=str)


@pytest.mark.parametrize("shape", sampled_shapes(12, seed=45), ids=str)
@pytest.mark.parametrize("chunk", [64, 128])
def test_estimate_bounds_the_planned_block(shape, chunk):
    """sm_70's 48 KiB of shared memory makes the planner report its count
    for nearly every block; the estimate must not be below it (or the cost
    model picks chunks that leave the loop on the host) and at most a
    quarter above it (or it gives up chunks that fit)."""
    source = program(*shape)
    planned = planned_block(source, "sm_70", chunk)
    if planned is None:
        pytest.skip("the block fits sm_70's 48 KiB: the planner reports no count")
    estimated = estimated_block(source, "sm_70", chunk)
    assert planned <= estimated <= 1.25 * planned, (planned, estimated)


@pytest.mark.parametrize("chip", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("shape", [(*kind, dk, dv, None) for kind in KINDS
                                   for dk, dv in [(64, 64), (128, 128)]], ids=str)
def test_a_chosen_chunked_form_runs_as_one_block(chip, shape):
    """The cost model's own choice, through the whole GPU pipeline: where it
    chose a chunked form, the chunk loop is one block (no host loop)."""
    source = program(*shape)
    chosen = linea_opt(source, f"--linea-select-forms=target=gpu chip={chip} explain=true")
    if not re.search(r"remark: form chunked\(", chosen):
        pytest.skip("the cost model chose another form")
    report = linea_opt(source, f"--linea-lower-to-nvvm=chip={chip} format=isa")
    assert "sequence loop stays on the host" not in report, (chosen, report)


def test_retnet_shape_takes_a_chunk_that_fits():
    """The retnet example's op (4 heads of 64, a scalar gate, dynamic L),
    whose loop stayed on the host on the H100: chunked(128) needs 246,800
    bytes against sm_90a's 232,448, and the old estimate said 216,064."""
    source = program(True, True, "identity", False, 64, 64, None)
    assert estimated_block(source, "sm_90a", 128) >= planned_block(source, "sm_70", 128)
    report = linea_opt(source, "--linea-lower-to-nvvm=chip=sm_90a format=isa")
    assert "sequence loop stays on the host" not in report, report
