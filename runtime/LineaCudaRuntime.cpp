//===- LineaCudaRuntime.cpp - the GPU runtime entry points, over the CUDA driver API -===//
//
// The host code that linea-lower-to-nvvm produces (through MLIR's gpu-to-llvm
// and gpu.binary translation) calls these mgpu* functions to load kernels,
// launch them and manage memory. This library implements them over the
// CUDA driver API (libcuda). It is compiled and linked against the CUDA
// toolkit here; no machine of this project has a GPU to run it on.
//
// Calls run in the calling thread's current context (torch's, when called
// from Python next to torch), else in device 0's primary context. A failing
// driver call is reported on stderr with its name and the driver's error
// string, and kept: `linea_cuda_take_error()` returns the first failure since
// the last take (linea-compile's `linea_checked_F` turns it into an error
// return instead of a silent wrong answer).
//
// `linea_cuda_set_stream(s)` makes the synchronous launches of this thread run
// on stream `s` (torch's current stream) instead of a stream of their own, so
// they are ordered with the caller's work on it.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#define LINEA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

thread_local char firstError[512];
thread_local CUstream callerStream = nullptr;

bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *message = nullptr;
  cuGetErrorString(result, &message);
  if (!message)
    message = "unknown error";
  std::fprintf(stderr, "linea-cuda-runtime: %s failed: %s\n", call, message);
  if (!firstError[0])
    std::snprintf(firstError, sizeof firstError, "%s failed: %s", call,
                  message);
  return false;
}

/// Keeps the caller's current context; without one, makes device 0's
/// primary context current (initializing the driver once).
void enterContext() {
  static CUcontext primary = [] {
    CUcontext ctx = nullptr;
    CUdevice device;
    if (check(cuInit(0), "cuInit") && check(cuDeviceGet(&device, 0), "cuDeviceGet"))
      check(cuDevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain");
    return ctx;
  }();
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current)
    return;
  if (primary)
    check(cuCtxSetCurrent(primary), "cuCtxSetCurrent");
}

} // namespace

LINEA_EXPORT void *mgpuModuleLoad(void *data, size_t /*size*/) {
  enterContext();
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

LINEA_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
  enterContext();
  CUmodule module = nullptr;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  check(cuModuleLoadDataEx(&module, data, 1, options, values),
        "cuModuleLoadDataEx");
  return module;
}

LINEA_EXPORT void mgpuModuleUnload(void *module) {
  check(cuModuleUnload(static_cast<CUmodule>(module)), "cuModuleUnload");
}

LINEA_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction function = nullptr;
  check(cuModuleGetFunction(&function, static_cast<CUmodule>(module), name),
        "cuModuleGetFunction");
  return function;
}

LINEA_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                   intptr_t gridY, intptr_t gridZ,
                                   intptr_t blockX, intptr_t blockY,
                                   intptr_t blockZ, int32_t sharedMemBytes,
                                   void *stream, void **params, void **extra,
                                   size_t /*paramsCount*/) {
  enterContext();
  // Above the default 48 KiB a kernel must opt in to dynamic shared memory.
  if (sharedMemBytes > 48 * 1024)
    check(cuFuncSetAttribute(static_cast<CUfunction>(function),
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             sharedMemBytes),
          "cuFuncSetAttribute");
  check(cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY, gridZ,
                       blockX, blockY, blockZ, sharedMemBytes,
                       static_cast<CUstream>(stream), params, extra),
        "cuLaunchKernel");
}

LINEA_EXPORT void linea_cuda_set_stream(void *stream) {
  callerStream = static_cast<CUstream>(stream);
}

/// The first driver failure since the last call ("" if none), then forgets it.
LINEA_EXPORT const char *linea_cuda_take_error() {
  thread_local char taken[sizeof firstError];
  std::memcpy(taken, firstError, sizeof taken);
  firstError[0] = 0;
  return taken;
}

LINEA_EXPORT void *mgpuStreamCreate() {
  enterContext();
  if (callerStream)
    return callerStream;
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return stream;
}

LINEA_EXPORT void mgpuStreamDestroy(void *stream) {
  if (stream == callerStream)
    return; // the caller's
  check(cuStreamDestroy(static_cast<CUstream>(stream)), "cuStreamDestroy");
}

LINEA_EXPORT void mgpuStreamSynchronize(void *stream) {
  check(cuStreamSynchronize(static_cast<CUstream>(stream)),
        "cuStreamSynchronize");
}

/// Host-shared buffers are managed memory: the host loops around the
/// kernels read and write them too.
LINEA_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/,
                                bool isHostShared) {
  enterContext();
  if (sizeBytes == 0)
    return nullptr;
  CUdeviceptr pointer = 0;
  if (isHostShared)
    check(cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged");
  else
    check(cuMemAlloc(&pointer, sizeBytes), "cuMemAlloc");
  return reinterpret_cast<void *>(pointer);
}

LINEA_EXPORT void mgpuMemFree(void *pointer, void * /*stream*/) {
  if (!pointer)
    return;
  enterContext();
  check(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)), "cuMemFree");
}
