#!/usr/bin/env bash
# ctest's `frontend` test: the front-end suite in the Python that has
# PyTorch 2.x and torch-mlir (.deps/frontend, scripts/install-frontend.sh;
# scripts/test.sh makes it).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="$root/.deps/frontend/bin/python"
if [ ! -x "$python" ]; then
  echo "frontend tests: no $python; run scripts/install-frontend.sh" >&2
  exit 1
fi
# One worker per core: most of a test's time is one process exporting or
# compiling its model.
exec "$python" -m pytest -q -p no:logging -n auto --durations=10 "$root/python/frontend_tests"
