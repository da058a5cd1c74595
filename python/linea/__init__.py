"""Linea from Python: run Linea programs on the CPU and check them against
the float64 reference (`linea.reference`)."""

from .runner import LineaError, run  # noqa: F401
