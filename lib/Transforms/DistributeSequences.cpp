//===- DistributeSequences.cpp - one chunked op per sequence --------------===//
//
// The chunked forms carry their state along the sequence only, so each
// (batch, head) and each tile of value columns is an independent program.
// Making that an scf.forall before the chunked rewrite puts the chunk loop
// inside the forall, where the GPU mapping gives it one block (state in
// shared memory) instead of one launch per op per chunk.
//
//===----------------------------------------------------------------------===//

#include "linea/Analysis/CostModel.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEADISTRIBUTESEQUENCES
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// Where one instance of the forall reads and writes: its batch indices and,
/// when the value columns are tiled, its column offset and width.
struct Instance {
  SmallVector<Value> batch;
  Value columnOffset; // null when the columns are not tiled
  int64_t columnWidth = 0;
};

/// `[B..., rest...]` sliced at the instance's batch indices, the batch dims
/// dropped; with `tiledColumns`, also the instance's tile of the last dim.
SmallVector<OpFoldResult> offsetsFor(OpBuilder &b, const Instance &at,
                                     int64_t rank, bool tiledColumns) {
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  for (auto [i, index] : llvm::enumerate(at.batch))
    offsets[i] = index;
  if (tiledColumns && at.columnOffset)
    offsets.back() = at.columnOffset;
  return offsets;
}

SmallVector<OpFoldResult> sizesFor(OpBuilder &b, Location loc, Value x,
                                   const Instance &at, bool tiledColumns) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  for (size_t i = 0; i < at.batch.size(); ++i)
    sizes[i] = b.getIndexAttr(1);
  if (tiledColumns && at.columnOffset)
    sizes.back() = b.getIndexAttr(at.columnWidth);
  return sizes;
}

/// The type of one instance's slice of `type`.
RankedTensorType instanceType(RankedTensorType type, const Instance &at,
                              bool tiledColumns) {
  SmallVector<int64_t> shape(type.getShape().drop_front(at.batch.size()));
  if (tiledColumns && at.columnOffset)
    shape.back() = at.columnWidth;
  return RankedTensorType::get(shape, type.getElementType());
}

Value sliceFor(OpBuilder &b, Location loc, Value x, const Instance &at,
               bool tiledColumns) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, loc, instanceType(type, at, tiledColumns), x,
      offsetsFor(b, at, type.getRank(), tiledColumns),
      sizesFor(b, loc, x, at, tiledColumns), strides);
}

/// How many value tiles `op` is split into (1: not tiled).
int64_t numValueTiles(RankedTensorType value, int64_t tile) {
  int64_t columns = value.getShape().back();
  if (tile <= 0 || ShapedType::isDynamic(columns) || columns <= tile ||
      columns % tile)
    return 1;
  return columns / tile;
}

template <typename OpTy>
struct DistributeOverSequences : OpRewritePattern<OpTy> {
  DistributeOverSequences(MLIRContext *ctx, int64_t valueTile)
      : OpRewritePattern<OpTy>(ctx), valueTile(valueTile) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto form = op->template getAttrOfType<StringAttr>(kFormAttrName);
    if (op.getMask() != Mask::causal || !form ||
        symbolizeForm(form.getValue()) != Form::Chunked)
      return failure();
    RankedTensorType valueType = op.getValue().getType();
    int64_t numBatch = numBatchDims(valueType);
    int64_t tiles = numValueTiles(valueType, valueTile);
    if (numBatch == 0 && tiles == 1)
      return failure();

    Location loc = op.getLoc();
    SmallVector<OpFoldResult> bounds =
        tensor::getMixedSizes(rewriter, loc, op.getValue());
    bounds.resize(numBatch);
    if (tiles > 1)
      bounds.push_back(rewriter.getIndexAttr(tiles));

    // Destinations: the output has the value's shape; the final state is
    // [B..., Dk, Dv].
    SmallVector<Value> destinations{tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, op.getValue()),
        op.getOutput().getType().getElementType())};
    if (Value finalState = op.getFinalState()) {
      SmallVector<OpFoldResult> sizes(bounds.begin(), bounds.begin() + numBatch);
      sizes.push_back(tensor::getMixedSize(rewriter, loc, op.getKey(),
                                           numBatch + 1));
      sizes.push_back(tensor::getMixedSize(rewriter, loc, op.getValue(),
                                           numBatch + 1));
      destinations.push_back(tensor::EmptyOp::create(
          rewriter, loc, sizes,
          cast<RankedTensorType>(finalState.getType()).getElementType()));
    }

    auto forall = scf::ForallOp::create(rewriter, loc, bounds, destinations,
                                        std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    Instance at;
    ValueRange ivs = forall.getInductionVars();
    at.batch.assign(ivs.begin(), ivs.begin() + numBatch);
    if (tiles > 1) {
      at.columnWidth = valueType.getShape().back() / tiles;
      at.columnOffset = arith::MulIOp::create(
          rewriter, loc, ivs.back(),
          arith::ConstantIndexOp::create(rewriter, loc, at.columnWidth));
    }

    // The same op on one instance's slices: only the value columns, the
    // initial state's columns and the results' columns are tiled.
    // (Operands are told apart by position: q, k and v may be one value.)
    auto inner = cast<OpTy>(rewriter.clone(*op.getOperation()));
    llvm::SmallPtrSet<OpOperand *, 2> tiled{&inner.getValueMutable()};
    for (OpOperand &operand : inner.getInitialStateMutable())
      tiled.insert(&operand);
    rewriter.setInsertionPoint(inner);
    for (OpOperand &operand : inner->getOpOperands()) {
      Value x = operand.get();
      if (!isa<RankedTensorType>(x.getType()))
        continue; // the prefix index
      operand.set(sliceFor(rewriter, loc, x, at, tiled.contains(&operand)));
    }
    for (OpResult result : inner->getResults())
      result.setType(
          instanceType(cast<RankedTensorType>(result.getType()), at, true));

    // Sizes are computed in the body: the in_parallel region holds only
    // the inserts.
    scf::InParallelOp terminator = forall.getTerminator();
    for (auto [result, destination] :
         llvm::zip(inner->getResults(), forall.getRegionIterArgs())) {
      auto type = cast<RankedTensorType>(destination.getType());
      rewriter.setInsertionPoint(terminator);
      SmallVector<OpFoldResult> offsets =
          offsetsFor(rewriter, at, type.getRank(), true);
      SmallVector<OpFoldResult> sizes =
          sizesFor(rewriter, loc, destination, at, true);
      SmallVector<OpFoldResult> strides(type.getRank(),
                                        rewriter.getIndexAttr(1));
      rewriter.setInsertionPointToEnd(terminator.getBody());
      tensor::ParallelInsertSliceOp::create(rewriter, loc, result, destination,
                                            offsets, sizes, strides);
    }
    rewriter.replaceOp(op, forall.getResults());
    return success();
  }

  int64_t valueTile;
};

struct LineaDistributeSequencesPass
    : linea::impl::LineaDistributeSequencesBase<LineaDistributeSequencesPass> {
  using LineaDistributeSequencesBase::LineaDistributeSequencesBase;

  void runOnOperation() override {
    if (valueTile < 0) {
      getOperation()->emitError() << "value-tile must be >= 0, got "
                                  << static_cast<int64_t>(valueTile);
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<DistributeOverSequences<LinearAttentionOp>,
                 DistributeOverSequences<GatedLinearAttentionOp>>(
        &getContext(), valueTile);
    // The op inside a forall is one sequence with at most one value tile,
    // which the pattern does not match again.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
