#!/usr/bin/env bash
# Builds Linea and runs every test: the lit suite and the Python suites, under ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh"
ctest --test-dir "$root/build" --output-on-failure
