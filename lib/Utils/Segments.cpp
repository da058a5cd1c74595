//===- Segments.cpp - the segments of a packed sequence -------------------===//

#include "linea/Utils/Segments.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

SmallVector<Value> mlir::linea::buildPerSegment(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, Type resultElementType, ValueRange perSegment,
    function_ref<SmallVector<Value>(OpBuilder &, Location, const Segment &)>
        body) {
  Value like = sequences.front();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = arith::SubIOp::create(
      b, loc, tensor::DimOp::create(b, loc, offsets, 0), one);
  SmallVector<Value> inits{tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, like), resultElementType)};
  llvm::append_range(inits, perSegment);
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                      inits, /*mapping=*/std::nullopt);
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
  assert(results.size() == inits.size() && "one value per result");

  // Where each result goes: the rows at [o_n, o_{n+1}) along `dim`, a
  // per-segment value at entry n of dim 0. (Sizes are built before the
  // terminator, whose body holds only the inserts.)
  struct Insert {
    Value source;
    SmallVector<OpFoldResult> at, sizes;
  };
  SmallVector<Insert> inserts;
  for (auto [number, value] : llvm::enumerate(results)) {
    Insert insert{value, {}, tensor::getMixedSizes(b, loc, value)};
    int64_t rank = insert.sizes.size();
    if (number == 0) {
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

bool mlir::linea::isPacked(Operation *op) {
  if (auto presum = dyn_cast<PresumOp>(op))
    return static_cast<bool>(presum.getOffsets());
  if (auto attention = dyn_cast<AttentionOp>(op))
    return static_cast<bool>(attention.getOffsets());
  if (auto attention = dyn_cast<LinearAttentionOpInterface>(op))
    return attention.isPacked();
  return false;
}

/// presum offsets(o): per segment, the presum of its rows (and of its rows
/// of the decay), with the op's direction, exclusivity and form.
static Value presumSegmentwise(OpBuilder &b, PresumOp op) {
  SmallVector<Value> sequences{op.getInput()};
  if (Value decay = op.getDecay())
    sequences.push_back(decay);
  return buildPerSegment(
      b, op.getLoc(), op.getOffsets(), sequences, op.getScanDim(),
      op.getType().getElementType(), /*perSegment=*/{},
      [&](OpBuilder &nb, Location loc,
          const Segment &segment) -> SmallVector<Value> {
        Value rows = segment.slices[0];
        Value decay = op.getDecay() ? segment.slices[1] : Value();
        return {PresumOp::create(nb, loc, rows.getType(), rows, decay,
                                 /*offsets=*/Value(), op.getDimAttr(),
                                 op.getExclusiveAttr(), op.getReverseAttr(),
                                 op.getFormAttr())};
      })[0];
}

/// A segment's rows of a packed sequence type: its length is dynamic.
static Type segmentRowsType(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  shape[seqDim(type)] = ShapedType::kDynamic;
  return type.clone(shape);
}

/// `[N, B..., Dk, Dv]` to hold a packed op's final states.
static Value emptyFinalStates(OpBuilder &b, Location loc,
                              LinearAttentionOpInterface op) {
  auto type = cast<RankedTensorType>(op.getFinalState().getType());
  RankedTensorType q = op.getQuery().getType();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<OpFoldResult> sizes{OpFoldResult(arith::SubIOp::create(
      b, loc, tensor::DimOp::create(b, loc, op.getOffsets(), 0), one))};
  for (int64_t i = 0; i < numBatchDims(q); ++i)
    sizes.push_back(tensor::getMixedSize(b, loc, op.getQuery(), i));
  sizes.push_back(tensor::getMixedSize(b, loc, op.getKey(), featureDim(q)));
  sizes.push_back(tensor::getMixedSize(b, loc, op.getValue(), featureDim(q)));
  return tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
}

/// A packed linear-attention op: per segment, the op on its rows of q, k,
/// v (and the gate) from its initial state, with its prefix length.
static SmallVector<Value>
linearAttentionSegmentwise(OpBuilder &b, LinearAttentionOpInterface op) {
  RankedTensorType q = op.getQuery().getType();
  // (v first: the output rows are shaped like its rows.)
  SmallVector<Value> sequences{op.getValue(), op.getQuery(), op.getKey()};
  if (Value gate = op.getGate())
    sequences.push_back(gate);
  SmallVector<Value> finalStates;
  if (op.getFinalState())
    finalStates.push_back(emptyFinalStates(b, op.getLoc(), op));
  LinearAttentionSpec packed = op.getSpec();
  return buildPerSegment(
      b, op.getLoc(), op.getOffsets(), sequences, seqDim(q),
      op.getOutput().getType().getElementType(), finalStates,
      [&](OpBuilder &nb, Location loc,
          const Segment &segment) -> SmallVector<Value> {
        LinearAttentionSpec spec = packed;
        spec.offsets = Value();
        spec.value = segment.slices[0];
        spec.query = segment.slices[1];
        spec.key = segment.slices[2];
        if (spec.gate)
          spec.gate = segment.slices[3];
        if (spec.initialState)
          spec.initialState =
              segmentEntry(nb, loc, spec.initialState, segment.index);
        if (spec.prefixIndex)
          spec.prefixIndex =
              segmentEntry(nb, loc, spec.prefixIndex, segment.index);
        spec.outputType = segmentRowsType(op.getOutput().getType());
        if (spec.finalStateType) {
          auto states = cast<RankedTensorType>(spec.finalStateType);
          spec.finalStateType = states.clone(states.getShape().drop_front());
        }
        return SmallVector<Value>(op.createLike(nb, loc, spec)->getResults());
      });
}

/// Packed softmax attention: per segment, its queries against its keys.
static Value attentionSegmentwise(OpBuilder &b, AttentionOp op) {
  RankedTensorType q = op.getQuery().getType();
  // (v first: the output rows are shaped like its rows, as Lq = Lk.)
  SmallVector<Value> sequences{op.getValue(), op.getQuery(), op.getKey()};
  return buildPerSegment(
      b, op.getLoc(), op.getOffsets(), sequences, seqDim(q),
      op.getOutput().getType().getElementType(), /*perSegment=*/{},
      [&](OpBuilder &nb, Location loc,
          const Segment &segment) -> SmallVector<Value> {
        return {AttentionOp::create(
            nb, loc, segmentRowsType(op.getOutput().getType()),
            segment.slices[1], segment.slices[2], segment.slices[0],
            /*offsets=*/Value(), op.getMaskAttr(), op.getScaleAttr())};
      })[0];
}

SmallVector<Value> mlir::linea::buildSegmentwise(OpBuilder &b,
                                                 Operation *packed) {
  if (auto presum = dyn_cast<PresumOp>(packed))
    return {presumSegmentwise(b, presum)};
  if (auto attention = dyn_cast<AttentionOp>(packed))
    return {attentionSegmentwise(b, attention)};
  return linearAttentionSegmentwise(b,
                                    cast<LinearAttentionOpInterface>(packed));
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
