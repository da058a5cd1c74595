//===- PackedOps.cpp - each packed op on one segment ----------------------===//
//
// PackedOpInterface for presum, attention and both linear-attention ops:
// what each reads of a segment and the op without offsets on one. The
// segment loop around it is lib/Utils/Segments.cpp's, the same for all.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"

using namespace mlir;
using namespace mlir::linea;

/// A segment's rows of a packed sequence type `[B..., L, X...]`: its length
/// is dynamic, and the dims before `dim` are those of the rows the segment
/// loop sliced (`rows`; all of them, or one sequence on the GPU).
static RankedTensorType segmentRowsType(Type type, Value rows, int64_t dim) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  llvm::copy(cast<RankedTensorType>(rows.getType()).getShape().take_front(dim),
             shape.begin());
  shape[dim] = ShapedType::kDynamic;
  return tensor.clone(shape);
}

/// One segment's entry of a per-segment type `[N, B..., X...]`, with the
/// dims before the sequence dim of `rows`.
static RankedTensorType segmentEntryType(Type type, Value rows, int64_t dim) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape().drop_front());
  llvm::copy(cast<RankedTensorType>(rows.getType()).getShape().take_front(dim),
             shape.begin());
  return tensor.clone(shape);
}

//===----------------------------------------------------------------------===//
// presum
//===----------------------------------------------------------------------===//

PackedOperands PresumOp::getPackedOperands() {
  PackedOperands operands;
  operands.sequences.push_back(getInput());
  if (Value decay = getDecay())
    operands.sequences.push_back(decay);
  operands.offsets = getOffsets();
  operands.dim = getScanDim();
  operands.outputLike = getInput();
  return operands;
}

Operation *PresumOp::buildOnSegment(OpBuilder &b, Location loc, ValueRange rows,
                                    ValueRange) {
  return PresumOp::create(b, loc, rows[0].getType(), rows[0],
                          getDecay() ? rows[1] : Value(), /*offsets=*/Value(),
                          getDimAttr(), getExclusiveAttr(), getReverseAttr(),
                          getFormAttr());
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

PackedOperands AttentionOp::getPackedOperands() {
  PackedOperands operands;
  operands.sequences = {getQuery(), getKey(), getValue()};
  operands.offsets = getOffsets();
  operands.dim = seqDim(getQuery().getType());
  operands.outputLike = getValue(); // [B..., L, Dv], Lq = Lk
  return operands;
}

Operation *AttentionOp::buildOnSegment(OpBuilder &b, Location loc,
                                       ValueRange rows, ValueRange) {
  int64_t dim = seqDim(getQuery().getType());
  return AttentionOp::create(
      b, loc, segmentRowsType(getOutput().getType(), rows[0], dim), rows[0],
      rows[1], rows[2], /*offsets=*/Value(), getMaskAttr(), getScaleAttr());
}

//===----------------------------------------------------------------------===//
// linear_attention, gated_linear_attention
//===----------------------------------------------------------------------===//

static PackedOperands
linearAttentionPackedOperands(LinearAttentionOpInterface op) {
  PackedOperands operands;
  operands.sequences = {op.getQuery(), op.getKey(), op.getValue()};
  if (Value gate = op.getGate())
    operands.sequences.push_back(gate);
  for (Value entry : {op.getInitialState(), op.getPrefixIndex()})
    if (entry)
      operands.entries.push_back(entry);
  operands.offsets = op.getOffsets();
  operands.dim = seqDim(op.getQuery().getType());
  operands.outputLike = op.getValue(); // [B..., L, Dv]
  return operands;
}

/// Segment n: its rows, initial state n and prefix length j_n; its final
/// state is entry n of the packed op's.
static Operation *buildLinearAttentionOnSegment(LinearAttentionOpInterface op,
                                                OpBuilder &b, Location loc,
                                                ValueRange rows,
                                                ValueRange entries) {
  LinearAttentionSpec spec = op.getSpec();
  spec.offsets = Value();
  spec.query = rows[0];
  spec.key = rows[1];
  spec.value = rows[2];
  if (spec.gate)
    spec.gate = rows[3];
  size_t entry = 0;
  if (spec.initialState)
    spec.initialState = entries[entry++];
  if (spec.prefixIndex)
    spec.prefixIndex = entries[entry++];
  int64_t dim = seqDim(op.getQuery().getType());
  spec.outputType = segmentRowsType(spec.outputType, rows[0], dim);
  if (spec.finalStateType)
    spec.finalStateType = segmentEntryType(spec.finalStateType, rows[0], dim);
  return op.createLike(b, loc, spec);
}

PackedOperands LinearAttentionOp::getPackedOperands() {
  return linearAttentionPackedOperands(*this);
}

Operation *LinearAttentionOp::buildOnSegment(OpBuilder &b, Location loc,
                                             ValueRange rows,
                                             ValueRange entries) {
  return buildLinearAttentionOnSegment(*this, b, loc, rows, entries);
}

PackedOperands GatedLinearAttentionOp::getPackedOperands() {
  return linearAttentionPackedOperands(*this);
}

Operation *GatedLinearAttentionOp::buildOnSegment(OpBuilder &b, Location loc,
                                                  ValueRange rows,
                                                  ValueRange entries) {
  return buildLinearAttentionOnSegment(*this, b, loc, rows, entries);
}
