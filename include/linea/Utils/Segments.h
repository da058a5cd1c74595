//===- Segments.h - the segments of a packed sequence -----------*- C++ -*-===//
//
// A packed sequence holds N sequences one after another along its sequence
// dim, segment n being rows [o_n, o_{n+1}) for the N + 1 offsets o. Every
// op with offsets is defined as itself on each segment alone: one builder
// makes that loop for the optimizer (linea-split-segments) and the reference
// lowering alike.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_SEGMENTS_H
#define LINEA_UTILS_SEGMENTS_H

#include "linea/Dialect/LineaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace mlir::linea {

/// The rows of one segment along the sequence dim, as slices of the
/// operands the caller named. In a loop over segments and sequences,
/// `sequence` holds the index of each dim before the sequence dim (the
/// slices then have size 1 there); over segments alone it is empty.
struct Segment {
  Value index, start, size;
  SmallVector<Value> sequence;
  SmallVector<Value> slices;
};

/// What one iteration of a loop over segments takes: a whole segment (every
/// sequence of the batch), or one segment of one sequence, each iteration a
/// GPU sequence block (`#gpu.block` mapping): one launch for every segment
/// of every sequence, whatever their number. `inOrder` is `perSegment` as
/// an scf.for carrying the outputs, one segment after another: for a
/// compiler the result is handed to that takes no scf.forall at the top
/// level (IREE 3.13 crashes on one).
enum class SegmentLoopKind { perSegment, perSegmentBlock, inOrder };

/// A parallel loop (scf.forall) over the N segments of `offsets`, whose
/// body gets segment n's rows `[o_n, o_{n+1})` of each of `sequences` along
/// `dim` (a leading dim of each) and returns one value per output: for each
/// of `rowOutputs` the segment's rows of it (written at `[o_n, o_{n+1})`
/// along `dim`), then for each of `entryOutputs` (`[N, X...]`) its entry n
/// (`[X...]`). Returns the outputs so filled. Segments are independent.
/// With `perSegmentBlock`, the loop also runs over every dim before `dim`
/// (`[N, B...]`), and entries `[N, B..., X...]` are written at `[n, b...]`.
SmallVector<Value> buildSegmentLoop(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, ValueRange rowOutputs, ValueRange entryOutputs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, const Segment &)>
        body,
    SegmentLoopKind kind = SegmentLoopKind::perSegment);

/// Entry `n` of a tensor with one entry per segment along its dim 0: a
/// `[X...]` slice of `[N, X...]`, or an index from a 1-D integer tensor.
/// With `sequence` indices, only those sequences' entries of `[N, B..., X...]`
/// (`[1..., X...]`).
Value segmentEntry(OpBuilder &b, Location loc, Value x, Value n,
                   ValueRange sequence = {});

/// Entry n of each of `operands.entries` for `segment` n.
SmallVector<Value> segmentEntries(OpBuilder &b, Location loc,
                                  const PackedOperands &operands,
                                  const Segment &segment);

/// A packed op written out as its definition, the op on each segment
/// (PackedOpInterface::buildOnSegment) in a buildSegmentLoop: the values
/// that replace its results.
SmallVector<Value>
buildSegmentwise(OpBuilder &b, PackedOpInterface packed,
                 SegmentLoopKind kind = SegmentLoopKind::perSegment);

/// Every packed op but those `staysWhole` names (when given) ->
/// buildSegmentwise's loop of `kind`: the rewrite of linea-split-segments
/// (`perSegmentBlock` for the GPU), and how the reference lowering takes
/// them.
void populateSplitSegmentsPatterns(
    RewritePatternSet &patterns,
    SegmentLoopKind kind = SegmentLoopKind::perSegment,
    std::function<bool(PackedOpInterface)> staysWhole = nullptr);

} // namespace mlir::linea

#endif // LINEA_UTILS_SEGMENTS_H
