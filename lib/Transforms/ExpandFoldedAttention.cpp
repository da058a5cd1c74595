//===- ExpandFoldedAttention.cpp - folded_attention -> fold + attention ---===//
//
// The projections are contractions whose weight index is `h * D/h + c`, so
// they produce the per-head layout `[B..., h, 2l, D/h]` directly and consume
// it again in the output projection, with no reshape or transpose between
// (see Utils/FoldBuilders).
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/FoldBuilders.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAEXPANDFOLDEDATTENTION
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

struct ExpandFoldedAttention : OpRewritePattern<FoldedAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildFoldedAttentionFold(rewriter, op).getResults());
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
