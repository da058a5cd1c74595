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

namespace mlir::linea {

/// The rows of one segment along the sequence dim, as slices of the
/// operands the caller named.
struct Segment {
  Value index, start, size;
  SmallVector<Value> slices;
};

/// `result` (a tensor shaped like `sequences[0]`) computed segment by
/// segment: a parallel loop over the N segments whose body gets segment n's
/// rows `[o_n, o_{n+1})` of each of `sequences` along `dim` (all share it:
/// it is a leading dim of each) and returns that segment's rows of the
/// result. The segments are independent, so the loop is an scf.forall.
Value buildPerSegment(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, Type resultElementType,
    function_ref<Value(OpBuilder &, Location, const Segment &)> body);

} // namespace mlir::linea

#endif // LINEA_UTILS_SEGMENTS_H
