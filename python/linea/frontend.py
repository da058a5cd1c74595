"""From PyTorch and ONNX to a Linea kernel: `linea.from_torch`, `linea.from_onnx`.

torch-mlir imports the model into MLIR's linalg IR (its FX importer for a
`torch.nn.Module` through `torch.export`, its ONNX importer for an ONNX
graph); `linea.compile` then raises the sequence-mixing layers it recognizes
exactly into Linea ops (`linea-raise`), optimizes and compiles the whole
model. Both need torch-mlir (and PyTorch >= 2.1 for `from_torch`), which
Debian does not package: `scripts/install-frontend.sh` makes a virtual
environment with them in `.deps/frontend` (see docs/FrontEnds.md).

The IR keeps the model's source locations (`model.py:42`), so the raise
report and run-time errors name the line of the model they are about.
"""

import contextlib
import hashlib
import os
import pathlib
import re
import sys
import threading
import time

from . import autograd
from ._version import __version__
from .compiler import _torch, cache_dir
from .compiler import compile as _compile
from .fx_locations import point_at_user_code
from .fx_views import collapse_dynamic_merges
from .report import raise_report  # noqa: F401 (linea.frontend.raise_report)
from .runner import LineaError

_INSTALL_HINT = ("torch-mlir (and PyTorch >= 2.1) are not importable from this Python; "
                 "scripts/install-frontend.sh makes .deps/frontend with them: run "
                 ".deps/frontend/bin/python (docs/FrontEnds.md)")

# torch.export specializes sizes 0 and 1; a dynamic dim is declared from 2 up
# (the compiled kernel takes 1 too: Linea's IR has no such guard).
_MIN_DYNAMIC = 2
_MAX_DYNAMIC = 1 << 30


# A stage that takes longer than this says so on stderr.
_QUIET_SECONDS = 3.0


@contextlib.contextmanager
def _stage(what):
    """Prints `linea: WHAT ...` if the stage is still running after a few
    seconds (a large model's export or compile), and how long it took."""
    start = time.monotonic()
    announce = threading.Timer(_QUIET_SECONDS,
                               lambda: print(f"linea: {what} ...", file=sys.stderr, flush=True))
    announce.daemon = True
    announce.start()
    try:
        yield
    finally:
        announce.cancel()
        seconds = time.monotonic() - start
        if seconds >= _QUIET_SECONDS:
            print(f"linea: {what}: {seconds:.1f} s", file=sys.stderr, flush=True)


def _torch_mlir():
    try:
        import torch  # noqa: F401
        from torch_mlir import fx
    except ImportError as error:
        raise LineaError(1, f"{_INSTALL_HINT} ({error})") from None
    return fx


def _dynamic_shapes(torch, inputs, dynamic):
    """`{input_index: {dim: "name"}}` as torch.export's dynamic_shapes: one
    `Dim` per name, shared by every input dim that names it."""
    if not dynamic:
        return None
    dims = {}
    shapes = [None] * len(inputs)
    for index, named in dynamic.items():
        if not isinstance(index, int) or not 0 <= index < len(inputs):
            raise LineaError(1, f"dynamic: input {index!r} is not one of the "
                                f"{len(inputs)} example inputs (give their positions)")
        rank = inputs[index].dim()
        for dim, name in named.items():
            if not isinstance(dim, int) or not -rank <= dim < rank:
                raise LineaError(1, f"dynamic: input {index} has rank {rank}, no dim {dim!r}")
            if name not in dims:
                dims[name] = torch.export.Dim(str(name), min=_MIN_DYNAMIC, max=_MAX_DYNAMIC)
            shapes[index] = {**(shapes[index] or {}), dim % rank: dims[name]}
    return tuple(shapes)


def _first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _weights_as_inputs(torch, module):
    """`module` as a function of its inputs followed by its parameters (in
    `named_parameters` order). Buffers stay constants: a registered mask is
    a table the raise reads."""
    names = [name for name, _ in module.named_parameters()]

    class WeightsAsInputs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = module

        def forward(self, *args):
            inputs, weights = args[:len(args) - len(names)], args[len(args) - len(names):]
            return torch.func.functional_call(self.inner, dict(zip(names, weights)), inputs)

    return WeightsAsInputs()


def _module_fingerprint(torch, module, weights, digest):
    """Feeds into `digest` what the export of `module` depends on: each
    submodule's class and the source file it is defined in (the helpers
    its forward calls beside it), its plain attributes (`self.heads = 4`),
    its buffers' values and its parameters' names, shapes, dtypes and, with
    weights="constants", values. False where that cannot be known (a class
    without a source file, a hook): then nothing is cached."""
    import inspect
    files = {}
    internal = set(vars(torch.nn.Module()))  # a module's own bookkeeping
    for path, sub in module.named_modules():
        cls = type(sub)
        if getattr(sub, "_forward_hooks", None) or getattr(sub, "_forward_pre_hooks", None):
            return False
        try:
            source = inspect.getsourcefile(cls)
            if source not in files:
                files[source] = pathlib.Path(source).read_bytes()
        except (OSError, TypeError):
            return False
        digest.update(f"\0module {path} {cls.__module__}.{cls.__qualname__} {source}".encode())
        plain = (bool, int, float, str, type(None))
        for key, value in sorted(vars(sub).items()):
            if key in internal and key != "training":
                continue
            if isinstance(value, plain) or (isinstance(value, (tuple, list)) and
                                            all(isinstance(v, plain) for v in value)):
                digest.update(f"\0{key}={value!r}".encode())
            else:
                # Anything else forward may read (a tensor attribute, a
                # function) has no value to key by: no cache.
                return False
    for source, text in sorted(files.items()):
        digest.update(f"\0file {source}".encode() + hashlib.sha256(text).digest())
    tensors = [("buffer", name, b) for name, b in module.named_buffers()]
    tensors += [("parameter", name, p) for name, p in module.named_parameters()]
    for kind, name, tensor in tensors:
        tensor = tensor.detach()
        digest.update(f"\0{kind} {name} {tuple(tensor.shape)} {tensor.dtype}".encode())
        if kind == "buffer" or weights == "constants":
            data = tensor.cpu().contiguous()
            if data.dtype == torch.bfloat16:
                data = data.view(torch.int16)
            try:
                digest.update(data.numpy().tobytes())
            except (TypeError, RuntimeError):  # a dtype numpy lacks
                return False
    return True


def _export_cache_path(torch, module, example_inputs, dynamic, weights):
    """Where the export of these module and inputs is cached
    (`cache_dir()/exports/<sha256>.mlir`), or None where it cannot be (see
    `_module_fingerprint`, or LINEA_EXPORT_CACHE=0)."""
    if os.environ.get("LINEA_EXPORT_CACHE", "1") == "0":
        return None
    try:
        from importlib.metadata import version
        torch_mlir_version = version("torch-mlir")
    except Exception:  # (not installed as a distribution)
        torch_mlir_version = "unknown"
    digest = hashlib.sha256()
    for code in sorted(pathlib.Path(__file__).parent.glob("*.py")):  # the exporter's code
        digest.update(code.name.encode() + b"\0" + code.read_bytes())
    digest.update(f"{__version__} {torch.__version__} {torch_mlir_version} "
                  f"{weights} {sorted((int(i), sorted(d.items())) for i, d in (dynamic or {}).items())}"
                  .encode())
    for x in example_inputs:
        digest.update(f"\0input {tuple(x.shape)} {x.dtype}".encode())
    if not _module_fingerprint(torch, module, weights, digest):
        return None
    return cache_dir() / "exports" / (digest.hexdigest() + ".mlir")


def _decomposed_program(torch, module, example_inputs, shapes):
    """torch.export's program, decomposed as torch-mlir's importer would
    (its default table), with the views torch-mlir lowers wrongly rewritten
    (fx_views.py): what `fx.export_and_import` then imports as it is."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table
    program = torch.export.export(module, tuple(example_inputs), dynamic_shapes=shapes,
                                  strict=False)
    program = program.run_decompositions(get_decomposition_table())
    collapse_dynamic_merges(program)
    point_at_user_code(program)  # locations at the model's lines (fx_locations.py)
    return program


def export_torch(module, *example_inputs, dynamic=None, weights="constants"):
    """The module's forward as linalg-on-tensors MLIR text (entry `@main`,
    source locations kept), by torch.export and torch-mlir's FX importer.
    `weights="constants"` puts the parameters into the IR;
    `weights="arguments"` makes them arguments after the inputs, in
    `named_parameters()` order.

    Exports are cached (`cache_dir()/exports/<sha256>.mlir`), keyed by the
    module's classes and their source files, its plain attributes, buffers
    and parameters (their values with weights="constants"), the inputs'
    shapes and dtypes, `dynamic`, `weights` and the versions of Linea,
    torch and torch-mlir: the same module exported again is read back.
    LINEA_EXPORT_CACHE=0 turns the cache off."""
    fx = _torch_mlir()
    import torch
    if weights not in ("constants", "arguments"):
        raise LineaError(1, f"weights={weights!r}; expected 'constants' or 'arguments'")
    if not isinstance(module, torch.nn.Module):
        raise LineaError(1, f"from_torch takes a torch.nn.Module, given {type(module).__name__}")
    for k, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor):
            raise LineaError(1, f"example input {k} is a {type(x).__name__}; "
                                "from_torch takes tensors")
    # torch.export reads one tensor passed twice (`m(x, x, x)`) as one input
    # used twice, and the exported function would then ignore its other
    # arguments: each example input gets storage of its own.
    seen = set()
    distinct = []
    for x in example_inputs:
        key = x.untyped_storage().data_ptr()
        distinct.append(x.clone() if key in seen else x)
        seen.add(key)
    example_inputs = tuple(distinct)
    shapes = _dynamic_shapes(torch, example_inputs, dynamic)
    name = type(module).__name__
    module = module.eval()
    cached = _export_cache_path(torch, module, example_inputs, dynamic, weights)
    if cached is not None and cached.is_file():
        return cached.read_text()
    if weights == "arguments":
        parameters = tuple(p.detach() for p in module.parameters())
        module = _weights_as_inputs(torch, module)
        if shapes is not None:  # (one entry, for `*args`)
            shapes = (shapes + (None,) * len(parameters),)
        example_inputs = example_inputs + parameters
    try:
        imported = fx.export_and_import(_decomposed_program(torch, module, example_inputs, shapes),
                                        output_type="linalg-on-tensors", func_name="main",
                                        decomposition_table={})
    except Exception as error:  # torch.export and torch-mlir raise many kinds
        raise LineaError(1, f"exporting {name} failed: "
                            f"{type(error).__name__}: {_first_line(error)}") from error
    text = _dense_booleans(imported.operation.get_asm(enable_debug_info=True))
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(text)
        os.replace(partial, cached)  # atomic: readers see all of it or none
    return text


def import_onnx(path_or_model):
    """An ONNX model (a path or an onnx.ModelProto) as linalg-on-tensors MLIR
    text, by torch-mlir's ONNX importer and its lowering pipelines."""
    try:
        import onnx
        from torch_mlir.compiler_utils import run_pipeline_with_repro_report
        from torch_mlir.dialects import torch as torch_d
        from torch_mlir.extras import onnx_importer
        from torch_mlir.ir import Context
    except ImportError as error:
        raise LineaError(1, f"{_INSTALL_HINT} ({error})") from None
    model = path_or_model
    if isinstance(model, (str, pathlib.Path)):
        try:
            model = onnx.load(str(model))
        except Exception as error:
            raise LineaError(1, f"cannot read ONNX model {path_or_model}: "
                                f"{_first_line(error)}") from error
    try:
        model = onnx.shape_inference.infer_shapes(model)
        context = Context()
        torch_d.register_dialect(context)
        info = onnx_importer.ModelInfo(model)
        imported = info.create_module(context=context).operation
        onnx_importer.NodeImporter.define_function(info.main_graph, imported).import_all()
        for pipeline in ("torch-onnx-to-torch-backend-pipeline",
                         "torch-backend-to-linalg-on-tensors-backend-pipeline"):
            run_pipeline_with_repro_report(imported, f"builtin.module({pipeline})", pipeline)
    except Exception as error:
        raise LineaError(1, f"importing the ONNX model failed: {type(error).__name__}: "
                            f"{_first_line(error)}") from error
    # (No locations: the ONNX importer has only node names, often empty.)
    return _dense_booleans(imported.get_asm())


def _dense_booleans(text):
    """torch-mlir's MLIR prints boolean constants (an ONNX `Where` mask) one
    byte per element, as `dense<"0x...">` or as a `dense_resource` blob;
    MLIR 22 reads i1 data as packed bits and rejects both. They are written
    out as `dense<"0x...">` of the packed bits instead."""
    import numpy as np
    blobs = dict(re.findall(r'^\s*([\w.]+): "0x([0-9A-Fa-f]+)"', text, re.MULTILINE))

    def packed(match):
        groups = match.groups()
        kind, payload, shape = groups[0:3] if groups[0] else groups[3:6]
        count = int(np.prod([int(s) for s in shape.split("x") if s]))
        if kind == "dense_resource":
            if payload not in blobs:
                return match.group(0)
            data = bytes.fromhex(blobs[payload])[4:]  # (after the alignment)
        else:
            data = bytes.fromhex(payload)
            if len(data) != count or count == 1:  # packed already, or a splat
                return match.group(0)
        if len(data) != count:
            raise LineaError(1, f"boolean constant {payload}: {len(data)} bytes for "
                                f"{count} elements")
        bits = np.packbits(np.frombuffer(data, np.uint8) != 0, bitorder="little")
        return f'dense<"0x{bits.tobytes().hex()}"> : tensor<{shape}xi1>'

    return re.sub(r'(dense_resource)<([\w.]+)> : tensor<([0-9x]*)xi1>|'
                  r'(dense)<"0x([0-9A-Fa-f]+)"> : tensor<([0-9x]*)xi1>', packed, text)




class Model:
    """An imported model compiled by Linea: call it like the module (torch
    tensors in and out for `from_torch`; numpy arrays or torch tensors for
    `from_onnx`). `source` is the imported IR (None for a loaded model);
    `report()` says what was raised to which Linea op and what was left as
    written, and why. `library` is the compiled libkernel.so (kernel.json
    and kernel.h beside it); `save(path)` writes the model for `linea.load`
    (linea/saving.py), and a model pickles (`pickle`, `torch.save`)."""

    def __init__(self, kernel, source, name, weights_of=None, *, weights="constants",
                 parameters=None, dynamic=None, report=None, compile_options=None):
        self.kernel = kernel
        self.source = source
        self.name = name
        self.weights = weights  # "constants" or "arguments"
        # weights="arguments": [{"name", "shape", "dtype"}] of each parameter.
        self.parameters = list(parameters or [])
        self.dynamic = dynamic
        self._weights_of = weights_of
        self._report = report
        # How the forward was compiled: the gradient program is compiled alike.
        self.compile_options = dict(compile_options or {"target": kernel.target})
        self.raising = self.compile_options.pop("raising", True)
        self._gradient = None
        kernel.label = f"linea.Model {name}"

    @property
    def library(self):
        return self.kernel.library

    @property
    def target(self):
        return self.kernel.target

    def __call__(self, *inputs):
        if self._weights_of is not None:
            # The module's parameters as they are now: trained or fine-tuned
            # weights need no new compile.
            inputs = inputs + tuple(self._weights_of.parameters())
        elif self.weights == "arguments" and \
                len(inputs) == len(self.kernel.signature["args"]) - len(self.parameters):
            raise LineaError(1, f"linea.Model {self.name} takes its {len(self.parameters)} "
                                "weights as arguments after its inputs (weights='arguments'): "
                                "pass them, or load it with linea.load(path, module=...)")
        torch = _torch()
        if torch is not None and autograd.needs_gradient(torch, inputs):
            return autograd.call_recorded(self, inputs)
        if torch is not None:
            inputs = tuple(x.detach() if isinstance(x, torch.Tensor) else x for x in inputs)
        return self.kernel(*inputs)

    def gradient_kernel(self):
        """The compiled gradient program (`@main_vjp`, linea/autograd.py):
        the inputs, the weights (weights="arguments") and one cotangent per
        float output in; one gradient per float input and weight out."""
        if self._gradient is None:
            with _stage(f"compiling the gradient of {self.name} (linea-differentiate)"):
                self._gradient = autograd.gradient_kernel(self)
        return self._gradient

    def weights_from(self, module):
        """Takes the weights (weights="arguments") from `module`'s current
        parameters at each call; they must have the saved names and shapes."""
        if self.weights != "arguments":
            raise LineaError(1, f"linea.Model {self.name} holds its weights "
                                f"(weights={self.weights!r}); it takes no module")
        given = [(name, list(p.shape)) for name, p in module.named_parameters()]
        saved = [(p["name"], list(p["shape"])) for p in self.parameters]
        if given != saved:
            raise LineaError(1, f"the module's parameters {given} are not the ones "
                                f"linea.Model {self.name} was compiled with {saved}")
        self._weights_of = module
        return self

    def save(self, path, gradient=False):
        """Writes the model to the directory `path` (linea/saving.py says
        what is in it); `linea.load(path)` reads it back. `gradient=True`
        saves the compiled gradient program too: the loaded model trains."""
        from . import saving
        return saving.save(self, path, gradient=gradient)

    def __reduce__(self):
        from . import saving
        return (saving._model_from_state, (saving._state(self),))

    def report(self, explain=1):
        """The raise report (linea/report.py); `explain=2` gives each
        reason whole instead of one line of at most 160 characters."""
        if self._report is None and self.source is None:
            return "linea-raise: no report (the model was saved without one)"
        if int(explain) >= 2 and self.source is not None:
            return raise_report(self.source, explain=explain)
        if self._report is None:
            self._report = raise_report(self.source)
        return self._report

    def __repr__(self):
        return f"<linea.Model {self.name}: {self.kernel!r}>"


def from_torch(module, *example_inputs, dynamic=None, target="cpu", weights="constants",
               explain=False, backend="linea", **options):
    """A `torch.nn.Module` as a Linea kernel: exported with torch.export and
    torch-mlir at the example inputs' shapes, but for the dims `dynamic`
    marks (`{input_index: {dim: "name"}}`, one name per size: `{0: {1: "L"},
    1: {1: "L"}}`), so that one kernel serves every length.
    `weights="arguments"` keeps the parameters out of the IR: each call
    passes the module's current ones, so one kernel serves new weights.
    `target` and the keywords are `linea.compile`'s; `explain=True` prints
    the raise report (`explain=2`: each reason whole, not one line).
    `backend="iree"` hands Linea's rewrite to IREE instead (`linea.export`,
    then IREE's compiler for the CPU or, with target="cuda", a CUDA chip):
    the keywords are then `linea.export`'s, and the model is a
    `linea.iree.IreeModel` (inference only)."""
    if backend not in ("linea", "iree"):
        raise LineaError(1, f"backend={backend!r}; expected 'linea' or 'iree'")
    with _stage(f"exporting {type(module).__name__} (torch.export, torch-mlir)"):
        text = export_torch(module, *example_inputs, dynamic=dynamic, weights=weights)
    if backend == "iree":
        return _iree_model(module, text, target, weights, options)
    with _stage(f"compiling {type(module).__name__} (linea-compile, target {target})"):
        kernel = _compile(text, target=target, **options)
    parameters = [{"name": name, "shape": list(p.shape),
                   "dtype": str(p.dtype).replace("torch.", "")}
                  for name, p in module.named_parameters()] if weights == "arguments" else None
    model = Model(kernel, text, type(module).__name__,
                  weights_of=module if weights == "arguments" else None,
                  weights=weights, parameters=parameters, dynamic=dynamic,
                  compile_options={"target": target, **options})
    if explain:
        print(model.report(explain=explain))
    return model


def _iree_model(module, text, target, weights, options):
    """The exported module handed off by Linea and compiled by IREE."""
    from . import compiler, iree
    name = type(module).__name__
    with _stage(f"handing {name} off (linea-export, target {target})"):
        handoff = compiler.export(text, target=target, **options)  # "cuda" is "gpu" there
    with _stage(f"compiling {name} with IREE (target {target})"):
        return iree.IreeModel(text, handoff, name, target=target,
                              chip=options.get("chip"),
                              weights_of=module if weights == "arguments" else None)


def from_onnx(path_or_model, target="cpu", explain=False, **options):
    """An ONNX model (a file or an onnx.ModelProto) as a Linea kernel; its
    dynamic dims (a symbolic `L`) stay dynamic. Keywords as for `from_torch`."""
    with _stage("importing the ONNX model (torch-mlir)"):
        text = import_onnx(path_or_model)
    with _stage(f"compiling the ONNX model (linea-compile, target {target})"):
        kernel = _compile(text, target=target, **options)
    name = pathlib.Path(path_or_model).name if isinstance(path_or_model, (str, pathlib.Path)) \
        else "onnx"
    model = Model(kernel, text, name, compile_options={"target": target, **options})
    if explain:
        print(model.report(explain=explain))
    return model
