//===- TiledTensor.h - a memref as a TMA tensor map sees it ----*- C++ -*-===//
//
// `nvgpu.tma.create.descriptor` hands the runtime a memref and the box a
// TMA load copies (its dims outermost first, as the memref's). A tensor map
// wants them innermost first, with the strides of all but the innermost dim
// in bytes. Both halves that build one share this conversion: the CUDA
// runtime (which then encodes it with cuTensorMapEncodeTiled) and the CPU
// emulation (which then copies boxes from it itself), so that the emulated
// tests check the conversion the GPU gets.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_RUNTIME_TILEDTENSOR_H
#define LINEA_RUNTIME_TILEDTENSOR_H

#include <cstdint>

namespace linea::runtime {

/// The most dims a tensor map describes.
constexpr int64_t kMaxTensorMapRank = 5;

/// A tensor for TMA: innermost dim first.
struct TiledTensor {
  int64_t rank = 0;
  char *address = nullptr;          // its first element
  int64_t elementBytes = 0;
  uint64_t dims[kMaxTensorMapRank] = {};
  uint64_t strides[kMaxTensorMapRank] = {}; // bytes; strides[0] is the element
  uint32_t box[kMaxTensorMapRank] = {};
};

/// The tensor of `rank` dims at `address` (its first element, offset
/// included) with `sizes` and `strides` (in elements, outermost first, as a
/// memref's), copied in boxes of `box` (outermost first). False where TMA
/// cannot address it: a rank outside 1..5, an innermost stride other than
/// 1, an address or another stride that is not a multiple of 16 bytes, or
/// a box dim outside 1..256.
inline bool describeTiledTensor(int64_t rank, char *address,
                                const int64_t *sizes, const int64_t *strides,
                                int64_t elementBytes, const int64_t *box,
                                TiledTensor &tensor) {
  if (rank < 1 || rank > kMaxTensorMapRank || elementBytes <= 0 ||
      strides[rank - 1] != 1 || reinterpret_cast<uintptr_t>(address) % 16)
    return false;
  tensor.rank = rank;
  tensor.address = address;
  tensor.elementBytes = elementBytes;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t outer = rank - 1 - d; // the memref's dim
    int64_t strideBytes = strides[outer] * elementBytes;
    if (sizes[outer] < 1 || box[outer] < 1 || box[outer] > 256 ||
        (d > 0 && (strideBytes <= 0 || strideBytes % 16)))
      return false;
    tensor.dims[d] = uint64_t(sizes[outer]);
    tensor.strides[d] = uint64_t(d == 0 ? elementBytes : strideBytes);
    tensor.box[d] = uint32_t(box[outer]);
  }
  return true;
}

} // namespace linea::runtime

#endif // LINEA_RUNTIME_TILEDTENSOR_H
