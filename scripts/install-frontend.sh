#!/usr/bin/env bash
# The front ends' Python (linea.from_torch, linea.from_onnx, examples/models,
# scripts/raise-corpus.py, bench/models.py): a venv of Debian's Python 3.11 in
# .deps/frontend with PyPI's torch-mlir, onnx, PyTorch 2.15 (a CUDA build that
# runs on the CPU: its pure-Python dependencies and the four NVIDIA libraries
# it loads that /usr/local/cuda lacks) and IREE (the peer bench/ measures).
# About 1.5 GB to download, 3 GB on disk. Idempotent: a venv that imports
# them all returns at once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.deps/frontend"
check="import torch, torch_mlir.fx, onnx, numpy, pytest, iree.compiler, iree.runtime"
pip=("$venv/bin/pip" install -q --disable-pip-version-check)
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
  # The suite's workers (python/frontend_tests/run.sh), in a venv made
  # before they were part of it.
  "$venv/bin/python" -c "import xdist" >/dev/null 2>&1 || "${pip[@]}" pytest-xdist
  exit 0
fi
echo "install-frontend: making $venv (torch-mlir, onnx, torch 2.15, IREE; ~1.5 GB download)"
/usr/bin/python3 -m venv "$venv"
"${pip[@]}" torch-mlir==20261001 onnx==1.23.2 numpy pytest pytest-xdist iree-base-compiler==3.13.0 \
  iree-base-runtime==3.13.0
"${pip[@]}" --no-deps torch==2.15.0
"${pip[@]}" filelock typing-extensions sympy networkx jinja2 fsspec mpmath \
  nvidia-cufile nvidia-cusparselt-cu13 nvidia-nvshmem-cu13 nvidia-nccl-cu13
"$venv/bin/python" -c "$check"
