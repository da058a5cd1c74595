"""linea.compile: a Linea program as an in-process callable.

`linea-compile` builds a shared library (cached under ~/.cache/linea, or
$LINEA_CACHE_DIR); the Kernel loads it with ctypes and calls
`linea_checked_F` with strided memref descriptors that point straight into
the caller's arrays (no copy for C-contiguous input).
"""

import ctypes
import functools
import hashlib
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

from .runner import LineaError, build_dir


def _torch():
    """torch if the caller has imported it (only then can it pass tensors):
    `import linea` does not pay for importing torch."""
    return sys.modules.get("torch")

# The numpy storage of each tensor dtype; bf16 (no numpy dtype) travels as its
# raw 16 bits, from and to torch.bfloat16.
_STORAGE = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
            "bf16": np.dtype(np.int16)}
_NAMES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}

_LIBC = ctypes.CDLL(None)
_LIBC.free.argtypes = [ctypes.c_void_p]
_DESCRIPTORS = {}


def _descriptor(rank):
    """ctypes struct of a rank-`rank` f32 memref descriptor."""
    if rank not in _DESCRIPTORS:
        _DESCRIPTORS[rank] = type(f"MemRef{rank}", (ctypes.Structure,), {"_fields_": [
            ("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
            ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * rank),
            ("strides", ctypes.c_int64 * rank)]})
    return _DESCRIPTORS[rank]


def _linea_compile_path():
    return (build_dir() / "bin" / "linea-compile").resolve()


@functools.lru_cache(maxsize=None)
def _version():
    done = subprocess.run([str(_linea_compile_path()), "--version"], capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def cache_dir():
    return pathlib.Path(os.environ.get("LINEA_CACHE_DIR",
                                       pathlib.Path.home() / ".cache" / "linea"))


def compile(source_or_path, entry=None, target="cpu", pipeline=None):  # noqa: A001
    """Compiles MLIR text (or a path to a .mlir file) and returns a Kernel for
    `entry` (default: the only public function)."""
    if target != "cpu":
        raise LineaError(1, f"target {target!r} is not available yet; expected 'cpu'")
    text = source_or_path
    if isinstance(source_or_path, pathlib.Path) or (
            isinstance(source_or_path, str) and "\n" not in source_or_path
            and source_or_path.endswith(".mlir")):
        text = pathlib.Path(source_or_path).read_text()
    key = hashlib.sha256("\0".join([text, entry or "", target, pipeline or "",
                                    _version()]).encode()).hexdigest()[:32]
    directory = cache_dir() / key
    library = directory / "libkernel.so"
    if not library.exists():
        directory.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=directory.parent) as tmp:
            (pathlib.Path(tmp) / "kernel.mlir").write_text(text)
            # Relative paths: run-time check messages say `kernel.mlir:L:C`.
            cmd = [str(_linea_compile_path()), "kernel.mlir", "-o", "libkernel.so"]
            if entry:
                cmd += ["--entry", entry]
            if pipeline:
                cmd += ["--pipeline", pipeline]
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
            if done.returncode != 0:
                raise LineaError(done.returncode, done.stderr)
            try:
                os.rename(tmp, directory)  # atomic: a concurrent compile may win
            except OSError:
                pass
    return Kernel(library, entry)


class Kernel:
    """A compiled entry function: `kernel(*args)` with numpy arrays or CPU
    torch tensors of the signature's dtype (float32, float16; bfloat16 as a
    torch tensor) and ints for index arguments; returns one array (or a
    tuple), of the kind given."""

    def __init__(self, library, entry=None):
        manifest = json.loads((pathlib.Path(library).parent / "kernel.json").read_text())
        functions = manifest["functions"]
        if entry is None and len(functions) != 1:
            raise LineaError(1, f"{len(functions)} entry functions; name one with entry=")
        self.signature = next((f for f in functions if entry in (None, f["name"])), None)
        if self.signature is None:
            raise LineaError(1, f"no entry function @{entry}")
        self._lib = ctypes.CDLL(str(library))
        self._fn = getattr(self._lib, "linea_checked_" + self.signature["name"])
        self._fn.restype = ctypes.c_int
        self._lib.linea_last_error.restype = ctypes.c_char_p
        results = self.signature["results"]
        self._result_types = [_descriptor(len(r["shape"])) for r in results]
        self._results_struct = type("Results", (ctypes.Structure,), {"_fields_": [
            (f"r{k}", t) for k, t in enumerate(self._result_types)]})

    def _bind(self, k, spec, arg, keep):
        if spec["kind"] == "scalar":
            if not isinstance(arg, (int, np.integer)):
                raise LineaError(1, f"argument {k}: expected an int for {spec['dtype']}, "
                                    f"given {type(arg).__name__}")
            return ctypes.c_int64(int(arg))
        dtype = spec["dtype"]
        torch = _torch()
        if torch is not None and isinstance(arg, torch.Tensor):
            if arg.device.type != "cpu":
                raise LineaError(1, f"argument {k}: a {arg.device.type} tensor; "
                                    "target='cpu' takes CPU tensors")
            given = str(arg.dtype).replace("torch.", "")
            if given != _NAMES[dtype]:
                raise LineaError(1, f"argument {k}: expected dtype {_NAMES[dtype]}, "
                                    f"given {given}")
            arg = arg.detach()
            arg = (arg.view(torch.int16) if dtype == "bf16" else arg).numpy()
        if not isinstance(arg, np.ndarray):
            raise LineaError(1, f"argument {k}: expected an array, given {type(arg).__name__}")
        if arg.dtype != _STORAGE[dtype]:
            want = _NAMES[dtype] + (" (a torch.bfloat16 tensor, or its bits as int16)"
                                    if dtype == "bf16" else "")
            raise LineaError(1, f"argument {k}: expected dtype {want}, given {arg.dtype}")
        shape = spec["shape"]
        if arg.ndim != len(shape) or any(s != "?" and s != g for s, g in zip(shape, arg.shape)):
            want = "(" + ", ".join(str(s) for s in shape) + ")"
            raise LineaError(1, f"argument {k}: expected shape {want}, given {arg.shape}")
        if not arg.flags.c_contiguous:
            arg = np.ascontiguousarray(arg)
        keep.append(arg)
        # (`arr.ctypes.data` costs microseconds; the array interface does not.)
        data = arg.__array_interface__["data"][0]
        rank = arg.ndim
        size = arg.itemsize
        desc = _descriptor(rank)(data, data, 0, (ctypes.c_int64 * rank)(*arg.shape),
                                 (ctypes.c_int64 * rank)(*[t // size for t in arg.strides]))
        keep.append(desc)
        return ctypes.byref(desc)

    def __call__(self, *args):
        specs = self.signature["args"]
        if len(args) != len(specs):
            raise LineaError(1, f"expected {len(specs)} arguments, given {len(args)}")
        keep = []
        bound = [self._bind(k, spec, arg, keep) for k, (spec, arg) in
                 enumerate(zip(specs, args))]
        results = self._results_struct()
        out = [ctypes.byref(results)] if self._result_types else []
        if self._fn(*out, *bound) != 0:
            raise LineaError(1, self._lib.linea_last_error().decode())
        # Buffers not to free: the inputs' (a result may be an input).
        owned = {a.__array_interface__["data"][0] for a in keep if isinstance(a, np.ndarray)}
        dtypes = [r["dtype"] for r in self.signature["results"]]
        arrays = [self._take(getattr(results, f"r{k}"), _STORAGE[dtype], owned)
                  for k, dtype in enumerate(dtypes)]
        torch = _torch()
        if torch is not None and any(isinstance(a, torch.Tensor) for a in args):
            arrays = [torch.from_numpy(a).view(torch.bfloat16) if dtype == "bf16"
                      else torch.from_numpy(a) for a, dtype in zip(arrays, dtypes)]
        return arrays[0] if len(arrays) == 1 else tuple(arrays)

    @staticmethod
    def _take(desc, storage, owned):
        """The result as a numpy array of its own (`storage` elements); the
        library's buffer freed (once, and never an input's)."""
        rank = len(desc.sizes)
        size = storage.itemsize
        sizes = [desc.sizes[d] for d in range(rank)]
        strides = [desc.strides[d] * size for d in range(rank)]
        count = math.prod(sizes)
        base = desc.aligned + desc.offset * size
        dense = [size * math.prod(sizes[d + 1:]) for d in range(rank)]
        if count == 0:
            out = np.zeros(sizes, storage)
        elif strides == dense or count == 1:
            raw = (ctypes.c_char * (count * size)).from_address(base)
            out = np.frombuffer(raw, storage).reshape(sizes).copy()
        else:
            span = 1 + sum((s - 1) * t // size for s, t in zip(sizes, strides))
            raw = (ctypes.c_char * (span * size)).from_address(base)
            flat = np.frombuffer(raw, storage)
            out = np.lib.stride_tricks.as_strided(flat, shape=sizes, strides=strides).copy()
        if desc.allocated not in owned:
            owned.add(desc.allocated)
            _LIBC.free(desc.allocated)
        return out
