#!/usr/bin/env bash
# Installs everything Linea builds and tests with, from Debian's packages.
# Idempotent: when every package is present it returns at once.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libomp-22-dev
  cmake ninja-build g++ python3-numpy python3-pytest python3-pytest-xdist
  python3-torch
  python3-venv python3-pip python3-setuptools
  openmpi-bin libopenmpi-dev python3-mpi4py
  xz-utils
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The SASS checks of the GPU tests use cuobjdump and nvdisasm, which the CUDA
# toolkit here lacks: PyPI has them. Optional: without them those tests
# report unsupported.
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/.deps/cuda-tools"
if [ -d /usr/local/cuda ] && [ ! -x "$tools/nvidia/cu13/bin/nvdisasm" ]; then
  pip=""
  for candidate in pip3 pip; do
    if command -v "$candidate" >/dev/null; then pip="$candidate"; break; fi
  done
  if [ -n "$pip" ]; then
    "$pip" install -q --disable-pip-version-check --target "$tools" \
      nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm >/dev/null 2>&1 \
      || echo "install-deps: cuobjdump/nvdisasm not installed; SASS tests will be skipped"
  fi
fi
