"""Linea from Python: compile Linea programs into in-process kernels
(`linea.compile`), run them through linea-run (`linea.run`), and check them
against the float64 reference (`linea.reference`)."""

from .compiler import Kernel, compile  # noqa: F401,A004
from .runner import LineaError, run  # noqa: F401
