//===- LineaToLinalg.cpp - the reference lowering of Linea ops ------------===//
//
// Each op becomes linalg/scf/tensor IR that computes SPEC's definition
// directly: masked quadratic forms for the attentions, a sequential scan for
// presum, a segment loop for fold. Correctness by inspection is the goal;
// the optimizing passes are measured against this.
//
// All arithmetic is f32; f16/bf16 operands are extended on entry.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir::linea {
#define GEN_PASS_DEF_CONVERTLINEATOLINALG
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {


Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value loopIndex(OpBuilder &b, Location loc, const LoopSpace &space,
                unsigned k) {
  return linalg::IndexOp::create(b, loc, space.position(k));
}

/// The prefix length as an index value: the static attribute, or the
/// operand clamped to [0, L].
Value prefixLengthValue(OpBuilder &b, Location loc,
                        std::optional<int64_t> staticLength, Value operand,
                        Value query) {
  if (staticLength)
    return indexConst(b, loc, *staticLength);
  if (!operand)
    return operand;
  int64_t seq = seqDim(cast<RankedTensorType>(query.getType()));
  return clampPrefixLength(b, loc, operand,
                           tensor::DimOp::create(b, loc, query, seq));
}

/// The last key position row `i` sees: `p(i)` such that the row sums over
/// `t <= p(i)`. none: L - 1; causal: i; prefix(j): max(i, j - 1).
Value lastVisibleKey(OpBuilder &b, Location loc, Mask mask, Value row,
                     Value prefixLength, Value seqLen) {
  switch (mask) {
  case Mask::none:
    return arith::SubIOp::create(b, loc, seqLen, indexConst(b, loc, 1));
  case Mask::causal:
    return row;
  case Mask::prefix: {
    Value lastPrefix =
        arith::SubIOp::create(b, loc, prefixLength, indexConst(b, loc, 1));
    return arith::MaxSIOp::create(b, loc, row, lastPrefix);
  }
  }
  llvm_unreachable("unknown mask");
}

Value isVisible(OpBuilder &b, Location loc, Value key, Value lastKey) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, key,
                               lastKey);
}

/// Shapes shared by the attention lowerings, read off q and v.
struct AttentionDims {
  int64_t numBatch;
  SmallVector<OpFoldResult> batch;
  OpFoldResult seqLen, keyDim, valueDim;

  AttentionDims(OpBuilder &b, Location loc, Value q, Value v) {
    auto type = cast<RankedTensorType>(q.getType());
    numBatch = numBatchDims(type);
    batch = leadingSizes(b, loc, q, numBatch);
    seqLen = tensor::getMixedSize(b, loc, q, numBatch);
    keyDim = tensor::getMixedSize(b, loc, q, numBatch + 1);
    valueDim = tensor::getMixedSize(b, loc, v, numBatch + 1);
  }

  /// The batch sizes followed by `trailing`.
  SmallVector<OpFoldResult> shape(ArrayRef<OpFoldResult> trailing) const {
    SmallVector<OpFoldResult> sizes(batch);
    llvm::append_range(sizes, trailing);
    return sizes;
  }

  /// Zeros `[B..., L, cols]`.
  Value zeros(OpBuilder &b, Location loc, OpFoldResult cols) const {
    return buildFilled(b, loc, shape({seqLen, cols}), b.getF32Type(), 0);
  }

  /// Zeros `[B..., Dk, Dv]`.
  Value zerosState(OpBuilder &b, Location loc) const {
    return buildFilled(b, loc, shape({keyDim, valueDim}), b.getF32Type(), 0);
  }
};

/// `out = scale * o (/ (den + 1e-6))`, truncated to `elementType`.
Value finishOutput(OpBuilder &b, Location loc, const AttentionDims &dims,
                   Value o, Value denominator, float scale, Type elementType) {
  LoopSpace s(b.getContext(), dims.numBatch, {kPar, kPar});
  SmallVector<Value> inputs{o};
  SmallVector<AffineMap> maps{s.map({s[0], s[1]})};
  if (denominator) {
    inputs.push_back(denominator);
    maps.push_back(s.map({s[0]}));
  }
  maps.push_back(s.map({s[0], s[1]}));
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, o), elementType);
  return buildGeneric(
      b, loc, inputs, init, maps, s.iterators(),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value x =
            arith::MulFOp::create(nb, l, args[0], f32Constant(nb, l, scale));
        if (denominator) {
          Value den =
              arith::AddFOp::create(nb, l, args[1], f32Constant(nb, l, 1e-6f));
          x = arith::DivFOp::create(nb, l, x, den);
        }
        if (elementType != x.getType())
          x = arith::TruncFOp::create(nb, l, elementType, x);
        return x;
      });
}

//===----------------------------------------------------------------------===//
// linea.linear_attention: the masked quadratic form
//===----------------------------------------------------------------------===//

struct LowerLinearAttention : OpRewritePattern<LinearAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LinearAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FeatureMap map = op.getFeatureMap();
    Value q = applyFeatureMap(rewriter, loc,
                              castToF32(rewriter, loc, op.getQuery()), map);
    Value k = applyFeatureMap(rewriter, loc,
                              castToF32(rewriter, loc, op.getKey()), map);
    Value v = castToF32(rewriter, loc, op.getValue());
    AttentionDims dims(rewriter, loc, q, v);
    Value seqLen = getValueOrCreateConstantIndexOp(rewriter, loc, dims.seqLen);
    Value prefix = prefixLengthValue(rewriter, loc, op.getPrefixLength(),
                                     op.getPrefixIndex(), op.getQuery());

    // a[i, t] = [t <= p(i)] * phi(q_i) . phi(k_t)
    Value scores = maskedScores(
        rewriter, loc, dims.numBatch, q, k,
        [&](OpBuilder &b, Location l, Value row, Value col) {
          return isVisible(
              b, l, col, lastVisibleKey(b, l, op.getMask(), row, prefix, seqLen));
        });
    Value o = matmulAccumulate(rewriter, loc, dims.numBatch, scores, v,
                               dims.zeros(rewriter, loc, dims.valueDim));
    Value init = op.getInitialState();
    if (init)
      o = matmulAccumulate(rewriter, loc, dims.numBatch, q, init, o);
    Value denominator;
    if (op.getNormalize())
      denominator = rowSums(rewriter, loc, dims.numBatch, scores);
    Value out = finishOutput(rewriter, loc, dims, o, denominator,
                             op.getScale().convertToFloat(),
                             op.getOutput().getType().getElementType());

    SmallVector<Value> results{out};
    if (op.getFinalState())
      results.push_back(transposedMatmulAccumulate(
          rewriter, loc, dims.numBatch, k, v,
          init ? init : dims.zerosState(rewriter, loc)));
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// linea.gated_linear_attention: decayed masked quadratic form
//===----------------------------------------------------------------------===//

struct LowerGatedLinearAttention : OpRewritePattern<GatedLinearAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatedLinearAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = castToF32(rewriter, loc, op.getQuery());
    Value k = castToF32(rewriter, loc, op.getKey());
    Value v = castToF32(rewriter, loc, op.getValue());
    Value g = castToF32(rewriter, loc, op.getGate());
    AttentionDims dims(rewriter, loc, q, v);
    bool scalarGate = op.hasScalarGate();
    Value prefix = prefixLengthValue(rewriter, loc, op.getPrefixLength(),
                                     op.getPrefixIndex(), op.getQuery());

    // b = presum(g): the log of the decay from the start to each position;
    // row i reads the state after p(i), so its log-decay is b[p(i)].
    Value cumGate = gatePresum(rewriter, loc, g, dims.numBatch, /*suffix=*/false);
    Value rowGate = cumGate;
    if (op.getMask() == Mask::prefix)
      rowGate = gatherRowGate(rewriter, loc, dims.numBatch, cumGate, prefix);

    // a[i, t] = [t <= p(i)] * sum_d q[i,d] k[t,d] exp(b[p(i),d] - b[t,d])
    Value scores = decayedScores(
        rewriter, loc, dims.numBatch, q, k, rowGate, cumGate, scalarGate,
        [&](OpBuilder &b, Location l, Value row, Value col) {
          return isVisible(
              b, l, col, lastVisibleKey(b, l, op.getMask(), row, prefix, {}));
        });
    Value o = matmulAccumulate(rewriter, loc, dims.numBatch, scores, v,
                               dims.zeros(rewriter, loc, dims.valueDim));
    Value init = op.getInitialState();
    if (init)
      o = decayedQueryTimesState(rewriter, loc, dims.numBatch, q, rowGate,
                                 init, scalarGate, o);
    Value out = finishOutput(rewriter, loc, dims, o, Value(),
                             op.getScale().convertToFloat(),
                             op.getOutput().getType().getElementType());
    SmallVector<Value> results{out};
    if (op.getFinalState())
      results.push_back(
          finalState(rewriter, loc, dims, k, v, g, init, scalarGate));
    rewriter.replaceOp(op, results);
    return success();
  }

  /// bRow[..., i, (d)] = b[..., max(i, j - 1), (d)].
  static Value gatherRowGate(OpBuilder &b, Location loc, int64_t numBatch,
                             Value cumGate, Value prefix) {
    auto type = cast<RankedTensorType>(cumGate.getType());
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, cumGate), type.getElementType());
    AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iterators(type.getRank(), kPar);
    return buildGeneric(
        b, loc, ValueRange{}, init, {identity}, iterators,
        [&](OpBuilder &nb, Location l, ValueRange) -> Value {
          SmallVector<Value> indices;
          for (int64_t dim = 0; dim < type.getRank(); ++dim)
            indices.push_back(linalg::IndexOp::create(nb, l, dim));
          indices[numBatch] = lastVisibleKey(nb, l, Mask::prefix,
                                             indices[numBatch], prefix, {});
          return tensor::ExtractOp::create(nb, l, cumGate, indices);
        });
  }

  /// S_{L-1} = diag(exp(sum_t g_t)) s0 + sum_t diag(exp(sum_{s>t} g_s)) k_t^T v_t:
  /// the suffix sums are b_{L-1} - b_t without indexing b_{L-1}, so L = 0
  /// is fine too.
  static Value finalState(OpBuilder &b, Location loc, const AttentionDims &dims,
                          Value k, Value v, Value g, Value initialState,
                          bool scalarGate) {
    Value state = dims.zerosState(b, loc);
    if (initialState) {
      state = linalg::CopyOp::create(b, loc, initialState, state).getResult(0);
      Value total = sumOverSequence(b, loc, dims.numBatch, g, scalarGate);
      state = decayState(b, loc, dims.numBatch, state, total, scalarGate);
    }
    Value suffix = gatePresum(b, loc, g, dims.numBatch, /*suffix=*/true);
    Value decayedKeys = decayRows(b, loc, dims.numBatch, k, suffix, scalarGate);
    return transposedMatmulAccumulate(b, loc, dims.numBatch, decayedKeys, v,
                                      state);
  }
};

//===----------------------------------------------------------------------===//
// linea.attention: masked softmax
//===----------------------------------------------------------------------===//

struct LowerAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = castToF32(rewriter, loc, op.getQuery());
    Value k = castToF32(rewriter, loc, op.getKey());
    Value v = castToF32(rewriter, loc, op.getValue());
    AttentionDims dims(rewriter, loc, q, v);
    OpFoldResult keyLen = tensor::getMixedSize(rewriter, loc, k, dims.numBatch);
    Type f32 = rewriter.getF32Type();
    float negInf = -std::numeric_limits<float>::infinity();
    float scale = op.getEffectiveScale();
    bool causal = op.getMask() == Mask::causal;
    // Queries are the last Lq positions: row i sees keys t <= i + (Lk - Lq).
    Value offset = arith::SubIOp::create(
        rewriter, loc, getValueOrCreateConstantIndexOp(rewriter, loc, keyLen),
        getValueOrCreateConstantIndexOp(rewriter, loc, dims.seqLen));

    // s[i, t] = scale * q_i . k_t, or -inf where masked.
    LoopSpace s3(getContext(), dims.numBatch, {kPar, kPar, kRed});
    Value dots = buildGeneric(
        rewriter, loc, {q, k},
        buildFilled(rewriter, loc, dims.shape({dims.seqLen, keyLen}), f32, 0),
        {s3.map({s3[0], s3[2]}), s3.map({s3[1], s3[2]}),
         s3.map({s3[0], s3[1]})},
        s3.iterators(), [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::AddFOp::create(
              b, l, args[2], arith::MulFOp::create(b, l, args[0], args[1]));
        });
    LoopSpace s2(getContext(), dims.numBatch, {kPar, kPar});
    AffineMap rowCol = s2.map({s2[0], s2[1]});
    Value scores = buildElementwiseIndexed(
        rewriter, loc, s2, dots, [&](OpBuilder &b, Location l, Value x) {
          Value scaled = arith::MulFOp::create(b, l, x, f32Constant(b, l, scale));
          if (!causal)
            return scaled;
          Value last = arith::AddIOp::create(b, l, loopIndex(b, l, s2, 0), offset);
          Value visible = isVisible(b, l, loopIndex(b, l, s2, 1), last);
          return arith::SelectOp::create(b, l, visible, scaled,
                                         f32Constant(b, l, negInf))
              .getResult();
        });

    // Row max; a row with no visible key keeps -inf and is treated as 0.
    LoopSpace sRow(getContext(), dims.numBatch, {kPar, kRed});
    Value rowMax = buildGeneric(
        rewriter, loc, scores,
        buildFilled(rewriter, loc, dims.shape({dims.seqLen}), f32, negInf),
        {sRow.map({sRow[0], sRow[1]}), sRow.map({sRow[0]})}, sRow.iterators(),
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::MaximumFOp::create(b, l, args[0], args[1]);
        });
    Value probs = buildGeneric(
        rewriter, loc, {scores, rowMax},
        tensor::EmptyOp::create(rewriter, loc, dims.shape({dims.seqLen, keyLen}),
                                f32),
        {rowCol, s2.map({s2[0]}), rowCol}, s2.iterators(),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value noKey = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                              args[1], f32Constant(b, l, negInf));
          Value max = arith::SelectOp::create(b, l, noKey, f32Constant(b, l, 0.0f),
                                              args[1]);
          return math::ExpOp::create(b, l,
                                     arith::SubFOp::create(b, l, args[0], max));
        });
    Value sums = rowSums(rewriter, loc, dims.numBatch, probs);
    Value o = matmulAccumulate(rewriter, loc, dims.numBatch, probs, v,
                               dims.zeros(rewriter, loc, dims.valueDim));

    Type elementType = op.getOutput().getType().getElementType();
    Value out = buildGeneric(
        rewriter, loc, {o, sums},
        tensor::EmptyOp::create(rewriter, loc,
                                dims.shape({dims.seqLen, dims.valueDim}),
                                elementType),
        {rowCol, s2.map({s2[0]}), rowCol}, s2.iterators(),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value zero = f32Constant(b, l, 0.0f);
          Value positive = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                                 args[1], zero);
          Value ratio = arith::DivFOp::create(b, l, args[0], args[1]);
          Value x = arith::SelectOp::create(b, l, positive, ratio, zero);
          if (elementType != x.getType())
            x = arith::TruncFOp::create(b, l, elementType, x);
          return x;
        });
    rewriter.replaceOp(op, out);
    return success();
  }

  /// Elementwise over a `[B..., rows, cols]` tensor with the loop indices
  /// available to `fn` through linalg.index.
  static Value buildElementwiseIndexed(
      OpBuilder &b, Location loc, const LoopSpace &space, Value input,
      function_ref<Value(OpBuilder &, Location, Value)> fn) {
    AffineMap rowCol = space.map({space[0], space[1]});
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, input), b.getF32Type());
    return buildGeneric(b, loc, input, init, {rowCol, rowCol},
                        space.iterators(),
                        [&](OpBuilder &nb, Location l, ValueRange args) {
                          return fn(nb, l, args[0]);
                        });
  }
};

//===----------------------------------------------------------------------===//
// linea.presum: a sequential scan carrying the running sum
//===----------------------------------------------------------------------===//

struct LowerPresum : OpRewritePattern<PresumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PresumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = castToF32(rewriter, loc, op.getInput());
    Value scan = buildSequentialScan(rewriter, loc, x, op.getScanDim(),
                                     op.getExclusive(), op.getReverse(), {});
    rewriter.replaceOp(op, castFromF32(rewriter, loc, scan,
                                       op.getOutput().getType().getElementType()));
    return success();
  }
};

struct ConvertLineaToLinalgPass
    : linea::impl::ConvertLineaToLinalgBase<ConvertLineaToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandFoldedAttentionPatterns(patterns);
    populateFoldToLoopPatterns(patterns);
    populateLineaToLinalgPatterns(patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
    WalkResult leftover = getOperation()->walk([](Operation *op) {
      if (!isa<LineaDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitOpError() << "could not be lowered by convert-linea-to-linalg";
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateLineaToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLinearAttention, LowerGatedLinearAttention, LowerAttention,
               LowerPresum>(patterns.getContext());
}
