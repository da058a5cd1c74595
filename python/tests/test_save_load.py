"""Compiled kernels and models outlive their process: `model.save(path)` and
`linea.load(path)` in a process with no compiler (LINEA_BUILD_DIR pointing
nowhere) and no torch or torch-mlir; pickled kernels and models install
their library into the cache by its hash; a CUDA kernel compiles, saves and
loads without a GPU and says which device is missing only when called;
`explain=1` reaches the user from a fresh compile and from the cache."""

import json
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

import linea
from linea import LineaError
from linea.runner import build_dir

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[1]

SOURCE = """func.func @layer(%q: tensor<2x?x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>)
    -> tensor<2x?x4xf32> {
  %o = linea.linear_attention %q, %k, %v mask = causal
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x?x4xf32>
  return %o : tensor<2x?x4xf32>
}
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LINEA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "linea-cache"))


def inputs(length, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32)
            for shape in ((2, length, 8), (2, length, 8), (2, length, 4))]


def elsewhere(tmp_path, code):
    """Runs `code` in a new Python with no compiler and a cache of its own;
    returns its stdout. The code asserts what it checks."""
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR),
               LINEA_BUILD_DIR=str(tmp_path / "no-build"),
               LINEA_CACHE_DIR=str(tmp_path / "other-cache"))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_saved_model_runs_without_compiler_or_torch(tmp_path):
    kernel = linea.compile(SOURCE)
    model = linea.Model(kernel, SOURCE, "layer")
    assert model.library == kernel.library and model.library.name == "libkernel.so"
    saved = model.save(tmp_path / "layer")
    manifest = json.loads((saved / "model.json").read_text())
    assert manifest["entry"] == "layer" and manifest["target"] == "cpu"
    assert manifest["signature"]["args"][0]["shape"] == [2, "?", 8]
    assert manifest["weights"] == "constants"
    assert {p.name for p in saved.iterdir()} >= {"libkernel.so", "kernel.json", "kernel.h",
                                                 "model.json", "report.txt"}
    q, k, v = inputs(13)
    np.save(tmp_path / "q.npy", q), np.save(tmp_path / "k.npy", k), np.save(tmp_path / "v.npy", v)
    np.save(tmp_path / "expected.npy", model(q, k, v))
    out = elsewhere(tmp_path, f"""
import sys, numpy as np, linea
d = {str(tmp_path)!r}
model = linea.load(d + "/layer")
got = model(*(np.load(f"{{d}}/{{n}}.npy") for n in "qkv"))
assert np.array_equal(got, np.load(d + "/expected.npy"))
assert "torch_mlir" not in sys.modules and "torch" not in sys.modules
assert str(model.library).startswith({str(tmp_path / "other-cache")!r}), model.library
print(model.report().splitlines()[0])
""")
    assert out.strip() == model.report().splitlines()[0], out


def test_save_refuses_a_folder_of_other_files(tmp_path):
    model = linea.Model(linea.compile(SOURCE), SOURCE, "layer")
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(LineaError, match="is not a saved Linea model"):
        model.save(tmp_path)
    model.save(tmp_path / "again")
    model.save(tmp_path / "again")  # over a saved model: allowed
    with pytest.raises(LineaError, match="no saved Linea model"):
        linea.load(tmp_path)
    (tmp_path / "again" / "libkernel.so").write_bytes(b"not a library")
    with pytest.raises(LineaError, match="SHA-256 differs"):
        linea.load(tmp_path / "again")


def test_pickled_kernel_and_model_install_their_library(tmp_path):
    kernel = linea.compile(SOURCE)
    q, k, v = inputs(7, seed=1)
    expected = kernel(q, k, v)
    np.save(tmp_path / "expected.npy", expected)
    for name, blob in (("kernel", pickle.dumps(kernel)),
                       ("model", pickle.dumps(linea.Model(kernel, SOURCE, "layer")))):
        (tmp_path / f"{name}.pickle").write_bytes(blob)
    out = elsewhere(tmp_path, f"""
import pickle, sys, numpy as np
d = {str(tmp_path)!r}
rng = np.random.default_rng(1)
q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((2, 7, 8), (2, 7, 8), (2, 7, 4)))
for name in ("kernel", "model"):
    loaded = pickle.loads(open(f"{{d}}/{{name}}.pickle", "rb").read())
    assert np.array_equal(loaded(q, k, v), np.load(d + "/expected.npy")), name
    print(loaded.library)
assert "torch" not in sys.modules
""")
    paths = out.split()
    # Both carry the same bytes: one library, in the new cache's libraries/.
    assert paths[0] == paths[1] and "/other-cache/libraries/" in paths[0], out


@pytest.mark.skipif(not (build_dir() / "lib" / "libLineaCudaRuntime.so").exists(),
                    reason="no CUDA toolkit: no CUDA runtime library")
def test_cuda_model_saves_and_loads_without_a_gpu(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: test_gpu.py runs CUDA kernels")
    model = linea.Model(linea.compile(SOURCE, target="cuda", chip="sm_80"), SOURCE, "layer")
    assert json.loads((model.library.parent / "kernel.json").read_text())["target"] == "cuda"
    message = (r"linea.Model layer was compiled for target='cuda' \(sm_80\); this machine has "
               r"no CUDA device visible to torch")
    for copy in (linea.load(model.save(tmp_path / "gpu")), pickle.loads(pickle.dumps(model))):
        assert copy.target == "cuda" and copy.kernel.chip == "sm_80"
        with pytest.raises(LineaError, match=message):
            copy(*(torch.from_numpy(a) for a in inputs(4)))


def test_explain_reaches_the_user_from_the_cache_too(capsys):
    """explain=1: the cost model's remarks on stderr and on the kernel, the
    same text again when the library comes from the cache."""
    program = SOURCE.replace("@layer", "@explained")
    kernel = linea.compile(program, explain=1)
    printed = capsys.readouterr().err
    assert kernel.explanation and kernel.explanation in printed
    # As linea-compile prints them: one line each, at the op's line.
    assert "linea-compile: remark: kernel.mlir:3:8: form " in printed, printed
    assert "weighed: chunked(16) " in printed and " us;" in printed, printed
    assert (kernel.library.parent / "explain.txt").read_text() == kernel.explanation
    again = linea.compile(program, explain=1)  # a cache hit: no linea-compile run
    assert again.library == kernel.library
    assert again.explanation == kernel.explanation
    assert kernel.explanation in capsys.readouterr().err
    quiet = linea.compile(program)
    assert quiet.explanation is None and capsys.readouterr().err == ""
