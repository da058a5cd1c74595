"""GPU differential tests (marker `gpu`): each case compiles a CUDA library
here and, where a CUDA device is present, runs it on torch CUDA tensors
against the float64 oracle (gpu_cases.py). Without a GPU they compile and
report skipped; scripts/gpu-check.sh packages the compiled libraries for a
machine with one."""

import pytest

import gpu_cases

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    """The kit's cache when building the kit, else a private one."""
    import os
    if "LINEA_CACHE_DIR" not in os.environ:
        monkeypatch.setenv("LINEA_CACHE_DIR",
                           str(tmp_path_factory.getbasetemp() / "linea-gpu-cache"))


def run(check, *args):
    try:
        check(*args)
    except gpu_cases.Skip as why:
        pytest.skip(str(why))


CASES = gpu_cases.gpu_cases()


@pytest.mark.parametrize("index", range(len(CASES)), ids=[name for name, _, _ in CASES])
def test_against_oracle(index):
    run(gpu_cases.run_case, index)


def test_bad_calls_raise():
    run(gpu_cases.run_errors)


def test_current_stream():
    run(gpu_cases.run_stream)


def test_packed_segments():
    run(gpu_cases.run_packed)


def test_packed_prefix():
    run(gpu_cases.run_packed_prefix)


def test_packed_softmax():
    run(gpu_cases.run_packed_softmax)


def test_flash_heads():
    run(gpu_cases.run_flash_heads)


def test_row_reductions():
    run(gpu_cases.run_row_reductions)
