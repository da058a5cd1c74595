"""Linea from Python: compile Linea programs into in-process kernels for the
CPU or CUDA (`linea.compile`), run them through linea-run (`linea.run`), and
check them against the float64 reference (`linea.reference`)."""

from ._version import __version__  # noqa: F401
from .compiler import (Kernel, SequenceParallelKernel, compile, compile_library,  # noqa: F401,A004
                       differentiate)
from .runner import LineaError, run  # noqa: F401
