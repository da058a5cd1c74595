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

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {

/// The rows of one segment along the sequence dim, as slices of the
/// operands the caller named.
struct Segment {
  Value index, start, size;
  SmallVector<Value> slices;
};

/// Results computed segment by segment: a parallel loop over the N
/// segments whose body gets segment n's rows `[o_n, o_{n+1})` of each of
/// `sequences` along `dim` (all share it: it is a leading dim of each) and
/// returns that segment's rows of the first result (shaped like
/// `sequences[0]`, of `resultElementType`), then one value per tensor of
/// `perSegment` (each `[N, X...]`: the body's `X...` goes to entry n). The
/// segments are independent, so the loop is an scf.forall.
SmallVector<Value> buildPerSegment(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, Type resultElementType, ValueRange perSegment,
    function_ref<SmallVector<Value>(OpBuilder &, Location, const Segment &)>
        body);

/// Entry `n` of a tensor with one entry per segment along its dim 0: a
/// `[X...]` slice of `[N, X...]`, or an index from a 1-D integer tensor.
Value segmentEntry(OpBuilder &b, Location loc, Value x, Value n);

/// Whether `op` carries packed segments (an `offsets` operand).
bool isPacked(Operation *op);

/// A packed op written out as its definition: the op without offsets on
/// each segment (buildPerSegment); the values that replace its results.
/// For presum, attention and both linear-attention ops: segment n of the
/// latter starts from initial state n, takes prefix length j_n, and writes
/// final state n.
SmallVector<Value> buildSegmentwise(OpBuilder &b, Operation *packed);

/// Every packed op -> buildSegmentwise's loop over its segments: the rewrite
/// of linea-split-segments, and how the reference lowering takes them.
void populateSplitSegmentsPatterns(RewritePatternSet &patterns);

} // namespace mlir::linea

#endif // LINEA_UTILS_SEGMENTS_H
