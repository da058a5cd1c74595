"""Every optimizing pass alone, their chains, the whole linea-optimize
pipeline (with forced choices too) and the GPU-mapped IR run on the CPU,
against the float64 oracle on seeded random programs: prime lengths,
L % C != 0, dynamic L and j, j = 0 and L, gates down to -20, several
segments."""

import pytest

from linea import run

import cases
import programs

ATTENTION_PIPELINES = [
    "linea-split-prefix",
    "linea-split-prefix,canonicalize,linea-prefix-to-oneshot",
    "linea-prefix-to-oneshot",
    "linea-causal-to-chunked{chunk-size=3}",
    "linea-causal-to-chunked{chunk-size=16}",
    "linea-split-prefix,canonicalize,linea-prefix-to-oneshot,"
    "linea-causal-to-chunked{chunk-size=5}",
    "linea-optimize",
    "linea-optimize{target=gpu}",
    "linea-optimize{chunk-size=7}",
    "linea-optimize{form=quadratic}",
    "linea-optimize{form=oneshot chunk-size=1}",
]

PIPELINES = {
    "presum": ["linea-presum-to-scan{block-size=1}", "linea-presum-to-scan{block-size=3}",
               "linea-presum-to-scan", "linea-optimize"],
    "linear_attention": ATTENTION_PIPELINES,
    "gated_linear_attention": ATTENTION_PIPELINES,
    "attention": ["linea-tile-attention{tile-size=1}", "linea-tile-attention{tile-size=4}",
                  "linea-tile-attention", "linea-optimize"],
    "fold": ["linea-fold-to-loop", "linea-fold-to-loop,linea-tile-attention{tile-size=3}",
             "linea-optimize"],
    "folded_attention": ["linea-expand-folded-attention", "linea-optimize",
                         "linea-optimize{target=gpu}"],
}

# Every edge case through the full chain with small forced chunks and
# blocks, and through the default pipeline; the random draw rotates through
# each op's pipelines.
FULL_CHAIN = ("linea-optimize{chunk-size=4},linea-presum-to-scan{block-size=2},"
              "linea-tile-attention{tile-size=2}")
# The GPU algorithm, checked numerically where no GPU runs: the IR of
# linea-lower-to-nvvm up to the block/thread mapping, executed on the CPU
# (block-size 7 leaves partial blocks everywhere).
GPU_MAPPED = "linea-gpu-mapped-to-cpu{block-size=7}"
# The same with every causal region chunked: one block per sequence (and per
# value tile), the chunk loop inside it, each op spread over 7 threads.
GPU_MAPPED_CHUNKED = "linea-gpu-mapped-to-cpu{block-size=7 form=chunked chunk-size=3}"
# Sequences and value tiles as a forall, run on the CPU (planned for the GPU:
# the distribution reads the GPU's numbers).
DISTRIBUTED = ("linea-split-prefix,canonicalize,linea-select-forms{target=gpu form=chunked},"
               "linea-distribute-sequences{value-tile=2},linea-prefix-to-oneshot,"
               "linea-causal-to-chunked{chunk-size=3}")
ATTENTION_OPS = ("linear_attention", "gated_linear_attention")
# Head dim 128 at chunk 64: the sequence block's temporaries (over 100 KiB)
# fit only the dynamic shared memory of sm_90a (227 KiB per block).
GPU_MAPPED_WIDE = "linea-gpu-mapped-to-cpu{chip=sm_90a form=chunked chunk-size=64}"
WIDE = [dict(op="gated_linear_attention", batch=[2], dk=128, dv=128, L=131, mask="causal",
             final=True),
        dict(op="gated_linear_attention", batch=[2], dk=128, dv=128, L=131, mask="prefix",
             prefix=50, scalar_gate=True, init=True),
        dict(op="linear_attention", batch=[2], dk=128, dv=128, L=131, mask="prefix", prefix=50,
             dyn_prefix=True, init=True, final=True)]
# The CPU lowering's contraction kernels (linea-vectorize-contractions) off,
# and at vector widths that leave partial column tiles everywhere (3: tiles
# of 6 columns) or are wider than the machine's registers (16); threads off
# (1), and more of them than cores (3), with 3-row tiles. The other runs use
# every core.
CPU_KERNELS = ["linea-optimize,linea-lower-to-cpu{vectorize=0 threads=1}",
               "linea-optimize{chunk-size=5},linea-lower-to-cpu{vector-width=3 threads=1}",
               "linea-optimize,linea-lower-to-cpu{vector-width=16 register-rows=3 threads=3}"]
RUNS = ([(spec, GPU_MAPPED_WIDE) for spec in WIDE]
        + [(spec, pipeline) for spec in cases.edge_cases() for pipeline in CPU_KERNELS] + [(spec, FULL_CHAIN) for spec in cases.edge_cases()]
        + [(spec, GPU_MAPPED) for spec in cases.edge_cases()]
        + [(spec, pipeline) for spec in cases.edge_cases()
           if spec["op"] in ATTENTION_OPS
           for pipeline in (GPU_MAPPED_CHUNKED, DISTRIBUTED)]
        + [(spec, "linea-optimize") for spec in cases.edge_cases()]
        + [(spec, PIPELINES[spec["op"]][i % len(PIPELINES[spec["op"]])])
           for i, spec in enumerate(cases.random_cases(cases.SEED + 1))]
        + [(spec, ATTENTION_PIPELINES[(i + 5) % len(ATTENTION_PIPELINES)])
           for i, spec in enumerate(cases.random_cases(cases.SEED + 2))
           if spec["op"] in ("linear_attention", "gated_linear_attention")])


@pytest.mark.parametrize(
    "index", range(len(RUNS)),
    ids=[f"{i}-{p}-{cases.case_id(s)}" for i, (s, p) in enumerate(RUNS)])
def test_pass_against_oracle(index):
    spec, pipeline = RUNS[index]
    program, inputs, expected = programs.build(spec, seed=cases.SEED * 7919 + index)
    got = run(program, inputs, pipeline=pipeline)
    programs.assert_matches(got, expected)

def test_enough_cases():
    # The issue asks for at least 300 cases per run.
    assert len(RUNS) >= 300
