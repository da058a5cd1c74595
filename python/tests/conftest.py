import hashlib
import os
import pathlib
import subprocess
import sys

import pytest

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
sys.path.insert(0, str(here.parent))


# The suites whose programs run as emulated GPU blocks: an OpenMP team of up
# to 256 threads spinning at barriers. Under pytest-xdist (`-n auto`, the
# ctest run) they share one worker, so that two teams never spin at once
# on a small machine.
EMULATED_BLOCKS = {"test_gpu_emulation.py", "test_ptx_layouts.py",
                   "test_cost_model_blocks.py"}


# The largest suites run a seeded sample of their cases in a plain run (the
# CI's budget is 75 minutes on two cores), the fraction each keeps here. The
# seed is the commit under test, so that a run is reproducible and
# successive commits cover different cases; LINEA_TEST_SAMPLE_SEED sets another,
# LINEA_TEST_ALL=1 runs every case. Each test function keeps at least one
# of its cases.
SAMPLED = {"test_differentiate.py": 0.25, "test_sequence_parallel.py": 0.25,
           "test_packed.py": 0.35, "test_raise.py": 0.35, "test_optimizer.py": 0.3,
           "test_chunk_parallel.py": 0.35, "test_differential.py": 0.35,
           "test_gpu_emulation.py": 0.5, "test_gated_chunks.py": 0.6,
           "test_tiling.py": 0.6, "test_fuzz.py": 0.6, "test_export.py": 0.5}
# Cases of a minute or more in the emulation are marked `slow`: a plain run
# takes one of them, drawn by the seed; `exhaustive` ones (ten minutes on
# two cores) run only with LINEA_TEST_ALL=1.


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: runs on a CUDA device; without one it compiles and is skipped")
    config.addinivalue_line(
        "markers", "slow: a case of a minute or more; a plain run takes one slow case, "
        "drawn by the sample seed (LINEA_TEST_ALL=1: all)")
    config.addinivalue_line(
        "markers", "exhaustive: a case of about ten minutes, run only with LINEA_TEST_ALL=1")


def sample_seed():
    """LINEA_TEST_SAMPLE_SEED, else the commit under test, else a fixed seed."""
    if "LINEA_TEST_SAMPLE_SEED" in os.environ:
        return os.environ["LINEA_TEST_SAMPLE_SEED"]
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                              text=True)
    except OSError:  # no git on this machine
        return "linea"
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else "linea"


def draw(seed, item):
    """The item's draw under `seed`: 32 bytes, uniform."""
    return hashlib.sha256(f"{seed}\0{item.nodeid}".encode()).digest()


def kept(seed, item, fraction):
    return int.from_bytes(draw(seed, item)[:4], "little") < fraction * (1 << 32)


def sample(config, items):
    """The items a plain run keeps (see SAMPLED and the markers above); the
    rest deselected."""
    seed = sample_seed()
    slow = [item for item in items if item.get_closest_marker("slow")
            and not item.get_closest_marker("exhaustive")]
    chosen_slow = min(slow, key=lambda item: draw(seed, item)) if slow else None
    keep, dropped = [], []
    by_function = {}
    for item in items:
        if item.get_closest_marker("exhaustive") or item.get_closest_marker("slow"):
            (keep if item is chosen_slow else dropped).append(item)
            continue
        fraction = SAMPLED.get(item.path.name, 1.0)
        (keep if fraction >= 1.0 or kept(seed, item, fraction) else dropped).append(item)
        by_function.setdefault((item.path.name, item.originalname), []).append(item)
    # A function none of whose cases was drawn keeps its first by the seed.
    kept_ids = {id(item) for item in keep}
    for cases in by_function.values():
        if not any(id(item) in kept_ids for item in cases):
            first = min(cases, key=lambda item: draw(seed, item))
            keep.append(first)
            dropped.remove(first)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        dropped_ids = {id(item) for item in dropped}
        items[:] = [item for item in items if id(item) not in dropped_ids]
    sys.stderr.write(f"linea tests: {len(items)} of {len(items) + len(dropped)} cases "
                     f"(sample seed {seed[:12]}; LINEA_TEST_ALL=1 runs all)\n")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("LINEA_TEST_ALL") != "1":
        sample(config, items)
    for item in items:
        if item.path.name in EMULATED_BLOCKS:
            item.add_marker(pytest.mark.xdist_group("gpu-emulation"))


# Skips that mean a tool the suites need is missing from the machine, not
# that a case does not apply (a GPU absent is the latter). scripts/test.sh,
# which installs every one of them, sets LINEA_REQUIRE_TOOLS=1: there such a
# skip is a failure, so that a CI machine without them cannot pass by
# skipping their tests.
MISSING_TOOL = ("could not import", "no CUDA toolkit", "needs OpenMPI", "no torch",
                "no libLineaPlugin.so", "needs a CMake build directory")


def missing_tool(report):
    """The reason of a skip that names a missing tool, if `report` is one."""
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return None
    reason = str(report.longrepr[2])
    return reason if any(tool in reason for tool in MISSING_TOOL) else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("LINEA_REQUIRE_TOOLS") != "1":
        return
    reason = missing_tool(report)
    if reason is not None:
        report.outcome = "failed"
        report.longrepr = (f"{reason}: a tool this suite needs is missing "
                           "(LINEA_REQUIRE_TOOLS=1: scripts/test.sh installs it)")
