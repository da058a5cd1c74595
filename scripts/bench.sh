#!/usr/bin/env bash
# Builds Linea, installs the benchmark peers (Debian's python3-torch) and
# prints the benchmark table; extra arguments go to bench/run.py.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh"
if ! dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "install ok installed"; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-torch >/dev/null
fi
/usr/bin/python3 "$root/bench/run.py" "$@"
