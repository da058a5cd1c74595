//===- MmaShape.h - the tensor-core instruction Linea emits -----*- C++ -*-===//
//
// mma.sync m16n8k16, per warp: a 16 x 16 A fragment, a 16 x 8 B fragment and
// a 16 x 8 f32 accumulator; and on sm_90a wgmma m64nNk16, per warpgroup of
// four warps, its A and B read from shared memory. ContractionsToMMA tiles
// by them and KernelReport counts their FLOPs; both read them here.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_GPU_MMASHAPE_H
#define LINEA_GPU_MMASHAPE_H

#include <cstdint>

namespace mlir::linea::mma {

inline constexpr int64_t kTileM = 16, kTileN = 8, kTileK = 16;
/// Lanes per warp: the threads that share one mma.sync.
inline constexpr int64_t kWarpSize = 32;

/// wgmma: the rows and depth of one instruction (its N is a multiple of 8
/// up to 256) and the threads that share it.
inline constexpr int64_t kWarpgroupM = 64, kWarpgroupK = 16;
inline constexpr int64_t kWarpgroupSize = 4 * kWarpSize;

} // namespace mlir::linea::mma

#endif // LINEA_GPU_MMASHAPE_H
