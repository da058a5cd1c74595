//===- FoldToLoop.cpp - linea.fold -> a loop over segments ----------------===//
//
// The loop carries exactly one memory `[B..., l, D]` and the output; each
// iteration's window is `2l` rows. The body is cloned into the loop so its
// Linea ops remain open to the other rewrites.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAFOLDTOLOOP
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

struct FoldToLoop : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto type = op.getInput().getType();
    int64_t seq = seqDim(type), rank = type.getRank();
    int64_t segment = op.getSegmentLength();
    Block &body = op.getBody().front();
    Value window = body.getArgument(0);
    auto windowType = cast<RankedTensorType>(window.getType());

    SmallVector<OpFoldResult> xSizes = tensor::getMixedSizes(rewriter, loc, x);
    Value seqLen = getValueOrCreateConstantIndexOp(rewriter, loc, xSizes[seq]);
    Value segLen = indexConst(rewriter, loc, segment);
    Value numSegments = arith::DivUIOp::create(rewriter, loc, seqLen, segLen);
    Value output = tensor::EmptyOp::create(rewriter, loc, xSizes,
                                           type.getElementType());
    SmallVector<OpFoldResult> segSizes(xSizes);
    segSizes[seq] = rewriter.getIndexAttr(segment);
    SmallVector<OpFoldResult> windowSizes(xSizes);
    windowSizes[seq] = rewriter.getIndexAttr(2 * segment);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    auto offsetsAt = [&](OpFoldResult seqOffset) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[seq] = seqOffset;
      return offsets;
    };
    auto yield = cast<YieldOp>(body.getTerminator());

    Value zero = indexConst(rewriter, loc, 0), one = indexConst(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, numSegments, one,
        ValueRange{op.getMemory(), output},
        [&](OpBuilder &b, Location l, Value iv, ValueRange carried) {
          Value start = arith::MulIOp::create(b, l, iv, segLen);
          Value current = tensor::ExtractSliceOp::create(
              b, l, x, offsetsAt(start), segSizes, strides);
          // W = concat(M, x[s*l : (s+1)*l]) along the sequence.
          Value w = tensor::EmptyOp::create(b, l, windowSizes,
                                            windowType.getElementType());
          w = tensor::InsertSliceOp::create(
              b, l, carried[0], w, offsetsAt(b.getIndexAttr(0)),
              tensor::getMixedSizes(b, l, carried[0]), strides);
          w = tensor::InsertSliceOp::create(
              b, l, current, w, offsetsAt(b.getIndexAttr(segment)),
              tensor::getMixedSizes(b, l, current), strides);
          IRMapping mapping;
          mapping.map(window, w);
          for (Operation &nested : body.without_terminator())
            b.clone(nested, mapping);
          Value evolved = mapping.lookupOrDefault(yield.getValue());
          // y[s*l : (s+1)*l] = M = R[l : 2l].
          Value next = tensor::ExtractSliceOp::create(
              b, l, evolved, offsetsAt(b.getIndexAttr(segment)), segSizes,
              strides);
          Value updated = tensor::InsertSliceOp::create(
              b, l, next, carried[1], offsetsAt(start),
              tensor::getMixedSizes(b, l, next), strides);
          // Copy into the carried buffer so the loop keeps one memory
          // buffer (bufferization needs the yield equivalent to the iter arg).
          if (next.getType() != op.getMemory().getType())
            next = tensor::CastOp::create(b, l, op.getMemory().getType(), next);
          Value memory =
              linalg::CopyOp::create(b, l, next, carried[0]).getResult(0);
          scf::YieldOp::create(b, l, ValueRange{memory, updated});
        });
    // The loop carries (memory, output); the fold returns (output, memory).
    rewriter.replaceOp(op, {loop.getResult(1), loop.getResult(0)});
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
