//===- ComputeKeptSlices.cpp - compute only what a slice keeps ------------===//
//
// `tensor.extract_slice` moves above the producer it is the one use of, so
// the producer computes the slice's part only. A folded layer's step is the
// case this is for: it computes all 2l rows of its window and the loop keeps
// the last l, so half the output projection, the residual and the memory
// rows' queries were computed to be thrown away.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACOMPUTEKEPTSLICES
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// Whether `size` is all of `tensor`'s dim `dim`: its static size, or a
/// `tensor.dim` of it. (Reads the IR only: a pattern that fails must not
/// have created ops.)
bool isWholeDim(Value tensor, int64_t dim, OpFoldResult size) {
  int64_t extent = cast<RankedTensorType>(tensor.getType()).getDimSize(dim);
  if (!ShapedType::isDynamic(extent))
    return isConstantIntValue(size, extent);
  auto dimOp = dyn_cast_if_present<tensor::DimOp>(
      dyn_cast_if_present<Value>(size) ? cast<Value>(size).getDefiningOp()
                                       : nullptr);
  return dimOp && dimOp.getSource() == tensor &&
         isConstantIntValue(dimOp.getDimension(), dim);
}

/// A slice worth moving above `producer`: its only use, unit strides, the
/// same rank (no dims dropped), and not the whole tensor.
LogicalResult checkMovableSlice(tensor::ExtractSliceOp slice,
                                Operation *producer,
                                PatternRewriter &rewriter) {
  if (!producer || !producer->hasOneUse())
    return rewriter.notifyMatchFailure(slice, "producer has other uses");
  if (!slice.hasUnitStride())
    return rewriter.notifyMatchFailure(slice, "strided slice");
  if (slice.getType().getRank() != slice.getSourceType().getRank())
    return rewriter.notifyMatchFailure(slice, "rank-reducing slice");
  bool allOfIt = true;
  for (auto [dim, offset, size] :
       llvm::enumerate(slice.getMixedOffsets(), slice.getMixedSizes()))
    allOfIt &=
        isZeroInteger(offset) && isWholeDim(slice.getSource(), dim, size);
  if (allOfIt)
    return rewriter.notifyMatchFailure(slice, "slice keeps everything");
  return success();
}

/// The producer's result type may be more static than the slice's (or less):
/// a cast where they differ.
Value castToSliceType(PatternRewriter &rewriter, tensor::ExtractSliceOp slice,
                      Value value) {
  if (value.getType() == slice.getType())
    return value;
  return tensor::CastOp::create(rewriter, slice.getLoc(), slice.getType(),
                                value);
}

/// Whether a slice of `producer`'s result is the op on a tile of its loops:
/// one tensor result whose every element is one iteration of the parallel
/// loops (checked before the tiling creates any op).
bool tilesBySlices(linalg::LinalgOp producer) {
  return producer.hasPureTensorSemantics() && producer.getNumDpsInits() == 1 &&
         producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
             .isProjectedPermutation();
}

/// `slice` of a linalg op's result becomes the op on its tile, through
/// linalg's TilingInterface (exact for every op: reductions stay whole, and
/// `linalg.index` is offset to the tile's position).
LogicalResult replaceByTile(PatternRewriter &rewriter,
                            tensor::ExtractSliceOp slice) {
  rewriter.setInsertionPoint(slice);
  FailureOr<TilingResult> tile = tensor::replaceExtractSliceWithTiledProducer(
      rewriter, slice, cast<OpResult>(slice.getSource()));
  if (failed(tile))
    return rewriter.notifyMatchFailure(slice, "producer does not tile");
  rewriter.replaceOp(
      slice, castToSliceType(rewriter, slice, tile->tiledValues.front()));
  return success();
}

/// A slice of a linalg op's result, its one use: the op on the slice.
struct SliceOfStructuredOp : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto producer = slice.getSource().getDefiningOp<linalg::LinalgOp>();
    if (failed(checkMovableSlice(slice, producer, rewriter)))
      return failure();
    if (!tilesBySlices(producer))
      return rewriter.notifyMatchFailure(slice, "not tiled by its result");
    return replaceByTile(rewriter, slice);
  }
};

/// A linalg op read only through static slices that together are no larger
/// than its result (the q, k and v column blocks of one projection): one op
/// per slice. No element is computed more often than before, and each part
/// is then open to its own consumers' slices (the queries of the rows a
/// fold step keeps, where k and v need every row).
struct SlicesOfStructuredOp : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp producer,
                                PatternRewriter &rewriter) const override {
    if (!tilesBySlices(producer))
      return rewriter.notifyMatchFailure(producer, "not tiled by its result");
    Value result = producer->getResult(0);
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<tensor::ExtractSliceOp> slices;
    int64_t kept = 0;
    for (Operation *user : result.getUsers()) {
      auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
      if (!slice || !slice.hasUnitStride() ||
          slice.getType().getRank() != type.getRank() ||
          !slice.getType().hasStaticShape())
        return rewriter.notifyMatchFailure(producer, "a use is not a slice");
      slices.push_back(slice);
      kept += slice.getType().getNumElements();
    }
    if (slices.size() < 2 || !type.hasStaticShape() ||
        kept > type.getNumElements())
      return rewriter.notifyMatchFailure(producer, "no disjoint static parts");
    for (tensor::ExtractSliceOp slice : slices)
      if (failed(replaceByTile(rewriter, slice)))
        return failure();
    return success();
  }
};

/// The one dim of a collapsed group that is not statically 1 (a batch of
/// one collapsed into the rows), or -1.
int64_t onlyNonUnitDim(RankedTensorType source, ArrayRef<int64_t> group) {
  int64_t found = -1;
  for (int64_t dim : group) {
    if (source.getDimSize(dim) == 1)
      continue;
    if (found >= 0)
      return -1;
    found = dim;
  }
  return found;
}

/// A slice of a `tensor.collapse_shape` that keeps each group of more than
/// one dim whole, or cuts only the group's one dim that is not 1: the
/// collapse of the same slice of its source (a group of one dim, or that one
/// dim, takes the slice's range). Upstream's reshape patterns take the
/// expand_shape side.
struct SliceOfCollapse : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto collapse = slice.getSource().getDefiningOp<tensor::CollapseShapeOp>();
    if (failed(checkMovableSlice(slice, collapse, rewriter)))
      return failure();
    Location loc = slice.getLoc();
    Value source = collapse.getSrc();
    auto sourceType = cast<RankedTensorType>(source.getType());
    auto groups = collapse.getReassociationIndices();
    auto keepsWhole = [&](int64_t dim) {
      return isZeroInteger(slice.getMixedOffsets()[dim]) &&
             isWholeDim(collapse.getResult(), dim, slice.getMixedSizes()[dim]);
    };
    for (auto [dim, group] : llvm::enumerate(groups))
      if (group.size() > 1 && !keepsWhole(dim) &&
          onlyNonUnitDim(sourceType, group) < 0)
        return rewriter.notifyMatchFailure(slice, "cuts a collapsed group");
    SmallVector<OpFoldResult> offsets, sizes;
    for (auto [dim, group] : llvm::enumerate(groups)) {
      int64_t cut = group.size() == 1 ? group.front()
                    : keepsWhole(dim) ? -1
                                      : onlyNonUnitDim(sourceType, group);
      for (int64_t sourceDim : group) {
        bool sliced = sourceDim == cut;
        offsets.push_back(sliced ? slice.getMixedOffsets()[dim]
                                 : rewriter.getIndexAttr(0));
        sizes.push_back(
            sliced ? slice.getMixedSizes()[dim]
                   : tensor::getMixedSize(rewriter, loc, source, sourceDim));
      }
    }
    SmallVector<OpFoldResult> strides(offsets.size(), rewriter.getIndexAttr(1));
    Value part = tensor::ExtractSliceOp::create(rewriter, loc, source, offsets,
                                                sizes, strides);
    Value collapsed =
        tensor::CollapseShapeOp::create(rewriter, loc, part, groups);
    rewriter.replaceOp(slice, castToSliceType(rewriter, slice, collapsed));
    return success();
  }
};

/// Rows `[a, a + n)` of an attention (with batch dims and value columns
/// sliced alike): the attention of those queries. Under `causal` query `i`
/// sees keys `t <= i + Lk - Lq`; the sliced op over the first
/// `K' = a + n + Lk - Lq` keys gives row `a + i` the keys
/// `t <= i + K' - n = (a + i) + Lk - Lq`, the same ones. `K' <= 0` means the
/// rows see no key: zero rows (a fill where that is known statically).
struct SliceOfAttention : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto op = slice.getSource().getDefiningOp<AttentionOp>();
    if (failed(checkMovableSlice(slice, op, rewriter)))
      return failure();
    if (op.getOffsets())
      return rewriter.notifyMatchFailure(slice, "packed: rows are segments'");
    // (The verifier allows attention no mask but none and causal.)

    Location loc = slice.getLoc();
    auto type = cast<RankedTensorType>(op.getQuery().getType());
    int64_t rowDim = numBatchDims(type);
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    OpFoldResult first = offsets[rowDim], count = sizes[rowDim];

    OpFoldResult queries =
        tensor::getMixedSize(rewriter, loc, op.getQuery(), rowDim);
    OpFoldResult keys =
        tensor::getMixedSize(rewriter, loc, op.getKey(), rowDim);
    OpFoldResult keptKeys = keys;
    if (op.getMask() == Mask::causal) {
      AffineExpr a, n, lk, lq;
      bindSymbols(rewriter.getContext(), a, n, lk, lq);
      auto map = AffineMap::get(
          0, 4, {a + n + lk - lq, rewriter.getAffineConstantExpr(0)},
          rewriter.getContext());
      keptKeys = affine::makeComposedFoldedAffineMax(
          rewriter, loc, map, {first, count, keys, queries});
    }

    // Rows that see no key are zero; an op over no keys is not valid IR.
    if (isZeroInteger(keptKeys)) {
      Type element = slice.getType().getElementType();
      Value empty = tensor::EmptyOp::create(rewriter, loc, sizes, element);
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getZeroAttr(element));
      Value zeros =
          linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
      rewriter.replaceOp(slice, castToSliceType(rewriter, slice, zeros));
      return success();
    }

    // Each operand keeps the slice's batch part; q its rows, k and v the kept
    // keys, v the slice's value columns.
    auto part = [&](Value x, OpFoldResult rowOffset, OpFoldResult rowCount,
                    bool valueColumns) {
      SmallVector<OpFoldResult> off(offsets.begin(), offsets.begin() + rowDim);
      SmallVector<OpFoldResult> size(sizes.begin(), sizes.begin() + rowDim);
      off.push_back(rowOffset);
      size.push_back(rowCount);
      off.push_back(valueColumns ? offsets[rowDim + 1]
                                 : rewriter.getIndexAttr(0));
      size.push_back(valueColumns
                         ? sizes[rowDim + 1]
                         : tensor::getMixedSize(rewriter, loc, x, rowDim + 1));
      SmallVector<OpFoldResult> strides(off.size(), rewriter.getIndexAttr(1));
      return tensor::ExtractSliceOp::create(rewriter, loc, x, off, size,
                                            strides)
          .getResult();
    };
    OpFoldResult zero = rewriter.getIndexAttr(0);
    Value q = part(op.getQuery(), first, count, false);
    Value k = part(op.getKey(), zero, keptKeys, false);
    Value v = part(op.getValue(), zero, keptKeys, true);
    // [B..., rows, Dv]: q's shape with v's columns.
    SmallVector<int64_t> shape(cast<RankedTensorType>(q.getType()).getShape());
    shape.back() = cast<RankedTensorType>(v.getType()).getShape().back();
    auto resultType =
        RankedTensorType::get(shape, slice.getType().getElementType());
    Value rows = AttentionOp::create(rewriter, loc, resultType, q, k, v,
                                     /*offsets=*/Value(), op.getMaskAttr(),
                                     op.getScaleAttr());
    rewriter.replaceOp(slice, castToSliceType(rewriter, slice, rows));
    return success();
  }
};

struct LineaComputeKeptSlicesPass
    : linea::impl::LineaComputeKeptSlicesBase<LineaComputeKeptSlicesPass> {
  // Linalg's TilingInterface: a host that registered the dialect alone (a C
  // API client) gets its implementation with the pass.
  void getDependentDialects(DialectRegistry &registry) const override {
    LineaComputeKeptSlicesBase::getDependentDialects(registry);
    linalg::registerTilingInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateComputeKeptSlicesPatterns(patterns);
    // A producer's split waits for its users to have become slices, which
    // a sweep may not revisit it for: a chain of layers takes many sweeps.
    GreedyRewriteConfig config;
    config.setMaxIterations(64);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config))) {
      getOperation()->emitError("linea-compute-kept-slices did not converge");
      signalPassFailure();
    }
  }
};

} // namespace

void mlir::linea::populateComputeKeptSlicesPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SliceOfStructuredOp, SlicesOfStructuredOp, SliceOfCollapse,
               SliceOfAttention>(patterns.getContext());
  tensor::populateBubbleUpExtractSliceOpPatterns(patterns);
}
