//===- LowerCopies.cpp - memref.copy -> linalg.copy -----------------------===//

#include "linea/Bufferization/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEALOWERCOPIES
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea


using namespace mlir;

namespace {

struct CopyToLinalg : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    // linalg.copy needs ranked memrefs; unranked ones keep the runtime call.
    if (!isa<MemRefType>(op.getSource().getType()) ||
        !isa<MemRefType>(op.getTarget().getType()))
      return rewriter.notifyMatchFailure(op, "an unranked memref");
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                op.getTarget());
    return success();
  }
};

struct LineaLowerCopiesPass
    : linea::impl::LineaLowerCopiesBase<LineaLowerCopiesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
