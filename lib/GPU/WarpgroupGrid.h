//===- WarpgroupGrid.h - staged contractions on wgmma (sm_90a) -*- C++ -*-===//
//
// On sm_90a a staged grid's warps can run as warpgroups of four: one wgmma
// m64nNk16 reads a 64 x 16 slice of A and a 16 x N slice of B straight from
// shared memory, through 64-bit matrix descriptors, instead of each warp
// loading fragments with ldmatrix for 16 x 8 mma.sync steps. The block
// stages its operands' slices in the layout the descriptors describe:
// 128-byte rows of 16-bit elements, their 16-byte chunks swizzled.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_GPU_WARPGROUPGRID_H
#define LINEA_LIB_GPU_WARPGROUPGRID_H

#include "Fragments.h"

#include <optional>

namespace mlir::linea::mma {

/// A staged grid's block tile on wgmma: `rows` x `cols` outputs per block,
/// each warpgroup owning 64 of the rows and `warpgroupCols` of the columns
/// (the N of its wgmma), the depth staged 64 at a time (one 128-byte row
/// of 16-bit elements).
struct WarpgroupTiling {
  int64_t rows, cols, warpgroupCols;
  static constexpr int64_t kDepth = 64;

  int64_t rowGroups() const { return rows / kWarpgroupM; }
  int64_t warpgroups() const { return rowGroups() * (cols / warpgroupCols); }
  int64_t threads() const { return warpgroups() * kWarpgroupSize; }
  /// 16-bit elements of a block's staged slices, A's then M's.
  int64_t stagedElements() const { return (rows + cols) * kDepth; }
  /// The blocks of a grid over `c`'s output (as planned, for dynamic rows).
  int64_t numBlocks(const Contraction &c) const {
    return c.numTiles() * kTileM * kTileN / (rows * cols);
  }
};

/// The byte alignment of the staged slices: the 128-byte swizzle repeats
/// every 8 rows, and wgmma computes it from the shared-memory address.
inline constexpr int64_t kSwizzleAlignment = 1024;

/// The block tile for contractions into one output (`members`) on wgmma,
/// if their sizes allow one (depths multiples of 64, the output's rows and
/// columns of 64): the largest of 128 x 128 down to 64 x 64 that divides
/// the output and still gives `minBlocks` blocks, else the one with the
/// most blocks, with as many warpgroups as `maxThreads` allow (columns
/// split between them in multiples of 64). Dynamic rows need not divide:
/// their last tile is partial, the grid planned for kAssumedDynamicLength.
std::optional<WarpgroupTiling>
chooseWarpgroupTiling(ArrayRef<Contraction> members, int64_t maxThreads,
                      int64_t minBlocks);

/// The shared buffer a block of `tiling` stages its slices in (workgroup
/// memory, 1-D, to be kSwizzleAlignment-aligned).
MemRefType warpgroupStagedType(Type operandType,
                               const WarpgroupTiling &tiling);

/// A member's tensor maps for TMA loads of its A and M slices (null where
/// an operand has none).
struct TensorMaps {
  Value a, m;
};

/// On the host, before the grid: the tensor maps of `members`' operands
/// that TMA can load (`nvgpu.tma.create.descriptor`): those stored in the
/// tensor-core type in whole 16-byte rows, in at most 5 dims, their boxes
/// a slice's `extent` x 64 where the depth is inner and 64 x 64 where it
/// is outer, in the 128-byte swizzle that wgmma reads.
SmallVector<TensorMaps> createTensorMaps(OpBuilder &b, Location loc,
                                         ArrayRef<Contraction> members,
                                         Type operandType,
                                         const WarpgroupTiling &tiling);

/// One block's program of a staged grid on wgmma for `members` (at `b`, in
/// the grid's body: `block` and `thread` its indices, `staged` its shared
/// buffer, `maps` from createTensorMaps or empty): per 64-deep step thread
/// 0 issues the TMA loads of the mapped slices, tracked by an mbarrier,
/// where every mapped operand starts on a 16-byte line at run time; the
/// threads copy the others (cp.async lines where the operands are 16-bit
/// and aligned, else element by element); a proxy fence, a barrier and the
/// mbarrier's phase publish them to the warpgroups' wgmma steps, and the
/// accumulators stay in registers from one member to the next, starting at
/// zero where `zeroInit`; each member's mask selects in them, and the
/// output is stored once.
void buildWarpgroupBlock(OpBuilder &b, Location loc,
                         ArrayRef<Contraction> members, bool zeroInit,
                         Type operandType, const WarpgroupTiling &tiling,
                         Value block, Value thread, Value staged,
                         ArrayRef<TensorMaps> maps);

} // namespace mlir::linea::mma

#endif // LINEA_LIB_GPU_WARPGROUPGRID_H
