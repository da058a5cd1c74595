//===- SplitPrefix.cpp - prefix(j) -> bidirectional + causal parts -------===//
//
// Rows [0, j) of a PrefixLM op all read the state after the prefix; rows
// [j, L) continue causally from it. Splitting the op there lets each part
// take its own form (one-shot and chunked). The prefix part's final state
// seeds the causal part, so the split is exact.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
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

using namespace mlir;
using namespace mlir::linea;

namespace {

/// The rows of the two parts along the sequence dim: [0, j) and [j, L).
struct SplitPoint {
  int64_t seq;
  OpFoldResult prefix, rest;

  template <typename OpTy>
  SplitPoint(OpBuilder &b, Location loc, OpTy op) {
    RankedTensorType q = op.getQuery().getType();
    seq = seqDim(q);
    OpFoldResult total = tensor::getMixedSize(b, loc, op.getQuery(), seq);
    if (std::optional<int64_t> length = op.getPrefixLength())
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
    return sliceAlong(b, loc, x, seq, b.getIndexAttr(0), prefix);
  }
  Value tail(OpBuilder &b, Location loc, Value x) const {
    return sliceAlong(b, loc, x, seq, prefix, rest);
  }
};

/// A static prefix of 0 or L is not a split: canonicalization makes it
/// causal or bidirectional instead.
template <typename OpTy>
bool isTrivialPrefix(OpTy op) {
  std::optional<int64_t> length = op.getPrefixLength();
  if (!length)
    return false;
  RankedTensorType q = op.getQuery().getType();
  return *length == 0 || *length == q.getDimSize(seqDim(q));
}

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
  out = insertAlong(b, loc, head, out, split.seq, b.getIndexAttr(0));
  return insertAlong(b, loc, tail, out, split.seq, split.prefix);
}

struct SplitLinearAttention : OpRewritePattern<LinearAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LinearAttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getMask() != Mask::prefix || isTrivialPrefix(op))
      return failure();
    Location loc = op.getLoc();
    SplitPoint split(rewriter, loc, op);
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    bool normalize = op.getNormalize();
    // The normalizer z = sum phi(k) crosses the split as an extra state
    // column: a ones column appended to v.
    if (normalize) {
      q = castToF32(rewriter, loc, q);
      k = castToF32(rewriter, loc, k);
      v = appendOnesColumn(rewriter, loc, castToF32(rewriter, loc, v));
    }
    APFloat partScale = normalize ? APFloat(1.0f) : op.getScale();
    Value q1 = split.head(rewriter, loc, q), q2 = split.tail(rewriter, loc, q);
    Value k1 = split.head(rewriter, loc, k), k2 = split.tail(rewriter, loc, k);
    Value v1 = split.head(rewriter, loc, v), v2 = split.tail(rewriter, loc, v);

    auto head = LinearAttentionOp::create(
        rewriter, loc, TypeRange{outputType(q1, v1), stateType(q, v)}, q1, k1,
        v1, op.getInitialState(), Value(), Mask::none, IntegerAttr(),
        op.getFeatureMap(), partScale, false);
    SmallVector<Type> tailTypes{outputType(q2, v2)};
    if (op.getFinalState())
      tailTypes.push_back(stateType(q, v));
    auto tail = LinearAttentionOp::create(
        rewriter, loc, tailTypes, q2, k2, v2, head.getFinalState(), Value(),
        Mask::causal, IntegerAttr(), op.getFeatureMap(), partScale, false);

    Value out = joinRows(rewriter, loc, split, op.getQuery(),
                         head.getOutput(), tail.getOutput());
    SmallVector<Value> results;
    if (normalize) {
      results.push_back(divideByLastColumn(
          rewriter, loc, out, op.getScale().convertToFloat(),
          op.getOutput().getType().getElementType()));
    } else {
      results.push_back(out);
    }
    if (Value finalState = tail.getFinalState()) {
      // Drop the normalizer column again.
      if (normalize)
        finalState = dropLastColumn(rewriter, loc, finalState);
      results.push_back(finalState);
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  static Value dropLastColumn(OpBuilder &b, Location loc, Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    int64_t last = type.getRank() - 1;
    return sliceAlong(b, loc, x, last, b.getIndexAttr(0),
                      b.getIndexAttr(type.getDimSize(last) - 1));
  }
};

struct SplitGatedLinearAttention : OpRewritePattern<GatedLinearAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatedLinearAttentionOp op,
                                PatternRewriter &rewriter) const override {
    // A prefix over the whole sequence is already the bidirectional part.
    if (op.getMask() != Mask::prefix || op.prefixCoversSequence() ||
        isTrivialPrefix(op))
      return failure();
    Location loc = op.getLoc();
    SplitPoint split(rewriter, loc, op);
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
          g = op.getGate();
    Value q1 = split.head(rewriter, loc, q), q2 = split.tail(rewriter, loc, q);
    Value k1 = split.head(rewriter, loc, k), k2 = split.tail(rewriter, loc, k);
    Value v1 = split.head(rewriter, loc, v), v2 = split.tail(rewriter, loc, v);
    Value g1 = split.head(rewriter, loc, g), g2 = split.tail(rewriter, loc, g);

    // Rows [0, j) read S_{j-1}: a prefix over exactly the j rows of the slice.
    IntegerAttr staticPrefix;
    Value dynamicPrefix;
    if (std::optional<int64_t> length = op.getPrefixLength())
      staticPrefix = rewriter.getI64IntegerAttr(*length);
    else // The clamped length the slices were cut at.
      dynamicPrefix = cast<Value>(split.prefix);
    auto head = GatedLinearAttentionOp::create(
        rewriter, loc, TypeRange{outputType(q1, v1), stateType(q, v)}, q1, k1,
        v1, g1, op.getInitialState(), dynamicPrefix, Mask::prefix,
        staticPrefix, op.getScale());
    SmallVector<Type> tailTypes{outputType(q2, v2)};
    if (op.getFinalState())
      tailTypes.push_back(stateType(q, v));
    auto tail = GatedLinearAttentionOp::create(
        rewriter, loc, tailTypes, q2, k2, v2, g2, head.getFinalState(), Value(),
        Mask::causal, IntegerAttr(), op.getScale());

    SmallVector<Value> results{joinRows(rewriter, loc, split, op.getQuery(),
                                        head.getOutput(), tail.getOutput())};
    if (Value finalState = tail.getFinalState())
      results.push_back(finalState);
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
    LinearAttentionOp::getCanonicalizationPatterns(patterns, &getContext());
    GatedLinearAttentionOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateSplitPrefixPatterns(RewritePatternSet &patterns) {
  patterns.add<SplitLinearAttention, SplitGatedLinearAttention>(
      patterns.getContext());
}
