"""Linea from Python: compile Linea programs into in-process kernels for the
CPU or CUDA (`linea.compile`), import PyTorch and ONNX models
(`linea.from_torch`, `linea.from_onnx`), run programs through linea-run
(`linea.run`), save and load compiled models (`model.save`, `linea.load`),
and check them against the float64 reference (`linea.reference`)."""

from ._version import __version__  # noqa: F401
from .compiler import (Kernel, SequenceParallelKernel, compile, compile_library,  # noqa: F401,A004
                       differentiate, export)
from . import iree  # noqa: F401
from .frontend import Model, from_onnx, from_torch  # noqa: F401
from .runner import LineaError, run  # noqa: F401
from .saving import load  # noqa: F401
