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
// Every launch, allocation and free of a thread goes on one stream: the one
// `linea_cuda_set_stream(s)` names (torch's current stream; 0x1 is
// CU_STREAM_LEGACY, the legacy default stream), else the legacy default
// stream, so that they are ordered with the caller's work. Buffers the host
// never touches are device memory from the device's stream-ordered pool
// (kept cached between calls, as torch's allocator keeps its own): an
// allocation or a free is queued on the stream, with no wait. Buffers the
// host reads too are managed memory.
//
// `mgpuTensorMapEncodeTiledMemref` (nvgpu.tma.create.descriptor's host half)
// encodes a TMA tensor map and hands the kernel a copy in device memory, as
// MLIR's NVVM lowering expects; the copies are kept per context and map, so
// that a kernel called again on the same tensors reuses its map.
//
//===----------------------------------------------------------------------===//

#include "TiledTensor.h"

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#define LINEA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

thread_local char firstError[512];
thread_local CUstream callerStream = nullptr;

/// The stream this thread's work goes on.
CUstream currentStream() { return callerStream ? callerStream : CU_STREAM_LEGACY; }

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
  // A kernel library unloads its module from a global destructor. At
  // process exit that can run after the caller's CUDA teardown (torch's),
  // when the module has gone with its context: nothing is left to free and
  // nothing to report (seen on an H200 as "unknown error" at every exit).
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current)
    return;
  CUresult result = cuModuleUnload(static_cast<CUmodule>(module));
  if (result == CUDA_ERROR_DEINITIALIZED || result == CUDA_ERROR_UNKNOWN ||
      result == CUDA_ERROR_CONTEXT_IS_DESTROYED)
    return;
  check(result, "cuModuleUnload");
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
  // A grid with no blocks (the one-shot part of a prefix of length 0, an
  // empty segment) runs nothing; the driver would refuse it as an invalid
  // argument.
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0)
    return;
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

/// The host code asks for a stream around each launch and allocation: it
/// gets this thread's one stream, which is never destroyed here.
LINEA_EXPORT void *mgpuStreamCreate() {
  enterContext();
  return currentStream();
}

LINEA_EXPORT void mgpuStreamDestroy(void * /*stream*/) {}

/// The host's wait for this thread's stream (linea-async-launches calls it
/// before the host reads or writes a buffer itself, and before returning).
LINEA_EXPORT void linea_cuda_synchronize() {
  enterContext();
  check(cuStreamSynchronize(currentStream()), "cuStreamSynchronize");
}

LINEA_EXPORT void mgpuStreamSynchronize(void *stream) {
  check(cuStreamSynchronize(static_cast<CUstream>(stream)),
        "cuStreamSynchronize");
}

namespace {

/// The device's default memory pool, made to keep what is freed to it (by
/// default it returns memory to the system at every synchronization, and
/// each call's buffers would be mapped afresh).
void keepPoolMemory() {
  static std::once_flag once;
  std::call_once(once, [] {
    CUdevice device;
    CUmemoryPool pool;
    if (cuCtxGetDevice(&device) != CUDA_SUCCESS ||
        cuDeviceGetDefaultMemPool(&pool, device) != CUDA_SUCCESS)
      return;
    cuuint64_t keepAll = ~cuuint64_t(0);
    check(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                &keepAll),
          "cuMemPoolSetAttribute");
  });
}

} // namespace

/// Host-shared buffers (the host reads them too) are managed memory; the
/// others come from the stream-ordered pool.
LINEA_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                bool isHostShared) {
  enterContext();
  if (sizeBytes == 0)
    return nullptr;
  CUdeviceptr pointer = 0;
  if (!isHostShared) {
    keepPoolMemory();
    CUstream on = stream ? static_cast<CUstream>(stream) : currentStream();
    if (!check(cuMemAllocAsync(&pointer, sizeBytes, on), "cuMemAllocAsync"))
      return nullptr;
    return reinterpret_cast<void *>(pointer);
  }
  if (!check(cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL),
             "cuMemAllocManaged"))
    return nullptr;
  // Managed pages are placed on first touch: a kernel writing a fresh
  // buffer would fault every page over from the host (on an H200 that
  // made each kernel ~1 ms on 16 MB). The kernels are its main users, so
  // the pages start, and prefer to stay, on the device.
  CUdevice device;
  if (cuCtxGetDevice(&device) == CUDA_SUCCESS) {
    CUmemLocation location{};
    location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    location.id = device;
    cuMemAdvise(pointer, sizeBytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                location);
    cuMemPrefetchAsync(pointer, sizeBytes, location, 0, currentStream());
  }
  return reinterpret_cast<void *>(pointer);
}

/// Pool memory goes back to the pool in stream order (behind every kernel
/// queued on the stream that may still read it: a result freed by
/// `linea_free_result` outside a call goes on the legacy default stream,
/// behind the caller's work there); managed memory is freed at once, the
/// host code having waited for the stream.
LINEA_EXPORT void mgpuMemFree(void *pointer, void *stream) {
  if (!pointer)
    return;
  enterContext();
  CUdeviceptr address = reinterpret_cast<CUdeviceptr>(pointer);
  CUmemoryPool pool = nullptr;
  if (cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
                            address) == CUDA_SUCCESS &&
      pool) {
    CUstream on = stream ? static_cast<CUstream>(stream) : currentStream();
    check(cuMemFreeAsync(address, on), "cuMemFreeAsync");
    return;
  }
  check(cuMemFree(address), "cuMemFree");
}

namespace {

/// The bytes of an element of a CUtensorMapDataType (0 for none known).
int64_t tensorMapElementBytes(int64_t dataType) {
  switch (dataType) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8:
    return 1;
  case CU_TENSOR_MAP_DATA_TYPE_UINT16:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
    return 2;
  case CU_TENSOR_MAP_DATA_TYPE_UINT32:
  case CU_TENSOR_MAP_DATA_TYPE_INT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    return 4;
  case CU_TENSOR_MAP_DATA_TYPE_UINT64:
  case CU_TENSOR_MAP_DATA_TYPE_INT64:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
    return 8;
  default:
    return 0;
  }
}

/// Device copies of tensor maps kept at most (128 bytes each).
constexpr size_t kMaxTensorMapCopies = 4096;

/// A device copy of `map` in the current context, made once per context
/// and map. Past kMaxTensorMapCopies the context's copies are freed, once
/// the kernels that may read them are done.
CUdeviceptr deviceCopy(const CUtensorMap &map) {
  static std::mutex mutex;
  static std::map<std::pair<CUcontext, std::string>, CUdeviceptr> copies;
  CUcontext context = nullptr;
  cuCtxGetCurrent(&context);
  std::pair<CUcontext, std::string> key{
      context, std::string(reinterpret_cast<const char *>(&map), sizeof map)};
  std::lock_guard<std::mutex> lock(mutex);
  auto found = copies.find(key);
  if (found != copies.end())
    return found->second;
  if (copies.size() >= kMaxTensorMapCopies &&
      check(cuCtxSynchronize(), "cuCtxSynchronize"))
    for (auto it = copies.begin(); it != copies.end();)
      if (it->first.first == context) {
        check(cuMemFree(it->second), "cuMemFree");
        it = copies.erase(it);
      } else {
        ++it;
      }
  CUdeviceptr copy = 0;
  if (!check(cuMemAlloc(&copy, sizeof map), "cuMemAlloc") ||
      !check(cuMemcpyHtoD(copy, &map, sizeof map), "cuMemcpyHtoD"))
    return 0;
  copies.emplace(std::move(key), copy);
  return copy;
}

} // namespace

/// `nvgpu.tma.create.descriptor`'s host half, as MLIR's NVVM lowering calls
/// it: `descriptor` points to a ranked memref descriptor ({allocated,
/// aligned, offset, sizes[rank], strides[rank]}), `box` to the box dims
/// (outermost first), the enums are CUDA's. Returns the encoded map in
/// device memory; null where the tensor cannot be described for TMA
/// (misaligned: Linea's kernels check that themselves and then copy
/// otherwise, so that is not an error) or encoding fails (an error).
LINEA_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *box) {
  enterContext();
  struct Prefix {
    char *allocated, *aligned;
    int64_t offset;
  };
  auto *prefix = static_cast<Prefix *>(descriptor);
  auto *sizes = reinterpret_cast<int64_t *>(prefix + 1);
  int64_t elementBytes = tensorMapElementBytes(dataType);
  linea::runtime::TiledTensor tensor;
  if (!linea::runtime::describeTiledTensor(
          rank, prefix->aligned + prefix->offset * elementBytes, sizes,
          sizes + rank, elementBytes, box, tensor))
    return nullptr;
  cuuint32_t elementStrides[linea::runtime::kMaxTensorMapRank] = {1, 1, 1, 1,
                                                                  1};
  CUtensorMap map;
  if (!check(cuTensorMapEncodeTiled(
                 &map, CUtensorMapDataType(dataType), cuuint32_t(rank),
                 tensor.address, tensor.dims, tensor.strides + 1, tensor.box,
                 elementStrides, CUtensorMapInterleave(interleave),
                 CUtensorMapSwizzle(swizzle),
                 CUtensorMapL2promotion(l2Promotion),
                 CUtensorMapFloatOOBfill(oobFill)),
             "cuTensorMapEncodeTiled"))
    return nullptr;
  return reinterpret_cast<void *>(deviceCopy(map));
}
