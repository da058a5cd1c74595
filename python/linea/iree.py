"""IREE as the back end of Linea's hand-off: `linea.from_torch(...,
backend="iree")`.

The model is exported by torch-mlir, handed off by `linea.export` (raised,
forms chosen, upstream MLIR only) and compiled by IREE's Python compiler
(`iree-base-compiler` and `iree-base-runtime` from PyPI, in the front-end
environment): llvm-cpu for the host's CPU (target="cpu"), or CUDA for a chip
(target="cuda"). A call takes and returns torch tensors, as a `linea.Model`
does; the outputs are on the first input's device.
"""

import pathlib

import numpy as np

from .runner import LineaError

# IREE's llvm-cpu driver: local-sync runs a call on the calling thread,
# local-task on a worker per core.
CPU_DRIVERS = {True: "local-sync", False: "local-task"}


def _iree():
    try:
        import iree.compiler
        import iree.runtime
    except ImportError as error:
        raise LineaError(1, "backend='iree' needs IREE's Python packages "
                            "(pip install iree-base-compiler iree-base-runtime; "
                            "scripts/install-frontend.sh installs them)") from error
    return iree.compiler, iree.runtime


# The newest chip IREE 3.13's CUDA target describes: its PTX runs on later
# chips (the driver compiles it for a Hopper), sm_90's own features unused.
IREE_NEWEST_CUDA_CHIP = "sm_89"


def cuda_target(chip):
    """IREE's name for the chip: `sm_90a` and newer as the newest it knows,
    and so is no chip (Linea's default chip is an H100's)."""
    if not chip:
        return IREE_NEWEST_CUDA_CHIP
    number = int("".join(c for c in chip.removeprefix("sm_") if c.isdigit()) or 0)
    return IREE_NEWEST_CUDA_CHIP if number >= 90 else chip.rstrip("a")


def compile_flags(target, chip):
    """iree-compile's flags for the target: the host's CPU, or a CUDA chip."""
    if target == "cpu":
        return ["--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host"]
    if target == "cuda":
        return ["--iree-hal-target-device=cuda", f"--iree-cuda-target={cuda_target(chip)}"]
    raise LineaError(1, f"unknown target {target!r}; expected 'cpu' or 'cuda'")


def compile_vmfb(text, target="cpu", chip=None):
    """The module compiled by IREE: the bytes of its .vmfb."""
    compiler, _ = _iree()
    try:
        return compiler.compile_str(text, extra_args=compile_flags(target, chip))
    except compiler.CompilerToolError as error:
        raise LineaError(1, f"iree-compile failed on the hand-off: {error}") from error


class IreeModel:
    """A model compiled by IREE from Linea's hand-off. `source` is the
    imported IR, `handoff` what Linea gave IREE (`linea.export`'s text),
    `vmfb` IREE's module."""

    def __init__(self, source, handoff, name, target="cpu", chip=None,
                 weights_of=None, one_thread=True):
        self.source = source
        self.handoff = handoff
        self.name = name
        self.target = target
        self._weights_of = weights_of
        self.vmfb = compile_vmfb(handoff, target, chip)
        _, runtime = _iree()
        driver = "cuda" if target == "cuda" else CPU_DRIVERS[bool(one_thread)]
        self._module = runtime.load_vm_flatbuffer(self.vmfb, driver=driver)

    def __call__(self, *inputs):
        import torch
        # The inputs' gradients cannot be had; the weights' (which require
        # grad by default) are not asked for here, and the outputs carry no
        # graph, so a backward through them is torch's own error.
        if torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad
                                           for x in inputs):
            raise LineaError(1, f"linea.IreeModel {self.name}: backward through IREE is not "
                                "supported; train with the default backend='linea'")
        if self._weights_of is not None:
            inputs = inputs + tuple(self._weights_of.parameters())
        device = next((x.device for x in inputs if isinstance(x, torch.Tensor)), None)
        arrays = [x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
                  for x in inputs]
        results = self._module.main(*arrays)
        results = results if isinstance(results, (list, tuple)) else [results]
        # Copied while IREE's arrays live: to_host() can be a view of their
        # buffers, which go with them.
        tensors = [torch.from_numpy(np.array(r.to_host(), copy=True)) for r in results]
        if device is not None:
            tensors = [t.to(device) for t in tensors]
        return tensors[0] if len(tensors) == 1 else tuple(tensors)

    def save_handoff(self, path):
        """Writes the hand-off (MLIR text) to `path`."""
        pathlib.Path(path).write_text(self.handoff)

    def __repr__(self):
        return f"<linea.IreeModel {self.name}: IREE {self.target}>"
