"""Run under `mpirun -np P`: linea.compile(..., comm=MPI.COMM_WORLD) on
every rank, full inputs in, full results on rank 0, checked there against
the float64 oracle and the one-process kernel. Prints `ok` on rank 0."""

import sys

import numpy as np
from mpi4py import MPI

import linea
from linea import reference as ref

import programs

SPECS = [
    dict(op="gated_linear_attention", batch=[2], dk=4, dv=3, L=53, mask="prefix",
         prefix=29, init=True, final=True),
    dict(op="linear_attention", batch=[2], dk=4, dv=3, L=47, mask="causal", final=True,
         dyn_L=True),
    dict(op="presum", shape=[2, 41, 3], exclusive=True),
]

comm = MPI.COMM_WORLD
for index, spec in enumerate(SPECS):
    program, inputs, want = programs.build(spec, seed=7 + index)
    inputs = [np.asarray(x, np.float32) if isinstance(x, np.ndarray) else x
              for x in inputs]
    kernel = linea.compile(program, comm=comm)
    got = kernel(*inputs)
    dims = [a.get("sharded_dim") for a in kernel.signature["args"]]
    if comm.Get_rank() != 0:
        assert got is None
        continue
    got = got if isinstance(got, tuple) else (got,)
    single = linea.compile(program)(*inputs)
    single = single if isinstance(single, tuple) else (single,)
    programs.assert_matches(list(got), want)
    for g, s in zip(got, single):
        assert ref.rel_l2(g, s) <= 1e-5, ref.rel_l2(g, s)
    assert any(d is not None for d in dims), "nothing was split across ranks"
# A communicator that is not the compiled code's is refused.
if comm.Get_size() > 1:
    half = comm.Split(comm.Get_rank() % 2)
    try:
        linea.compile(program, comm=half)
        raise AssertionError("a split communicator was accepted")
    except linea.LineaError as error:
        assert "must span MPI.COMM_WORLD" in str(error)
if comm.Get_rank() == 0:
    print("ok", comm.Get_size())
sys.stdout.flush()
