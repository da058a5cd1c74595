//===- Segments.cpp - the segments of a packed sequence -------------------===//

#include "linea/Utils/Segments.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/SequenceBlocks.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

//===----------------------------------------------------------------------===//
// The loop over segments
//===----------------------------------------------------------------------===//

/// The rows `[start, start + size)` along `dim` of `x`; with `sequence`
/// indices, of those sequences only (size 1 in each dim before `dim`).
static Value sliceOfSegment(OpBuilder &b, Location loc, Value x, int64_t dim,
                            const Segment &segment) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  for (auto [d, index] : llvm::enumerate(segment.sequence)) {
    offsets[d] = index;
    sizes[d] = b.getIndexAttr(1);
  }
  offsets[dim] = segment.start;
  sizes[dim] = segment.size;
  return tensor::ExtractSliceOp::create(
      b, loc, x, offsets, sizes,
      SmallVector<OpFoldResult>(type.getRank(), b.getIndexAttr(1)));
}

/// The loop's dims: the segments, then (per block) each dim before `dim` of
/// the first sequence.
static SmallVector<OpFoldResult> segmentLoopSizes(OpBuilder &b, Location loc,
                                                  Value offsets, Value sequence,
                                                  int64_t dim,
                                                  SegmentLoopKind kind) {
  SmallVector<OpFoldResult> sizes{segmentCount(b, loc, offsets)};
  if (kind == SegmentLoopKind::perSegmentBlock)
    for (int64_t d = 0; d < dim; ++d)
      sizes.push_back(tensor::getMixedSize(b, loc, sequence, d));
  return sizes;
}

namespace {
/// Where one result of a segment's body goes in its output: rows at
/// `[o_n, o_{n+1})` along `dim` (and at the sequence's indices before it),
/// an entry at n of dim 0 (and at the sequence's indices after it).
struct SegmentInsert {
  Value source;
  SmallVector<OpFoldResult> at, sizes;
};
} // namespace

/// The segment at loop indices `indices` (the segment, then with
/// perSegmentBlock the sequence), its body's results and where each goes.
static SmallVector<SegmentInsert> buildSegmentBody(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, size_t numRowOutputs, size_t numOutputs, ValueRange indices,
    function_ref<SmallVector<Value>(OpBuilder &, Location, const Segment &)>
        body) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Segment segment;
  segment.index = indices.front();
  segment.sequence.assign(indices.begin() + 1, indices.end());
  segment.start = segmentOffset(b, loc, offsets, segment.index);
  Value end = segmentOffset(
      b, loc, offsets, arith::AddIOp::create(b, loc, segment.index, one));
  segment.size = arith::SubIOp::create(b, loc, end, segment.start);
  for (Value x : sequences)
    segment.slices.push_back(sliceOfSegment(b, loc, x, dim, segment));
  SmallVector<Value> results = body(b, loc, segment);
  assert(results.size() == numOutputs && "one value per output");

  SmallVector<SegmentInsert> inserts;
  for (auto [number, value] : llvm::enumerate(results)) {
    SegmentInsert insert{value, {}, tensor::getMixedSizes(b, loc, value)};
    int64_t rank = insert.sizes.size();
    bool rows = number < numRowOutputs;
    insert.at.assign(rows ? rank : rank + 1, b.getIndexAttr(0));
    for (auto [d, index] : llvm::enumerate(segment.sequence))
      insert.at[rows ? d : d + 1] = index;
    if (rows) {
      insert.at[dim] = segment.start;
      insert.sizes[dim] = segment.size;
    } else {
      insert.at[0] = segment.index;
      insert.sizes.insert(insert.sizes.begin(), b.getIndexAttr(1));
    }
    inserts.push_back(std::move(insert));
  }
  return inserts;
}

/// buildSegmentLoop's inOrder kind: an scf.for over the segments that
/// carries the outputs and inserts each segment's results into them.
static SmallVector<Value> buildSegmentsInOrder(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, size_t numRowOutputs, ValueRange outputs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, const Segment &)>
        body) {
  Value count = getValueOrCreateConstantIndexOp(
      b, loc, segmentCount(b, loc, offsets));
  auto loop = scf::ForOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, 0), count,
      arith::ConstantIndexOp::create(b, loc, 1), outputs,
      [&](OpBuilder &nb, Location nl, Value n, ValueRange carried) {
        SmallVector<SegmentInsert> inserts =
            buildSegmentBody(nb, nl, offsets, sequences, dim, numRowOutputs,
                             carried.size(), ValueRange{n}, body);
        SmallVector<Value> filled;
        for (auto [insert, dest] : llvm::zip_equal(inserts, carried))
          filled.push_back(tensor::InsertSliceOp::create(
              nb, nl, insert.source, dest, insert.at, insert.sizes,
              SmallVector<OpFoldResult>(insert.at.size(),
                                        nb.getIndexAttr(1))));
        scf::YieldOp::create(nb, nl, filled);
      });
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> mlir::linea::buildSegmentLoop(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, ValueRange rowOutputs, ValueRange entryOutputs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, const Segment &)>
        body,
    SegmentLoopKind kind) {
  SmallVector<Value> outputs(rowOutputs);
  llvm::append_range(outputs, entryOutputs);
  if (kind == SegmentLoopKind::inOrder)
    return buildSegmentsInOrder(b, loc, offsets, sequences, dim,
                                rowOutputs.size(), outputs, body);
  SmallVector<OpFoldResult> sizes =
      segmentLoopSizes(b, loc, offsets, sequences.front(), dim, kind);
  std::optional<ArrayAttr> mapping;
  if (kind == SegmentLoopKind::perSegmentBlock)
    mapping =
        b.getArrayAttr(sequenceBlockMapping(b.getContext(), sizes.size()));
  auto forall = scf::ForallOp::create(b, loc, sizes, outputs, mapping);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  // (Sizes are built before the terminator, whose body holds only the
  // inserts.)
  SmallVector<SegmentInsert> inserts = buildSegmentBody(
      b, loc, offsets, sequences, dim, rowOutputs.size(), outputs.size(),
      forall.getInductionVars(), body);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [insert, dest] :
       llvm::zip_equal(inserts, forall.getRegionIterArgs())) {
    SmallVector<OpFoldResult> strides(insert.at.size(), b.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(b, loc, insert.source, dest,
                                          insert.at, insert.sizes, strides);
  }
  return SmallVector<Value>(forall.getResults());
}

Value mlir::linea::segmentEntry(OpBuilder &b, Location loc, Value x, Value n,
                                ValueRange sequence) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() == 1)
    return segmentOffset(b, loc, x, n);
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> at(rank, b.getIndexAttr(0));
  at[0] = n;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[0] = b.getIndexAttr(1);
  SmallVector<int64_t> shape(type.getShape().drop_front());
  for (auto [d, index] : llvm::enumerate(sequence)) {
    at[d + 1] = index;
    sizes[d + 1] = b.getIndexAttr(1);
    shape[d] = 1;
  }
  auto entryType = RankedTensorType::get(shape, type.getElementType());
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
    entries.push_back(
        segmentEntry(b, loc, entry, segment.index, segment.sequence));
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
                                                 PackedOpInterface packed,
                                                 SegmentLoopKind kind) {
  Location loc = packed->getLoc();
  PackedOperands operands = packed.getPackedOperands();
  SmallVector<Value> entryOutputs;
  if (auto attention =
          dyn_cast<LinearAttentionOpInterface>(packed.getOperation());
      attention && attention.getFinalState())
    entryOutputs.push_back(emptyFinalStates(b, loc, attention));
  Value rows = buildEmptyLike(b, loc, operands.outputLike,
                              getElementTypeOrSelf(packed->getResult(0)));
  return buildSegmentLoop(
      b, loc, operands.offsets, operands.sequences, operands.dim, {rows},
      entryOutputs,
      [&](OpBuilder &nb, Location l,
          const Segment &segment) -> SmallVector<Value> {
        Operation *alone = packed.buildOnSegment(
            nb, l, segment.slices, segmentEntries(nb, l, operands, segment));
        return SmallVector<Value>(alone->getResults());
      },
      kind);
}

namespace {

/// A packed op -> its definition, the op without offsets on each segment.
struct SplitPackedOp : OpInterfaceRewritePattern<PackedOpInterface> {
  SplitPackedOp(MLIRContext *context, SegmentLoopKind kind,
                std::function<bool(PackedOpInterface)> staysWhole)
      : OpInterfaceRewritePattern(context), kind(kind),
        staysWhole(std::move(staysWhole)) {}

  LogicalResult matchAndRewrite(PackedOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (!op.isPacked())
      return rewriter.notifyMatchFailure(op, "one sequence: no offsets");
    if (staysWhole && staysWhole(op))
      return rewriter.notifyMatchFailure(op, "a kernel takes it whole");
    rewriter.replaceOp(op, buildSegmentwise(rewriter, op, kind));
    return success();
  }

  SegmentLoopKind kind;
  std::function<bool(PackedOpInterface)> staysWhole;
};

} // namespace

void mlir::linea::populateSplitSegmentsPatterns(
    RewritePatternSet &patterns, SegmentLoopKind kind,
    std::function<bool(PackedOpInterface)> staysWhole) {
  patterns.add<SplitPackedOp>(patterns.getContext(), kind,
                              std::move(staysWhole));
}
