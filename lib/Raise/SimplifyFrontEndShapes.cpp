//===- SimplifyFrontEndShapes.cpp - the front end's shape idioms, plain ---===//
//
// The patterns linea-raise applies to its working copy (FrontEndShapes.cpp),
// applied to the model itself: what is not raised still loses its
// broadcast copies and opaque reshapes before the CPU path fuses and
// compiles it.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Raise/Passes.h"

#include "mlir/Interfaces/LoopLikeInterface.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASIMPLIFYFRONTENDSHAPES
#include "linea/Raise/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Whether `function` is model IR as the front end wrote it: no Linea op
/// and no loop. A raised function was simplified by the raise already (its
/// working copy replaced it), and the forms' loops carry index arithmetic
/// that the guard folding has no business rewriting.
bool isAsWritten(func::FuncOp function) {
  WalkResult found = function.walk([](Operation *op) {
    if (isa<linea::LineaDialect>(op->getDialect()) ||
        isa<LoopLikeOpInterface>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !found.wasInterrupted();
}

struct LineaSimplifyFrontEndShapesPass
    : linea::impl::LineaSimplifyFrontEndShapesBase<
          LineaSimplifyFrontEndShapesPass> {
  void runOnOperation() override {
    if (!isAsWritten(getOperation()))
      return;
    if (failed(linea::raise::foldShapeGuards(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    linea::raise::populateFrontEndShapePatterns(patterns);
    // Not converging within the driver's limit leaves valid IR.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
