//===- NarrowTruncations.cpp - f64 -> 16-bit truncations LLVM can lower ---===//
//
// LLVM lowers an f64 -> bf16 truncation to a compiler-rt call that libgcc
// does not define; arith-expand rewrites f32 -> bf16 as integer arithmetic
// but not f64 -> bf16. So constants are folded here and the rest goes
// through f32.
//
//===----------------------------------------------------------------------===//

#include "linea/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEANARROWTRUNCATIONS
#include "linea/CPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// A truncation from wider than f32 to narrower than f32.
bool truncatesPastF32(arith::TruncFOp op) {
  auto from = dyn_cast<FloatType>(getElementTypeOrSelf(op.getIn().getType()));
  auto to = dyn_cast<FloatType>(getElementTypeOrSelf(op.getType()));
  return from && to && from.getWidth() > 32 && to.getWidth() < 32;
}

/// truncf(constant) -> the constant rounded to nearest even.
struct FoldTruncatedConstant : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    FloatAttr constant;
    auto to = dyn_cast<FloatType>(op.getType());
    if (!truncatesPastF32(op) || !to ||
        !matchPattern(op.getIn(), m_Constant(&constant)))
      return rewriter.notifyMatchFailure(op, "not a scalar constant");
    APFloat value = constant.getValue();
    bool losesInfo = false;
    value.convert(to.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, rewriter.getFloatAttr(to, value));
    return success();
  }
};

/// truncf(x : f64) -> truncf(truncf(x) : f32).
struct TruncateThroughF32 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!truncatesPastF32(op))
      return rewriter.notifyMatchFailure(op, "not wider -> narrower than f32");
    Type f32 = rewriter.getF32Type();
    if (auto shaped = dyn_cast<ShapedType>(op.getType()))
      f32 = shaped.clone(f32);
    Value single = arith::TruncFOp::create(rewriter, op.getLoc(), f32,
                                           op.getIn());
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), single);
    return success();
  }
};

struct LineaNarrowTruncationsPass
    : linea::impl::LineaNarrowTruncationsBase<LineaNarrowTruncationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The fold first: a constant is rounded once.
    patterns.add<FoldTruncatedConstant>(&getContext(), /*benefit=*/2);
    patterns.add<TruncateThroughF32>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
