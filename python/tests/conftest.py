import pathlib
import sys

import pytest

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
sys.path.insert(0, str(here.parent))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: runs on a CUDA device; without one it compiles and is skipped")


# The suites whose programs run as emulated GPU blocks: an OpenMP team of up
# to 256 threads spinning at barriers. Under pytest-xdist (`-n auto`, the
# ctest run) they share one worker, so that two teams never spin at once
# on a small machine.
EMULATED_BLOCKS = {"test_gpu_emulation.py", "test_ptx_layouts.py",
                   "test_cost_model_blocks.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in EMULATED_BLOCKS:
            item.add_marker(pytest.mark.xdist_group("gpu-emulation"))
