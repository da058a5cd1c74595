#!/usr/bin/env bash
# Installs what Linea needs, builds it, and runs an example (default: the
# PrefixLM layer) with linea-run, printing each result's shape and checksum.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# With a configured build tree, only what changed is rebuilt (no package
# installation); otherwise the full set-up.
if [ -f "$root/build/build.ninja" ]; then
  cmake --build "$root/build" -j2 >/dev/null
else
  "$root/scripts/build.sh"
fi
/usr/bin/python3 "$root/scripts/run-example.py" "${1:-$root/examples/prefixlm.mlir}"
