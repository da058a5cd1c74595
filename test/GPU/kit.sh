#!/usr/bin/env bash
# The GPU check kit's build half, as CI runs it: scripts/gpu-check.sh packs
# build/gpu-kit; then the kit's run.sh, run here without a GPU and without
# Linea's tools (LINEA_BUILD_DIR points nowhere), must find every case's
# library in the kit's cache and report each one skipped, none failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bash "$root/scripts/gpu-check.sh" --no-build
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin"
ln -s /usr/bin/python3 "$scratch/bin/python3"   # the kit runs `python3`
PATH="$scratch/bin:$PATH" bash "$root/build/gpu-kit/run.sh" "$scratch/out" >/dev/null 2>&1 || true
tail -1 "$scratch/out/cases.txt"
grep -q "^0 passed, 0 failed, [1-9][0-9]* skipped$" "$scratch/out/cases.txt"
# The example models' libraries are in the kit's cache too, in f32 and bf16,
# found without a compiler, as bench/gpu_models.py asks for them there.
if [ -d "$root/build/gpu-kit/models" ]; then
  LINEA_CACHE_DIR="$root/build/gpu-kit/cache" LINEA_BUILD_DIR="$scratch/no-compiler" \
  PYTHONPATH="$root/build/gpu-kit/python" /usr/bin/python3 -c "
import os, pathlib, sys, linea
models = sorted(pathlib.Path(sys.argv[1]).glob('*.mlir'))
assert len(models) >= 6, models
chip = os.environ.get('LINEA_GPU_CHIP', 'sm_90a')  # bench/gpu_models.py's --chip
for path in models:
    for precision in ['f32', 'bf16']:  # bench/gpu_models.py's PRECISIONS
        linea.compile_library(path.read_text(), target='cuda', chip=chip, precision=precision)
print(f'{len(models)} example models in the kit, f32 and bf16')" "$root/build/gpu-kit/models"
fi
