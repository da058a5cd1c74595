"""Softmax attention on the GPU: linea-tile-attention gives each (sequence,
tile of 64 query rows) a sequence block that runs the key tiles its rows
see, flash attention's grid (f32 ops; on tensor cores, the flash-attention
kernel takes them: test_flash_attention.py). Checked through the CPU emulation of the
launches (linea-gpu-mapped-to-cpu) against the float64 oracle, and on the
kernel report of linea-lower-to-nvvm (one launch, no host loop)."""

import subprocess

import numpy as np
import pytest

import linea
from linea import reference as ref
from linea.runner import build_dir

from test_gpu_emulation import rounded

TOLERANCE = 1e-4  # SPEC: relative L2 error for f32 against float64
BF16_COMPUTE = 1e-2  # bf16 tensor-core operands, f32 accumulation


def attention_program(batch, lq, lk, d, dv, mask, dynamic, scale=None, element="f32"):
    lead = "".join(f"{b}x" for b in batch)
    rows, keys = ("?", "?") if dynamic else (str(lq), str(lk))
    qt = f"tensor<{lead}{rows}x{d}x{element}>"
    kt = f"tensor<{lead}{keys}x{d}x{element}>"
    vt = f"tensor<{lead}{keys}x{dv}x{element}>"
    ot = f"tensor<{lead}{rows}x{dv}x{element}>"
    scale_text = f" scale = {scale}" if scale else ""
    return (f"func.func @main(%q: {qt}, %k: {kt}, %v: {vt}) -> {ot} {{\n"
            f"  %y = linea.attention %q, %k, %v mask = {mask}{scale_text}\n"
            f"      : {qt}, {kt}, {vt} -> {ot}\n"
            f"  return %y : {ot}\n}}\n")


def relative_error(got, want):
    return np.linalg.norm(np.asarray(got, np.float64) - want) / max(np.linalg.norm(want), 1e-30)


# (batch dims, Lq, Lk, d, dv, mask, dynamic sizes, scale): L = 1, prime L,
# one whole tile, a remainder tile, queries that are the last Lq of the
# keys (Lq < Lk; Lq > Lk under a causal mask: rows before the first key
# are zeros), several batch dims, static and dynamic sizes.
CASES = [
    ([2], 1, 1, 4, 3, "causal", True, None),
    ([2, 3], 67, 67, 8, 5, "causal", True, None),
    ([], 64, 64, 16, 16, "causal", False, None),
    ([1], 40, 131, 8, 4, "causal", False, None),
    ([2], 70, 200, 6, 6, "none", True, 0.25),
    ([3], 131, 131, 8, 8, "none", False, None),
    ([2], 90, 30, 4, 4, "causal", True, None),  # Lq > Lk: the first 60 rows see no key
]


def case_id(c):
    batch, lq, lk, d, dv, mask, dynamic, scale = c
    return (f"{mask}-batch={batch}-Lq={lq}-Lk={lk}-d={d}x{dv}" + ("-dyn" if dynamic else "")
            + ("-scaled" if scale else ""))


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_softmax_attention_on_gpu_blocks(case):
    batch, lq, lk, d, dv, mask, dynamic, scale = case
    rng = np.random.default_rng(lq * 1000 + lk)
    # Scores spread wide (q times 3): the running max moves between tiles.
    q = 3 * rng.standard_normal(batch + [lq, d]).astype(np.float32)
    k = rng.standard_normal(batch + [lk, d]).astype(np.float32)
    v = rng.standard_normal(batch + [lk, dv]).astype(np.float32)
    program = attention_program(batch, lq, lk, d, dv, mask, dynamic, scale)
    (got,) = linea.run(program, [q, k, v], pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a}")
    want = ref.attention(q, k, v, mask, scale)
    assert relative_error(got, want) <= TOLERANCE


def test_softmax_attention_on_gpu_tensor_cores():
    """precision=bf16: the flash-attention kernel on the emulated mma.sync,
    64-wide heads, a remainder tile."""
    rng = np.random.default_rng(64)
    q, k, v = (rounded(rng.standard_normal((2, 150, 64)), "bf16") for _ in range(3))
    program = attention_program([2], 150, 150, 64, 64, "causal", True)
    (got,) = linea.run(program, [x.astype(np.float32) for x in (q, k, v)],
                       pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a precision=bf16}")
    assert relative_error(got, ref.attention(q, k, v, "causal")) <= BF16_COMPUTE


def test_softmax_gpu_code_is_one_launch():
    """A causal [2, 4, 4096, 64] bf16 op: one launch of 2 x 4 x 32 flash blocks,
    no host loop over key tiles (whose kernels the report would count per
    trip)."""
    lowered = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-",
         "--linea-lower-to-nvvm=chip=sm_90a format=isa report=1 precision=bf16"],
        input=attention_program([2, 4], 4096, 4096, 64, 64, "causal", False, element="bf16"),
        capture_output=True, text=True)
    assert lowered.returncode == 0, lowered.stderr
    assert lowered.stdout.count("gpu.launch_func") == 1
    assert "blocks in (%c256, %c1, %c1)" in lowered.stderr  # the report
    assert "host loop" not in lowered.stderr and "stays on the host" not in lowered.stderr
    assert "mma.sync" in lowered.stdout
