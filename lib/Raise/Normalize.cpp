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

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
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

SmallVector<FrozenRewritePatternSet>
mlir::linea::raise::normalizationPatterns(MLIRContext *ctx) {
  auto dropUnitDims = [](RewritePatternSet &patterns) {
    linalg::ControlDropUnitDims options;
    linalg::populateFoldUnitExtentDimsPatterns(patterns, options);
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
