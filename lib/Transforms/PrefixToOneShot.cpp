//===- PrefixToOneShot.cpp - bidirectional regions -> the one-shot state --===//
//
// A region whose rows all read the same state needs no chunking:
// S = S0 + phi(K)^T V once, then O = phi(Q) S. With a data-dependent gate
// the state after the region is still one matmul over decayed keys,
// k_t * exp(b_{L-1} - b_t), because every weight is known once presum(g) is:
// exp(b_{L-1} - b_t) = exp(sum_{s > t} g_s), the exclusive reverse presum.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/FormUtils.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAPREFIXTOONESHOT
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

#define DEBUG_TYPE "linea-prefix-to-oneshot"

using namespace mlir;
using namespace mlir::linea;

namespace {

struct ToOneShot : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    // The decode step (causal, L = 1) reads the state after its only token,
    // as every row of a bidirectional op does.
    auto form = cast<FormOpInterface>(op.getOperation());
    if (!(op.isBidirectional() || op.isDecodeStep()))
      return rewriter.notifyMatchFailure(
          op, "rows see different keys (neither bidirectional nor one row)");
    if (!form.formAllows(FormKind::oneshot))
      return rewriter.notifyMatchFailure(op, "its form is not one-shot");
    Location loc = op.getLoc();
    int64_t numBatch = numBatchDims(op.getQuery().getType());
    auto [q, k, v, g] = prepareOperands(rewriter, loc, op);
    Value init = op.getInitialState();
    Value state = initialStateOrZeros(rewriter, loc, init, q, v);
    // S = S0 + phi(K)^T V; gated: S = diag(exp(sum_t g_t)) S0 +
    // (K .* exp(sum_{s>t} g_s))^T V.
    if (g)
      state = gatedStateUpdate(rewriter, loc, numBatch, k, v, g, state,
                               op.hasScalarGate(), /*stateIsZero=*/!init);
    else
      state = transposedMatmulAccumulate(rewriter, loc, numBatch, k, v, state);
    replaceWithForm(rewriter, op, queryTimesState(rewriter, loc, numBatch, q, state),
                    state);
    return success();
  }
};

struct LineaPrefixToOneShotPass
    : linea::impl::LineaPrefixToOneShotBase<LineaPrefixToOneShotPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePrefixToOneShotPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populatePrefixToOneShotPatterns(RewritePatternSet &patterns) {
  patterns.add<ToOneShot>(patterns.getContext());
}
