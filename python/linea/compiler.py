"""linea.compile: a Linea program as an in-process callable.

`linea-compile` builds a shared library (cached under ~/.cache/linea, or
$LINEA_CACHE_DIR); the Kernel loads it with ctypes and calls
`linea_checked_F` with strided memref descriptors that point straight into
the caller's arrays (no copy for C-contiguous input).

With target="cuda" the library holds the kernels for a chip and calls
libLineaCudaRuntime.so; the Kernel takes torch CUDA tensors, runs on torch's
current stream and returns torch CUDA tensors over the library's result
buffers (freed with them). A cached library needs no compiler: a machine
without MLIR (a GPU machine given a prebuilt cache, see scripts/gpu-check.sh)
runs what was compiled elsewhere. A CUDA Kernel loads its library and the CUDA
runtime at its first call, so a machine without a GPU still builds, saves and
pickles it; only calling it there is an error.

With `explain=1` the cost model's remarks (as `linea-opt
--linea-optimize=explain=1` prints them) are kept beside the library as
`explain.txt`, printed to stderr, and held as `kernel.explanation`, from the
cache too.
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

from ._version import __version__
from .runner import LineaError, build_dir


def _torch():
    """torch if the caller has imported it (only then can it pass tensors):
    `import linea` does not pay for importing torch."""
    return sys.modules.get("torch")

# The numpy storage of each tensor dtype; bf16 (no numpy dtype) travels as its
# raw 16 bits, from and to torch.bfloat16.
_STORAGE = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
            "bf16": np.dtype(np.int16), "i32": np.dtype(np.int32), "i64": np.dtype(np.int64),
            "index": np.dtype(np.int64)}
_NAMES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "i32": "int32",
          "i64": "int64", "index": "int64"}

_DESCRIPTORS = {}
# __cuda_array_interface__ type strings (bf16 has none: its bits as int16).
_TYPESTR = {"f32": "<f4", "f16": "<f2", "bf16": "<i2", "i32": "<i4", "i64": "<i8",
            "index": "<i8"}


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


def _machine_kind(target):
    """linea-opt's kind of machine for a Python target: "cpu", or "gpu" (which
    "cuda" names too); a LineaError for anything else."""
    kind = "gpu" if target == "cuda" else target
    if kind not in ("cpu", "gpu"):
        raise LineaError(1, f"unknown target {target!r}; expected 'cpu' or 'gpu'")
    return kind


def differentiate(source_or_path, raising=False, target="cpu", chip=None):
    """The program with a gradient function `@f_vjp(args..., d_results...) ->
    (d_args...)` added for each public `@f` (linea-opt --linea-differentiate);
    returns MLIR text for `compile(..., entry="f_vjp")` or `run`.
    `raising=True` raises the model's layers into Linea ops first
    (--linea-raise), so that the gradient is that of the O(L) forms.
    `target` ("cpu", or "gpu" / "cuda") is the machine the gradient will be
    compiled for: where the fastest backward differs by machine (a gated
    op with a gate per key dim: chunked on the GPU, row by row on the CPU)
    it chooses; either runs right on both. `chip` (a GPU's, "sm_80"; None:
    linea-compile's default, sm_90a) plans the module for that GPU first,
    so that the GPU form's blocks fit its shared memory; compile it for the
    same chip."""
    text = _source_text(source_or_path)
    target = _machine_kind(target)
    if chip is not None and target != "gpu":
        raise LineaError(1, f"chip={chip!r} names a GPU, but target={target!r}")
    passes = ["--linea-raise"] if raising else []
    if chip is not None:
        passes.append(f"--linea-plan-target=target=gpu chip={chip}")
    # With its locations: the source's (run-time checks name them) and the
    # kernel names the rules give the stages they build.
    done = subprocess.run([str((build_dir() / "bin" / "linea-opt").resolve()), "-",
                           *passes, f"--linea-differentiate=target={target}",
                           "--mlir-print-debuginfo"],
                          input=text, capture_output=True, text=True)
    if done.returncode != 0:
        raise LineaError(done.returncode, done.stderr)
    return done.stdout


def _source_text(source_or_path):
    """MLIR text, or the text of the .mlir file it names (a Path, or a
    one-line string ending in .mlir)."""
    if isinstance(source_or_path, pathlib.Path) or (
            isinstance(source_or_path, str) and "\n" not in source_or_path
            and source_or_path.endswith(".mlir")):
        return pathlib.Path(source_or_path).read_text()
    return source_or_path


def export(source_or_path, target="cpu", raising=True, **options):
    """The program handed off to another compiler (linea-opt --linea-export):
    raised, its forms chosen for `target` ("cpu" or "gpu"; "cuda" is taken
    for "gpu") and written in upstream MLIR only (linalg.generic, tensor,
    scf, arith, math, cf.assert for the run-time checks), for IREE,
    torch-mlir or any MLIR 22 pass pipeline. Keywords are the pipeline's
    options: chip, form, chunk_size, runtime_checks. Returns MLIR text."""
    text = _source_text(source_or_path)
    target = _machine_kind(target)
    # An option the pipeline does not take: linea-opt's one-line error names
    # it and the pipeline's options (the one list of them, in C++).
    pipeline = "linea-export{" + _option_text(
        {"target": target, "raise": bool(raising), **options}) + "}"
    done = subprocess.run([str((build_dir() / "bin" / "linea-opt").resolve()), "-",
                           f"--pass-pipeline=builtin.module({pipeline})"],
                          input=text, capture_output=True, text=True)
    if done.returncode != 0:
        raise LineaError(done.returncode, done.stderr)
    return done.stdout


def cache_dir():
    return pathlib.Path(os.environ.get("LINEA_CACHE_DIR",
                                       pathlib.Path.home() / ".cache" / "linea"))


def _option_text(options):
    """Keyword options as pass-pipeline options: chunk_size=64 -> chunk-size=64,
    booleans as 1/0."""
    def value(v):
        return str(int(v)) if isinstance(v, bool) else str(v)
    return " ".join(f"{k.replace('_', '-')}={value(v)}" for k, v in sorted(options.items()))


def _linea_compile_command(entry, target, pipeline, chip, options,
                           sequence_parallel=False, raising=True):
    """linea-compile's arguments past the input and output."""
    cmd = ["--entry", entry] if entry else []
    if not raising:
        cmd.append("--no-raise")
    if sequence_parallel:
        cmd.append("--sequence-parallel")
    if target == "cuda":
        if pipeline:
            raise LineaError(1, "target='cuda' takes pipeline options as keywords, "
                                "not pipeline=")
        # No chip: linea-compile's default (kDefaultGPUChip, the one copy).
        cmd += ["--target", "cuda"] + (["--chip", chip] if chip else [])
        if options:
            cmd += ["--options", _option_text(options)]
    elif target == "cpu":
        if pipeline and options:
            raise LineaError(1, "give either pipeline= or linea-optimize's options "
                                "as keywords, not both")
        if options:
            pipeline = "linea-optimize{" + _option_text(options) + "}"
        if pipeline:
            cmd += ["--pipeline", pipeline]
    else:
        raise LineaError(1, f"unknown target {target!r}; expected 'cpu' or 'cuda'")
    return cmd


def _compiler_build(compiler):
    """The linea-compile binary's identity (size and modification time), or
    None where there is none: a rebuilt compiler of the same version
    compiles anew instead of reusing the libraries the old one built."""
    try:
        status = compiler.stat()
    except OSError:
        return None
    return f"{status.st_size:x}-{status.st_mtime_ns:x}"


def compile_library(source_or_path, entry=None, target="cpu", pipeline=None,
                    chip=None, sequence_parallel=False, raising=True, **options):
    """The cached library of a program (compiled on a miss): the path of
    `libkernel.so`, with `kernel.json` and `kernel.h` beside it. Arguments as
    for `compile`; a GPU-less machine builds CUDA libraries this way.
    `sequence_parallel`: linea-sequence-parallel first (each rank's rows)."""
    text = _source_text(source_or_path)
    # What messages name: the file, where the program is one.
    name = pathlib.Path(source_or_path).name if text is not source_or_path else "kernel.mlir"
    args = _linea_compile_command(entry, target, pipeline, chip, options,
                                  sequence_parallel, raising)
    key = hashlib.sha256("\0".join([text, name, *args, __version__]).encode()).hexdigest()[:32]
    compiler = _linea_compile_path()
    build = _compiler_build(compiler)
    if build is None:
        # No compiler here (a GPU machine given a cache built elsewhere):
        # the newest library any compiler built for this program.
        built = sorted((cache_dir() / key).glob("*/libkernel.so"),
                       key=lambda path: path.stat().st_mtime)
        if built:
            return built[-1]
        raise LineaError(1, f"no compiled library for this program in {cache_dir()} and no "
                            f"{compiler} to build one (build Linea, or set LINEA_BUILD_DIR)")
    directory = cache_dir() / key / build
    library = directory / "libkernel.so"
    if library.exists():
        return library
    directory.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory.parent) as tmp:
        (pathlib.Path(tmp) / name).write_text(text)
        # A relative path: diagnostics and run-time check messages say
        # `attention.mlir:L:C` (the user's file name, or kernel.mlir for text).
        done = subprocess.run([str(compiler), name, "-o", "libkernel.so", *args],
                              capture_output=True, text=True, cwd=tmp)
        if done.returncode != 0:
            raise LineaError(done.returncode, done.stderr)
        if _explains(options) and done.stderr:
            # The cost model's remarks (linea-compile prints them), kept for
            # the cached library's users.
            (pathlib.Path(tmp) / EXPLANATION).write_text(done.stderr)
        try:
            os.rename(tmp, directory)  # atomic: a concurrent compile may win
        except OSError:
            pass
    return library


# The cost model's remarks for `explain=1`, beside the library.
EXPLANATION = "explain.txt"


def _explains(options):
    return bool(options.get("explain"))


def compile(source_or_path, entry=None, target="cpu", pipeline=None,  # noqa: A001
            chip=None, comm=None, raising=True, **options):
    """Compiles MLIR text (or a path to a .mlir file) and returns a Kernel for
    `entry` (default: the only public function).

    target="cpu": `pipeline` replaces linea-optimize, or keywords set its
    options (`form="chunked", chunk_size=128`). target="cuda": the kernels
    for `chip` (None: linea-compile's default, sm_90a); keywords set
    linea-lower-to-nvvm's options (`precision="bf16"` puts an f32 program's
    contractions on bf16 tensor cores; a bf16 or f16 op's go there by
    default, `precision="auto"`).

    `raising=False` leaves model IR as written; by default linea-raise
    turns the sequence-mixing layers it recognizes exactly into Linea ops.

    `comm` (an mpi4py communicator spanning MPI.COMM_WORLD, the compiled
    code's): a SequenceParallelKernel, the sequences split across its
    ranks (linea-sequence-parallel).

    `explain=1`: the cost model's remarks on every choice (as
    `linea-opt --linea-optimize=explain=1` prints them) go to stderr, on a
    cache hit too, and stay on the kernel as `kernel.explanation`."""
    if comm is not None:
        if target != "cpu":
            raise LineaError(1, "comm= (sequence parallelism) builds for target='cpu'")
        library = compile_library(source_or_path, entry, target, pipeline, chip,
                                  sequence_parallel=True, raising=raising, **options)
        return SequenceParallelKernel(_explained(Kernel(library, entry), options), comm)
    return _explained(Kernel(compile_library(source_or_path, entry, target, pipeline, chip,
                                             raising=raising, **options),
                             entry), options)


def _explained(kernel, options):
    """Prints the kernel's explanation where the caller asked for one."""
    if _explains(options):
        text = kernel.explanation or ("linea: explain=1: the cost model made no choice "
                                      "(no Linea op had a form to choose)\n")
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
        sys.stderr.flush()
    return kernel


def _library_files(library):
    """The library and the files beside it that a Kernel reads, as bytes."""
    directory = pathlib.Path(library).parent
    files = {"libkernel.so": pathlib.Path(library).read_bytes()}
    for name in ("kernel.json", "kernel.h", EXPLANATION):
        if (directory / name).exists():
            files[name] = (directory / name).read_bytes()
    return files


def install_library(files):
    """Writes a library's files (`{"libkernel.so": bytes, "kernel.json": ...}`)
    into the cache, under `libraries/` and the hash of their contents (once:
    a second install of the same bytes finds the first), and returns the
    path of its libkernel.so. Each content has a path of its own, so that
    the loader never takes one library for another of the same name."""
    if "libkernel.so" not in files or "kernel.json" not in files:
        raise LineaError(1, "a saved library needs libkernel.so and kernel.json")
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    directory = cache_dir() / "libraries" / digest.hexdigest()[:32]
    library = directory / "libkernel.so"
    if library.exists():
        return library
    directory.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory.parent) as tmp:
        for name, data in files.items():
            (pathlib.Path(tmp) / name).write_bytes(data)
        try:
            os.rename(tmp, directory)  # atomic: a concurrent install may win
        except OSError:
            pass
    return library


def _kernel_from_files(files, entry):
    """A pickled Kernel: its files installed in the cache, then loaded."""
    return Kernel(install_library(files), entry)


def cuda_runtime_path():
    """libLineaCudaRuntime.so: $LINEA_CUDA_RUNTIME, else the build's."""
    return pathlib.Path(os.environ.get("LINEA_CUDA_RUNTIME",
                                       build_dir() / "lib" / "libLineaCudaRuntime.so"))


@functools.lru_cache(maxsize=None)
def _cuda_runtime():
    """The CUDA runtime library, loaded once with global symbols (the kernel
    libraries bind to it by name, wherever they were linked), after torch
    has made its CUDA context current (the runtime uses the caller's)."""
    torch = _torch()
    if torch is None or not torch.cuda.is_available():
        raise LineaError(1, "target='cuda' needs torch with a CUDA device (import torch first)")
    path = cuda_runtime_path()
    if not path.exists():
        raise LineaError(1, f"no CUDA runtime library at {path} (set LINEA_CUDA_RUNTIME)")
    torch.cuda.init()
    torch.empty(1, device="cuda")  # the context exists and is current
    runtime = ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
    runtime.linea_cuda_set_stream.argtypes = [ctypes.c_void_p]
    return runtime


class _CudaBuffer:
    """A result buffer of a CUDA kernel seen by torch through
    __cuda_array_interface__; torch holds this object as long as any tensor
    over the buffer lives, and the buffer is freed with the last of them."""

    def __init__(self, owner, free, allocated, pointer, shape, strides, typestr):
        # A result sharing another's buffer keeps that buffer's owner alive.
        self._owner, self._free, self._allocated = owner, free, allocated
        self.__cuda_array_interface__ = {"shape": tuple(shape), "strides": tuple(strides),
                                         "typestr": typestr, "data": (pointer, False),
                                         "version": 2}

    def __del__(self):
        if self._free is not None:
            self._free(self._allocated)


class Kernel:
    """A compiled entry function: `kernel(*args)` with numpy arrays or CPU
    torch tensors of the signature's dtype (float32, float16, int32, int64
    such as token ids; bfloat16 as a torch tensor) and ints for index
    arguments; returns one array (or a
    tuple), of the kind given. A CUDA kernel takes and returns torch CUDA
    tensors.

    `kernel.library` is the path of its libkernel.so (kernel.json, the
    signature, and kernel.h, the C interface, beside it); `kernel.explanation`
    the cost model's remarks where `explain=1` asked for them (else None).
    A kernel pickles (the library's bytes travel with it and are installed
    in the cache where it is unpickled). A CUDA kernel loads its library at
    its first call: where no CUDA device is visible to torch, that call
    raises a LineaError naming the target and chip."""

    def __init__(self, library, entry=None):
        self.library = pathlib.Path(library)
        manifest = json.loads((self.library.parent / "kernel.json").read_text())
        functions = manifest["functions"]
        if entry is None and len(functions) != 1:
            raise LineaError(1, f"{len(functions)} entry functions; name one with entry=")
        self.signature = next((f for f in functions if entry in (None, f["name"])), None)
        if self.signature is None:
            raise LineaError(1, f"no entry function @{entry}")
        self.target = manifest.get("target", "cpu")
        self.chip = manifest.get("chip")
        explanation = self.library.parent / EXPLANATION
        self.explanation = explanation.read_text() if explanation.exists() else None
        # What the missing-device error calls this kernel (a Model names itself).
        self.label = f"linea.Kernel {self.signature['name']}"
        self._runtime = self._lib = self._fn = None
        results = self.signature["results"]
        self._result_types = [_descriptor(len(r["shape"])) for r in results]
        self._results_struct = type("Results", (ctypes.Structure,), {"_fields_": [
            (f"r{k}", t) for k, t in enumerate(self._result_types)]})
        if self.target != "cuda":
            self._load()

    def _load(self):
        """Loads the library (and for CUDA the runtime, after torch's context)."""
        if self.target == "cuda":
            torch = _torch()
            if torch is None:
                raise LineaError(1, f"{self.label} was compiled for target='cuda' "
                                    f"({self.chip}): it takes torch CUDA tensors, and torch "
                                    "is not imported (import torch first)")
            if not torch.cuda.is_available():
                raise LineaError(1, f"{self.label} was compiled for target='cuda' "
                                    f"({self.chip}); this machine has no CUDA device "
                                    "visible to torch")
            self._runtime = _cuda_runtime()
        lib = ctypes.CDLL(str(self.library))
        lib.linea_free_result.argtypes = [ctypes.c_void_p]
        fn = getattr(lib, "linea_checked_" + self.signature["name"])
        fn.restype = ctypes.c_int
        lib.linea_last_error.restype = ctypes.c_char_p
        self._lib, self._fn = lib, fn

    def __reduce__(self):
        return (_kernel_from_files, (_library_files(self.library), self.signature["name"]))

    def __repr__(self):
        def show(v):
            if v["kind"] != "tensor":
                return v["dtype"]
            return f"{v['dtype']}[{'x'.join(str(s) for s in v['shape'])}]"
        results = [show(r) for r in self.signature["results"]]
        returned = results[0] if len(results) == 1 else f"({', '.join(results)})"
        args = ", ".join(show(a) for a in self.signature["args"])
        return (f"<linea.Kernel {self.signature['name']}({args}) -> {returned}, "
                f"target={self.target!r}>")

    def _bind(self, k, spec, arg, keep):
        if spec["kind"] == "scalar":
            if not isinstance(arg, (int, np.integer)):
                raise LineaError(1, f"argument {k}: expected an int for {spec['dtype']}, "
                                    f"given {type(arg).__name__}")
            return ctypes.c_int64(int(arg))
        if self.target == "cuda":
            return self._bind_cuda(k, spec, arg, keep)
        dtype = spec["dtype"]
        if dtype == "index":
            arg = self._as_index_array(k, arg)
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
        self._check_shape(k, spec, arg.shape)
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

    @staticmethod
    def _as_index_array(k, arg):
        """An index tensor (a packed sequence's offsets) from any integer
        numpy array or CPU torch tensor: index is 64-bit on the host."""
        torch = _torch()
        if torch is not None and isinstance(arg, torch.Tensor):
            if arg.device.type != "cpu":
                raise LineaError(1, f"argument {k}: a {arg.device.type} tensor; "
                                    "target='cpu' takes CPU tensors")
            arg = arg.detach().numpy()
        if not isinstance(arg, np.ndarray) or arg.dtype.kind not in "iu":
            given = arg.dtype if isinstance(arg, np.ndarray) else type(arg).__name__
            raise LineaError(1, f"argument {k}: expected integers for an index "
                                f"tensor, given {given}")
        if arg.dtype.kind == "u" and arg.size and arg.max() > np.iinfo(np.int64).max:
            raise LineaError(1, f"argument {k}: {arg.max()} does not fit an index")
        return arg.astype(np.int64, copy=False)

    @staticmethod
    def _check_shape(k, spec, shape):
        want = spec["shape"]
        if len(shape) != len(want) or any(s != "?" and s != g for s, g in zip(want, shape)):
            raise LineaError(1, f"argument {k}: expected shape "
                                f"({', '.join(str(s) for s in want)}), given {tuple(shape)}")

    def _bind_cuda(self, k, spec, arg, keep):
        """A torch CUDA tensor, by its device pointer (made contiguous: the
        library's functions take dense buffers)."""
        torch = _torch()
        dtype = spec["dtype"]
        if not isinstance(arg, torch.Tensor) or arg.device.type != "cuda":
            raise LineaError(1, f"argument {k}: expected a torch CUDA tensor, given "
                                f"{type(arg).__name__}"
                                + (f" on {arg.device}" if isinstance(arg, torch.Tensor) else ""))
        given = str(arg.dtype).replace("torch.", "")
        if given != _NAMES[dtype]:
            raise LineaError(1, f"argument {k}: expected dtype {_NAMES[dtype]}, given {given}")
        self._check_shape(k, spec, arg.shape)
        arg = arg.detach().contiguous()
        keep.append(arg)
        rank = arg.dim()
        data = arg.data_ptr()
        desc = _descriptor(rank)(data, data, 0, (ctypes.c_int64 * rank)(*arg.shape),
                                 (ctypes.c_int64 * rank)(*arg.stride()))
        keep.append(desc)
        return ctypes.byref(desc)

    def __call__(self, *args):
        if self._fn is None:
            self._load()
        specs = self.signature["args"]
        if len(args) != len(specs):
            raise LineaError(1, f"expected {len(specs)} arguments, given {len(args)}")
        keep = []
        bound = [self._bind(k, spec, arg, keep) for k, (spec, arg) in
                 enumerate(zip(specs, args))]
        results = self._results_struct()
        out = [ctypes.byref(results)] if self._result_types else []
        if self._runtime is not None:
            return self._call_cuda(out, bound, results, keep)
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

    def _call_cuda(self, out, bound, results, keep):
        """Runs on torch's current stream; results are torch tensors over the
        library's buffers (device memory, from the runtime's stream-ordered
        pool), each buffer freed with its last tensor, in the order of the
        legacy default stream."""
        torch = _torch()
        # torch's default stream has the handle 0, which to the runtime means
        # no stream set: 0x1 (CU_STREAM_LEGACY) names that stream.
        self._runtime.linea_cuda_set_stream(torch.cuda.current_stream().cuda_stream or 1)
        try:
            status = self._fn(*out, *bound)
        finally:
            self._runtime.linea_cuda_set_stream(None)
        if status != 0:
            raise LineaError(1, self._lib.linea_last_error().decode())
        inputs = {a.data_ptr() for a in keep if isinstance(a, torch.Tensor)}
        buffers = {}
        tensors = []
        for k, spec in enumerate(self.signature["results"]):
            desc = getattr(results, f"r{k}")
            rank = len(desc.sizes)
            size = _STORAGE[spec["dtype"]].itemsize
            allocated = desc.allocated
            # One owner per buffer (results may share one); never an input's.
            owner = buffers.get(allocated)
            free = None if allocated in inputs or owner is not None else \
                self._lib.linea_free_result
            # (A zero-size result may have no buffer: ctypes gives None.)
            pointer = (desc.aligned or 0) + desc.offset * size
            buffer = _CudaBuffer(owner, free if allocated else None, allocated, pointer,
                                 [desc.sizes[d] for d in range(rank)],
                                 [desc.strides[d] * size for d in range(rank)],
                                 _TYPESTR[spec["dtype"]])
            buffers.setdefault(allocated, buffer)
            tensor = torch.as_tensor(buffer, device="cuda")
            tensor._linea_buffer = buffer  # (torch holds it too)
            tensors.append(tensor.view(torch.bfloat16) if spec["dtype"] == "bf16" else tensor)
        return tensors[0] if len(tensors) == 1 else tuple(tensors)

    def _take(self, desc, storage, owned):
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
            self._lib.linea_free_result(desc.allocated)
        return out


class SequenceParallelKernel:
    """A sequence-parallel Kernel on the ranks of an mpi4py communicator.

    Every rank calls it with the same full inputs: each keeps its rows
    `[floor(r L / P), floor((r + 1) L / P))` of the sharded arguments (the
    manifest's `sharded_dim`), runs, and rank 0 receives the full results,
    the other ranks' rows gathered (the other ranks get None): what one
    process would return. `local(...)` runs on rows a rank already holds
    and returns its own rows (no gather), as a training loop would.
    Only `Dk x Dv` states cross the network inside the kernel.
    """

    def __init__(self, kernel, comm):
        from mpi4py import MPI  # the caller passed a communicator: mpi4py is there
        if MPI.Comm.Compare(comm, MPI.COMM_WORLD) not in (MPI.IDENT, MPI.CONGRUENT):
            raise LineaError(1, "comm must span MPI.COMM_WORLD (the compiled code's "
                                "communicator) in the same rank order")
        self.kernel = kernel
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.signature = kernel.signature

    def local(self, *args):
        """This rank's rows in, this rank's rows out."""
        return self.kernel(*args)

    def _rows(self, length):
        return (length * self.rank // self.size, length * (self.rank + 1) // self.size)

    def __call__(self, *args):
        specs = self.signature["args"]
        if len(args) != len(specs):
            raise LineaError(1, f"expected {len(specs)} arguments, given {len(args)}")
        mine = []
        for k, (spec, arg) in enumerate(zip(specs, args)):
            dim = spec.get("sharded_dim")
            if dim is None:
                mine.append(arg)
                continue
            if not hasattr(arg, "shape") or len(arg.shape) <= dim:
                raise LineaError(1, f"argument {k}: expected a rank-{len(spec['shape'])} "
                                    f"array split along dim {dim}")
            first, last = self._rows(arg.shape[dim])
            index = (slice(None),) * dim + (slice(first, last),)
            mine.append(arg[index])
        out = self.kernel(*mine)
        results = out if isinstance(out, tuple) else (out,)
        full = []
        for spec, result in zip(self.signature["results"], results):
            dim = spec.get("sharded_dim")
            if dim is None:
                full.append(result)
                continue
            parts = self.comm.gather(np.asarray(result), root=0)
            full.append(np.concatenate(parts, axis=dim) if self.rank == 0 else None)
        if self.rank != 0:
            return None
        return full[0] if len(full) == 1 else tuple(full)
