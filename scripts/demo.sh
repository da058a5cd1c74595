#!/usr/bin/env bash
# Installs what Linea needs, builds it, and runs an example (default: the
# PrefixLM layer) with linea-run, printing each result's shape and checksum.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh"
/usr/bin/python3 "$root/scripts/run-example.py" "${1:-$root/examples/prefixlm.mlir}"
