"""`pip install .` into a fresh virtual environment: the package carries its
native tools (linea/_native) and compiles and runs a program from outside
the checkout, with no PYTHONPATH or LINEA_BUILD_DIR."""

import os
import pathlib
import subprocess
import sys

import pytest

from linea.runner import build_dir

ROOT = pathlib.Path(__file__).resolve().parents[2]

PROGRAM = """
import numpy as np, linea
from linea.runner import build_dir
source = '''func.func @f(%x: tensor<3x?x8xf32>) -> tensor<3x?x8xf32> {
  %y = linea.presum %x : tensor<3x?x8xf32>
  return %y : tensor<3x?x8xf32>
}
'''
x = np.random.default_rng(0).standard_normal((3, 17, 8)).astype(np.float32)
error = np.abs(linea.compile(source)(x) - np.cumsum(x, axis=1)).max()
print(build_dir(), linea.__version__, error < 1e-4)
"""


@pytest.mark.skipif(not (build_dir() / "build.ninja").exists(),
                    reason="needs a CMake build directory to reuse")
def test_pip_install_into_a_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LINEA_BUILD_DIR")}
    env["LINEA_BUILD_DIR"] = str(build_dir().resolve())  # reuse the build (setup.py)
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-build-isolation",
                           "--no-deps", str(ROOT)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    del env["LINEA_BUILD_DIR"]
    env["LINEA_CACHE_DIR"] = str(tmp_path / "cache")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", PROGRAM], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    where, version, ok = done.stdout.split()
    assert where.startswith(str(venv)) and where.endswith("linea/_native")
    assert ok == "True"
