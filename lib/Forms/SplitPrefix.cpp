//===- SplitPrefix.cpp - prefix(j) -> bidirectional + causal parts -------===//
//
// Rows [0, j) of a PrefixLM op all read the state after the prefix; rows
// [j, L) continue causally from it. Splitting the op there lets each part
// take its own form (one-shot and chunked). The prefix part's final state
// seeds the causal part, so the split is exact, gated or not.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Forms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/NormalizerColumn.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASPLITPREFIX
#include "linea/Forms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// The rows of the two parts along the sequence dim: [0, j) and [j, L).
struct SplitPoint {
  int64_t seq;
  OpFoldResult prefix, rest;

  SplitPoint(OpBuilder &b, Location loc, LinearAttentionOpInterface op) {
    RankedTensorType q = op.getQuery().getType();
    seq = seqDim(q);
    OpFoldResult total = tensor::getMixedSize(b, loc, op.getQuery(), seq);
    if (std::optional<int64_t> length = op.getStaticPrefixLength())
      prefix = b.getIndexAttr(*length);
    else
      prefix = clampPrefixLength(
          b, loc, op.getPrefixIndex(),
          getValueOrCreateConstantIndexOp(b, loc, total));
    std::optional<int64_t> staticPrefix = getConstantIntValue(prefix);
    std::optional<int64_t> staticTotal = getConstantIntValue(total);
    if (staticPrefix && staticTotal) {
      rest = b.getIndexAttr(*staticTotal - *staticPrefix);
      return;
    }
    rest = arith::SubIOp::create(
               b, loc, getValueOrCreateConstantIndexOp(b, loc, total),
               getValueOrCreateConstantIndexOp(b, loc, prefix))
               .getResult();
  }

  Value head(OpBuilder &b, Location loc, Value x) const {
    return x ? sliceAlong(b, loc, x, seq, b.getIndexAttr(0), prefix) : x;
  }
  Value tail(OpBuilder &b, Location loc, Value x) const {
    return x ? sliceAlong(b, loc, x, seq, prefix, rest) : x;
  }
};

/// `[B..., rows of q, last dim of v]` in v's element type.
RankedTensorType outputType(Value q, Value v) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(qType.getShape());
  shape.back() = vType.getShape().back();
  return RankedTensorType::get(shape, vType.getElementType());
}

/// `[B..., Dk, Dv]` in f32, the batch dims of q.
RankedTensorType stateType(Value q, Value v) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(qType.getShape().drop_back(2));
  shape.push_back(qType.getShape().back());
  shape.push_back(vType.getShape().back());
  return RankedTensorType::get(shape, Float32Type::get(q.getContext()));
}

/// Writes the two parts' outputs into one `[B..., L, Dv]` tensor shaped
/// like `query` but for the last dim.
Value joinRows(OpBuilder &b, Location loc, const SplitPoint &split,
               Value query, Value head, Value tail) {
  auto type = cast<RankedTensorType>(head.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, query);
  sizes.back() = tensor::getMixedSize(b, loc, head, type.getRank() - 1);
  Value out = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  // Each part's size is the split's, not read off the part: a GPU sequence
  // block then computes each part straight into its rows of the output.
  out = insertAlong(b, loc, head, out, split.seq, b.getIndexAttr(0),
                    split.prefix);
  return insertAlong(b, loc, tail, out, split.seq, split.prefix, split.rest);
}

struct SplitPrefix : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (op.getEffectiveMask() != Mask::prefix)
      return rewriter.notifyMatchFailure(op, "no prefix mask to split");
    // Each segment has its own prefix: split after linea-split-segments.
    if (op.isPacked())
      return rewriter.notifyMatchFailure(op, "packed: one prefix per segment");
    if (op.getNormalize())
      return rewriter.notifyMatchFailure(
          op, "normalized: its normalizer becomes a value column first");
    Location loc = op.getLoc();
    SplitPoint split(rewriter, loc, op);
    LinearAttentionSpec spec = op.getSpec();
    Value q = spec.query, v = spec.value;

    // Rows [0, j) all read the state after the prefix: a bidirectional op.
    LinearAttentionSpec head = spec;
    head.query = split.head(rewriter, loc, spec.query);
    head.key = split.head(rewriter, loc, spec.key);
    head.value = split.head(rewriter, loc, spec.value);
    head.gate = split.head(rewriter, loc, spec.gate);
    head.mask = Mask::none;
    head.prefixLength = std::nullopt;
    head.prefixIndex = Value();
    head.outputType = outputType(head.query, head.value);
    head.finalStateType = stateType(q, v);
    Operation *headOp = op.createLike(rewriter, loc, head);

    // Rows [j, L) continue causally from it.
    LinearAttentionSpec tail = head;
    tail.query = split.tail(rewriter, loc, spec.query);
    tail.key = split.tail(rewriter, loc, spec.key);
    tail.value = split.tail(rewriter, loc, spec.value);
    tail.gate = split.tail(rewriter, loc, spec.gate);
    tail.initialState = headOp->getResult(1);
    tail.mask = Mask::causal;
    tail.outputType = outputType(tail.query, tail.value);
    tail.finalStateType = op.getFinalState() ? stateType(q, v) : Type();
    Operation *tailOp = op.createLike(rewriter, loc, tail);

    Value out = joinRows(rewriter, loc, split, op.getQuery(),
                         headOp->getResult(0), tailOp->getResult(0));
    SmallVector<Value> results{out};
    if (op.getFinalState())
      results.push_back(tailOp->getResult(1));
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct LineaSplitPrefixPass
    : linea::impl::LineaSplitPrefixBase<LineaSplitPrefixPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateSplitPrefixPatterns(patterns);
    // prefix(0) and prefix(L) become causal and bidirectional ops here.
    if (auto *linea = getContext().getLoadedDialect<LineaDialect>())
      linea->getCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateSplitPrefixPatterns(RewritePatternSet &patterns) {
  patterns.add<SplitPrefix>(patterns.getContext());
  populateNormalizerAsValueColumnPatterns(patterns, /*packedOnly=*/false);
}
