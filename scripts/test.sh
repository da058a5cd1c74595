#!/usr/bin/env bash
# Builds Linea and runs every test: the lit suite, the Python suites and the
# front-end suite, under ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh"
# The front-end tests' Python (PyTorch 2.x, torch-mlir; ~1.5 GB the first time).
"$root/scripts/install-frontend.sh"
# Every tool the suites need is installed above: a test skipped for lack of
# one fails instead (python/tests/conftest.py).
export LINEA_REQUIRE_TOOLS=1
ctest --test-dir "$root/build" --output-on-failure
