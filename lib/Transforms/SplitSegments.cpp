//===- SplitSegments.cpp - packed sequences -> the op on each segment -----===//
//
// An op with offsets is, by definition, the op on each segment alone; this
// pass writes the definition out (a parallel loop over the segments, see
// buildPerSegment), so that every later pass sees ops without offsets.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASPLITSEGMENTS
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

#define DEBUG_TYPE "linea-split-segments"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// presum offsets(o) -> per segment n: presum of its rows (and of its rows
/// of the decay), with the op's direction, exclusivity and form.
struct SplitPresumSegments : OpRewritePattern<PresumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PresumOp op,
                                PatternRewriter &rewriter) const override {
    Value offsets = op.getOffsets();
    if (!offsets)
      return rewriter.notifyMatchFailure(op, "one sequence: no offsets");
    SmallVector<Value> sequences{op.getInput()};
    if (Value decay = op.getDecay())
      sequences.push_back(decay);
    Value result = buildPerSegment(
        rewriter, op.getLoc(), offsets, sequences, op.getScanDim(),
        op.getType().getElementType(),
        [&](OpBuilder &b, Location loc, const Segment &segment) -> Value {
          Value rows = segment.slices[0];
          Value decay = op.getDecay() ? segment.slices[1] : Value();
          return PresumOp::create(b, loc, rows.getType(), rows, decay,
                                  /*offsets=*/Value(), op.getDimAttr(),
                                  op.getExclusiveAttr(), op.getReverseAttr(),
                                  op.getFormAttr());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LineaSplitSegmentsPass
    : linea::impl::LineaSplitSegmentsBase<LineaSplitSegmentsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (target == TargetKind::gpu) {
      WalkResult packed = getOperation()->walk([](PresumOp op) {
        if (!op.getOffsets())
          return WalkResult::advance();
        op.emitOpError() << "has packed segments (offsets), which run on the "
                            "CPU only so far: the GPU lowering has no grid "
                            "over segments yet";
        return WalkResult::interrupt();
      });
      if (packed.wasInterrupted())
        return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateSplitSegmentsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateSplitSegmentsPatterns(RewritePatternSet &patterns) {
  patterns.add<SplitPresumSegments>(patterns.getContext());
}
