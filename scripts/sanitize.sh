#!/usr/bin/env bash
# The ASan + UBSan job: builds Linea's C++ (passes, tools, runtime checks)
# with both sanitizers into build-asan/ and runs lit and pytest against it.
# Any sanitizer report fails the run. MLIR itself (libMLIR.so) and the
# JIT-compiled kernels are not instrumented.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$root/build-asan" -j2
# Leaks at exit are MLIR's global registries, not errors. Left out: the
# plugin test (an instrumented plugin cannot load into the uninstrumented
# mlir-opt) and the consumer test (its project does not link the sanitizer
# runtimes the installed archives need).
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its free space
# when compiled with ASan, and Linea's instrumented code instantiates it
# inline on allocators that the uninstrumented libMLIR.so also writes to:
# every such write would be a false use-after-poison.
export ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0:abort_on_error=0:exitcode=99"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98"
/usr/lib/llvm-22/bin/lit -q "$root/build-asan/test" --filter-out 'Plugin/|Consumer/'
# The GPU lowerings of the shipped examples, at every precision and for both
# chip families (lit runs each pass on small cases; these are whole layers).
# The kit's programs compile below, in pytest's GPU cases.
for example in "$root"/examples/*.mlir; do
  for options in "chip=sm_90a format=isa" "chip=sm_90a format=isa precision=f16" \
                 "chip=sm_80 format=isa precision=bf16"; do
    "$root/build-asan/bin/linea-opt" "$example" "--linea-lower-to-nvvm=$options" -o /dev/null
    "$root/build-asan/bin/linea-opt" "$example" --linea-optimize=target=gpu \
      "--linea-lower-to-nvvm=$options" -o /dev/null
  done
  "$root/build-asan/bin/linea-opt" "$example" --linea-gpu-mapped-to-cpu=precision=bf16 -o /dev/null
done
LINEA_BUILD_DIR="$root/build-asan" PYTHONPATH="$root/python" \
  /usr/bin/python3 -m pytest -q "$root/python/tests"
