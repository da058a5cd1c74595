//===- Segments.cpp - the segments of a packed sequence -------------------===//

#include "linea/Utils/Segments.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

//===----------------------------------------------------------------------===//
// The loop over segments
//===----------------------------------------------------------------------===//

SmallVector<Value> mlir::linea::buildSegmentLoop(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, ValueRange rowOutputs, ValueRange entryOutputs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, const Segment &)>
        body) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  OpFoldResult count = segmentCount(b, loc, offsets);
  SmallVector<Value> outputs(rowOutputs);
  llvm::append_range(outputs, entryOutputs);
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                      outputs, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Segment segment;
  segment.index = forall.getInductionVars()[0];
  segment.start = segmentOffset(b, loc, offsets, segment.index);
  Value end = segmentOffset(
      b, loc, offsets, arith::AddIOp::create(b, loc, segment.index, one));
  segment.size = arith::SubIOp::create(b, loc, end, segment.start);
  for (Value x : sequences)
    segment.slices.push_back(
        sliceAlong(b, loc, x, dim, segment.start, segment.size));
  SmallVector<Value> results = body(b, loc, segment);
  assert(results.size() == outputs.size() && "one value per output");

  // Where each result goes: rows at [o_n, o_{n+1}) along `dim`, an entry at
  // n of dim 0. (Sizes are built before the terminator, whose body holds
  // only the inserts.)
  struct Insert {
    Value source;
    SmallVector<OpFoldResult> at, sizes;
  };
  SmallVector<Insert> inserts;
  for (auto [number, value] : llvm::enumerate(results)) {
    Insert insert{value, {}, tensor::getMixedSizes(b, loc, value)};
    int64_t rank = insert.sizes.size();
    if (number < rowOutputs.size()) {
      insert.at.assign(rank, b.getIndexAttr(0));
      insert.at[dim] = segment.start;
      insert.sizes[dim] = segment.size;
    } else {
      insert.at.assign(rank + 1, b.getIndexAttr(0));
      insert.at[0] = segment.index;
      insert.sizes.insert(insert.sizes.begin(), b.getIndexAttr(1));
    }
    inserts.push_back(std::move(insert));
  }
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [insert, dest] :
       llvm::zip_equal(inserts, forall.getRegionIterArgs())) {
    SmallVector<OpFoldResult> strides(insert.at.size(), b.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(b, loc, insert.source, dest,
                                          insert.at, insert.sizes, strides);
  }
  return SmallVector<Value>(forall.getResults());
}

Value mlir::linea::segmentEntry(OpBuilder &b, Location loc, Value x, Value n) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() == 1)
    return segmentOffset(b, loc, x, n);
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> at(rank, b.getIndexAttr(0));
  at[0] = n;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[0] = b.getIndexAttr(1);
  auto entryType = RankedTensorType::get(type.getShape().drop_front(),
                                         type.getElementType());
  return tensor::ExtractSliceOp::create(
      b, loc, entryType, x, at, sizes,
      SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
}

//===----------------------------------------------------------------------===//
// Packed ops, one segment at a time
//===----------------------------------------------------------------------===//

bool mlir::linea::isPacked(Operation *op) {
  if (auto presum = dyn_cast<PresumOp>(op))
    return static_cast<bool>(presum.getOffsets());
  if (auto attention = dyn_cast<AttentionOp>(op))
    return static_cast<bool>(attention.getOffsets());
  if (auto attention = dyn_cast<LinearAttentionOpInterface>(op))
    return attention.isPacked();
  return false;
}

PackedOperands mlir::linea::packedOperandsOf(Operation *packed) {
  PackedOperands operands;
  if (auto presum = dyn_cast<PresumOp>(packed)) {
    operands.sequences.push_back(presum.getInput());
    if (Value decay = presum.getDecay())
      operands.sequences.push_back(decay);
    operands.offsets = presum.getOffsets();
    operands.dim = presum.getScanDim();
    operands.outputLike = presum.getInput();
    return operands;
  }
  if (auto attention = dyn_cast<AttentionOp>(packed)) {
    operands.sequences = {attention.getQuery(), attention.getKey(),
                          attention.getValue()};
    operands.offsets = attention.getOffsets();
    operands.dim = seqDim(attention.getQuery().getType());
    operands.outputLike = attention.getValue(); // [B..., L, Dv], Lq = Lk
    return operands;
  }
  auto attention = cast<LinearAttentionOpInterface>(packed);
  operands.sequences = {attention.getQuery(), attention.getKey(),
                        attention.getValue()};
  if (Value gate = attention.getGate())
    operands.sequences.push_back(gate);
  for (Value entry : {attention.getInitialState(), attention.getPrefixIndex()})
    if (entry)
      operands.entries.push_back(entry);
  operands.offsets = attention.getOffsets();
  operands.dim = seqDim(attention.getQuery().getType());
  operands.outputLike = attention.getValue(); // [B..., L, Dv]
  return operands;
}

SmallVector<Value> mlir::linea::segmentEntries(OpBuilder &b, Location loc,
                                               const PackedOperands &operands,
                                               const Segment &segment) {
  SmallVector<Value> entries;
  for (Value entry : operands.entries)
    entries.push_back(segmentEntry(b, loc, entry, segment.index));
  return entries;
}

/// A segment's rows of a packed sequence type: its length is dynamic.
static RankedTensorType segmentRowsType(Type type, int64_t dim) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[dim] = ShapedType::kDynamic;
  return tensor.clone(shape);
}

Operation *mlir::linea::buildSegmentOp(OpBuilder &b, Location loc,
                                       Operation *packed,
                                       const Segment &segment,
                                       ValueRange entries) {
  ArrayRef<Value> rows = segment.slices;
  if (auto presum = dyn_cast<PresumOp>(packed))
    return PresumOp::create(
        b, loc, rows[0].getType(), rows[0],
        presum.getDecay() ? rows[1] : Value(), /*offsets=*/Value(),
        presum.getDimAttr(), presum.getExclusiveAttr(),
        presum.getReverseAttr(), presum.getFormAttr());
  int64_t dim = packedOperandsOf(packed).dim;
  if (auto attention = dyn_cast<AttentionOp>(packed))
    return AttentionOp::create(
        b, loc, segmentRowsType(attention.getOutput().getType(), dim), rows[0],
        rows[1], rows[2], /*offsets=*/Value(), attention.getMaskAttr(),
        attention.getScaleAttr());
  auto attention = cast<LinearAttentionOpInterface>(packed);
  LinearAttentionSpec spec = attention.getSpec();
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
  spec.outputType = segmentRowsType(spec.outputType, dim);
  if (spec.finalStateType) {
    auto states = cast<RankedTensorType>(spec.finalStateType);
    spec.finalStateType = states.clone(states.getShape().drop_front());
  }
  return attention.createLike(b, loc, spec);
}

/// `[N, B..., Dk, Dv]` to hold a packed op's final states.
static Value emptyFinalStates(OpBuilder &b, Location loc,
                              LinearAttentionOpInterface op) {
  auto type = cast<RankedTensorType>(op.getFinalState().getType());
  RankedTensorType q = op.getQuery().getType();
  SmallVector<OpFoldResult> sizes{segmentCount(b, loc, op.getOffsets())};
  for (int64_t i = 0; i < numBatchDims(q); ++i)
    sizes.push_back(tensor::getMixedSize(b, loc, op.getQuery(), i));
  sizes.push_back(tensor::getMixedSize(b, loc, op.getKey(), featureDim(q)));
  sizes.push_back(tensor::getMixedSize(b, loc, op.getValue(), featureDim(q)));
  return tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
}

SmallVector<Value> mlir::linea::buildSegmentwise(OpBuilder &b,
                                                 Operation *packed) {
  Location loc = packed->getLoc();
  PackedOperands operands = packedOperandsOf(packed);
  SmallVector<Value> entryOutputs;
  if (auto attention = dyn_cast<LinearAttentionOpInterface>(packed);
      attention && attention.getFinalState())
    entryOutputs.push_back(emptyFinalStates(b, loc, attention));
  Value rows = buildEmptyLike(b, loc, operands.outputLike,
                              getElementTypeOrSelf(packed->getResult(0)));
  return buildSegmentLoop(
      b, loc, operands.offsets, operands.sequences, operands.dim, {rows},
      entryOutputs,
      [&](OpBuilder &nb, Location l,
          const Segment &segment) -> SmallVector<Value> {
        Operation *alone = buildSegmentOp(
            nb, l, packed, segment, segmentEntries(nb, l, operands, segment));
        return SmallVector<Value>(alone->getResults());
      });
}

namespace {

/// A packed op -> its definition, the op without offsets on each segment.
struct SplitPackedOp : RewritePattern {
  SplitPackedOp(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isPacked(op))
      return rewriter.notifyMatchFailure(op, "one sequence: no offsets");
    rewriter.replaceOp(op, buildSegmentwise(rewriter, op));
    return success();
  }
};

} // namespace

void mlir::linea::populateSplitSegmentsPatterns(RewritePatternSet &patterns) {
  patterns.add<SplitPackedOp>(patterns.getContext());
}
