//===- SplitPrefix.cpp - prefix(j) -> bidirectional + causal parts -------===//
//
// Rows [0, j) of a PrefixLM op all read the state after the prefix; rows
// [j, L) continue causally from it. Splitting the op there lets each part
// take its own form (one-shot and chunked). The prefix part's final state
// seeds the causal part, so the split is exact, gated or not.
//
//===----------------------------------------------------------------------===//

#include "linea/Transforms/SplitPrefix.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/FormUtils.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASPLITPREFIX
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

#define DEBUG_TYPE "linea-split-prefix"

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

Value dropLastColumn(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t last = type.getRank() - 1;
  return sliceAlong(b, loc, x, last, b.getIndexAttr(0),
                    b.getIndexAttr(type.getDimSize(last) - 1));
}

/// `type` with f32 elements and one more entry in its last dim: room for
/// the normalizer's column.
RankedTensorType withNormalizerColumn(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  if (!ShapedType::isDynamic(shape.back()))
    ++shape.back();
  return RankedTensorType::get(shape, Float32Type::get(type.getContext()));
}

/// A normalized PrefixLM op -> the unnormalized op over `[v, 1]`: the ones
/// column's output is the normalizer `phi(q) z` of each row (z = sum phi(k)
/// over the keys the row sees), so dividing by it afterwards (and scaling)
/// is the op. Its state carries `z` as an extra column, which is what lets
/// a split pass `z` across: SplitPrefix splits only unnormalized ops.
struct NormalizerAsValueColumn
    : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  NormalizerAsValueColumn(MLIRContext *context, bool packedOnly,
                          PatternBenefit benefit)
      : OpInterfaceRewritePattern(context, benefit), packedOnly(packedOnly) {}

  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (op.getEffectiveMask() != Mask::prefix || !op.getNormalize())
      return rewriter.notifyMatchFailure(op, "not a normalized prefix op");
    if (packedOnly && !op.isPacked())
      return rewriter.notifyMatchFailure(op, "one sequence: left to the split");
    Location loc = op.getLoc();
    LinearAttentionSpec spec = op.getSpec();
    spec.query = castToF32(rewriter, loc, spec.query);
    spec.key = castToF32(rewriter, loc, spec.key);
    spec.value =
        appendOnesColumn(rewriter, loc, castToF32(rewriter, loc, spec.value));
    spec.normalize = false;
    spec.scale = 1.0f;
    spec.outputType = withNormalizerColumn(op.getOutput().getType());
    if (Value finalState = op.getFinalState())
      spec.finalStateType = withNormalizerColumn(finalState.getType());
    Operation *unnormalized = op.createLike(rewriter, loc, spec);

    SmallVector<Value> results{
        finishRows(rewriter, loc, op, unnormalized->getResult(0))};
    if (Value finalState = op.getFinalState()) {
      Value state = dropLastColumn(rewriter, loc, unnormalized->getResult(1));
      if (state.getType() != finalState.getType())
        state =
            tensor::CastOp::create(rewriter, loc, finalState.getType(), state);
      results.push_back(state);
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  bool packedOnly;
};

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

void mlir::linea::populateNormalizerAsValueColumnPatterns(
    RewritePatternSet &patterns, bool packedOnly, PatternBenefit benefit) {
  patterns.add<NormalizerAsValueColumn>(patterns.getContext(), packedOnly,
                                        benefit);
}

void mlir::linea::populateSplitPrefixPatterns(RewritePatternSet &patterns) {
  patterns.add<SplitPrefix>(patterns.getContext());
  populateNormalizerAsValueColumnPatterns(patterns, /*packedOnly=*/false);
}
