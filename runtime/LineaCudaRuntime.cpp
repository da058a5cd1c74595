//===- LineaCudaRuntime.cpp - the GPU runtime entry points, over the CUDA driver API -===//
//
// The host code that linea-lower-to-nvvm produces (through MLIR's gpu-to-llvm
// and gpu.binary translation) calls these mgpu* functions to load kernels,
// launch them and manage memory. This library implements them over the
// CUDA driver API (libcuda). It is compiled and linked against the CUDA
// toolkit here; no machine of this project has a GPU to run it on.
//
// Every call runs in device 0's primary context. A failing driver call is
// reported on stderr with its name and the driver's error string.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdint>
#include <cstdio>

#define LINEA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *message = nullptr;
  cuGetErrorString(result, &message);
  std::fprintf(stderr, "linea-cuda-runtime: %s failed: %s\n", call,
               message ? message : "unknown error");
  return false;
}

/// Makes device 0's primary context current (initializing the driver once).
void enterContext() {
  static CUcontext context = [] {
    CUcontext ctx = nullptr;
    CUdevice device;
    if (check(cuInit(0), "cuInit") && check(cuDeviceGet(&device, 0), "cuDeviceGet"))
      check(cuDevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain");
    return ctx;
  }();
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
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
  check(cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY, gridZ,
                       blockX, blockY, blockZ, sharedMemBytes,
                       static_cast<CUstream>(stream), params, extra),
        "cuLaunchKernel");
}

LINEA_EXPORT void *mgpuStreamCreate() {
  enterContext();
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return stream;
}

LINEA_EXPORT void mgpuStreamDestroy(void *stream) {
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
