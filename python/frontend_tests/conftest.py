"""The front-end suite runs in the venv with PyTorch 2.x and torch-mlir
(.deps/frontend, scripts/install-frontend.sh), not Debian's Python: ctest's
`frontend` test. The examples' directory is importable, for their modules."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "models"))
# Models the CPU suites and the GPU kit share with these tests.
sys.path.insert(0, str(ROOT / "python" / "tests"))
