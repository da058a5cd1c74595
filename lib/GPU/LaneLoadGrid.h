//===- LaneLoadGrid.h - contractions whose lanes load their fragments -*- C++ -*-===//
//
// The tensor-core form for a sequence block, whose operands are mostly its
// own shared temporaries, and for sizes the staged grid does not tile:
// warps take output strips in turn, each lane loading the fragment
// elements PTX assigns it (any strides, any memory).
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_GPU_LANELOADGRID_H
#define LINEA_LIB_GPU_LANELOADGRID_H

#include "Fragments.h"

namespace mlir::linea::mma {

/// The warps' work items for `members` (contractions into one output):
/// strips of `stripTiles` 16 x 8 tiles down one column.
int64_t laneLoadItems(ArrayRef<Contraction> members, int64_t stripTiles);

/// At `b`: warp `warp` of `numWarps` (lane `lane`) takes the work items
/// `warp`, `warp + numWarps`, ...: per strip, the members' k16 steps on
/// accumulators kept in registers from one member to the next (starting at
/// zero where `zeroInit`, else from the output; each member's mask selects
/// in them), each B fragment loaded once for the strip, the output stored
/// once.
void buildLaneLoads(OpBuilder &b, Location loc, ArrayRef<Contraction> members,
                    bool zeroInit, Type operandType, int64_t stripTiles,
                    Value warp, Value numWarps, Value lane);

} // namespace mlir::linea::mma

#endif // LINEA_LIB_GPU_LANELOADGRID_H
