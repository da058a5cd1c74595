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
# IREE's CUDA target built every example as exported and as Linea hands it
# off (bench/gpu_iree.py --build-only; a model it refused has a .txt).
if [ -d "$root/build/gpu-kit/iree" ]; then
  /usr/bin/python3 - "$root/build/gpu-kit/iree" <<'CHECK'
import pathlib, sys
kit = pathlib.Path(sys.argv[1])
refused = sorted(p.name for p in kit.glob("*-*.txt"))
assert not refused, f"IREE refused: {refused}"
for form in ["source", "handoff"]:
    built = {p.name.split(f"-{form}")[0] for p in kit.glob(f"*-{form}*.vmfb")}
    assert len(built) == 8, (form, sorted(built))
print(f"{len(list(kit.glob('*.vmfb')))} IREE CUDA modules in the kit")
CHECK
fi
# A device call carries 64 MiB at most: the kit unpacked stays under 62 MiB
# (fla's wheel, 1 MB, beside it); packed, under 24 MiB (IREE's runtime
# wheel, 15 MB, and fla's beside it).
kib=$(du -sk "$root/build/gpu-kit" | cut -f1)
packed=$(du -sk "$root/build/gpu-kit.tar.xz" | cut -f1)
echo "kit: $((kib / 1024)) MiB, packed $((packed / 1024)) MiB"
[ "$kib" -lt $((62 * 1024)) ] && [ "$packed" -lt $((24 * 1024)) ]
