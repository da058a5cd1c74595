"""A model's life past its first process: `model.save` and `linea.load` in a
process that never imports torch-mlir and has no compiler, pickling and
`torch.save`, weights="arguments" saved without weights, a CUDA model
returned (and saved) on a machine without a GPU, and the export cache that
spares `from_torch` a second export of the same module."""
import json
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import linea

PYTHON_DIR = pathlib.Path(linea.__file__).resolve().parents[1]


class Block(torch.nn.Module):
    """A projection and a causal linear attention over two heads."""
    def __init__(self, d=8, heads=2):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.wq, self.wk, self.wv = (torch.nn.Linear(d, d) for _ in range(3))

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = (w(x).view(b, n, self.h, self.dh).transpose(1, 2)
                   for w in (self.wq, self.wk, self.wv))
        q, k = F.elu(q) + 1, F.elu(k) + 1
        a = torch.tril(q @ k.transpose(-1, -2))
        o = (a @ v) / (a.sum(-1, keepdim=True) + 1e-6)
        return o.transpose(1, 2).reshape(b, n, d)


def block(seed=0, **kwargs):
    torch.manual_seed(seed)
    return Block(**kwargs).eval()


def x_at(length, seed=1):
    return torch.randn(1, length, 8, generator=torch.Generator().manual_seed(seed))


DYNAMIC = {0: {1: "L"}}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One cache for the module's compiles (so each model compiles once)."""
    return tmp_path_factory.mktemp("linea-cache")


@pytest.fixture(autouse=True)
def private_cache(cache, monkeypatch):
    monkeypatch.setenv("LINEA_CACHE_DIR", str(cache))


def elsewhere(tmp_path, code):
    """`code` in a new process of this Python with no compiler and a cache
    of its own; its stdout."""
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR),
               LINEA_BUILD_DIR=str(tmp_path / "no-build"),
               LINEA_CACHE_DIR=str(tmp_path / "other-cache"))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_saved_model_loads_without_torch_mlir_or_compiler(tmp_path):
    module = block()
    model = linea.from_torch(module, x_at(16), dynamic=DYNAMIC)
    saved = model.save(tmp_path / "block")
    manifest = json.loads((saved / "model.json").read_text())
    assert manifest["name"] == "Block" and manifest["dynamic"] == [[0, 1, "L"]]
    assert manifest["signature"]["args"][0]["shape"] == [1, "?", 8]
    assert (saved / "report.txt").read_text().strip() == model.report().strip()
    x = x_at(37)
    with torch.no_grad():
        np.save(tmp_path / "expected.npy", module(x).numpy())
    np.save(tmp_path / "x.npy", x.numpy())
    out = elsewhere(tmp_path, f"""
import sys, numpy as np, linea
d = {str(tmp_path)!r}
model = linea.load(d + "/block")
got = model(np.load(d + "/x.npy"))
want = np.load(d + "/expected.npy")
assert np.linalg.norm(got - want) <= 1e-4 * np.linalg.norm(want)
assert "torch_mlir" not in sys.modules and "torch" not in sys.modules
print(model.report())
""")
    assert out.strip() == model.report().strip()


def test_pickle_and_torch_save(tmp_path):
    module = block()
    model = linea.from_torch(module, x_at(16), dynamic=DYNAMIC)
    x = x_at(9)
    want = model(x)
    torch.save(model, tmp_path / "block.pt")
    for copy in (pickle.loads(pickle.dumps(model)),
                 torch.load(tmp_path / "block.pt", weights_only=False)):
        assert torch.equal(copy(x), want)
        assert copy.report() == model.report() and copy.dynamic == DYNAMIC
        assert copy.library.parent.parent.name == "libraries"


def test_weights_as_arguments_are_not_saved(tmp_path):
    module = block(seed=3)
    model = linea.from_torch(module, x_at(16), dynamic=DYNAMIC, weights="arguments")
    saved = model.save(tmp_path / "block")
    manifest = json.loads((saved / "model.json").read_text())
    assert [p["name"] for p in manifest["parameters"]] == \
        [name for name, _ in module.named_parameters()]
    weight = module.wq.weight.detach().numpy().tobytes()
    for path in saved.iterdir():
        assert weight[:64] not in path.read_bytes(), path
    x = x_at(11)
    with torch.no_grad():
        want = module(x)
    loaded = linea.load(saved)
    with pytest.raises(linea.LineaError, match="takes its 6 weights as arguments"):
        loaded(x)
    params = [p.detach() for p in module.parameters()]
    assert (loaded(x, *params) - want).norm() <= 1e-4 * want.norm()
    bound = linea.load(saved, module=module)
    assert (bound(x) - want).norm() <= 1e-4 * want.norm()
    with pytest.raises(linea.LineaError, match="are not the ones"):
        linea.load(saved, module=block(d=16))


def test_cuda_target_without_a_gpu_returns_the_model(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: the GPU kit runs CUDA models")
    model = linea.from_torch(block(), x_at(16), dynamic=DYNAMIC, target="cuda")
    assert model.target == "cuda" and model.library.exists()
    assert json.loads((model.library.parent / "kernel.json").read_text())["chip"] == "sm_90a"
    assert "raised to linea.linear_attention" in model.report()
    message = (r"linea.Model Block was compiled for target='cuda' \(sm_90a\); this machine has "
               r"no CUDA device visible to torch")
    with pytest.raises(linea.LineaError, match=message):
        model(x_at(16))
    for copy in (linea.load(model.save(tmp_path / "gpu")), pickle.loads(pickle.dumps(model))):
        assert copy.target == "cuda"
        with pytest.raises(linea.LineaError, match=message):
            copy(x_at(16))


def test_the_same_module_is_exported_once(tmp_path, monkeypatch):
    """from_torch of the same module, inputs and options reads the cached
    export; a change of weights, of a plain attribute, of shapes or of
    `dynamic` exports anew."""
    from torch_mlir import fx
    monkeypatch.setenv("LINEA_CACHE_DIR", str(tmp_path / "cache"))
    exports = []
    original = fx.export_and_import

    def counted(*args, **kwargs):
        exports.append(1)
        return original(*args, **kwargs)
    monkeypatch.setattr(fx, "export_and_import", counted)

    first = linea.from_torch(block(), x_at(16), dynamic=DYNAMIC)
    assert len(exports) == 1
    again = linea.from_torch(block(), x_at(16), dynamic=DYNAMIC)
    assert len(exports) == 1 and again.source == first.source
    assert len(list((tmp_path / "cache" / "exports").glob("*.mlir"))) == 1
    x = x_at(5)
    assert torch.equal(again(x), first(x))
    # What changes the export exports anew (export_torch: no compiles).
    from linea.frontend import export_torch
    export_torch(block(seed=4), x_at(16), dynamic=DYNAMIC)  # other weights
    assert len(exports) == 2
    export_torch(block(seed=4, heads=4), x_at(16), dynamic=DYNAMIC)  # self.h = 4
    assert len(exports) == 3
    export_torch(block(), x_at(12))  # another example shape, no dynamic dims
    assert len(exports) == 4
    # weights="arguments": the values are not part of the key.
    export_torch(block(seed=5), x_at(16), dynamic=DYNAMIC, weights="arguments")
    export_torch(block(seed=6), x_at(16), dynamic=DYNAMIC, weights="arguments")
    assert len(exports) == 5
    monkeypatch.setenv("LINEA_EXPORT_CACHE", "0")
    export_torch(block(), x_at(16), dynamic=DYNAMIC)
    assert len(exports) == 6
