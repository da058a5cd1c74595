//===- MmaShape.h - the tensor-core instruction Linea emits -----*- C++ -*-===//
//
// mma.sync m16n8k16, per warp: a 16 x 16 A fragment, a 16 x 8 B fragment and
// a 16 x 8 f32 accumulator. ContractionsToMMA tiles by it and KernelReport
// counts its FLOPs; both read it here.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_GPU_MMASHAPE_H
#define LINEA_GPU_MMASHAPE_H

#include <cstdint>

namespace mlir::linea::mma {

inline constexpr int64_t kTileM = 16, kTileN = 8, kTileK = 16;
/// Lanes per warp: the threads that share one mma.sync.
inline constexpr int64_t kWarpSize = 32;

} // namespace mlir::linea::mma

#endif // LINEA_GPU_MMASHAPE_H
