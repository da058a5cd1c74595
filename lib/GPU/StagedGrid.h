//===- StagedGrid.h - contractions staged through shared memory -*- C++ -*-===//
//
// The tensor-core form of a grid (the one-shot and chunk-parallel forms'
// contractions): a block per output tile copies the operands' slices into
// shared memory, converted to f16/bf16, and its warps load fragments with
// ldmatrix for mma.sync steps, so each element leaves global memory once
// per block. (On sm_90a, WarpgroupGrid.h stages for wgmma instead.) f32
// contractions without tensor cores take the same grid, staged in f32,
// each thread multiplying a tile of outputs by FMA on the CUDA cores.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_GPU_STAGEDGRID_H
#define LINEA_LIB_GPU_STAGEDGRID_H

#include "Fragments.h"

#include <optional>

namespace mlir::linea::mma {

/// How a block of the staged form splits its work: a `rows` x `cols`
/// output tile per block, the depth stepped `depth` at a time through
/// shared memory, each of `activeWarps` warps owning 16 x (8 *
/// `tilesPerWarp`) outputs (the A fragment reused across them).
struct BlockTiling {
  int64_t rows, cols, depth;
  int64_t tilesPerWarp, activeWarps;
  /// f32 on the CUDA cores instead: a 16 x 16 grid of threads, each
  /// `rows / 16` x `cols / 16` outputs (rows ty + 16 i, columns tx + 16 j)
  /// by FMA from the staged f32 slices (tilesPerWarp, activeWarps unused).
  bool scalar = false;

  /// The blocks of a grid over `c`'s output (as planned, for dynamic rows).
  int64_t numBlocks(const Contraction &c) const {
    return c.numTiles() / ((rows / kTileM) * (cols / kTileN));
  }
};

/// The block tile of contractions into one output: the largest of
/// 128 x 128 down to 16 x 8 that divides it and still gives `minBlocks`
/// blocks (the GPU's SMs), or the one with the most blocks where none
/// does. Larger tiles read each operand element fewer times; a grid
/// smaller than the GPU idles SMs. Tiles that keep every warp busy come
/// first; smaller ones only where none divides. The depth steps 32 at a
/// time (16 where 32 does not divide every contraction's depth). Dynamic
/// rows need not divide: their last tile is partial, the grid planned for
/// the cost model's assumed dynamic length (kAssumedDynamicLength).
std::optional<BlockTiling> chooseBlockTiling(ArrayRef<Contraction> members,
                                             int64_t numWarps,
                                             int64_t minBlocks);

/// The side of the thread grid of a scalar block tile (BlockTiling::scalar).
constexpr int64_t kScalarGridSide = 16;

/// The block tile of f32 contractions into one output on the CUDA cores:
/// as chooseBlockTiling, from 128 x 128 (8 x 8 outputs a thread) down to
/// 16 x 16, its sides multiples of 16, for blocks of `threads` = 256
/// threads; none for other block sizes or columns that are not a multiple
/// of 16.
std::optional<BlockTiling> chooseScalarTiling(ArrayRef<Contraction> members,
                                              int64_t threads,
                                              int64_t minBlocks);

/// The blocks per SM a scalar tiling's kernel is built for: two (128
/// registers a thread) up to 32 accumulators a thread, else one (ptxas
/// spilled 228 bytes at two for 8 x 8).
inline int64_t scalarBlocksPerSM(const BlockTiling &tiling) {
  return tiling.rows * tiling.cols <= 32 * kScalarGridSide * kScalarGridSide
             ? 2
             : 1;
}

/// The staged slices of each contraction of a chain, A's then M's; a
/// contraction whose slice has the type of an earlier one's reuses it.
struct StagedSlices {
  SmallVector<MemRefType> aTypes, mTypes;

  StagedSlices(ArrayRef<Contraction> members, Type operandType,
               const BlockTiling &tiling);

  /// The distinct slice types of one operand position, in first-use order.
  static SmallVector<MemRefType> distinct(ArrayRef<MemRefType> types);

  /// Shared memory of the distinct slices.
  int64_t bytes() const;
};

/// One block's program of a staged grid for `members` (contractions into
/// one output, at `b` in the grid's body: `block` and `thread` its indices,
/// `threads` per block, `slices[i]` member i's staged A and M buffers): its
/// warps on tensor cores, or for a scalar tiling its threads by FMA.
void buildStagedBlock(OpBuilder &b, Location loc, ArrayRef<Contraction> members,
                      bool zeroInit, Type operandType,
                      const BlockTiling &tiling, int64_t threads, Value block,
                      Value thread, ArrayRef<std::pair<Value, Value>> slices);

} // namespace mlir::linea::mma

#endif // LINEA_LIB_GPU_STAGEDGRID_H
