import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
sys.path.insert(0, str(here.parent))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: runs on a CUDA device; without one it compiles and is skipped")
