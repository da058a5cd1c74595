//===- PrefixToOneShot.cpp - bidirectional regions -> the one-shot state --===//
//
// A region whose rows all read the same state needs no chunking:
// S = S0 + phi(K)^T V once, then O = phi(Q) S. With a data-dependent gate
// the state after the region is still one matmul over decayed keys,
// k_t * exp(b_{L-1} - b_t), because every weight is known once presum(g) is:
// exp(b_{L-1} - b_t) = exp(sum_{s > t} g_s), the exclusive reverse presum.
// Inside a GPU sequence block, where no temporary may be as long as the
// sequence, an op whose one-shot form would copy its rows (a feature map,
// the normalizer's ones column, a gate's decayed keys) takes its rows in
// chunks instead: one loop adds each chunk to the state, a second one
// multiplies each chunk's queries by the final state.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "ChunkLoop.h"
#include "ChunkSize.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Forms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/SequenceBlocks.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAPREFIXTOONESHOT
#include "linea/Forms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// Whether the one-shot form makes a copy of the operands' rows: phi(q),
/// phi(k), the values with the ones column, the gate's decayed keys.
bool copiesRows(LinearAttentionOpInterface op) {
  return op.getGate() || op.getNormalize() ||
         op.getFeatureMap() != FeatureMap::identity;
}

/// The one-shot form over chunks of C rows (padded, no temporary longer
/// than a chunk): S = S0 + sum_c phi(K_c)^T V_c (gated: each chunk decays
/// S first), then O_c = phi(Q_c) S for every chunk.
void rewriteInChunks(PatternRewriter &rewriter, LinearAttentionOpInterface op) {
  Location loc = kernelStageLoc(op, "oneshot_state");
  int64_t numBatch = numBatchDims(op.getQuery().getType());
  bool scalar = op.hasScalarGate();
  auto prepare = [&](OpBuilder &b, Location l, const Chunk &rows) {
    auto [q, k, v, g] =
        prepareOperands(b, l, op, FormOperands{rows.q, rows.k, rows.v, rows.g});
    return Chunk{q, k, v, g};
  };
  auto finish = [&](OpBuilder &b, Location l, Value rows) {
    return finishRows(b, l, op, rows);
  };
  auto addToState = [&](OpBuilder &b, Location l, const Chunk &c,
                        Value s) -> std::pair<Value, Value> {
    Value next = c.g ? gatedStateUpdate(b, l, numBatch, c.k, c.v, c.g, s,
                                        scalar, /*stateIsZero=*/false)
                     : transposedMatmulAccumulate(b, l, numBatch, c.k, c.v, s);
    return {Value(), next};
  };
  auto readState = [&](OpBuilder &b, Location l, const Chunk &c,
                       Value s) -> std::pair<Value, Value> {
    return {queryTimesState(b, l, numBatch, c.q, s), s};
  };
  ChunkLoop loop{op.getQuery(),    op.getKey(),
                 op.getValue(),    op.getGate(),
                 prepare,          kDefaultChunkSize,
                 /*padTail=*/true, featureMapKeepsZero(op.getFeatureMap()),
                 addToState,       finish,
                 op.getValue(),    op.getOutput().getType().getElementType()};
  // The state has the ones column's column too.
  Value valuesLike = op.getValue();
  if (op.getNormalize())
    valuesLike = tensor::EmptyOp::create(
        rewriter, loc, sizesWithExtraColumn(rewriter, loc, valuesLike),
        getElementTypeOrSelf(valuesLike));
  Value state = initialStateOrZeros(rewriter, loc, op.getInitialState(),
                                    op.getQuery(), valuesLike);
  state =
      buildChunkLoop(rewriter, loc, loop, inOwnBuffer(rewriter, state)).first;
  loop.step = readState;
  Value rows =
      buildChunkLoop(rewriter, kernelStageLoc(op, "oneshot_outputs"), loop,
                     state)
          .second;
  replaceWithFinished(rewriter, op, rows, state);
}

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
    if (isInSequenceBlock(op) && copiesRows(op)) {
      rewriteInChunks(rewriter, op);
      return success();
    }
    Location loc = kernelStageLoc(op, "inputs");
    Location stateLoc = kernelStageLoc(op, "oneshot_state");
    Location rowsLoc = kernelStageLoc(op, "oneshot_outputs");
    int64_t numBatch = numBatchDims(op.getQuery().getType());
    auto [q, k, v, g] = prepareOperands(rewriter, loc, op);
    Value init = op.getInitialState();
    Value state = initialStateOrZeros(rewriter, stateLoc, init, q, v);
    // S = S0 + phi(K)^T V; gated: S = diag(exp(sum_t g_t)) S0 +
    // (K .* exp(sum_{s>t} g_s))^T V.
    if (g)
      state = gatedStateUpdate(rewriter, stateLoc, numBatch, k, v, g, state,
                               op.hasScalarGate(), /*stateIsZero=*/!init);
    else
      state = transposedMatmulAccumulate(rewriter, stateLoc, numBatch, k, v,
                                         state);
    replaceWithForm(rewriter, op,
                    queryTimesState(rewriter, rowsLoc, numBatch, q, state),
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
