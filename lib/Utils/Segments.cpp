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

SmallVector<Value> mlir::linea::segmentEntries(OpBuilder &b, Location loc,
                                               const PackedOperands &operands,
                                               const Segment &segment) {
  SmallVector<Value> entries;
  for (Value entry : operands.entries)
    entries.push_back(segmentEntry(b, loc, entry, segment.index));
  return entries;
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
                                                 PackedOpInterface packed) {
  Location loc = packed->getLoc();
  PackedOperands operands = packed.getPackedOperands();
  SmallVector<Value> entryOutputs;
  if (auto attention =
          dyn_cast<LinearAttentionOpInterface>(packed.getOperation());
      attention && attention.getFinalState())
    entryOutputs.push_back(emptyFinalStates(b, loc, attention));
  Value rows = buildEmptyLike(b, loc, operands.outputLike,
                              getElementTypeOrSelf(packed->getResult(0)));
  return buildSegmentLoop(b, loc, operands.offsets, operands.sequences,
                          operands.dim, {rows}, entryOutputs,
                          [&](OpBuilder &nb, Location l,
                              const Segment &segment) -> SmallVector<Value> {
                            Operation *alone = packed.buildOnSegment(
                                nb, l, segment.slices,
                                segmentEntries(nb, l, operands, segment));
                            return SmallVector<Value>(alone->getResults());
                          });
}

namespace {

/// A packed op -> its definition, the op without offsets on each segment.
struct SplitPackedOp : OpInterfaceRewritePattern<PackedOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(PackedOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (!op.isPacked())
      return rewriter.notifyMatchFailure(op, "one sequence: no offsets");
    rewriter.replaceOp(op, buildSegmentwise(rewriter, op));
    return success();
  }
};

} // namespace

void mlir::linea::populateSplitSegmentsPatterns(RewritePatternSet &patterns) {
  patterns.add<SplitPackedOp>(patterns.getContext());
}
