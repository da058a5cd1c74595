//===- ExpandFoldedAttention.cpp - folded_attention -> fold + attention ---===//
//
// The projections are contractions whose weight index is `h * D/h + c`, so
// they produce the per-head layout `[B..., h, 2l, D/h]` directly and consume
// it again in the output projection, with no reshape or transpose between.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAEXPANDFOLDEDATTENTION
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {


Value multiplyAdd(OpBuilder &b, Location loc, ValueRange args) {
  Value prod = arith::MulFOp::create(b, loc, args[0], args[1]);
  return arith::AddFOp::create(b, loc, args[2], prod);
}

struct ExpandFoldedAttention : OpRewritePattern<FoldedAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType xType = op.getInput().getType();
    int64_t numBatch = numBatchDims(xType);
    int64_t model = xType.getDimSize(featureDim(xType));
    int64_t heads = op.getNumHeads();
    int64_t window = 2 * op.getSegmentLength();

    auto fold = FoldOp::create(rewriter, loc, xType, op.getMemory().getType(),
                               op.getInput(), op.getMemory(),
                               op.getSegmentLengthAttr());
    SmallVector<int64_t> windowShape(xType.getShape());
    windowShape[seqDim(xType)] = window;
    auto windowType = RankedTensorType::get(windowShape, xType.getElementType());
    Block *body = rewriter.createBlock(&fold.getBody(), {}, {windowType}, {loc});

    Value w = castToF32(rewriter, loc, body->getArgument(0));
    auto f32Weight = [&](Value weight) {
      return castToF32(rewriter, loc, weight);
    };
    SmallVector<OpFoldResult> headShape =
        leadingSizes(rewriter, loc, w, numBatch);
    llvm::append_range(headShape, ArrayRef<OpFoldResult>{
                                      rewriter.getIndexAttr(heads),
                                      rewriter.getIndexAttr(window),
                                      rewriter.getIndexAttr(model / heads)});

    // Qh[b, h, n, c] = sum_d W[b, n, d] * wq[d, h * D/h + c]
    LoopSpace proj(getContext(), numBatch, {kPar, kPar, kPar, kRed});
    AffineExpr h = proj[0], n = proj[1], c = proj[2], d = proj[3];
    AffineExpr column = h * (model / heads) + c;
    auto project = [&](Value weight) {
      Value zeros = buildFilled(rewriter, loc, headShape,
                                rewriter.getF32Type(), 0);
      return buildGeneric(rewriter, loc, {w, f32Weight(weight)}, zeros,
                          {proj.map({n, d}), proj.mapWithoutBatch({d, column}),
                           proj.map({h, n, c})},
                          proj.iterators(), multiplyAdd);
    };
    Value qh = project(op.getWq()), kh = project(op.getWk()),
          vh = project(op.getWv());
    Value attended = AttentionOp::create(
        rewriter, loc, qh.getType(), qh, kh, vh,
        MaskAttr::get(getContext(), Mask::causal), FloatAttr());

    // R[b, n, e] = sum_{h, c} A[b, h, n, c] * wo[h * D/h + c, e]
    LoopSpace out(getContext(), numBatch, {kPar, kPar, kRed, kRed});
    AffineExpr on = out[0], oe = out[1], oh = out[2], oc = out[3];
    SmallVector<OpFoldResult> outShape = leadingSizes(rewriter, loc, w, numBatch);
    outShape.push_back(rewriter.getIndexAttr(window));
    outShape.push_back(rewriter.getIndexAttr(model));
    Value r = buildGeneric(
        rewriter, loc, {attended, f32Weight(op.getWo())},
        buildFilled(rewriter, loc, outShape, rewriter.getF32Type(), 0),
        {out.map({oh, on, oc}),
         out.mapWithoutBatch({oh * (model / heads) + oc, oe}),
         out.map({on, oe})},
        out.iterators(), multiplyAdd);
    r = castFromF32(rewriter, loc, r, xType.getElementType());
    if (r.getType() != windowType)
      r = tensor::CastOp::create(rewriter, loc, windowType, r);
    YieldOp::create(rewriter, loc, r);

    rewriter.replaceOp(op, fold.getResults());
    return success();
  }
};

struct LineaExpandFoldedAttentionPass
    : linea::impl::LineaExpandFoldedAttentionBase<
          LineaExpandFoldedAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandFoldedAttentionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateExpandFoldedAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ExpandFoldedAttention>(patterns.getContext());
}
