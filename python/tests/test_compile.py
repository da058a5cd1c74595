"""linea.compile: programs compiled into a shared library (linea-compile)
and called in-process through ctypes, against the float64 oracle, with
numpy and torch inputs; bad arguments and failed run-time checks raise
LineaError; compiled libraries are cached."""

import os
import subprocess

import numpy as np
import pytest

import linea
from linea import LineaError, reference
from linea.runner import build_dir

import cases
import programs



@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LINEA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "linea-cache"))


def f32(inputs):
    return [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in inputs]


CASES = [c for c in cases.edge_cases() if c["op"] != "folded_attention"][::2]


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[cases.case_id(c) for c in CASES])
def test_against_oracle(index):
    program, inputs, expected = programs.build(CASES[index], seed=7 + index)
    kernel = linea.compile(program)
    got = kernel(*f32(inputs))
    got = list(got) if isinstance(got, tuple) else [got]
    programs.assert_matches(got, expected)


def test_torch_in_torch_out():
    torch = pytest.importorskip("torch")
    program, inputs, expected = programs.build(
        dict(op="linear_attention", batch=[2], dk=4, dv=3, L=29, mask="causal", final=True),
        seed=3)
    kernel = linea.compile(program)
    got = kernel(*[torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in f32(inputs)])
    assert all(isinstance(g, torch.Tensor) for g in got)
    programs.assert_matches([g.numpy() for g in got], expected)


SOURCE = """func.func @main(%q: tensor<?x8xf32>, %k: tensor<?x8xf32>, %v: tensor<?x4xf32>, %j: index)
    -> tensor<?x4xf32> {
  %o = linea.linear_attention %q, %k, %v mask = prefix(%j)
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %o : tensor<?x4xf32>
}
"""


def arrays(*shapes):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("args,message", [
    (arrays((9, 8), (10, 8), (9, 4)) + [3],
     "run-time check failed: kernel.mlir:3:8: linea.linear_attention: 'key' sequence length 10 "
     "does not match 'query' sequence length 9"),
    (arrays((9, 8), (9, 8), (9, 4)) + [10], "prefix length 10 is outside [0, L] of 'query' (L = 9)"),
    ([a.astype(np.float64) for a in arrays((9, 8), (9, 8), (9, 4))] + [3],
     "argument 0: expected dtype float32, given float64"),
    (arrays((9, 8), (9, 7), (9, 4)) + [3], "argument 1: expected shape (?, 8), given (9, 7)"),
    (arrays((9, 8), (9, 8), (9, 4)) + [3.5], "argument 3: expected an int for index"),
    (arrays((9, 8), (9, 8)), "expected 4 arguments, given 2"),
])
def test_bad_calls_raise(args, message):
    kernel = linea.compile(SOURCE)
    with pytest.raises(LineaError, match=None) as failure:
        kernel(*args)
    assert message in str(failure.value)
    # The kernel still works after a failed check.
    q, k, v = arrays((9, 8), (9, 8), (9, 4))
    assert kernel(q, k, v, 3).shape == (9, 4)


def test_messages_name_the_users_file(tmp_path):
    path = tmp_path / "my_layer.mlir"
    path.write_text(SOURCE)
    kernel = linea.compile(path)
    with pytest.raises(LineaError) as failure:
        kernel(*arrays((9, 8), (10, 8), (9, 4)), 3)
    assert "run-time check failed: my_layer.mlir:3:8: linea.linear_attention" in str(failure.value)


def test_kernel_repr_shows_the_signature():
    assert repr(linea.compile(SOURCE)) == (
        "<linea.Kernel main(f32[?x8], f32[?x8], f32[?x4], index) -> f32[?x4], target='cpu'>")


def test_cache_keys_on_the_compiler_binary(monkeypatch, tmp_path):
    """A rebuilt linea-compile (another binary, same version) compiles anew;
    with no compiler at all, the newest library built for the program is
    the one used."""
    from linea import compiler
    monkeypatch.setenv("LINEA_CACHE_DIR", str(tmp_path))
    first = compiler.compile_library(SOURCE)
    monkeypatch.setattr(compiler, "_compiler_build", lambda path: "rebuilt")
    second = compiler.compile_library(SOURCE)
    assert second != first and second.parent.name == "rebuilt" and second.exists()
    assert compiler.compile_library(SOURCE) == second
    monkeypatch.setattr(compiler, "_compiler_build", lambda path: None)
    assert compiler.compile_library(SOURCE) == second
    with pytest.raises(LineaError, match="no compiled library"):
        compiler.compile_library(SOURCE.replace("main", "other"))


def test_strided_input_and_cache():
    kernel = linea.compile(SOURCE)
    q, k, v = arrays((9, 16), (9, 8), (9, 4))
    want = kernel(np.ascontiguousarray(q[:, ::2]), k, v, 4)
    np.testing.assert_array_equal(kernel(q[:, ::2], k, v, 4), want)
    cached = sorted(os.listdir(os.environ["LINEA_CACHE_DIR"]))
    linea.compile(SOURCE)
    assert sorted(os.listdir(os.environ["LINEA_CACHE_DIR"])) == cached


def test_compile_errors_raise():
    with pytest.raises(LineaError) as failure:
        linea.compile("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                      "  %y = linea.presum %x dim = 3 : tensor<4xf32>\n"
                      "  return %y : tensor<4xf32>\n}\n")
    assert "dim 3 is out of range" in str(failure.value)


def run_c_program(tmp_path, source_text, name, program_text):
    """Compiles `source_text` with linea-compile into lib{name}.so, a C
    program against its header, and runs it: its stdout lines."""
    source = tmp_path / f"{name}.mlir"
    source.write_text(source_text)
    library = tmp_path / f"lib{name}.so"
    subprocess.run([str(build_dir() / "bin" / "linea-compile"), str(source), "-o",
                    str(library)], check=True)
    program = tmp_path / "main.c"
    program.write_text(program_text)
    exe = tmp_path / "main"
    subprocess.run(["cc", "-o", str(exe), str(program), f"-I{tmp_path}", str(library),
                    f"-Wl,-rpath,{tmp_path}"], check=True)
    done = subprocess.run([str(exe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_c_program_links_the_library(tmp_path):
    """The generated header and library, from C: a failed check returns 1."""
    lines = run_c_program(tmp_path, SOURCE, "attention", r"""
#include <stdio.h>
#include <stdlib.h>
#include "attention.h"
static LineaMemRef_f32_2 tensor(float *data, int64_t rows, int64_t cols) {
  LineaMemRef_f32_2 m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}
int main(void) {
  float q[5 * 8], v[5 * 4];
  for (int i = 0; i < 5 * 8; ++i) q[i] = (float)(i % 7) / 7.0f;
  for (int i = 0; i < 5 * 4; ++i) v[i] = 1.0f;
  LineaMemRef_f32_2 mq = tensor(q, 5, 8), mv = tensor(v, 5, 4), out;
  if (linea_checked_main(&out, &mq, &mq, &mv, 2) != 0) return 2;
  printf("%lld %lld\n", (long long)out.sizes[0], (long long)out.sizes[1]);
  linea_free_result(out.allocated);
  if (linea_checked_main(&out, &mq, &mq, &mv, 9) != 1) return 3;
  printf("%s\n", linea_last_error());
  return 0;
}
""")
    assert lines[0] == "5 4"
    assert lines[1].endswith("prefix length 9 is outside [0, L] of 'query' (L = 5)")


def test_c_caller_is_checked_against_the_signature(tmp_path):
    """A static-shape library called from C: a descriptor whose sizes,
    strides or pointers disagree with the signature is refused before any
    work (the kernel would read past the caller's buffer), naming the
    argument and both sizes; a right one runs."""
    presum = ("func.func @main(%x: tensor<2x30x4xf32>) -> tensor<2x30x4xf32> {\n"
              "  %y = linea.presum %x dim = 1 : tensor<2x30x4xf32>\n"
              "  return %y : tensor<2x30x4xf32>\n}\n")
    lines = run_c_program(tmp_path, presum, "presum", r"""
#include <stdio.h>
#include "presum.h"
static float x[2 * 31 * 4];
static void call(const char *what, LineaMemRef_f32_3 *arg, LineaMemRef_f32_3 *out) {
  int rc = linea_checked_main(out, arg);
  printf("%s: %d %s\n", what, rc, rc ? linea_last_error() : "");
}
int main(void) {
  for (int i = 0; i < 2 * 31 * 4; ++i) x[i] = 1.0f;
  LineaMemRef_f32_3 out, good = {x, x, 0, {2, 30, 4}, {120, 4, 1}};
  call("good", &good, &out);
  printf("last %g\n", out.aligned[2 * 30 * 4 - 1]);
  linea_free_result(out.allocated);
  LineaMemRef_f32_3 shorter = good, strided = good, unaligned = good, negative = good;
  shorter.sizes[1] = 29;
  strided.strides[1] = 5;
  unaligned.aligned = 0;
  negative.sizes[0] = -2;
  call("shorter", &shorter, &out);
  call("strided", &strided, &out);
  call("null data", &unaligned, &out);
  call("negative", &negative, &out);
  call("null descriptor", 0, &out);
  call("null results", &good, 0);
  return 0;
}
""")
    assert "// main(arg0: f32[2x30x4]) -> f32[2x30x4]" in (tmp_path / "presum.h").read_text()
    assert lines == [
        "good: 0 ",
        "last 30",
        "shorter: 1 linea_checked_main: argument 0 (f32[2x30x4]) has size 29 at dim 1, expected 30",
        "strided: 1 linea_checked_main: argument 0 (f32[2x30x4]) has stride 5 at dim 1, "
        "expected 4 (row-major contiguous)",
        "null data: 1 linea_checked_main: argument 0 (f32[2x30x4]) has no data (a null aligned pointer)",
        "negative: 1 linea_checked_main: argument 0 (f32[2x30x4]) has size -2 at dim 0",
        "null descriptor: 1 linea_checked_main: argument 0 (f32[2x30x4]) is a null pointer",
        "null results: 1 linea_checked_main: the results pointer is null",
    ]


HALF = """func.func @main(%q: tensor<2x?x8xDT>, %v: tensor<2x?x4xDT>, %j: index) -> tensor<2x?x4xDT> {
  %o = linea.linear_attention %q, %q, %v mask = prefix(%j)
      : tensor<2x?x8xDT>, tensor<2x?x8xDT>, tensor<2x?x4xDT> -> tensor<2x?x4xDT>
  return %o : tensor<2x?x4xDT>
}
"""

# Half-precision results are rounded to their type once: the oracle (fed the
# same rounded inputs) is met within a few of that type's ulps.
HALF_TOLERANCE = {"f16": 2e-3, "bf16": 2e-2}


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_precision(dtype):
    torch = pytest.importorskip("torch")
    kernel = linea.compile(HALF.replace("DT", dtype))
    rng = np.random.default_rng(5)
    tdtype = torch.float16 if dtype == "f16" else torch.bfloat16
    q = torch.tensor(rng.standard_normal((2, 37, 8)), dtype=tdtype)
    v = torch.tensor(rng.standard_normal((2, 37, 4)), dtype=tdtype)
    got = kernel(q, v, 11)
    assert got.dtype == tdtype and got.shape == (2, 37, 4)
    want, _ = reference.linear_attention(q.double().numpy(), q.double().numpy(),
                                               v.double().numpy(), mask="prefix",
                                               prefix_length=11)
    assert reference.rel_l2(got.double().numpy(), want) <= HALF_TOLERANCE[dtype]
    if dtype == "f16":  # numpy has float16 too
        np.testing.assert_array_equal(kernel(q.numpy(), v.numpy(), 11), got.numpy())
    with pytest.raises(LineaError, match="argument 0: expected dtype"):
        kernel(q.float(), v, 11)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_linea_run_half_precision(dtype):
    """linea-run (linea.run) binds and returns 16-bit tensors: the same
    numbers as the compiled library, f16 as float16, bf16 as float32."""
    torch = pytest.importorskip("torch")
    source = HALF.replace("DT", dtype)
    rng = np.random.default_rng(5)
    tdtype = torch.float16 if dtype == "f16" else torch.bfloat16
    q = torch.tensor(rng.standard_normal((2, 37, 8)), dtype=tdtype)
    v = torch.tensor(rng.standard_normal((2, 37, 4)), dtype=tdtype)
    compiled = linea.compile(source)(q, v, 11).float().numpy()
    given = [t.numpy() if dtype == "f16" else t.float().numpy() for t in (q, v)]
    got = linea.run(source, given + [11])[0]
    assert got.dtype == (np.float16 if dtype == "f16" else np.float32)
    np.testing.assert_array_equal(got.astype(np.float32), compiled)


ELEMENTWISE_HALF = """#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<?xDT>) -> tensor<?xDT> {
  %eps = arith.constant 1.0e-06 : f64
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xDT>
  %e = tensor.empty(%n) : tensor<?xDT>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xDT>) outs(%e : tensor<?xDT>) {
  ^bb0(%a: DT, %o: DT):
    %ex = math.exp %a : DT
    %sq = arith.mulf %a, %a : DT
    %ep = arith.truncf %eps : f64 to DT
    %d = arith.addf %sq, %ep : DT
    %r = arith.divf %ex, %d : DT
    linalg.yield %r : DT
  } -> tensor<?xDT>
  return %y : tensor<?xDT>
}
"""


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_precision_model_ir(dtype):
    """16-bit arithmetic and math as front ends print a model (a Python
    literal as an f64 constant truncated in the body) compiles into a
    library that links on its own (bf16 arithmetic used to call compiler-rt's
    __truncsfbf2, which libgcc lacks) and computes within a few roundings."""
    torch = pytest.importorskip("torch")
    kernel = linea.compile(ELEMENTWISE_HALF.replace("DT", dtype))
    tdtype = torch.float16 if dtype == "f16" else torch.bfloat16
    x = torch.tensor(np.random.default_rng(6).uniform(0.5, 2.0, 101), dtype=tdtype)
    got = kernel(x)
    assert got.dtype == tdtype
    exact = np.exp(x.double().numpy()) / (x.double().numpy() ** 2 + 1e-6)
    assert reference.rel_l2(got.double().numpy(), exact) <= HALF_TOLERANCE[dtype]


def test_version_matches_the_tools():
    done = subprocess.run([str(build_dir() / "bin" / "linea-compile"), "--version"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"linea-compile (Linea version {linea.__version__})"


def test_keywords_are_pipeline_options():
    """Keywords set linea-optimize's options; each choice is its own library."""
    rng = np.random.default_rng(2)
    q, v = rng.standard_normal((2, 50, 8)).astype("f4"), rng.standard_normal((2, 50, 4)).astype("f4")
    chunked = linea.compile(HALF.replace("DT", "f32"), form="chunked", chunk_size=16)
    default = linea.compile(HALF.replace("DT", "f32"))
    assert chunked._lib._name != default._lib._name
    np.testing.assert_allclose(chunked(q, v, 7), default(q, v, 7), rtol=1e-4, atol=1e-5)
    with pytest.raises(LineaError, match="'linea-optimize' has no option 'bogus'"):
        linea.compile(HALF.replace("DT", "f32"), bogus=1)
    with pytest.raises(LineaError, match="either pipeline= or"):
        linea.compile(HALF.replace("DT", "f32"), pipeline="linea-optimize", form="chunked")
    with pytest.raises(LineaError, match="unknown target 'tpu'"):
        linea.compile(HALF.replace("DT", "f32"), target="tpu")


def test_cached_library_needs_no_compiler(monkeypatch, tmp_path):
    """A library in the cache loads where no linea-compile exists (a GPU
    machine given the kit's cache); a miss there says what is missing."""
    linea.compile(SOURCE)
    monkeypatch.setenv("LINEA_BUILD_DIR", str(tmp_path / "nowhere"))
    kernel = linea.compile(SOURCE)
    q, k, v = arrays((9, 8), (9, 8), (9, 4))
    assert kernel(q, k, v, 3).shape == (9, 4)
    with pytest.raises(LineaError, match="no compiled library for this program"):
        linea.compile(SOURCE.replace("prefix(%j)", "causal"))


@pytest.mark.skipif(not (build_dir() / "lib" / "libLineaCudaRuntime.so").exists(),
                    reason="no CUDA toolkit: no CUDA runtime library")
def test_cuda_target_without_a_gpu():
    """target='cuda' compiles here and returns the kernel (its library to
    carry to a GPU machine); calling it says which device is missing."""
    torch = pytest.importorskip("torch")
    library = linea.compile_library(SOURCE, target="cuda", chip="sm_80")
    manifest = (library.parent / "kernel.json").read_text()
    assert '"target": "cuda"' in manifest and '"chip": "sm_80"' in manifest
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: test_gpu.py runs the library")
    kernel = linea.compile(SOURCE, target="cuda", chip="sm_80")
    assert kernel.library == library and kernel.target == "cuda" and kernel.chip == "sm_80"
    with pytest.raises(LineaError, match=r"linea.Kernel main was compiled for target='cuda' "
                                         r"\(sm_80\); this machine has no CUDA device visible"):
        kernel(*arrays((9, 8), (9, 8), (9, 4)), 3)
    with pytest.raises(LineaError, match="takes pipeline options as keywords"):
        linea.compile(SOURCE, target="cuda", pipeline="linea-optimize")
