//===- Normalize.cpp - one shape for the raise matchers to read -----------===//
//
// Front ends print the same layer many ways: named ops or generics, heads
// split by expand_shape and merged back by collapse_shape around a
// batch_matmul, einsum's unit dims, masks as chains of small elementwise
// generics. The matchers read one shape, made by upstream's patterns in
// stages (applied together, reshape propagation and unit-dim folding undo
// each other without end):
//   0. the size guards of dynamic shapes folded, their reshapes and
//      broadcast gathers made plain (FrontEndShapes.cpp);
//   1. every linalg op a generic;
//   2. loops of one iteration dropped;
//   3. reshapes propagated out of the way (expanding the iteration spaces
//      instead) and elementwise producers with one use fused into
//      elementwise consumers (what linalg-fuse-elementwise-ops does, but
//      never into a contraction: a feature map applied to the queries stays
//      the tensor the raised op reads);
//   4. loops of one iteration dropped again;
// each followed by the canonicalizer's patterns.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "linea/Dialect/TMTensor.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

static void addCanonicalization(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  // A size read off an op's result is read off its operands instead (ops
  // that reify their shapes, Linea's among them): a raised op's absorbed
  // producers do not stay alive for a front end's size check.
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
}

static FrozenRewritePatternSet
stage(MLIRContext *ctx, function_ref<void(RewritePatternSet &)> populate) {
  RewritePatternSet patterns(ctx);
  populate(patterns);
  addCanonicalization(patterns);
  return FrozenRewritePatternSet(std::move(patterns));
}

/// Whether folding the collapse that produces `fused` into its consumer
/// would split one of the consumer's reduced loops: the projection of merged
/// heads, `[L, H*D] x [H*D, Dm]`, would become a contraction over two dims
/// (h and d), which no raise needs and no CPU kernel takes.
static bool splitsReduction(OpOperand *fused) {
  auto op = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  auto collapse = fused->get().getDefiningOp<tensor::CollapseShapeOp>();
  if (!op || !collapse)
    return false;
  AffineMap map = op.getMatchingIndexingMap(fused);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [group, result] :
       llvm::zip(collapse.getReassociationIndices(), map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (group.size() > 1 && dim &&
        iterators[dim.getPosition()] == utils::IteratorType::reduction)
      return true;
  }
  return false;
}

namespace {

/// A scan's unit dims dropped as linalg's are: `collapse_shape(scan(x))`
/// that only drops unit dims (the scan's own dim alone in its group) is
/// the scan of `collapse_shape(x)`. torch-mlir's cumsum is a tm_tensor.scan,
/// which the unit-dim folding of linalg ops does not reach; without this
/// the collapse it leaves between a scan and its reader hides the scan from
/// the raise (the states of `q.unsqueeze(-2) @ cumsum(k^T v)` with batch 1).
struct CollapseUnitDimsOfScan : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    auto scan = collapse.getSrc().getDefiningOp<linea::tm_tensor::ScanOp>();
    // Besides the collapse, only sizes read off the scan (a run-time check's).
    auto onlyCollapsedOrSized = [&](OpOperand &use) {
      return use.getOwner() == collapse.getOperation() ||
             isa<tensor::DimOp>(use.getOwner());
    };
    if (!scan || scan.getNumResults() != 2 ||
        collapse.getSrc() != scan->getResult(0) ||
        !llvm::all_of(scan->getResult(0).getUses(), onlyCollapsedOrSized) ||
        !scan->getResult(1).use_empty())
      return rewriter.notifyMatchFailure(collapse, "not the one reader of a scan");
    auto type = cast<RankedTensorType>(collapse.getSrcType());
    int64_t dim = scan.getDimension();
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    std::optional<int64_t> scanGroup;
    for (auto [g, group] : llvm::enumerate(groups)) {
      if (llvm::is_contained(group, dim)) {
        if (group.size() != 1)
          return rewriter.notifyMatchFailure(collapse,
                                             "the scan dim is merged");
        scanGroup = g;
      }
      if (llvm::count_if(group, [&](int64_t d) {
            return type.getDimSize(d) != 1;
          }) > 1)
        return rewriter.notifyMatchFailure(collapse,
                                           "a group merges two dims");
    }
    // The accumulator has every dim but the scan's: the same groups
    // without it.
    SmallVector<ReassociationIndices> accumulatorGroups;
    for (auto [g, group] : llvm::enumerate(groups)) {
      if (int64_t(g) == *scanGroup)
        continue;
      ReassociationIndices shifted;
      for (int64_t d : group)
        shifted.push_back(d > dim ? d - 1 : d);
      accumulatorGroups.push_back(shifted);
    }
    Location loc = scan.getLoc();
    auto collapsed = [&](Value v, ArrayRef<ReassociationIndices> g) -> Value {
      if (g.size() == size_t(cast<RankedTensorType>(v.getType()).getRank()))
        return v;
      return tensor::CollapseShapeOp::create(rewriter, loc, v, g);
    };
    Value input = collapsed(scan.getInput(), groups);
    Value output = collapsed(scan.getOutput(), groups);
    Value accumulator = collapsed(scan.getAccumulator(), accumulatorGroups);
    auto narrowed = linea::tm_tensor::ScanOp::create(
        rewriter, loc, TypeRange{output.getType(), accumulator.getType()},
        ValueRange{input}, ValueRange{output, accumulator},
        rewriter.getI64IntegerAttr(*scanGroup), scan.getInclusiveAttr());
    rewriter.inlineRegionBefore(scan.getRegion(), narrowed.getRegion(),
                                narrowed.getRegion().end());
    rewriter.replaceOp(collapse, narrowed->getResult(0));
    // The scan's sizes are its output's.
    for (OpOperand &use : llvm::make_early_inc_range(scan->getResult(0).getUses()))
      rewriter.modifyOpInPlace(use.getOwner(),
                               [&] { use.set(scan.getOutput()); });
    rewriter.eraseOp(scan);
    return success();
  }
};

} // namespace

SmallVector<FrozenRewritePatternSet>
mlir::linea::raise::normalizationPatterns(MLIRContext *ctx) {
  auto dropUnitDims = [](RewritePatternSet &patterns) {
    linalg::ControlDropUnitDims options;
    linalg::populateFoldUnitExtentDimsPatterns(patterns, options);
    patterns.add<CollapseUnitDimsOfScan>(patterns.getContext());
  };
  SmallVector<FrozenRewritePatternSet> stages;
  stages.push_back(stage(ctx, [](RewritePatternSet &patterns) {
    populateFrontEndShapePatterns(patterns);
    linalg::populateLinalgNamedOpsGeneralizationPatterns(patterns);
  }));
  stages.push_back(stage(ctx, dropUnitDims));
  stages.push_back(stage(ctx, [](RewritePatternSet &patterns) {
    // Only a producer with one use: fusing one with several would compute
    // it again in each consumer.
    linalg::ControlFusionFn oneUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    // A copy (a transpose, a broadcast: its body yields an input) is only
    // index arithmetic and fuses into any consumer.
    auto isCopy = [](Operation *op) {
      auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
      if (!generic)
        return false;
      auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
      auto arg = dyn_cast<BlockArgument>(yield.getOperand(0));
      return arg && arg.getOwner() == generic.getBody() &&
             arg.getArgNumber() < generic.getNumDpsInputs();
    };
    linalg::ControlFusionFn intoElementwise = [oneUse, isCopy](
                                                  OpOperand *fused) {
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      return oneUse(fused) && consumer &&
             (consumer.getNumLoops() == consumer.getNumParallelLoops() ||
              isCopy(fused->get().getDefiningOp()));
    };
    linalg::ControlFusionFn expandsWhole = [oneUse](OpOperand *fused) {
      return oneUse(fused) && !splitsReduction(fused);
    };
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, expandsWhole);
    linalg::populateElementwiseOpsFusionPatterns(patterns, intoElementwise);
  }));
  stages.push_back(stage(ctx, dropUnitDims));
  return stages;
}

LogicalResult
mlir::linea::raise::normalize(Operation *root,
                              ArrayRef<FrozenRewritePatternSet> stages) {
  // A bound on the rewrites, so that patterns that fight each other on
  // some input stop instead of spinning.
  GreedyRewriteConfig config;
  config.setMaxNumRewrites(100000);
  if (failed(foldShapeGuards(root)))
    return failure();
  for (const FrozenRewritePatternSet &patterns : stages)
    if (failed(applyPatternsGreedily(root, patterns, config)))
      return failure();
  return success();
}
