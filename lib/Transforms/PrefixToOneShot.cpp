//===- PrefixToOneShot.cpp - bidirectional regions -> the one-shot state --===//
//
// A region whose rows all read the same state needs no chunking:
// S = S0 + phi(K)^T V once, then O = phi(Q) S. With a data-dependent gate
// the state after the region is still one matmul over decayed keys,
// k_t * exp(b_{L-1} - b_t), because every weight is known once presum(g) is:
// exp(b_{L-1} - b_t) = exp(sum_{s > t} g_s), the exclusive reverse presum.
//
//===----------------------------------------------------------------------===//

#include "linea/Analysis/CostModel.h"
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

using namespace mlir;
using namespace mlir::linea;

namespace {

bool hasStaticLengthOne(Value q) {
  auto type = cast<RankedTensorType>(q.getType());
  return type.getDimSize(seqDim(type)) == 1;
}

/// `O = phi(Q) S` into a fresh `[B..., L, Dv]`.
Value queryTimesState(OpBuilder &b, Location loc, Value q, Value state) {
  int64_t numBatch = numBatchDims(cast<RankedTensorType>(q.getType()));
  Value init = zerosWithBatchOf(
      b, loc, q, numBatch,
      {tensor::getMixedSize(b, loc, q, numBatch),
       tensor::getMixedSize(b, loc, state, numBatch + 1)});
  return matmulAccumulate(b, loc, numBatch, q, state, init);
}

struct LinearAttentionToOneShot : OpRewritePattern<LinearAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LinearAttentionOp op,
                                PatternRewriter &rewriter) const override {
    // The decode step (causal, L = 1) reads the state after its only token.
    bool bidirectional = op.getMask() == Mask::none ||
                         (op.getMask() == Mask::causal &&
                          hasStaticLengthOne(op.getQuery()));
    if (!bidirectional || !formAllows(op, Form::OneShot))
      return failure();
    Location loc = op.getLoc();
    int64_t numBatch = numBatchDims(op.getQuery().getType());
    auto [q, k, v] = prepareOperands(rewriter, loc, op);
    // S = S0 + phi(K)^T V, then O = phi(Q) S.
    Value state = initialStateOrZeros(rewriter, loc, op.getInitialState(), q, v);
    state = transposedMatmulAccumulate(rewriter, loc, numBatch, k, v, state);
    replaceWithForm(rewriter, op, queryTimesState(rewriter, loc, q, state),
                    state);
    return success();
  }
};

struct GatedToOneShot : OpRewritePattern<GatedLinearAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatedLinearAttentionOp op,
                                PatternRewriter &rewriter) const override {
    bool bidirectional = op.prefixCoversSequence() ||
                         (op.getMask() == Mask::causal &&
                          hasStaticLengthOne(op.getQuery()));
    if (!bidirectional || !formAllows(op, Form::OneShot))
      return failure();
    Location loc = op.getLoc();
    int64_t numBatch = numBatchDims(op.getQuery().getType());
    bool scalarGate = op.hasScalarGate();
    auto [q, k, v, g] = prepareOperands(rewriter, loc, op);

    // S_{L-1} = diag(exp(sum_t g_t)) S0 + (K .* exp(sum_{s>t} g_s))^T V.
    Value state = initialStateOrZeros(rewriter, loc, op.getInitialState(), q, v);
    if (op.getInitialState()) {
      Value total = sumOverSequence(rewriter, loc, numBatch, g, scalarGate);
      state = decayState(rewriter, loc, numBatch, state, total, scalarGate);
    }
    Value suffix = gatePresum(rewriter, loc, g, numBatch, /*suffix=*/true);
    Value decayedKeys = decayRows(rewriter, loc, numBatch, k, suffix, scalarGate);
    state = transposedMatmulAccumulate(rewriter, loc, numBatch, decayedKeys, v,
                                       state);
    replaceWithForm(rewriter, op, queryTimesState(rewriter, loc, q, state),
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
  patterns.add<LinearAttentionToOneShot, GatedToOneShot>(patterns.getContext());
}
