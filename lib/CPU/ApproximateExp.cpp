//===- ApproximateExp.cpp - exp as arithmetic the vectorizer can widen ----===//

#include "linea/CPU/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAAPPROXIMATEEXP
#include "linea/CPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

struct LineaApproximateExpPass
    : linea::impl::LineaApproximateExpBase<LineaApproximateExpPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return name == math::ExpOp::getOperationName(); });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
