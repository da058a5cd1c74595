//===- LineaToLinalg.cpp - the reference lowering of Linea ops ------------===//
//
// Each op becomes linalg/scf/tensor IR that computes SPEC's definition
// directly: the masked quadratic form for linear attention, the recurrence
// for gated linear attention, masked softmax, a sequential scan for presum,
// a segment loop for fold. Correctness by inspection is the goal; the
// optimizing passes are measured against this. It runs under the dialect
// conversion driver with every Linea op illegal, so anything it cannot
// lower is reported by the driver.
//
// All arithmetic is f32; f16/bf16 operands are extended on entry.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/Segments.h"
#include "linea/Utils/FoldBuilders.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

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

/// The last key position row `i` sees when rows [0, j) are bidirectional:
/// `p(i) = max(i, j - 1)`, the row sums over `t <= p(i)` (none: j = L;
/// causal: j = 0).
Value lastVisibleKey(OpBuilder &b, Location loc, Value row, Value prefix) {
  Value lastPrefix =
      arith::SubIOp::create(b, loc, prefix, indexConst(b, loc, 1));
  return arith::MaxSIOp::create(b, loc, row, lastPrefix);
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
          Value den = arith::AddFOp::create(
              nb, l, args[1], f32Constant(nb, l, kNormalizerEpsilon));
          x = arith::DivFOp::create(nb, l, x, den);
        }
        if (elementType != x.getType())
          x = arith::TruncFOp::create(nb, l, elementType, x);
        return x;
      });
}

//===----------------------------------------------------------------------===//
// linea.gated_linear_attention: the recurrence
//===----------------------------------------------------------------------===//

/// Rows `[start, start + 1)` of `x` along the sequence dim.
Value rowAt(OpBuilder &b, Location loc, Value x, int64_t seq, Value start) {
  return sliceAlong(b, loc, x, seq, start, b.getIndexAttr(1));
}

/// One step of the recurrence: S = diag(exp(g_t)) S + k_t^T v_t. The
/// exponent is g_t itself: nothing is ever a difference of large sums.
Value recurrenceStep(OpBuilder &b, Location loc, int64_t numBatch, Value kRow,
                     Value vRow, Value gRow, Value state, bool scalarGate) {
  Value decay = sumOverSequence(b, loc, numBatch, gRow, scalarGate);
  state = decayState(b, loc, numBatch, state, decay, scalarGate);
  return transposedMatmulAccumulate(b, loc, numBatch, kRow, vRow, state);
}

/// The gated definition: S_t = diag(exp(g_t)) S_{t-1} + k_t^T v_t from S0;
/// rows [0, j) read S_{j-1}, rows [j, L) read S_i. Returns the unscaled f32
/// rows and the final state S_{L-1}.
std::pair<Value, Value> gatedRecurrence(OpBuilder &b, Location loc,
                                        const AttentionDims &dims, Value q,
                                        Value k, Value v, Value g, Value init,
                                        Value prefix, bool scalarGate) {
  int64_t seq = dims.numBatch;
  Value length = getValueOrCreateConstantIndexOp(b, loc, dims.seqLen);
  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  Value state = dims.zerosState(b, loc);
  if (init)
    state = linalg::CopyOp::create(b, loc, init, state).getResult(0);
  auto step = [&](OpBuilder &nb, Location l, Value t, Value s) {
    return recurrenceStep(nb, l, dims.numBatch, rowAt(nb, l, k, seq, t),
                          rowAt(nb, l, v, seq, t), rowAt(nb, l, g, seq, t), s,
                          scalarGate);
  };
  // The prefix rows [0, j): the state after them, then every row reads it.
  state = scf::ForOp::create(
              b, loc, zero, prefix, one, ValueRange{state},
              [&](OpBuilder &nb, Location l, Value t, ValueRange carried) {
                scf::YieldOp::create(nb, l, step(nb, l, t, carried[0]));
              })
              .getResult(0);
  Value out = dims.zeros(b, loc, dims.valueDim);
  Value prefixRows = matmulAccumulate(
      b, loc, dims.numBatch,
      sliceAlong(b, loc, q, seq, b.getIndexAttr(0), prefix), state,
      sliceAlong(b, loc, out, seq, b.getIndexAttr(0), prefix));
  out = insertAlong(b, loc, prefixRows, out, seq, b.getIndexAttr(0));
  // The rows [j, L): each reads the state after itself.
  auto rest = scf::ForOp::create(
      b, loc, prefix, length, one, ValueRange{state, out},
      [&](OpBuilder &nb, Location l, Value t, ValueRange carried) {
        Value next = step(nb, l, t, carried[0]);
        Value outRow = rowAt(nb, l, carried[1], seq, t);
        Value row = matmulAccumulate(nb, l, dims.numBatch,
                                     rowAt(nb, l, q, seq, t), next, outRow);
        Value written = insertAlong(nb, l, row, carried[1], seq, t);
        scf::YieldOp::create(nb, l, ValueRange{next, written});
      });
  return {rest.getResult(1), rest.getResult(0)};
}

//===----------------------------------------------------------------------===//
// linea.linear_attention and linea.gated_linear_attention
//===----------------------------------------------------------------------===//

/// The prefix length j: rows [0, j) read the state after row j - 1 (L for
/// a bidirectional op, 0 for a causal one).
Value bidirectionalRows(OpBuilder &b, Location loc,
                        LinearAttentionOpInterface op, Value seqLen) {
  switch (op.getMask()) {
  case Mask::none:
    return seqLen;
  case Mask::causal:
    return indexConst(b, loc, 0);
  case Mask::prefix:
    return prefixLengthValue(b, loc, op.getStaticPrefixLength(),
                             op.getPrefixIndex(), op.getQuery());
  }
  llvm_unreachable("unknown mask");
}

struct LowerLinearAttention
    : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (op.isPacked())
      return rewriter.notifyMatchFailure(op,
                                         "packed: split into segments first");
    // By its definition: the scores of every pair of rows.
    Location loc = kernelStageLoc(op, "quadratic");
    FeatureMap map = op.getFeatureMap();
    Value q = applyFeatureMap(rewriter, loc,
                              castToF32(rewriter, loc, op.getQuery()), map);
    Value k = applyFeatureMap(rewriter, loc,
                              castToF32(rewriter, loc, op.getKey()), map);
    Value v = castToF32(rewriter, loc, op.getValue());
    AttentionDims dims(rewriter, loc, q, v);
    Value seqLen = getValueOrCreateConstantIndexOp(rewriter, loc, dims.seqLen);
    Value prefix = bidirectionalRows(rewriter, loc, op, seqLen);
    Value init = op.getInitialState();
    float scale = op.getScale().convertToFloat();
    Type elementType = op.getOutput().getType().getElementType();

    SmallVector<Value> results;
    if (Value g = op.getGate()) {
      auto [o, state] =
          gatedRecurrence(rewriter, loc, dims, q, k, v,
                          castToF32(rewriter, loc, g), init, prefix,
                          op.hasScalarGate());
      results.push_back(
          finishOutput(rewriter, loc, dims, o, Value(), scale, elementType));
      if (op.getFinalState())
        results.push_back(state);
      rewriter.replaceOp(op, results);
      return success();
    }

    // a[i, t] = [t <= p(i)] * phi(q_i) . phi(k_t), p(i) = max(i, j - 1).
    Value scores = maskedScores(
        rewriter, loc, dims.numBatch, q, k,
        [&](OpBuilder &b, Location l, Value row, Value col) {
          return causallyVisible(
              b, l, col, lastVisibleKey(b, l, row, prefix));
        });
    Value o = matmulAccumulate(rewriter, loc, dims.numBatch, scores, v,
                               dims.zeros(rewriter, loc, dims.valueDim));
    if (init)
      o = matmulAccumulate(rewriter, loc, dims.numBatch, q, init, o);
    Value denominator;
    if (op.getNormalize())
      denominator = rowSums(rewriter, loc, dims.numBatch, scores);
    results.push_back(finishOutput(rewriter, loc, dims, o, denominator, scale,
                                   elementType));
    if (op.getFinalState())
      results.push_back(transposedMatmulAccumulate(
          rewriter, loc, dims.numBatch, k, v,
          init ? init : dims.zerosState(rewriter, loc)));
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// linea.attention: masked softmax
//===----------------------------------------------------------------------===//

struct LowerAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOffsets())
      return rewriter.notifyMatchFailure(op,
                                         "packed: split into segments first");
    // By its definition: the scores of every pair of rows.
    Location loc = kernelStageLoc(op, "quadratic");
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
          Value visible = causallyVisible(b, l, loopIndex(b, l, s2, 1), last);
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
          // Only a row that sees no key has a zero sum; a NaN that went in
          // propagates (a NaN sum is not zero).
          Value seen = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE,
                                             args[1], zero);
          Value ratio = arith::DivFOp::create(b, l, args[0], args[1]);
          Value x = arith::SelectOp::create(b, l, seen, ratio, zero);
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
// linea.presum: a sequential scan carrying the running (decayed) sum
//===----------------------------------------------------------------------===//

struct LowerPresum : OpRewritePattern<PresumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PresumOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOffsets())
      return rewriter.notifyMatchFailure(op,
                                         "packed: split into segments first");
    Location loc = kernelStageLoc(op, "scan");
    Value x = castToF32(rewriter, loc, op.getInput());
    Value decay;
    if (op.getDecay())
      decay = castToF32(rewriter, loc, op.getDecay());
    Value sum =
        buildSequentialScan(rewriter, loc, x, op.getScanDim(),
                            op.getExclusive(), op.getReverse(), {}, decay);
    rewriter.replaceOp(op, castFromF32(rewriter, loc, sum,
                                       op.getOutput().getType().getElementType()));
    return success();
  }
};

/// fold: its loop over segments (the body's Linea ops are lowered in turn).
struct LowerFold : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FoldOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildSegmentLoop(rewriter, op));
    return success();
  }
};

/// folded_attention: the fold it is defined as.
struct LowerFoldedAttention : OpRewritePattern<FoldedAttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FoldedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildFoldedAttentionFold(rewriter, op).getResults());
    return success();
  }
};

struct ConvertLineaToLinalgPass
    : linea::impl::ConvertLineaToLinalgBase<ConvertLineaToLinalgPass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<LineaDialect, tm_tensor::TMTensorDialect>();
    // Run-time checks stay for linea-route-checks, which lowers them to
    // calls (an embedder's handler, or puts and abort) late in the
    // pipelines.
    target.addLegalOp<CheckOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateLineaToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    dropShardedDims();
  }

  /// Linea leaves the program here, its function attributes too: hosts read
  /// `linea.sharded_dim` before lowering, and LLVM has no use for it.
  void dropShardedDims() {
    getOperation()->walk([](FunctionOpInterface function) {
      for (unsigned i = 0; i < function.getNumArguments(); ++i)
        function.removeArgAttr(i, LineaDialect::kShardedDimAttrName);
      for (unsigned i = 0; i < function.getNumResults(); ++i)
        function.removeResultAttr(i, LineaDialect::kShardedDimAttrName);
    });
  }
};

} // namespace

void mlir::linea::populateLineaToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLinearAttention, LowerAttention, LowerPresum, LowerFold,
               LowerFoldedAttention>(patterns.getContext());
  // A packed op is, by definition, the op on each segment (lowered in turn).
  populateSplitSegmentsPatterns(patterns);
  populateScanToLoopsPatterns(patterns);
}
