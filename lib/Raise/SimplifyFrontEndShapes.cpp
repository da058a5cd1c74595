//===- SimplifyFrontEndShapes.cpp - the front end's shape idioms, plain ---===//
//
// The patterns linea-raise applies to its working copy (FrontEndShapes.cpp),
// applied to the model itself: what is not raised still loses its
// broadcast copies and opaque reshapes before the CPU path fuses and
// compiles it.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "linea/Raise/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASIMPLIFYFRONTENDSHAPES
#include "linea/Raise/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

struct LineaSimplifyFrontEndShapesPass
    : linea::impl::LineaSimplifyFrontEndShapesBase<
          LineaSimplifyFrontEndShapesPass> {
  void runOnOperation() override {
    if (failed(linea::raise::foldShapeGuards(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    linea::raise::populateFrontEndShapePatterns(patterns);
    // Not converging within the driver's limit leaves valid IR.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
