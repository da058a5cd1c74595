//===- CausalToChunked.cpp - causal regions -> the chunked algorithm ------===//
//
// Per chunk of C rows (the last one shorter when L % C != 0):
//   O_c = Q_c S + tril(Q_c K_c^T) V_c,   S += K_c^T V_c.
// With gates, b = presum(g_c) is taken within the chunk, so every decay is
// relative to the chunk start and every exponent is <= 0:
//   O_c[i] = (q_i .* exp(b_i)) S + sum_{t <= i} (q_i .* exp(b_i - b_t)) . k_t v_t
//   S      = diag(exp(b_last)) S + sum_t diag(exp(b_last - b_t)) k_t^T v_t.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "ChunkLoop.h"
#include "ChunkRows.h"
#include "ChunkSize.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Forms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/SequenceBlocks.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACAUSALTOCHUNKED
#include "linea/Forms/Passes.h.inc"
} // namespace mlir::linea

#define DEBUG_TYPE "linea-causal-to-chunked"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// One chunk: its rows from the state entering it, then the state after it.
/// The rows are built first: they read S before the update overwrites it in
/// place.
std::pair<Value, Value> plainStep(OpBuilder &b, Location l, int64_t numBatch,
                                  const Chunk &c, Value s) {
  Value rows = plainChunkRows(b, l, numBatch, c, s);
  Value next = transposedMatmulAccumulate(b, l, numBatch, c.k, c.v, s);
  return {rows, next};
}

/// The same with decays relative to the chunk start: b = presum(g_c).
std::pair<Value, Value> gatedStep(OpBuilder &b, Location l, int64_t numBatch,
                                  bool scalar, bool mayFactor, const Chunk &c,
                                  Value s) {
  Value cum = gatePresum(b, l, c.g, numBatch, /*suffix=*/false);
  GatedScoresPlan plan{mayFactor, /*blocksAtOnce=*/false};
  Value rows = gatedChunkRows(b, l, numBatch, scalar, plan, c, cum, s);
  // S = diag(exp(b_last)) S + (K .* exp(b_last - b_t))^T V, with
  // b_last - b_t the suffix sums within the chunk.
  Value next = gatedStateUpdate(b, l, numBatch, c.k, c.v, c.g, s, scalar,
                                /*stateIsZero=*/false);
  return {rows, next};
}

struct ToChunked : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  ToChunked(MLIRContext *ctx, int64_t chunkSize)
      : OpInterfaceRewritePattern(ctx), chunkSize(chunkSize) {}

  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    auto form = cast<FormOpInterface>(op.getOperation());
    if (op.getEffectiveMask() != Mask::causal)
      return rewriter.notifyMatchFailure(op, "not a causal op");
    if (!form.formAllows(FormKind::chunked))
      return rewriter.notifyMatchFailure(op, "its form is not chunked");
    // One loop over the chunks, one kernel name (a sequence block's whole
    // program, or the kernels a host loop launches).
    Location loc = kernelStageLoc(op, "chunk_loop");
    int64_t numBatch = numBatchDims(op.getQuery().getType());
    bool scalar = op.hasScalarGate();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
          g = op.getGate();
    // Inside a sequence block every temporary needs a static size and the
    // state a buffer of its own (shared memory).
    bool inBlock = isInSequenceBlock(op);
    // The factored gated scores branch on the data: CPU code only.
    bool mayFactor = !inBlock && !plannedForGPU(op);
    LLVM_DEBUG(llvm::dbgs()
               << "chunked form, chunks of " << chunkSizeFor(form, chunkSize)
               << (inBlock ? ", in a sequence block (static, padded tail)" : "")
               << (g && mayFactor ? ", factored gated scores" : "") << "\n");
    auto step = [&](OpBuilder &b, Location l, const Chunk &c, Value s) {
      return c.g ? gatedStep(b, l, numBatch, scalar, mayFactor, c, s)
                 : plainStep(b, l, numBatch, c, s);
    };
    auto finish = [&](OpBuilder &b, Location l, Value rows) {
      return finishRows(b, l, op, rows);
    };
    auto prepare = [&](OpBuilder &b, Location l, const Chunk &rows) {
      auto [pq, pk, pv, pg] = prepareOperands(
          b, l, op, FormOperands{rows.q, rows.k, rows.v, rows.g});
      return Chunk{pq, pk, pv, pg};
    };
    ChunkLoop loop{q,
                   k,
                   v,
                   g,
                   prepare,
                   chunkSizeFor(form, chunkSize),
                   /*padTail=*/inBlock,
                   featureMapKeepsZero(op.getFeatureMap()),
                   step,
                   finish,
                   op.getValue(),
                   op.getOutput().getType().getElementType()};
    // The state has a column per value column, the ones column's too (an
    // empty tensor of the values' shape with it: only its sizes are read).
    Value valuesLike = v;
    if (op.getNormalize())
      valuesLike = tensor::EmptyOp::create(
          rewriter, loc, sizesWithExtraColumn(rewriter, loc, v),
          getElementTypeOrSelf(v));
    Value state0 = initialStateOrZeros(rewriter, loc, op.getInitialState(), q,
                                       valuesLike);
    if (inBlock)
      state0 = inOwnBuffer(rewriter, state0);
    auto [state, o] = buildChunkLoop(rewriter, loc, loop, state0);
    replaceWithFinished(rewriter, op, o, state);
    return success();
  }

  int64_t chunkSize;
};

struct LineaCausalToChunkedPass
    : linea::impl::LineaCausalToChunkedBase<LineaCausalToChunkedPass> {
  using LineaCausalToChunkedBase::LineaCausalToChunkedBase;

  void runOnOperation() override {
    if (failed(verifyFormSizeOption(getOperation(), "chunk-size", chunkSize)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateCausalToChunkedPatterns(patterns, chunkSize);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateCausalToChunkedPatterns(RewritePatternSet &patterns,
                                                  int64_t chunkSize) {
  patterns.add<ToChunked>(patterns.getContext(), chunkSize);
}
