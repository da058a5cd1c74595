#!/usr/bin/env bash
# Builds Linea, installs the benchmark peers (Debian's python3-torch) and
# prints the benchmark table; extra arguments go to bench/run.py.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh"
# The peers: torch, over OpenBLAS rather than the reference BLAS, and GNU
# time for peak memory.
missing=()
for pkg in python3-torch libopenblas0-pthread time; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
/usr/bin/python3 "$root/bench/run.py" "$@"
