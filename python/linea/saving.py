"""Saving and loading compiled models: `model.save(path)`, `linea.load(path)`,
and pickling (`pickle.dumps(model)`, `torch.save(model, f)`).

A saved model is a directory:

    model.json     what the model is: its name, entry function, target and
                   chip, signature (`?` for a dynamic dim), the dims the
                   export marked dynamic, the weights mode and, for
                   weights="arguments", the parameters' names, shapes and
                   dtypes (never their values)
    libkernel.so   the compiled library (with weights="constants", the
                   weights are in it)
    kernel.json    its signature, as linea-compile wrote it
    kernel.h       its C interface
    report.txt     the raise report (`model.report()`), if there was one
    explain.txt    the cost model's remarks, if `explain=1` asked for them
    gradient/      with `save(path, gradient=True)`: the compiled gradient
                   program (`@main_vjp`: libkernel.so, kernel.json, kernel.h),
                   so that the loaded model trains (`loss.backward()`)
                   where no compiler is

Loading needs neither torch-mlir nor Linea's compiler: only numpy (and
torch, to pass torch tensors). The library is installed into the cache
(`cache_dir()/libraries/<hash>/`) and loaded from there. A model compiled
for target="cuda" loads anywhere; calling it needs a CUDA device.
"""

import hashlib
import json
import pathlib
import shutil

from ._version import __version__
from .compiler import Kernel, _library_files, install_library
from .runner import LineaError

FORMAT = "linea.model"
FORMAT_VERSION = 1
MANIFEST = "model.json"
REPORT = "report.txt"
GRADIENT = "gradient"


def _dynamic_to_json(dynamic):
    return [[int(index), int(dim), str(name)] for index, dims in (dynamic or {}).items()
            for dim, name in dims.items()]


def _dynamic_from_json(entries):
    dynamic = {}
    for index, dim, name in entries or []:
        dynamic.setdefault(index, {})[dim] = name
    return dynamic or None


def _state(model, gradient=None):
    """Everything a Model is, but its weights (with weights="arguments") and
    its imported IR: the library's files as bytes, and the metadata; the
    gradient program's too with `gradient` (None: where one is compiled, as
    a pickle keeps it)."""
    if gradient is None:
        gradient = model._gradient is not None
    report = model._report
    if report is None and model.source is not None:
        try:
            report = model.report()
        except (LineaError, OSError):  # no linea-opt here: saved without one
            report = None
    kernel = model.kernel
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "linea_version": __version__,
        "name": model.name,
        "entry": kernel.signature["name"],
        "target": kernel.target,
        "chip": kernel.chip,
        "signature": kernel.signature,
        "dynamic": _dynamic_to_json(model.dynamic),
        "weights": model.weights,
        "parameters": model.parameters,
        "report": report,
        "files": _library_files(kernel.library),
        "gradient_files": (_library_files(model.gradient_kernel().library)
                           if gradient else None),
    }


def _model(state, module=None):
    from .frontend import Model  # (frontend imports this module's users)
    if state.get("format") != FORMAT:
        raise LineaError(1, f"not a saved Linea model (format {state.get('format')!r})")
    if state.get("format_version", 0) > FORMAT_VERSION:
        raise LineaError(1, f"saved by a newer Linea (model format "
                            f"{state['format_version']}; this Linea {__version__} reads "
                            f"{FORMAT_VERSION})")
    kernel = Kernel(install_library(state["files"]), state["entry"])
    model = Model(kernel, None, state["name"], weights=state["weights"],
                  parameters=state["parameters"],
                  dynamic=_dynamic_from_json(state["dynamic"]), report=state["report"])
    if state.get("gradient_files"):
        model._gradient = Kernel(install_library(state["gradient_files"]),
                                 state["entry"] + "_vjp")
    if module is not None:
        model.weights_from(module)
    return model


def _model_from_state(state):
    """Unpickles a Model (Model.__reduce__)."""
    return _model(state)


def save(model, path, gradient=False):
    """Writes `model` to the directory `path` (made; a directory that holds
    anything but a saved model is refused). `gradient=True` saves its
    gradient program too (compiled first if no backward() has). Returns
    the path."""
    path = pathlib.Path(path)
    if path.exists() and (not path.is_dir() or
                          (any(path.iterdir()) and not (path / MANIFEST).exists())):
        raise LineaError(1, f"{path} exists and is not a saved Linea model: "
                            "save into a new or empty directory")
    state = _state(model, gradient)
    files = state.pop("files")
    gradient_files = state.pop("gradient_files")
    report = state.pop("report")
    state["library_sha256"] = hashlib.sha256(files["libkernel.so"]).hexdigest()
    path.mkdir(parents=True, exist_ok=True)
    for name in ("libkernel.so", "kernel.json", "kernel.h", "explain.txt", REPORT):
        (path / name).unlink(missing_ok=True)
    for name, data in files.items():
        (path / name).write_bytes(data)
    if report is not None:
        (path / REPORT).write_text(report + "\n")
    shutil.rmtree(path / GRADIENT, ignore_errors=True)  # (a former save's)
    if gradient_files:
        (path / GRADIENT).mkdir()
        for name, data in gradient_files.items():
            (path / GRADIENT / name).write_bytes(data)
    (path / MANIFEST).write_text(json.dumps(state, indent=2) + "\n")
    return path


def load(path, module=None):
    """The Model saved at `path` by `model.save(path)`, ready to call in a
    process without torch-mlir or Linea's compiler.

    A model saved with weights="arguments" holds no weights: call it with
    the inputs followed by the parameters (in `named_parameters()` order),
    or give `module=` (a torch.nn.Module with parameters of the saved
    names and shapes) to take them from at each call, as `from_torch` does.
    """
    path = pathlib.Path(path)
    if not (path / MANIFEST).is_file():
        raise LineaError(1, f"no saved Linea model at {path} (no {MANIFEST})")
    state = json.loads((path / MANIFEST).read_text())
    files = {}
    for name in ("libkernel.so", "kernel.json", "kernel.h", "explain.txt"):
        if (path / name).is_file():
            files[name] = (path / name).read_bytes()
    if "libkernel.so" not in files or "kernel.json" not in files:
        raise LineaError(1, f"the saved model at {path} lacks libkernel.so or kernel.json")
    digest = hashlib.sha256(files["libkernel.so"]).hexdigest()
    if state.get("library_sha256") not in (None, digest):
        raise LineaError(1, f"{path / 'libkernel.so'} is not the library saved with "
                            f"{path / MANIFEST} (its SHA-256 differs)")
    state["files"] = files
    state["gradient_files"] = None
    if (path / GRADIENT / "libkernel.so").is_file():
        state["gradient_files"] = {name: (path / GRADIENT / name).read_bytes()
                                   for name in ("libkernel.so", "kernel.json", "kernel.h")
                                   if (path / GRADIENT / name).is_file()}
    report = path / REPORT
    state["report"] = report.read_text().rstrip("\n") if report.is_file() else None
    return _model(state, module)

