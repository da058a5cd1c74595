#!/usr/bin/env bash
# The GPU check kit. Here (no GPU, MLIR installed): builds Linea and packs
# build/gpu-kit/, everything a GPU machine without MLIR needs:
#   lib/libLineaCudaRuntime.so   the mgpu* runtime over the CUDA driver
#   python/linea/                the Python package (ctypes; numpy, torch)
#   cache/                       the compiled CUDA libraries (cubins for
#                                $LINEA_GPU_CHIP, default sm_90a) of every
#                                GPU test case and benchmark kernel
#   tests/gpu_cases.py (+ cases.py, programs.py)   the differential cases
#   bench/gpu.py                 Linea against torch and fla
#   bench/gpu_models.py, models/ the example models (examples/models) as
#                                from_torch exports them, against torch
#                                (f32, and bf16 tensor cores against autocast)
#   bench/gpu_training.py, training/    the example models compiled here for
#                                target="cuda" with their gradient programs
#                                and saved; there, forward + backward
#                                against torch autograd and float64
#   tests/gpu_saved_models.py, saved/   issue 56's block, from_torch compiled
#                                here for target="cuda" (weights as arguments
#                                and as constants) and saved; linea.load runs
#                                it there against float64 outputs made here
#   bench/gpu_iree.py, iree/     the example models compiled here by IREE's
#                                CUDA target, as exported and as Linea hands
#                                them off (linea.export); there, both run
#                                against float64 (issue 61). That stage needs
#                                IREE's runtime there: its wheel, fetched here
#                                beside fla's (pip download ... -d .whl
#                                iree-base-runtime==3.13.0, the same flags),
#                                installed with fla's; without it the stage
#                                says so and is skipped
#   run.sh                       what to run there
# There (Python 3 with torch and numpy, a CUDA driver):
#   bash build/gpu-kit/run.sh [OUT_DIR]
# runs the cases against the float64 oracle (one line each, then
# `N passed, N failed`) and the benchmark, and writes both to OUT_DIR
# ($OUT, or build/gpu-kit/results): GPU-RESULTS.md, GPU-MODELS.md, GPU-TRAINING.md,
# GPU-IREE.md and cases.txt.
#
# scripts/gpu-check.sh --no-build skips the build (CI builds first).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ "${1:-}" = "--no-build" ] || "$root/scripts/build.sh"
build="$root/build"
kit="$build/gpu-kit"
if [ ! -e "$build/lib/libLineaCudaRuntime.so" ]; then
  echo "gpu-check: no CUDA runtime library in $build/lib (is the CUDA toolkit installed?)" >&2
  exit 1
fi
rm -rf "$kit"
mkdir -p "$kit/lib" "$kit/python" "$kit/tests" "$kit/bench" "$kit/cache"
cp "$build/lib/libLineaCudaRuntime.so" "$kit/lib/"
cp -r "$root/python/linea" "$kit/python/"
cp "$root/python/tests/gpu_cases.py" "$root/python/tests/cases.py" \
   "$root/python/tests/programs.py" "$kit/tests/"
cp "$root/bench/gpu.py" "$kit/bench/"
find "$kit" -name __pycache__ -prune -exec rm -rf {} +

# Compile every case and benchmark kernel into the kit's cache: the same
# calls as on the GPU machine, which then find them there.
export LINEA_CACHE_DIR="$kit/cache" LINEA_BUILD_DIR="$build"
export PYTHONPATH="$root/python:$root/python/tests"
/usr/bin/python3 "$root/python/tests/gpu_cases.py" | tail -1
/usr/bin/python3 "$root/bench/gpu.py" --build-only | tail -1
/usr/bin/python3 "$root/bench/gpu.py" --build-only --quick | tail -1
# The example models (examples/models), exported by the front end: that
# needs torch-mlir, in .deps/frontend (scripts/install-frontend.sh).
cp "$root/bench/gpu_models.py" "$kit/bench/"
if [ -x "$root/.deps/frontend/bin/python" ]; then
  "$root/.deps/frontend/bin/python" "$root/bench/gpu_models.py" --build-only "$kit/models" \
    2>/dev/null | tail -1
  # A model exported here for target="cuda" and saved (no GPU here); the
  # machine there loads it with linea.load, with no torch-mlir or compiler.
  cp "$root/python/tests/gpu_saved_models.py" "$root/python/tests/first_day_block.py" "$kit/tests/"
  "$root/.deps/frontend/bin/python" "$root/python/tests/gpu_saved_models.py" --build \
    "$kit/saved" 2>/dev/null | tail -1
  # The example models with their gradient programs (training, issue 60).
  cp "$root/bench/gpu_training.py" "$kit/bench/"
  "$root/.deps/frontend/bin/python" "$root/bench/gpu_training.py" --build-only "$kit/training" \
    2>/dev/null
  # The example models and their hand-off, compiled by IREE for CUDA.
  cp "$root/bench/gpu_iree.py" "$kit/bench/"
  "$root/.deps/frontend/bin/python" "$root/bench/gpu_iree.py" --build-only "$kit/iree" \
    2>/dev/null | tail -1
else
  echo "gpu-check: no .deps/frontend (scripts/install-frontend.sh): the kit has no example models"
fi

cat > "$kit/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs Linea's GPU checks on this machine from the kit's prebuilt libraries.
set -uo pipefail
kit="$(cd "$(dirname "$0")" && pwd)"
out="${1:-${OUT:-$kit/results}}"
mkdir -p "$out"
export LINEA_CACHE_DIR="$kit/cache" LINEA_CUDA_RUNTIME="$kit/lib/libLineaCudaRuntime.so"
export LINEA_BUILD_DIR="$kit/no-compiler" PYTHONPATH="$kit/python:$kit/tests${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
# Each stage has a time limit (seconds, LINEA_KIT_TIMEOUT), so that a kernel
# that hangs costs one stage of a lent machine's time, not the whole lease;
# every line a stage printed is kept in OUT_DIR all the same.
limit="${LINEA_KIT_TIMEOUT:-600}"
# LINEA_KIT_PROFILE=1: the benchmarks also list the CUDA kernels of each call.
profile=${LINEA_KIT_PROFILE:+--profile}
stage() { timeout -k 10 "$limit" "$@"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader || true
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"
stage python3 "$kit/tests/gpu_cases.py" 2>&1 | tee "$out/cases.txt"
status=${PIPESTATUS[0]}
if [ -d "$kit/saved" ]; then
  stage python3 "$kit/tests/gpu_saved_models.py" "$kit/saved" 2>&1 | tee "$out/saved.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
stage python3 "$kit/bench/gpu.py" --results "$out/GPU-RESULTS.md" $profile "${@:2}" 2>&1 | tee "$out/bench.txt"
# LINEA_KIT_NCU=1: Nsight Compute's reading of every Linea kernel of one call
# of each bf16 variant on fla's two long shapes (kernels named after their
# stage: linea_<op>_<stage>).
if [ -n "${LINEA_KIT_NCU:-}" ]; then
  if command -v ncu >/dev/null; then
    stage ncu --clock-control none --section SpeedOfLight --section Occupancy \
      --section LaunchStats -k regex:linea_ python3 "$kit/bench/gpu.py" --one-call \
      2>&1 | tee "$out/ncu.txt"
  else
    echo "run.sh: no ncu here: the Nsight Compute stage skipped" | tee "$out/ncu.txt"
  fi
fi
# LINEA_KIT_SANITIZE=1: compute-sanitizer's racecheck and memcheck over the
# softmax cases (the flash kernel: plain, packed, heads split in place) and
# the row reductions (a warp's shuffles, the clamped last rows).
if [ -n "${LINEA_KIT_SANITIZE:-}" ]; then
  for tool in racecheck memcheck; do
    stage compute-sanitizer --tool "$tool" --print-limit 20 python3 "$kit/tests/gpu_cases.py" \
      --only " attention-" "-attention-" "packed softmax" "flash heads" "row reductions" \
      2>&1 | tee "$out/sanitize-$tool.txt"
  done
fi
if [ -d "$kit/training" ]; then
  stage python3 "$kit/bench/gpu_training.py" --saved "$kit/training" \
    --results "$out/GPU-TRAINING.md" 2>&1 | tee "$out/training.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ -d "$kit/models" ]; then
  stage python3 "$kit/bench/gpu_models.py" --models "$kit/models" --results "$out/GPU-MODELS.md" $profile \
    2>&1 | tee "$out/models.txt"
fi
if [ -d "$kit/iree" ]; then
  if python3 -c "import iree.runtime" 2>/dev/null; then
    stage python3 "$kit/bench/gpu_iree.py" --models "$kit/iree" --results "$out/GPU-IREE.md" \
      2>&1 | tee "$out/iree.txt"
  else
    echo "run.sh: no IREE runtime (iree-base-runtime==3.13.0): IREE's hand-off stage skipped" \
      | tee "$out/iree.txt"
  fi
fi
exit $status
RUN
chmod +x "$kit/run.sh"
# The front end's export cache (torch-mlir's output, 16 MB) served the
# builds above; nothing there exports.
rm -rf "$kit/cache/exports"
# The kit packed too (xz, about an eighth of its size): a device call carries
# 64 MiB at most, and the kit with fla's and IREE's wheels is past that.
tar -C "$build" -cf - gpu-kit | xz -T0 -3 > "$build/gpu-kit.tar.xz"
echo "gpu-check: kit in $kit ($(du -sh "$kit" | cut -f1), $(ls "$kit/cache" | wc -l) libraries;" \
     "packed: $(du -sh "$build/gpu-kit.tar.xz" | cut -f1)); on a GPU machine:" \
     "bash $kit/run.sh [OUT_DIR], or with the packed kit carried:" \
     "tar -xJf build/gpu-kit.tar.xz -C build && bash build/gpu-kit/run.sh [OUT_DIR]"
