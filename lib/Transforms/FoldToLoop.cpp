//===- FoldToLoop.cpp - linea.fold -> a loop over segments ----------------===//
//
// The loop carries exactly one memory `[B..., l, D]` and the output; each
// iteration's window is `2l` rows. The body is cloned into the loop so its
// Linea ops remain open to the other rewrites.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/FoldBuilders.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAFOLDTOLOOP
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

struct FoldToLoop : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildSegmentLoop(rewriter, op));
    return success();
  }
};

struct LineaFoldToLoopPass
    : linea::impl::LineaFoldToLoopBase<LineaFoldToLoopPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldToLoopPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateFoldToLoopPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldToLoop>(patterns.getContext());
}
